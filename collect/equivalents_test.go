package collect

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestRecognizeEquivalentForms(t *testing.T) {
	cases := []struct {
		typed        string
		kind         hostio.Kind
		line, host   string
		filter, frmt string
	}{
		{"esxcli network nic list", catalog.KindNICList, "esxcli network nic list", "", "", ""},
		{"localcli network nic list", catalog.KindNICList, "esxcli network nic list", "", "", ""},
		{"/sbin/esxcli   network  nic list | less", catalog.KindNICList, "esxcli network nic list", "", "", ""},
		{"esxcli --formatter=xml network nic list", catalog.KindNICList, "esxcli network nic list", "", "", "xml"},
		{"esxcli --formatter keyvalue network nic list", catalog.KindNICList, "esxcli network nic list", "", "", "keyvalue"},
		{"esxcli --formatter=csv network nic list", catalog.KindNICList, "esxcli network nic list", "", "", "csv"},
		{"esxcli -s esx01.lab -u root network nic list", catalog.KindNICList, "esxcli network nic list", "esx01.lab", "", ""},
		{"esxcli --server=vc01 --vihost=esx02 --username=administrator@vsphere.local network nic list", catalog.KindNICList, "esxcli network nic list", "esx02", "", ""},
		{"esxcli.exe --server esx03 network nic list", catalog.KindNICList, "esxcli network nic list", "esx03", "", ""},
		{"ssh root@esx04 esxcli network nic list", catalog.KindNICList, "esxcli network nic list", "esx04", "", ""},
		{`ssh -p 22 root@esx05 "esxcli network nic list"`, catalog.KindNICList, "esxcli network nic list", "esx05", "", ""},
		{"esxcfg-nics -l", catalog.KindNICList, "esxcfg-nics -l", "", "", ""},
		{"esxcfg-vmknic -l", catalog.KindIPInterfaceList, "esxcfg-vmknic -l", "", "", ""},
		{"esxcfg-vswitch -l", catalog.KindStandardSwitchList, "esxcfg-vswitch -l", "", "", ""},
		{"esxcli system settings advanced list -o /Net/PVRDMAVmknic", catalog.KindPVRDMAVmknicOpt, "esxcli system settings advanced list -o /Net/PVRDMAVmknic", "", "", ""},
		{"esxcli system settings advanced list --option=/Net/PVRDMAVmknic", catalog.KindPVRDMAVmknicOpt, "esxcli system settings advanced list -o /Net/PVRDMAVmknic", "", "", ""},
		{"esxcli system settings advanced list --option /net/pvrdmavmknic", catalog.KindPVRDMAVmknicOpt, "esxcli system settings advanced list -o /Net/PVRDMAVmknic", "", "", ""},
		{"esxcli network firewall ruleset rule list --ruleset-id=pvrdma", catalog.KindFirewallRules, "esxcli network firewall ruleset rule list -r pvrdma", "", "", ""},
		{"esxcli network firewall ruleset rule list -r pvrdma", catalog.KindFirewallRules, "esxcli network firewall ruleset rule list -r pvrdma", "", "", ""},
		{"esxcli network firewall ruleset list -r pvrdma", catalog.KindFirewallRulesets, "esxcli network firewall ruleset list -r pvrdma", "", "pvrdma", ""},
		{"esxcli network firewall ruleset list | grep pvrdma", catalog.KindFirewallRulesets, "esxcli network firewall ruleset list", "", "grep pvrdma", ""},
		{"esxcli network ip interface ipv4 get -i vmk1", catalog.KindIPv4Get, "esxcli network ip interface ipv4 get -i vmk1", "", "vmk1", ""},
		{"esxcli network ip interface ipv4 get --interface-name=vmk1", catalog.KindIPv4Get, "esxcli network ip interface ipv4 get --interface-name=vmk1", "", "vmk1", ""},
		{"esxcli rdma device stats get --device=vmrdma1", catalog.KindRDMAStats, "esxcli rdma device stats get -d vmrdma1", "", "", ""},
		{"esxcli rdma device stats get -d vmrdma1", catalog.KindRDMAStats, "esxcli rdma device stats get -d vmrdma1", "", "", ""},
		{"esxcli network nic get --nic-name vmnic4", catalog.KindNICGet, "esxcli network nic get -n vmnic4", "", "", ""},
		{"esxcli network nic dcb status get -n vmnic4", catalog.KindDCBStatus, "esxcli network nic dcb status get -n vmnic4", "", "", ""},
		{"vsish -e ls /vmkModules/vrdma/pvrdmaDevices", catalog.KindPVRDMADeviceLs, "vsish -e ls /vmkModules/vrdma/pvrdmaDevices/", "", "", ""},
		{"vsish -e get /vmkModules/vrdma/pvrdmaDevices/1001474360_0/properties/", catalog.KindPVRDMAProperties, "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/1001474360_0/properties", "", "", ""},
		{"vmkping -d -s 8972 -I vmk1 10.0.0.2", catalog.KindVmkping, "vmkping -I vmk1 -c 3 -d -s 8972 10.0.0.2", "", "", ""},
		{"ping ++netstack=vxlan 10.44.44.59 -s 1600 -d -I vmk10", catalog.KindVmkping, "vmkping -I vmk10 -S vxlan -c 3 -d -s 1600 10.44.44.59", "", "", ""},
		{"vmkping -I vmk0 192.168.1.22", catalog.KindVmkping, "vmkping -I vmk0 192.168.1.22", "", "", ""},
	}
	for _, c := range cases {
		r, ok := Recognize(c.typed)
		if !ok {
			t.Errorf("%q not recognized", c.typed)
			continue
		}
		if r.Kind != c.kind || r.Line != c.line || r.Host != c.host || r.Filter != c.filter || r.Formatter != c.frmt {
			t.Errorf("%q: got %+v, want kind %s line %q host %q filter %q formatter %q", c.typed, r, c.kind, c.line, c.host, c.filter, c.frmt)
		}
		if r.Filter == "" && !strings.HasPrefix(r.Line, "esxcfg-") && !strings.HasPrefix(c.typed, "vmkping -I vmk0 192") && CheckAllowed(r.Line) != nil {
			t.Errorf("%q: the equivalent %q is not an allowlisted catalogue line", c.typed, r.Line)
		}
	}
	if r, _ := Recognize("esxcfg-vmknic -l"); len(r.Also) != 1 || r.Also[0] != catalog.KindIPv4Get {
		t.Errorf("esxcfg-vmknic -l also feeds IPv4: %+v", r)
	}
	if r, _ := Recognize("esxcfg-vswitch -l"); len(r.Also) != 1 || r.Also[0] != catalog.KindDVSList {
		t.Errorf("esxcfg-vswitch -l also feeds the distributed switches: %+v", r)
	}
	for _, typed := range []string{
		"ping esx01", // a host name: not a probe
		"esxcli system settings advanced list -o /Net/TcpipDefLROEnabled", // another option
		"esxcli network firewall ruleset rule list -r sshServer",          // another ruleset
		"esxcli network nic list --bogus",                                 // an unknown option
		"esxcli network nic get -n eth0",                                  // not a vmnic
		"esxcli network vswitch standard portgroup list",                  // not in the catalogue
		"uptime", "", "ssh root@esx01", "vsish -e cat /etc/passwd",
	} {
		if r, ok := Recognize(typed); ok {
			t.Errorf("%q recognized as %+v", typed, r)
		}
	}
}

// FuzzRecognize: any line either is not recognized or maps to a kind
// whose catalogue line (for complete forms) passes the allowlist.
func FuzzRecognize(f *testing.F) {
	for _, s := range []string{"esxcli network nic list", "esxcli --server=a -u b network ip interface ipv4 get -i vmk1 | grep x",
		"ssh -p 22 root@h 'esxcli vm process list'", "vmkping -I vmk1 -d -s 8972 10.0.0.2", "vsish -e get /vmkModules/vrdma/pvrdmaDevices/1_0/properties/",
		"esxcfg-vmknic -l", "esxcli rdma device stats get --device=vmrdma0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		r, ok := Recognize(typed)
		if !ok {
			return
		}
		if r.Kind == "" || r.Line == "" {
			t.Fatalf("%q: %+v", typed, r)
		}
		if r.Filter == "" && r.Kind != catalog.KindVmkping && !strings.HasPrefix(r.Line, "esxcfg-") && CheckAllowed(r.Line) != nil {
			t.Fatalf("%q: catalogue line %q is not allowlisted", typed, r.Line)
		}
	})
}

// Every stage-1 command the doctor runs is recognized, as itself, in a
// pasted session: a command added to stage 1 without its row in the table
// of equivalent forms would be reported missing from every transcript.
func TestRecognizeEveryStage1Command(t *testing.T) {
	for _, c := range Stage1() {
		rc, ok := Recognize(c.Line)
		if !ok || rc.Kind != c.Kind || rc.Line != c.Line {
			t.Errorf("%q: recognized as %+v (ok %v), want kind %s", c.Line, rc, ok, c.Kind)
		}
	}
}
