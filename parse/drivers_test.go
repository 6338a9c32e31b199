package parse

import "testing"

func TestModuleList(t *testing.T) {
	ms := parsed(t, ModuleList, sample(t, "esxcli_system_module_list__esxi8_nic_drivers.txt"))
	eq(t, "modules", len(ms), 12)
	eq(t, "nmlx5_rdma", ms[7].Name+" "+tfs(ms[7].Loaded)+" "+tfs(ms[7].Enabled), "nmlx5_rdma false false")
	eq(t, "bnxtroce pending", ms[9].Name+" "+tfs(ms[9].Loaded)+" "+tfs(ms[9].Enabled), "bnxtroce false true")
	eq(t, "line", ms[7].Line, 10)
}

func tfs(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestModuleParamsContinuations(t *testing.T) {
	ps := parsed(t, ModuleParams, sample(t, "esxcli_system_module_parameters_list_m_nmlx5_core__nvidia_manual_params.txt"))
	eq(t, "parameters", len(ps), 7)
	eq(t, "unset", ps[0].Name+"="+ps[0].Value, "DRSS=")
	eq(t, "type with a space", ps[3].Type, "array of int")
	eq(t, "pfcrx", ps[4].Name+"="+ps[4].Value, "pfcrx=0x08")
	eq(t, "pfctx", ps[5].Name+"="+ps[5].Value, "pfctx=0x08")
	eq(t, "trust", ps[6].Name+"="+ps[6].Value, "trust_state=2")
	eq(t, "evidence line", ps[5].Line, 10)
}

func TestModuleParamsBadRowKeepsTheRest(t *testing.T) {
	text := "Name   Type  Value  Description\n-----  ----  -----  -----------\npfctx  int   0x08   PFC TX\n\x00\x01garbage\npfcrx  int   0x08   PFC RX\n"
	ps, err := ModuleParams(text)
	if len(ps) != 2 || ps[1].Name != "pfcrx" {
		t.Fatalf("got %+v, %v", ps, err)
	}
}

func TestVIBList(t *testing.T) {
	vs := parsed(t, VIBList, sample(t, "esxcli_software_vib_list__esxi8_driver_vibs.txt"))
	eq(t, "vibs", len(vs), 6)
	eq(t, "irdman", vs[2].Name+" "+vs[2].Version, "irdman 1.4.4.0-1OEM.800.1.0.20143090")
}

func TestAllowedIPList(t *testing.T) {
	a := parsed(t, AllowedIPList, sample(t, "esxcli_network_firewall_ruleset_allowedip_list__vsphere_cli_67_sshServer.txt"))
	eq(t, "all", len(a) == 1 && a[0].All && a[0].Ruleset == "sshServer", true)
	b := parsed(t, AllowedIPList, sample(t, "esxcli_network_firewall_ruleset_allowedip_list__vsphere_cli_50_list.txt"))
	eq(t, "list", len(b) == 1 && !b[0].All && len(b[0].IPs) == 2 && b[0].IPs[1] == "192.XXX.1.0/24", true)
}

func TestENSList(t *testing.T) {
	ns := parsed(t, ENSList, sample(t, "esxcfg_nics_e__nsx_enhanced_datapath.txt"))
	eq(t, "nics", len(ns), 3)
	eq(t, "icen driven", ns[1].Name+" "+ns[1].Driver+" "+tfs(ns[1].Driven), "vmnic2 icen true")
	eq(t, "nmlx5 not driven", ns[2].Driven, false)
}

func TestUnameMachine(t *testing.T) {
	m := parsed(t, UnameMachine, sample(t, "uname_m__esxi_arm.txt"))
	eq(t, "arch", m.Arch, "aarch64")
	if _, err := UnameMachine("x86_64; reboot\n"); err == nil {
		t.Error("a line that is no machine name was read")
	}
}

// A parameter's description is kept: it says what the parameter switches
// (the rules recognise a RoCE switch by it, not by one name per vendor).
func TestModuleParamsKeepDescription(t *testing.T) {
	text := "Name          Type          Value  Description\n" +
		"------------  ------------  -----  ------------------------------------------\n" +
		"DRSS          int                  Number of RSS queues for the default queue\n" +
		"disable_roce  array of int  1      Disable the RoCE capability of the port\n"
	ps := parsed(t, ModuleParams, text)
	eq(t, "parameters", len(ps), 2)
	eq(t, "description", ps[1].Name+": "+ps[1].Description, "disable_roce: Disable the RoCE capability of the port")
	eq(t, "unset keeps its description", ps[0].Value+"|"+ps[0].Description, "|Number of RSS queues for the default queue")
}
