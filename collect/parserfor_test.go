package collect_test

import (
	"errors"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// `pvrdma-doctor parse` picks its parser from the catalogue: every
// spelling Recognize knows, other values of the same commands, the
// outputs only parse reads. The command lines are those of the samples in
// parse/testdata and the spellings admins type.
func TestParserFor(t *testing.T) {
	portgroups := catalog.ParseOnly()[0]
	cases := map[string]string{
		"esxcli rdma device list":                                          string(catalog.KindRDMADeviceList),
		"  esxcli   --formatter=xml   network nic list ":                   string(catalog.KindNICList),
		"esxcli --formatter keyvalue network nic list":                     string(catalog.KindNICList),
		"localcli network nic list":                                        string(catalog.KindNICList),
		"esxcli rdma device stats get -d vmrdma12":                         string(catalog.KindRDMAStats),
		"esxcli network nic get -n vmnic7":                                 string(catalog.KindNICGet),
		"esxcli --formatter=xml network nic get -n vmnic0":                 string(catalog.KindNICGet),
		"esxcli network nic dcb status get -n vmnic4":                      string(catalog.KindDCBStatus),
		"esxcli network nic stats get -n vmnic4":                           string(catalog.KindNICStats),
		"vsish -e cat /vmkModules/vrdma/pvrdmaDevices/123_0/properties":    string(catalog.KindPVRDMAProperties),
		"vsish -e get /vmkModules/vrdma/pvrdmaDevices/123_0/properties":    string(catalog.KindPVRDMAProperties),
		"vsish -e ls /vmkModules/vrdma/pvrdmaDevices/":                     string(catalog.KindPVRDMADeviceLs),
		"vsish -e ls /net/pNics/vmnic0/rxqueues/queues/0/rss/rxSecQueues/": string(catalog.KindPVRDMADeviceLs),
		"vmkping -I vmk1 -S rdma -c 3 -d -s 8972 10.0.0.2":                 string(catalog.KindVmkping),
		"ping ++netstack=vxlan 10.44.44.59 -s 1600 -d -I vmk10":            string(catalog.KindVmkping),
		"vmkping -I vmk0 esx02.lab":                                        string(catalog.KindVmkping),
		"cat /vmfs/volumes/ds1/vm/vm.vmx":                                  string(catalog.KindVMX),
		"cat /tmp/vm.vmx":                                                  string(catalog.KindVMX),
		"esxcfg-nics -l":                                                   string(catalog.KindNICList),
		"esxcfg-vmknic -l":                                                 string(catalog.KindIPInterfaceList),
		"esxcfg-vswitch -l":                                                string(catalog.KindStandardSwitchList),
		"[root@esx01:~] esxcli vm process list":                            string(catalog.KindVMProcessList),
		"esxcli network firewall ruleset list | grep pvrdma":               string(catalog.KindFirewallRulesets),
		"esxcli network firewall ruleset rule list -r pvrdma":              string(catalog.KindFirewallRules),
		"esxcli network firewall ruleset rule list -r custom-firewall":     string(catalog.KindFirewallRules),
		"esxcli network firewall get":                                      string(catalog.KindFirewallGlobal),
		"esxcli system settings advanced list -o /Net/PVRDMAVmknic":        string(catalog.KindPVRDMAVmknicOpt),
		"esxcli system settings advanced list -o /Net/TcpipDefLROEnabled":  string(catalog.KindPVRDMAVmknicOpt),
		"esxcli hardware pci list":                                         string(catalog.KindHardwarePCI),
		"esxcli system version get":                                        string(catalog.KindSystemVersion),
		"esxcli network ip interface ipv4 get":                             string(catalog.KindIPv4Get),
		"esxcli network vswitch standard list":                             string(catalog.KindStandardSwitchList),
		"esxcli network vswitch standard portgroup list":                   portgroups.Line,
		"ibv_devinfo -v":                                                   string(catalog.KindGuestDevinfo),
		"esxcli storage core device list":                                  "",
		"":                                                                 "",
		"vsish -e cat /etc/passwd":                                         "",
		"esxcli rdma device":                                               "",
		"esxcli rdma device listing":                                       "",
		"cat /etc/shadow":                                                  "",
	}
	for cmd, want := range cases {
		got := ""
		if s, ok := collect.ParserFor(cmd); ok {
			got = string(s.Kind)
			if s.Kind == "" {
				got = s.Line
			}
		}
		if got != want {
			t.Errorf("ParserFor(%q) = %q, want %q", cmd, got, want)
		}
	}
	// Every spec that parse reads takes empty output, or reports a
	// *parse.Error.
	for _, list := range [][]*catalog.Spec{catalog.Specs(), catalog.ParseOnly(), catalog.GuestSpecs()} {
		for _, s := range list {
			if _, err := s.Parser.Parse(""); err != nil {
				var pe *parse.Error
				if _, partial := parse.Skipped(err); !partial && !errors.As(err, &pe) {
					t.Errorf("%s: %T", s.Line, err)
				}
			}
		}
	}
}
