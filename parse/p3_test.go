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
	if _, err := RDMADeviceList(cmds[0].Output); err != nil {
		t.Error(err)
	}
	if _, err := Vmkping(cmds[2].Output); err != nil {
		t.Error(err)
	}
	vms, err := VMProcessList(cmds[1].Output)
	if err != nil || vms[0].DisplayName != "db; $(reboot)" || cmds[1].Line+vms[0].Line != 8 {
		t.Errorf("vm %+v %v", vms, err)
	}
	_, err = SplitTranscript("just some text\nwithout prompts\n")
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no shell prompt") {
		t.Fatalf("want no-prompt error, got %v", err)
	}
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
