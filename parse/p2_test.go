package parse

import (
	"reflect"
	"strings"
	"testing"
)

func TestNICListSamples(t *testing.T) {
	for _, name := range []string{"esxcli_network_nic_list__blog_vmk0_recreate_ixgben_igbn.txt", "esxcli_network_nic_list__cactus_esxi670_ntg3.txt"} {
		nics, err := NICList(sample(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(nics) != 4 {
			t.Fatalf("%s: %d nics", name, len(nics))
		}
		eq(t, "status", nics[3].LinkStatus, "Down")
		eq(t, "speed right-aligned", nics[3].SpeedMbps, 0)
		eq(t, "duplex", nics[3].Duplex, "Half")
		eq(t, "mtu", nics[0].MTU, 1500)
		eq(t, "admin", nics[0].AdminStatus, "Up")
	}
	nics, _ := NICList(sample(t, "esxcli_network_nic_list__blog_vmk0_recreate_ixgben_igbn.txt"))
	eq(t, "desc", nics[0].Description, "Intel Corporation 82599EB 10-Gigabit SFI/SFP+ Network Connection")
	eq(t, "speed", nics[0].SpeedMbps, 10000)
	eq(t, "pci", nics[2].PCIDevice, "0000:01:00.0")
	eq(t, "line", nics[0].Line, 5)

	nics = parseSampleN(t, NICList, "esxcli_formatter_keyvalue_network_nic_list__warlock_dell_ixgben_igbn_i40en_esxi8.txt", 8)
	eq(t, "kv vmnic5", nics[5].Name, "vmnic5")
	eq(t, "kv mtu", nics[5].MTU, 9000)
	eq(t, "kv speed", nics[5].SpeedMbps, 40000)
	eq(t, "kv link", nics[2].LinkStatus, "Down")
	eq(t, "kv desc", nics[6].Description, "Intel Ethernet Controller XXV710 for 25GbE SFP28"[:0]+"Intel(R) Ethernet Controller XXV710 for 25GbE SFP28")

	xnics := parseSampleN(t, NICList, "esxcli_formatter_xml_network_nic_list__warlock_dell_esxi8.txt", 8)
	// XML and keyvalue give the same facts (lines aside).
	for i := range xnics {
		a, b := xnics[i], nics[i]
		a.Ref, b.Ref = Ref{}, Ref{}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("xml %+v != keyvalue %+v", a, b)
		}
	}
	eq(t, "xml line", xnics[0].Line, 4)

	legacy := parseSampleN(t, NICList, "esxcfg_nics_l__intel_mfd_esxi_icen_bnxtnet.txt", 16)
	eq(t, "esxcfg name", legacy[2].Name, "vmnic10")
	eq(t, "esxcfg pci", legacy[2].PCIDevice, "0000:ca:00.0")
	eq(t, "esxcfg speed", legacy[0].SpeedMbps, 25000)
	eq(t, "esxcfg link", legacy[6].LinkStatus, "Down")
	eq(t, "esxcfg mac", legacy[6].MAC, "84:16:aa:bb:cc:f0")
	eq(t, "esxcfg desc", legacy[6].Description, "Broadcom BCM57416 NetXtreme-E 10GBASE-T RDMA Ethernet Controller")
}

func TestNICGet(t *testing.T) {
	d := parseSample(t, NICGet, "esxcli_network_nic_get__intel_mfd_igbn_esxi7.txt")
	eq(t, "name", d.Name, "vmnic0")
	eq(t, "driver", d.Driver, "igbn")
	eq(t, "dv", d.DriverVersion, "1.9.1.0")
	eq(t, "fw", d.FirmwareVersion, "1.48.0:0x800006e7")
	eq(t, "rx", d.PauseRX, true)
	eq(t, "tx", d.PauseTX, true)
	eq(t, "link", d.LinkStatus, "Up")

	x := parseSample(t, NICGet, "esxcli_formatter_xml_network_nic_get__warlock_ixgben_esxi8.txt")
	eq(t, "xml link trailing space", x.LinkStatus, "Up")
	eq(t, "xml driver", x.Driver, "ixgben")
	eq(t, "xml fw", x.FirmwareVersion, "3.30 0x800014a5, 20.5.15")
	eq(t, "xml rx", x.PauseRX, true)
	eq(t, "xml record key", x.Record.Get("Advertised Link Modes"), "Auto, 100BaseT/Full, 1000BaseT/Full, 2500BaseT/Full, 5000BaseT/Full, 10000BaseT/Full")
	eq(t, "xml transceiver", x.Record.Get("Transceiver"), "")

	// Trailing spaces as real hosts print them, CRLF, prompt.
	raw := "[root@esx01:~] esxcli network nic get -n vmnic4\r\n   Cable Type: \r\n   Driver Info: \r\n         Driver: nmlx5_core\r\n         Version: 4.23.0.66\r\n   Link Status: Up \r\n   Name: vmnic4\r\n   Pause RX: false\r\n   Pause TX: false\r\n"
	d, err := NICGet(raw)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "link", d.LinkStatus, "Up")
	eq(t, "driver", d.Driver, "nmlx5_core")
	eq(t, "rx", d.PauseRX, false)
	eq(t, "line", d.Record.RefOf("Link Status").Line, 6)
	d, err = NICGet("   Name: vmnic0\n   Pause RX: maybe\n   Pause TX: true\n")
	if sk, ok := Skipped(err); !ok || len(sk) != 1 || sk[0].Line != 2 || d.Name != "vmnic0" || !d.PauseTX {
		t.Fatalf("one bad value: want the rest kept and line 2 skipped, got %+v %v", d, err)
	}
}

const dcbSample = `   Nic Name: vmnic4
   Mode: 3 - IEEE Mode
   Enabled: true
   Capabilities:
         Priority Group: true
         Priority Flow Control: true
         PG Traffic Classes: 8
         PFC Traffic Classes: 8
   PFC Enabled: true
   PFC Configuration: 0 0 0 1 0 0 0 0
   IEEE ETS Configuration:
         Willing Bit In ETS Config TLV: 1
         Supported Capacity: 8
         Credit Based Shaper ETS Algorithm Supported: 0x0
         TX Bandwidth Per TC: 13 13 13 13 12 12 12 12
         RX Bandwidth Per TC: 13 13 13 13 12 12 12 12
         TSA Assignment Table: 2 2 2 2 2 2 2 2
         Priority Assignment Table: 0 1 2 3 4 5 6 7
         Recommended TC Bandwidth Per TC: 13 13 13 13 12 12 12 12
         Recommended TSA Assignment Table: 2 2 2 2 2 2 2 2
         Recommended Priority Assignment Table: 0 1 2 3 4 5 6 7
   IEEE PFC Configuration:
         Number Of Traffic Classes: 8
         PFC Configuration: 0 0 0 1 0 0 0 0
         Macsec Bypass Capability Is Enabled: 0
         Round Trip Propagation Delay Of Link: 0
         Sent PFC Frames: 0 0 0 0 0 0 0 0
         Received PFC Frames: 0 0 0 0 0 0 0 0
   DCB Apps:
`

func TestDCBStatusGet(t *testing.T) {
	s, err := DCBStatusGet(dcbSample)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "nic", s.Nic, "vmnic4")
	eq(t, "dcb", s.DCBEnabled, true)
	eq(t, "pfc", s.PFCEnabled, true)
	if !reflect.DeepEqual(s.PFCPriorities, []int{3}) {
		t.Errorf("priorities %v", s.PFCPriorities)
	}
	eq(t, "nested", s.Record.Nested["IEEE PFC Configuration"][0].Get("Number Of Traffic Classes"), "8")
	eq(t, "apps", s.Record.Get("DCB Apps"), "")
	eq(t, "pfc line", s.Record.RefOf("PFC Configuration").Line, 10)

	off := strings.Replace(strings.Replace(dcbSample, "   PFC Enabled: true", "   PFC Enabled: false", 1), "   PFC Configuration: 0 0 0 1 0 0 0 0", "   PFC Configuration: 0 0 0 0 0 0 0 0", 1)
	s, err = DCBStatusGet(off)
	if err != nil || s.PFCEnabled || len(s.PFCPriorities) != 0 {
		t.Fatalf("off: %+v %v", s, err)
	}
	_, err = DCBStatusGet(strings.Replace(dcbSample, "PFC Configuration: 0 0 0 1 0 0 0 0\n   IEEE", "PFC Configuration: 0 0 1\n   IEEE", 1))
	wantParseError(t, err, 10)
}

func TestIPInterfaceAndIPv4(t *testing.T) {
	v := parseSampleN(t, IPInterfaceList, "esxcli_network_ip_interface_list__blog_vmk0_recreate_vss.txt", 1)
	eq(t, "name", v[0].Name, "vmk0")
	eq(t, "vds N/A", v[0].VDSName, "")
	eq(t, "portgroup", v[0].Portgroup, "Management")
	eq(t, "netstack", v[0].Netstack, "defaultTcpipStack")
	eq(t, "mtu", v[0].MTU, 1500)
	eq(t, "enabled", v[0].Enabled, true)
	eq(t, "line", v[0].Line, 3)

	for name, want := range map[string]IPv4Interface{
		"esxcli_network_ip_interface_ipv4_get__blog_vmk0_recreate.txt":  {Name: "vmk0", Address: "192.168.1.11", Netmask: "255.255.255.0", Broadcast: "192.168.1.255", AddressType: "STATIC", Gateway: "192.168.1.1"},
		"esxcli_network_ip_interface_ipv4_get__cactus_esxi670_vmk1.txt": {Name: "vmk1", Address: "10.130.2.122", Netmask: "255.255.255.0", Broadcast: "10.130.2.255", AddressType: "STATIC", Gateway: "10.130.2.1"},
	} {
		rows, err := IPv4Get(sample(t, name))
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %+v %v", name, rows, err)
		}
		got := rows[0]
		got.Ref = Ref{}
		if got != want {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

func TestSwitches(t *testing.T) {
	sw := parseSampleN(t, StandardSwitchList, "esxcli_network_vswitch_standard_list__cactus_esxi670_2switches.txt", 2)
	if !reflect.DeepEqual(sw[1].Uplinks, []string{"vmnic3", "vmnic2", "vmnic1"}) {
		t.Errorf("uplinks %q", sw[1].Uplinks)
	}
	eq(t, "beacon trailing space", sw[0].Record.Get("Beacon Required By"), "")
	eq(t, "pg", sw[0].Portgroups[0], "Management VMkernel")
	eq(t, "mtu", sw[1].MTU, 1500)

	dvs := "DSwitch-RDMA\n   Name: DSwitch-RDMA\n   VDS ID: 50 2a 7e 1c\n   MTU: 9000\n   Uplinks: vmnic5, vmnic4\n   VMware Branded: true\n   DVPort:\n         Client: vmnic4\n         DVPortgroup ID: dvportgroup-1\n         In Use: true\n         Port ID: 0\n         \n         Client: vmk1\n         DVPortgroup ID: dvportgroup-2\n         In Use: true\n         Port ID: 10\n\nDSwitch-Empty\n   Name: DSwitch-Empty\n   MTU: 1500\n   Uplinks: \n"
	d, err := DVSList(dvs)
	if err != nil || len(d) != 2 {
		t.Fatalf("%+v %v", d, err)
	}
	eq(t, "mtu", d[0].MTU, 9000)
	eq(t, "id", d[0].VDSID, "50 2a 7e 1c")
	if !reflect.DeepEqual(d[0].Uplinks, []string{"vmnic5", "vmnic4"}) || d[1].Uplinks != nil {
		t.Errorf("uplinks %q %q", d[0].Uplinks, d[1].Uplinks)
	}
	if ports := d[0].Record.Nested["DVPort"]; len(ports) != 2 || ports[1].Get("Client") != "vmk1" {
		t.Errorf("ports %+v", ports)
	}
}

func TestAdvancedSetting(t *testing.T) {
	s := parseSample(t, AdvancedSettingList, "esxcli_system_settings_advanced_list_o__elatov_TcpipDefLROEnabled_esxi60.txt")
	eq(t, "path", s.Path, "/Net/TcpipDefLROEnabled")
	eq(t, "int", s.IntValue, 0)
	eq(t, "type", s.Type, "integer")
	eq(t, "line (after two prompt lines)", s.Line, 3)
	for _, sv := range []string{"   String Value: \n", "   String Value:\n"} {
		s, err := AdvancedSettingList("   Path: /Net/PVRDMAVmknic\n   Type: string\n   Int Value: 0\n" + sv + "   Default String Value: \n   Description: Vmknic for PVRDMA\n")
		if err != nil || s.StringValue != "" || s.Type != "string" {
			t.Fatalf("%+v %v", s, err)
		}
	}
	s, err := AdvancedSettingList("   Path: /Net/PVRDMAVmknic\n   Type: string\n   Int Value: 0\n   String Value: vmk1\n")
	if err != nil || s.StringValue != "vmk1" {
		t.Fatalf("%+v %v", s, err)
	}
	_, err = AdvancedSettingList("   Type: string\n")
	wantParseError(t, err, 1)
}

func TestFirewall(t *testing.T) {
	rs, err := FirewallRulesetList(sample(t, "esxcli_network_firewall_ruleset_list__elatov_grep_custom_esxi65u1.txt"))
	if err != nil || len(rs) != 1 || rs[0].Name != "custom-firewall" || !rs[0].Enabled {
		t.Fatalf("%+v %v", rs, err)
	}
	old := "Name                Enabled\n------------------  -------\nsshServer              true\npvrdma                false\n"
	rs, err = FirewallRulesetList(old)
	if err != nil || len(rs) != 2 || rs[1].Name != "pvrdma" || rs[1].Enabled || !rs[0].Enabled {
		t.Fatalf("%+v %v", rs, err)
	}
	newer := "Name       Enabled  Enable/Disable configurable  Allowed IP configurable\n---------  -------  ---------------------------  -----------------------\nsshServer     true                         true                     true\npvrdma        true                         true                    false\n"
	rs, err = FirewallRulesetList(newer)
	if err != nil || len(rs) != 2 || rs[1].Name != "pvrdma" || !rs[1].Enabled {
		t.Fatalf("%+v %v", rs, err)
	}
	_, err = FirewallRulesetList("Name  Enabled\n----  -------\npvrdma  perhaps\n")
	wantParseError(t, err, 3)

	rules := parseSampleN(t, FirewallRuleList, "esxcli_network_firewall_ruleset_rule_list__elatov_custom_firewall_esxi65u1.txt", 1)
	r := rules[0]
	r.Ref = Ref{}
	if r != (FirewallRule{Ruleset: "custom-firewall", Direction: "Outbound", Protocol: "TCP", PortType: "Dst", PortBegin: 5004, PortEnd: 5004}) {
		t.Errorf("%+v", r)
	}
}

func TestSystemVersionAndPCI(t *testing.T) {
	v := parseSample(t, SystemVersionGet, "esxcli_system_version_get__cactus_esxi670.txt")
	v.Ref = Ref{}
	if v != (SystemVersion{Product: "VMware ESXi", Version: "6.7.0", Build: "Releasebuild-8169922", Update: "0", Patch: "0"}) {
		t.Errorf("%+v", v)
	}
	// 9.0 adds Maintenance; keys we don't read are fine.
	v, err := SystemVersionGet("   Product: VMware ESXi\n   Version: 9.0.0\n   Build: Releasebuild-24755229\n   Update: 0\n   Patch: 0\n   Maintenance: 0\n")
	if err != nil || v.Version != "9.0.0" {
		t.Fatalf("%+v %v", v, err)
	}
	pci := parseSampleN(t, HardwarePCIList, "esxcli_hardware_pci_list__cn_blog_x540_ixgbe_lsi_passthru.txt", 2)
	eq(t, "addr", pci[0].Address, "0000:02:00.1")
	eq(t, "vmk", pci[0].VMkernelName, "vmnic5")
	eq(t, "dev", pci[0].DeviceName, "Ethernet Controller 10 Gigabit X540-AT2")
	eq(t, "owner", pci[1].ConfiguredOwner, "VM Passthru")
	eq(t, "module", pci[1].ModuleName, "pciPassthru")
	eq(t, "passthru", pci[1].PassthruCapable, true)
	eq(t, "slot", pci[0].SlotDescription, "CPU1 SLOT2 PCI-E 3.0 X4 (IN X8 SLOT)")
}

func TestRDMAOtherTables(t *testing.T) {
	p, err := RDMAProtocolList("Device   RoCE v1  RoCE v2  iWARP\n-------  -------  -------  -----\nvmrdma0     true     true  false\nvmrdma1    false     true  false\n")
	if err != nil || len(p) != 2 || !p[0].RoCEv1 || p[1].RoCEv1 || !p[1].RoCEv2 || p[1].IWARP {
		t.Fatalf("%+v %v", p, err)
	}
	v, err := RDMAVmknicList("Device   Vmknic  NetStack\n-------  ------  -----------------\nvmrdma0  vmk1    defaultTcpipStack\nvmrdma1                           \n")
	if err != nil || len(v) != 2 || v[0].Vmknic != "vmk1" || v[0].NetStack != "defaultTcpipStack" || v[1].Vmknic != "" {
		t.Fatalf("%+v %v", v, err)
	}
	st := parsed(t, RDMAStatsGet, "   Packets received: 1200\n   Packets sent: 1100\n   Bytes received: 3456789012345\n   Error packets received: 0\n   Recieved CNP: 7\n")
	eq(t, "counters", len(st.Counters), 5)
	eq(t, "bytes", st.Counters["Bytes received"], int64(3456789012345))
	eq(t, "misspelled key kept", st.Counters["Recieved CNP"], int64(7))
	st, err = RDMAStatsGet("   Name: vmrdma0\n   Packets received: 1\n")
	if err != nil || st.Device != "vmrdma0" || st.Counters["Packets received"] != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	_, err = RDMAStatsGet("   Packets received: lots\n")
	wantParseError(t, err, 1)
}

func TestVmkping(t *testing.T) {
	p := parseSample(t, Vmkping, "vmkping__blog_vmk0_default_size_success.txt")
	if p.Target != "192.168.1.22" || p.Payload != 56 || p.Transmitted != 2 || p.Received != 2 || p.LossPercent != 0 || !p.HasStats || p.AvgMs != 0.494 || p.MessageTooLong {
		t.Errorf("%+v", p)
	}
	p, err := Vmkping(sample(t, "vmkping__vsan_doc_s1472_d_success.txt"))
	if err != nil || p.Target != "172.32.0.3" || p.Transmitted != 3 || p.Received != 3 || p.AvgMs != 1.005 {
		t.Fatalf("%+v %v", p, err)
	}
	// Two runs in one sample: the first (interrupted) run is cut at the next prompt.
	text := sample(t, "vmkping__nsxt_homelab_netstack_vxlan_s1500_ok_s1600_fail.txt")
	p, err = Vmkping(text)
	if err != nil || p.Payload != 1500 || p.HasStats || p.Received != 2 || p.MessageTooLong {
		t.Fatalf("first run %+v %v", p, err)
	}
	p, err = Vmkping(text[strings.LastIndex(text, "[root@"):])
	if err != nil || p.Payload != 1600 || p.HasStats || !p.MessageTooLong || p.Received != 0 || p.Transmitted != 2 {
		t.Fatalf("second run %+v %v", p, err)
	}
	tooLong := "PING 10.0.0.2 (10.0.0.2): 8972 data bytes\nsendto() failed (Message too long)\nsendto() failed (Message too long)\nsendto() failed (Message too long)\n\n--- 10.0.0.2 ping statistics ---\n3 packets transmitted, 0 packets received, 100% packet loss\n"
	p, err = Vmkping(tooLong)
	if err != nil || !p.MessageTooLong || p.LossPercent != 100 || !p.HasStats || p.AvgMs != 0 || len(p.Failures) != 3 {
		t.Fatalf("%+v %v", p, err)
	}
	partial := "PING 10.0.0.2 (10.0.0.2): 8972 data bytes\n8980 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.2 ms\n\n--- 10.0.0.2 ping statistics ---\n3 packets transmitted, 1 packets received, 66.7% packet loss\nround-trip min/avg/max = 0.200/0.200/0.200 ms\n"
	p, err = Vmkping(partial)
	if err != nil || p.LossPercent != 66.7 || p.Received != 1 || p.Transmitted != 3 {
		t.Fatalf("%+v %v", p, err)
	}
	_, err = Vmkping("Unknown interface 'vmk9': Invalid argument\n")
	wantParseError(t, err, 1)
	p, err = Vmkping("PING 1.2.3.4 (1.2.3.4): 56 data bytes\nsomething odd\n64 bytes from 1.2.3.4: icmp_seq=0 ttl=64 time=0.2 ms\n")
	if sk, ok := Skipped(err); !ok || sk[0].Line != 2 || p.Received != 1 {
		t.Fatalf("an odd line is skipped, the rest kept: %+v %v", p, err)
	}
	_, err = Vmkping("")
	wantParseError(t, err, 0)
}

func TestVMX(t *testing.T) {
	c := parseSample(t, VMX, "vmx__intel_mfd_esxi_base_vmx_hw13.txt")
	hw, ok := c.VirtualHWVersion()
	eq(t, "hw", hw, 13)
	eq(t, "hw ok", ok, true)
	eq(t, "pin", c.MemPinned(), true)
	mm, _ := c.MemMinMB()
	eq(t, "min", mm, 2048)
	ms, _ := c.MemSizeMB()
	eq(t, "memsize", ms, 2048)
	eq(t, "fw", c.Firmware(), "efi")
	eq(t, "case-insensitive", c.Get("DISPLAYNAME"), "Base_R91")
	eq(t, "no vrdma", len(c.PVRDMAAdapters()), 0)
	eq(t, "entries", len(c.Entries), 70)

	vmx := "#!/usr/bin/vmware\r\n.encoding = \"UTF-8\"\r\nvirtualHW.version = \"19\"\r\nsched.mem.pin = \"False\"\r\nethernet1.virtualDev = \"VRDMA\"\r\nethernet0.virtualDev = \"vmxnet3\"\r\nethernet3.virtualDev = \"vrdma\"\r\nvrdma3.nativeEndpointSupport = \"TRUE\"\r\nvrdma.asyncMode = \"true\"\r\npciPassthru.use64bitMMIO = \"TRUE\"\r\npciPassthru.64bitMMIOSizeGB = \"64\"\r\ndisplayName = \"db; $(x) \u00e9\"\r\n"
	c, err := VMX(vmx)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pin false", c.MemPinned(), false)
	ad := c.PVRDMAAdapters()
	if len(ad) != 2 || ad[0].Ethernet != 1 || ad[1].Ethernet != 3 || ad[0].NativeEndpointSupportSet || !ad[1].NativeEndpointSupport || ad[0].Line != 5 {
		t.Fatalf("adapters %+v", ad)
	}
	am, ok := c.AsyncMode()
	eq(t, "async", am && ok, true)
	eq(t, "mmio", c.Use64bitMMIO(), true)
	gb, _ := c.MMIOSizeGB()
	eq(t, "mmio gb", gb, 64)
	eq(t, "name", c.Get("displayName"), "db; $(x) \u00e9")
	_, err = VMX("a = \"1\"\nthis is not vmx\n")
	wantParseError(t, err, 2)
}

func TestXMLErrors(t *testing.T) {
	_, err := NICList("<?xml version=\"1.0\"?>\n<output xmlns=\"http://www.vmware.com/Products/ESX/5.0/esxcli\">\n<root>\n<list type=\"structure\">\n<structure><field name=\"Name\"><string>x</string></field>\n</list>\n")
	wantParseError(t, err, 0)
	_, err = NICList("<output xmlns=\"http://www.vmware.com/Products/ESX/5.0/esxcli\"><root><list type=\"structure\"><structure><field name=\"MTU\"><integer>1500</integer></field></structure></list></root></output>")
	wantParseError(t, err, 1)
	nics, err := NICList("<output xmlns=\"http://www.vmware.com/Products/ESX/5.0/esxcli\"><root><list type=\"structure\"></list></root></output>")
	if err != nil || len(nics) != 0 {
		t.Fatal("empty xml list")
	}
}
