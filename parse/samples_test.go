package parse

import (
	"strings"
	"testing"
)

// sampleCase is a real capture (testdata, from ../shared/samples) with the
// command that printed it and the values it must give.
type sampleCase struct {
	file, command string
	parse         func(string) (any, error)
	check         func(t *testing.T, v any)
}

var sampleCases = []sampleCase{
	{"esxcfg_nics_l__intel_mfd_esxi_icen_bnxtnet.txt", "esxcfg-nics -l", Untyped(NICList), func(t *testing.T, v any) {
		n := v.([]NIC)
		eq(t, "nics", len(n), 16)
		eq(t, "vmnic0 speed", n[0].SpeedMbps, 25000)
		eq(t, "vmnic0 pci", n[0].PCIDevice, "0000:4b:00.0")
		eq(t, "vmnic14 driver", n[6].Driver, "bnxtnet")
		eq(t, "vmnic14 link", n[6].LinkStatus, "Down")
		eq(t, "vmnic14 desc", n[6].Description, "Broadcom BCM57416 NetXtreme-E 10GBASE-T RDMA Ethernet Controller")
		eq(t, "vmnic9 mac", n[15].MAC, "90:e2:aa:bb:cc:35")
	}},
	{"esxcli_formatter_keyvalue_network_nic_list__warlock_dell_ixgben_igbn_i40en_esxi8.txt", "esxcli --formatter=keyvalue network nic list", Untyped(NICList), func(t *testing.T, v any) {
		n := v.([]NIC)
		eq(t, "vmnic2 link", n[2].LinkStatus, "Down")
		eq(t, "vmnic4 speed", n[4].SpeedMbps, 40000)
		eq(t, "vmnic5 mtu", n[5].MTU, 9000)
		eq(t, "vmnic0 desc", n[0].Description, "Intel(R) Ethernet Controller X550")
	}},
	{"esxcli_formatter_xml_network_nic_get__warlock_ixgben_esxi8.txt", "esxcli --formatter=xml network nic get -n vmnic0", Untyped(NICGet), func(t *testing.T, v any) {
		d := v.(NICDetail)
		eq(t, "name", d.Name, "vmnic0")
		eq(t, "driver", d.Driver, "ixgben")
		eq(t, "driver version", d.DriverVersion, "1.15.1.0")
		eq(t, "firmware", d.FirmwareVersion, "3.30 0x800014a5, 20.5.15")
		eq(t, "link (trailing space trimmed)", d.LinkStatus, "Up")
		eq(t, "pause rx", d.PauseRX, true)
	}},
	{"esxcli_formatter_xml_network_nic_list__warlock_dell_esxi8.txt", "esxcli --formatter=xml network nic list", Untyped(NICList), func(t *testing.T, v any) {
		n := v.([]NIC)
		eq(t, "vmnic0 mac", n[0].MAC, "78:ac:44:07:b2:c4")
		eq(t, "vmnic0 speed", n[0].SpeedMbps, 10000)
		eq(t, "vmnic5 mtu", n[5].MTU, 9000)
	}},
	{"esxcli_hardware_pci_list__cn_blog_x540_ixgbe_lsi_passthru.txt", "esxcli hardware pci list", Untyped(HardwarePCIList), func(t *testing.T, v any) {
		p := v.([]PCIDevice)
		eq(t, "devices", len(p), 2)
		eq(t, "vmkernel name", p[0].VMkernelName, "vmnic5")
		eq(t, "owner", p[1].ConfiguredOwner, "VM Passthru")
		eq(t, "module", p[1].ModuleName, "pciPassthru")
	}},
	{"esxcli_network_firewall_ruleset_list__elatov_grep_custom_esxi65u1.txt", "esxcli network firewall ruleset list | grep cust", Untyped(FirewallRulesetList), func(t *testing.T, v any) {
		r := v.([]FirewallRuleset)
		eq(t, "rulesets", len(r), 1)
		eq(t, "name", r[0].Name, "custom-firewall")
		eq(t, "enabled", r[0].Enabled, true)
	}},
	{"esxcli_network_firewall_ruleset_rule_list__elatov_custom_firewall_esxi65u1.txt", "esxcli network firewall ruleset rule list -r custom-firewall", Untyped(FirewallRuleList), func(t *testing.T, v any) {
		r := v.([]FirewallRule)
		eq(t, "rules", len(r), 1)
		eq(t, "port", r[0].PortBegin, 5004)
		eq(t, "direction", r[0].Direction, "Outbound")
	}},
	{"esxcli_network_ip_interface_ipv4_get__blog_vmk0_recreate.txt", "esxcli network ip interface ipv4 get", Untyped(IPv4Get), func(t *testing.T, v any) {
		r := v.([]IPv4Interface)
		eq(t, "rows", len(r), 1)
		eq(t, "address", r[0].Address, "192.168.1.11")
		eq(t, "gateway", r[0].Gateway, "192.168.1.1")
	}},
	{"esxcli_network_ip_interface_ipv4_get__cactus_esxi670_vmk1.txt", "esxcli network ip interface ipv4 get", Untyped(IPv4Get), func(t *testing.T, v any) {
		r := v.([]IPv4Interface)
		eq(t, "name", r[0].Name, "vmk1")
		eq(t, "address", r[0].Address, "10.130.2.122")
		eq(t, "netmask", r[0].Netmask, "255.255.255.0")
	}},
	{"esxcli_network_ip_interface_list__blog_vmk0_recreate_vss.txt", "esxcli network ip interface list", Untyped(IPInterfaceList), func(t *testing.T, v any) {
		n := v.([]Vmknic)
		eq(t, "vmknics", len(n), 1)
		eq(t, "mtu", n[0].MTU, 1500)
		eq(t, "portset", n[0].Portset, "vSwitch0")
		eq(t, "vds (N/A)", n[0].VDSName, "")
	}},
	{"esxcli_network_nic_get__intel_mfd_igbn_esxi7.txt", "esxcli network nic get -n vmnic0", Untyped(NICGet), func(t *testing.T, v any) {
		d := v.(NICDetail)
		eq(t, "driver", d.Driver, "igbn")
		eq(t, "firmware", d.FirmwareVersion, "1.48.0:0x800006e7")
		eq(t, "pause tx", d.PauseTX, true)
	}},
	{"esxcli_network_nic_list__blog_vmk0_recreate_ixgben_igbn.txt", "esxcli network nic list", Untyped(NICList), func(t *testing.T, v any) {
		n := v.([]NIC)
		eq(t, "nics", len(n), 4)
		eq(t, "vmnic1 link", n[1].LinkStatus, "Down")
		eq(t, "vmnic2 speed", n[2].SpeedMbps, 1000)
	}},
	{"esxcli_network_nic_list__cactus_esxi670_ntg3.txt", "esxcli network nic list", Untyped(NICList), func(t *testing.T, v any) {
		n := v.([]NIC)
		eq(t, "nics", len(n), 4)
		eq(t, "vmnic0 desc", n[0].Description, "Broadcom Corporation NetXtreme BCM5719 Gigabit Ethernet")
	}},
	{"esxcli_network_vswitch_standard_list__cactus_esxi670_2switches.txt", "esxcli network vswitch standard list", Untyped(StandardSwitchList), func(t *testing.T, v any) {
		s := v.([]StandardSwitch)
		eq(t, "switches", len(s), 2)
		eq(t, "uplinks", strings.Join(s[1].Uplinks, ","), "vmnic3,vmnic2,vmnic1")
		eq(t, "portgroups", strings.Join(s[1].Portgroups, ","), "Server Network")
	}},
	{"esxcli_network_vswitch_standard_portgroup_list__cactus_esxi670.txt", "esxcli network vswitch standard portgroup list", Untyped(PortgroupList), func(t *testing.T, v any) {
		p := v.([]Portgroup)
		eq(t, "portgroups", len(p), 2)
		eq(t, "name", p[0].Name, "Management VMkernel")
		eq(t, "clients", p[1].ActiveClients, 3)
	}},
	{"esxcli_system_settings_advanced_list_o__elatov_TcpipDefLROEnabled_esxi60.txt", "esxcli system settings advanced list -o /Net/TcpipDefLROEnabled", Untyped(AdvancedSettingList), func(t *testing.T, v any) {
		a := v.(AdvancedSetting)
		eq(t, "path", a.Path, "/Net/TcpipDefLROEnabled")
		eq(t, "int", a.IntValue, 0)
		eq(t, "string", a.StringValue, "")
	}},
	{"esxcli_system_version_get__cactus_esxi670.txt", "esxcli system version get", Untyped(SystemVersionGet), func(t *testing.T, v any) {
		s := v.(SystemVersion)
		eq(t, "version", s.Version, "6.7.0")
		eq(t, "build", s.Build, "Releasebuild-8169922")
	}},
	{"esxcli_vm_process_list__blog_esxi80u3_extend_vmfs.txt", "esxcli vm process list", Untyped(VMProcessList), func(t *testing.T, v any) {
		vm := v.([]VMProcess)
		eq(t, "vms", len(vm), 1)
		eq(t, "name", vm[0].DisplayName, "VC")
		eq(t, "world", vm[0].WorldID, "603996")
		eq(t, "config", vm[0].ConfigFile, "/vmfs/volumes/66b0c33b-d2f3dff8-8f53-1e00f500013e/VC/VC.vmx")
	}},
	{"esxcli_vm_process_list__cactus_esxi670_2vms.txt", "esxcli vm process list", Untyped(VMProcessList), func(t *testing.T, v any) {
		vm := v.([]VMProcess)
		eq(t, "vms", len(vm), 2)
		eq(t, "name", vm[1].DisplayName, "ubuntu_gns3")
		eq(t, "world", vm[1].WorldID, "4455488")
	}},
	{"vmkping__blog_vmk0_default_size_success.txt", "vmkping -I vmk0 192.168.1.22", Untyped(Vmkping), func(t *testing.T, v any) {
		p := v.(Ping)
		eq(t, "received", p.Received, 2)
		eq(t, "avg", p.AvgMs, 0.494)
	}},
	{"vmkping__nsxt_homelab_netstack_vxlan_s1500_ok_s1600_fail.txt", "ping ++netstack=vxlan 10.44.44.59 -s 1500 -d -I vmk10", Untyped(Vmkping), func(t *testing.T, v any) {
		p := v.(Ping)
		eq(t, "payload", p.Payload, 1500)
		eq(t, "received", p.Received, 2)
		eq(t, "too long", p.MessageTooLong, false)
	}},
	{"vmkping__vsan_doc_s1472_d_success.txt", "vmkping -I vmk2 172.32.0.3 -s 1472 -d", Untyped(Vmkping), func(t *testing.T, v any) {
		p := v.(Ping)
		eq(t, "received", p.Received, 3)
		eq(t, "loss", p.LossPercent, 0.0)
	}},
	{"vmx__intel_mfd_esxi_base_vmx_hw13.txt", "cat /vmfs/volumes/ds/Base_R91/Base_R91.vmx", Untyped(VMX), func(t *testing.T, v any) {
		c := v.(VMXConfig)
		eq(t, "hw", c.Get("virtualHW.version"), "13")
		eq(t, "pin", c.Get("sched.mem.pin"), "TRUE")
	}},
	{"vsish_ls__intel_mfd_i40en_rxsecqueues.txt", "vsish -e ls /net/pNics/vmnic0/rxqueues/queues/0/rss/rxSecQueues/", Untyped(VsishLs), func(t *testing.T, v any) {
		e := v.([]VsishEntry)
		eq(t, "entries", len(e), 15)
		eq(t, "first", e[0].Name, "4")
		eq(t, "dir", e[14].IsDir, true)
	}},
}

// TestSamplesParse: every real sample gives its values through its parser
// (collect's TestParserForSamples checks the catalogue picks that parser
// for the sample's command).
func TestSamplesParse(t *testing.T) {
	for _, c := range sampleCases {
		t.Run(c.file, func(t *testing.T) {
			v, err := c.parse(sample(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, v)
		})
	}
	// The second run of the NSX-T sample: "Message too long".
	cmds, err := SplitTranscript(sample(t, "vmkping__nsxt_homelab_netstack_vxlan_s1500_ok_s1600_fail.txt"))
	if err != nil || len(cmds) != 2 {
		t.Fatalf("%v %+v", err, cmds)
	}
	v, err := Untyped(Vmkping)(cmds[1].Output)
	if p, ok := v.(Ping); err != nil || !ok || !p.MessageTooLong || p.Payload != 1600 {
		t.Fatalf("second run: %+v %v", v, err)
	}
}
