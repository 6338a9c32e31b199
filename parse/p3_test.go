package parse

import (
	"errors"
	"strings"
	"testing"
)

const transcript = "Last login: Mon Jan  1 00:00:00 2024\r\n" +
	"[root@esx01:~] esxcli rdma device list\r\n" +
	"Name     Driver      State   MTU   Speed     Paired Uplink  Description\r\n" +
	"-------  ----------  ------  ----  --------  -------------  -----------\r\n" +
	"vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800\r\n" +
	"[root@esx01:~] \r\n" +
	"[root@esx-02.lab:/tmp] esxcli vm process list\r\n" +
	"db; $(reboot)\r\n" +
	"   World ID: 77\r\n" +
	"~ # vmkping -I vmk1 -d -s 8972 10.0.0.2\r\n" +
	"PING 10.0.0.2 (10.0.0.2): 8972 data bytes\r\n" +
	"sendto() failed (Message too long)\r\n"

func TestSplitTranscript(t *testing.T) {
	cmds, err := SplitTranscript(transcript)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 3 {
		t.Fatalf("%d commands: %+v", len(cmds), cmds)
	}
	eq(t, "host0", cmds[0].Host, "esx01")
	eq(t, "cmd0", cmds[0].Command, "esxcli rdma device list")
	eq(t, "line0", cmds[0].Line, 2)
	eq(t, "host1", cmds[1].Host, "esx-02.lab")
	eq(t, "line1", cmds[1].Line, 7)
	eq(t, "out1", cmds[1].Output, "db; $(reboot)\n   World ID: 77")
	eq(t, "host2", cmds[2].Host, "")
	eq(t, "cmd2", cmds[2].Command, "vmkping -I vmk1 -d -s 8972 10.0.0.2")
	// Each output parses with the parser of its command.
	for _, c := range cmds {
		if _, err := Parse(c.Command, c.Output); err != nil {
			t.Errorf("%s: %v", c.Command, err)
		}
	}
	v, _ := Parse(cmds[1].Command, cmds[1].Output)
	if vms := v.([]VMProcess); vms[0].DisplayName != "db; $(reboot)" || cmds[1].Line+vms[0].Line != 8 {
		t.Errorf("vm %+v", vms)
	}
	_, err = SplitTranscript("just some text\nwithout prompts\n")
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no shell prompt") {
		t.Fatalf("want no-prompt error, got %v", err)
	}
}

func TestParseDispatch(t *testing.T) {
	cases := map[string]string{
		"esxcli rdma device list":                                       "esxcli rdma device list",
		"  esxcli   --formatter=xml   network nic list ":                "esxcli network nic list",
		"esxcli --formatter keyvalue network nic list":                  "esxcli network nic list",
		"esxcli rdma device stats get -d vmrdma12":                      "esxcli rdma device stats get -d vmrdmaN",
		"esxcli network nic get -n vmnic7":                              "esxcli network nic get -n vmnicN",
		"esxcli network nic dcb status get -n vmnic4":                   "esxcli network nic dcb status get -n vmnicN",
		"vsish -e cat /vmkModules/vrdma/pvrdmaDevices/123_0/properties": "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/<wid>_<idx>/properties",
		"vsish -e ls /vmkModules/vrdma/pvrdmaDevices/":                  "vsish -e ls DIR",
		"vmkping -I vmk1 -S rdma -c 3 -d -s 8972 10.0.0.2":              "vmkping [options] ADDRESS",
		"ping ++netstack=vxlan 10.44.44.59 -s 1600 -d -I vmk10":         "vmkping [options] ADDRESS",
		"cat /vmfs/volumes/ds1/vm/vm.vmx":                               "cat FILE.vmx",
		"esxcfg-nics -l":                                                "esxcfg-nics -l",
		"[root@esx01:~] esxcli vm process list":                         "esxcli vm process list",
		"esxcli network firewall ruleset list | grep pvrdma":            "esxcli network firewall ruleset list",
		"esxcli network firewall ruleset rule list -r pvrdma":           "esxcli network firewall ruleset rule list -r NAME",
		"esxcli system settings advanced list -o /Net/PVRDMAVmknic":     "esxcli system settings advanced list -o PATH",
	}
	for cmd, want := range cases {
		got := ""
		w := commandWords(cmd)
		for _, c := range commands {
			if c.match(w) {
				got = c.usage
				break
			}
		}
		if got != want {
			t.Errorf("%q -> %q, want %q", cmd, got, want)
		}
	}
	// Every supported command parses empty output or reports an *Error.
	for _, c := range commands {
		if _, err := c.parse(""); err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("%s: %T", c.usage, err)
			}
		}
	}
	_, err := Parse("esxcli storage core device list", "x")
	var ue *UnknownCommandError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "esxcli rdma device list") {
		t.Fatalf("unknown: %v", err)
	}
	for _, bad := range []string{"", "vsish -e cat /etc/passwd", "esxcli rdma device", "esxcli rdma device listing"} {
		if _, err := Parse(bad, ""); !errors.As(err, &ue) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if len(SupportedCommands()) != len(commands) {
		t.Fatal("SupportedCommands")
	}
	v, err := Parse("esxcli --formatter=keyvalue network nic list", sample(t, "esxcli_formatter_keyvalue_network_nic_list__warlock_dell_ixgben_igbn_i40en_esxi8.txt"))
	if err != nil || v.([]NIC)[5].MTU != 9000 {
		t.Fatalf("%v %v", v, err)
	}
	_, err = Parse("esxcli rdma device list", "garbage\n")
	wantParseError(t, err, 2)
}

// The PVRDMA device listing names each adapter `<worldID>_<index>`; one
// function splits it for the planner, the report and the TUI.
func TestSplitDeviceID(t *testing.T) {
	for _, c := range []struct {
		name, wid, idx string
		ok             bool
	}{
		{"2100788_0", "2100788", "0", true},
		{"2100788_12", "2100788", "12", true},
		{"2100788", "2100788", "", false},
		{"_0", "", "0", true},
		{"1_2_3", "1", "2_3", true},
	} {
		wid, idx, ok := SplitDeviceID(c.name)
		if wid != c.wid || idx != c.idx || ok != c.ok {
			t.Errorf("SplitDeviceID(%q) = %q, %q, %v; want %q, %q, %v", c.name, wid, idx, ok, c.wid, c.idx, c.ok)
		}
		if w2, i2, ok2 := (VsishEntry{Name: c.name, IsDir: true}).DeviceID(); w2 != wid || i2 != idx || ok2 != ok {
			t.Errorf("VsishEntry{%q}.DeviceID() differs from SplitDeviceID", c.name)
		}
	}
}
