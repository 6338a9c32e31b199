package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const (
	cmdModules  = "esxcli system module list"
	cmdENS      = "esxcfg-nics -e"
	cmdMachine  = "uname -m"
	cmdAllowed  = "esxcli network firewall ruleset allowedip list -r pvrdma"
	cmdParamsMX = "esxcli system module parameters list -m nmlx5_core"
	cmdParamsIC = "esxcli system module parameters list -m icen"
)

// withModules lists modules ("name loaded enabled" as "nmlx5_rdma false false").
func withModules(h *facts.Host, rows ...string) {
	collected(h, cmdModules)
	h.Modules = nil
	for i, r := range rows {
		f := strings.Fields(r)
		h.Modules = append(h.Modules, parse.Module{Name: f[0], Loaded: f[1] == "true", Enabled: f[2] == "true", Ref: ref(cmdModules, 3+i, r)})
	}
}

// withParams sets a module's parameters ("name=value").
func withParams(h *facts.Host, module string, kv ...string) {
	cmd := "esxcli system module parameters list -m " + module
	collected(h, cmd)
	for i, x := range kv {
		n, v, _ := strings.Cut(x, "=")
		h.ModuleParams = append(h.ModuleParams, parse.ModuleParam{Module: module, Name: n, Value: v, Ref: ref(cmd, 3+i, n+"  int  "+v)})
	}
}

// cx4Disabled: esx02's ConnectX has no RDMA device, nmlx5_rdma disabled.
func cx4Disabled(b *facts.Host) {
	noDevice("0")(b)
	withModules(b, "nmlx5_core true true", "nmlx5_rdma false false")
}

// e810Off: esx02's PVRDMA uplink is an E810 port with icen's RDMA off.
func e810Off(b *facts.Host) {
	noDevice("0")(b)
	b.NICs = []parse.NIC{{Name: "vmnic2", PCIDevice: "0000:5e:00.0", AdminStatus: "Up", LinkStatus: "Up", MTU: 9000, Driver: "icen",
		Description: "Intel(R) Ethernet Controller E810-XXV for SFP", Ref: ref(cmdNICList, 4, "vmnic2  icen")}}
	b.DVSwitches[0].Uplinks = []string{"vmnic2"}
	withModules(b, "icen true true", "irdman true true")
	withParams(b, "icen", "RDMA=", "RSS=")
}

func ensOn(b *facts.Host) {
	e810Off(b)
	collected(b, cmdENS)
	b.ENS = []parse.ENSNIC{{Name: "vmnic2", Driver: "icen", Capable: true, Driven: true, Ref: ref(cmdENS, 2, "vmnic2  icen  True  True")}}
}

func TestRuleRDMADriverNotLoaded(t *testing.T) {
	runCases(t, "RDMA_DRIVER_NOT_LOADED", []ruleCase{
		{name: "disabled on the PVRDMA uplink", hosts: hostsOf(pair(cx4Disabled)),
			want: []want{{"esx02", "nmlx5_rdma", StatusFail, Critical, "is disabled", "nmlx5_rdma false false"}}},
		{name: "enabled, not loaded yet", hosts: hostsOf(pair(func(b *facts.Host) { noDevice("0")(b); withModules(b, "nmlx5_core true true", "nmlx5_rdma false true") })),
			want: []want{{"esx02", "nmlx5_rdma", StatusFail, Critical, "loads at the next boot", ""}}},
		{name: "not installed", hosts: hostsOf(pair(func(b *facts.Host) { noDevice("0")(b); withModules(b, "nmlx5_core true true") })),
			want: []want{{"esx02", "nmlx5_rdma", StatusFail, Critical, "not installed", ""}}},
		{name: "loaded with its device: near miss", hosts: hostsOf(pair(func(b *facts.Host) { withModules(b, "nmlx5_core true true", "nmlx5_rdma true true") })),
			want: []want{{host: "esx02", subject: "nmlx5_rdma", status: StatusPass}}},
		{name: "E810: its own rule", hosts: hostsOf(pair(e810Off)), want: []want{{host: "esx02", subject: "esx02", status: StatusPass}}},
	})
}

func TestRuleIntelRDMADisabled(t *testing.T) {
	runCases(t, "INTEL_RDMA_DISABLED", []ruleCase{
		{name: "off as icen ships", hosts: hostsOf(pair(e810Off)),
			want: []want{{"esx02", "vmnic2", StatusFail, Critical, "RDMA is off in icen's RDMA parameter", "RDMA  int"}}},
		{name: "on, not rebooted", hosts: hostsOf(pair(func(b *facts.Host) { e810Off(b); b.ModuleParams[0].Value = "1,1" })),
			want: []want{{"esx02", "vmnic2", StatusFail, Critical, "has not rebooted", ""}}},
		{name: "ENS explains it: near miss", hosts: hostsOf(pair(ensOn)), want: []want{{host: "esx02", subject: "vmnic2", status: StatusPass}}},
	})
}

func TestRuleIntelENS(t *testing.T) {
	runCases(t, "INTEL_ENS_ACTIVE", []ruleCase{
		{name: "E810 uplink in ENS mode", hosts: hostsOf(pair(ensOn)),
			want: []want{{"esx02", "vmnic2", StatusFail, Critical, "ENS (Enhanced Data Path) mode", "vmnic2  icen  True  True"}}},
		{name: "ConnectX in ENS mode: near miss", hosts: hostsOf(pair(func(b *facts.Host) {
			collected(b, cmdENS)
			b.ENS = []parse.ENSNIC{{Name: "vmnic4", Driver: "nmlx5_core", Capable: true, Driven: true, Ref: ref(cmdENS, 2, "vmnic4")}}
		})), want: []want{{host: "esx02", status: StatusPass, subject: "esx02"}}},
	})
}

func TestRuleESXiArm(t *testing.T) {
	arm := func(arch string) func(b *facts.Host) {
		return func(b *facts.Host) {
			collected(b, cmdMachine)
			b.Machine = &parse.Machine{Arch: arch, Ref: ref(cmdMachine, 1, arch)}
		}
	}
	runCases(t, "ESXI_ARM", []ruleCase{
		{name: "aarch64", hosts: hostsOf(pair(arm("aarch64"))), want: []want{{"esx02", "esx02", StatusFail, Critical, "ESXi on Arm", "aarch64"}}},
		{name: "x86_64: near miss", hosts: hostsOf(pair(arm("x86_64"))), want: []want{{host: "esx02", subject: "esx02", status: StatusPass}}},
	})
}

func TestRuleNMLX5PFCBitmaps(t *testing.T) {
	runCases(t, "NMLX5_PFC_PARAMS", []ruleCase{
		{name: "unequal", hosts: hostsOf(pair(func(b *facts.Host) { withParams(b, "nmlx5_core", "pfctx=0x08", "pfcrx=0x00") })),
			want: []want{{"esx02", "nmlx5_core", StatusFail, Warning, "differ", "pfctx"}}},
		{name: "a priority the others do not use", hosts: hostsOf(pair(func(b *facts.Host) { withParams(b, "nmlx5_core", "pfctx=0x10", "pfcrx=0x10") })),
			want: []want{{"esx02", "nmlx5_core", StatusFail, Warning, "which no other host", "0x10"}}},
		{name: "unset, PFC from the switch (DCBX): near miss", hosts: hostsOf(pair(func(b *facts.Host) { withParams(b, "nmlx5_core", "pfctx=", "pfcrx=") })),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
		{name: "priority 3 like the others: near miss", hosts: hostsOf(pair(func(b *facts.Host) { withParams(b, "nmlx5_core", "pfctx=0x08", "pfcrx=0x08") })),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
	})
}

func TestRuleDSCPTrust(t *testing.T) {
	// A route the data shows: a gateway on each PVRDMA vmknic's netstack
	// and probes between them that got replies (issue 39: a router is
	// never assumed from two subnets alone).
	routedBy := func(trust string, gw, probe bool) func() *facts.Fleet {
		return func() *facts.Fleet {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.60.12")
			withParams(&b, "nmlx5_core", "pfctx=0x08", "pfcrx=0x08", "trust_state="+trust)
			if gw {
				a.IPv4[1].Gateway, b.IPv4[1].Gateway = "192.168.50.1", "192.168.60.1"
			}
			if probe {
				addPings(&a, "192.168.60.12", true, true)
				addPings(&b, "192.168.50.11", true, true)
			}
			return fleetOf2(a, b)
		}
	}
	routed := func(trust string) func() *facts.Fleet { return routedBy(trust, true, true) }
	runCases(t, "DSCP_TRUST", []ruleCase{
		{name: "routed, PCP trust", hosts: hostsOf(routed("")), want: []want{{"esx02", "nmlx5_core", StatusFail, Warning, "crosses a router", "192.168.50.11"}}},
		{name: "two subnets, no gateway, no probe: no router invented (near miss)", hosts: hostsOf(routedBy("", false, false)),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
		{name: "two subnets, a gateway, no probe crossed it: near miss", hosts: hostsOf(routedBy("", true, false)),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
		{name: "two subnets, probes got replies, no gateway read: near miss", hosts: hostsOf(routedBy("", false, true)),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
		{name: "routed, DSCP trust: near miss", hosts: hostsOf(routed("2")), want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
		{name: "one subnet: near miss", hosts: hostsOf(pair(func(b *facts.Host) { withParams(b, "nmlx5_core", "trust_state=") })),
			want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
	})
}

func TestRulePFCDisablesPause(t *testing.T) {
	pause := func(pfc bool) func(b *facts.Host) {
		return func(b *facts.Host) {
			b.NICDetails[0].PauseRX, b.NICDetails[0].PauseTX = true, true
			b.NICDetails[0].Record = rec(cmdNICGet4, "Name", "vmnic4", "Pause RX", "true", "Pause TX", "true")
			if !pfc {
				b.DCB[0].PFCEnabled, b.DCB[0].PFCPriorities = false, nil
			}
		}
	}
	runCases(t, "PFC_DISABLES_PAUSE", []ruleCase{
		{name: "PFC and pause", hosts: hostsOf(pair(pause(true))), want: []want{{"esx02", "vmnic4", StatusFail, Info, "has no effect", "Pause RX"}}},
		{name: "pause only, the peers on PFC: near miss (its switch port may run pause)", hosts: hostsOf(pair(pause(false))),
			want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
		{name: "PFC only: near miss", hosts: hostsOf(pair(func(*facts.Host) {})), want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
	})
}

func TestRulePendingReboot(t *testing.T) {
	runCases(t, "MODULE_PARAM_PENDING_REBOOT", []ruleCase{
		{name: "PFC configured, not running", hosts: hostsOf(pair(func(b *facts.Host) {
			withModules(b, "nmlx5_core true true", "nmlx5_rdma true true")
			withParams(b, "nmlx5_core", "pfctx=0x08", "pfcrx=0x08")
			b.DCB[0].PFCEnabled, b.DCB[0].PFCPriorities = false, nil
		})), want: []want{{"esx02", "nmlx5_core", StatusFail, Info, "has not rebooted", "pfctx"}}},
		{name: "RDMA driver disabled while loaded", hosts: hostsOf(pair(func(b *facts.Host) { withModules(b, "nmlx5_core true true", "nmlx5_rdma true false") })),
			want: []want{{"esx02", "nmlx5_rdma", StatusFail, Warning, "next reboot", "nmlx5_rdma true false"}}},
		{name: "PFC configured and running: near miss", hosts: hostsOf(pair(func(b *facts.Host) {
			withModules(b, "nmlx5_core true true", "nmlx5_rdma true true")
			withParams(b, "nmlx5_core", "pfctx=0x08", "pfcrx=0x08")
		})), want: []want{{host: "esx02", subject: "nmlx5_core", status: StatusPass}}},
	})
}

func TestRuleAllowedIPs(t *testing.T) {
	list := func(ips ...string) func(b *facts.Host) {
		return func(b *facts.Host) {
			collected(b, cmdAllowed)
			b.AllowedIPs = []parse.AllowedIPs{{Ruleset: "pvrdma", All: len(ips) == 0, IPs: ips, Ref: ref(cmdAllowed, 3, "pvrdma  "+strings.Join(ips, ", "))}}
		}
	}
	runCases(t, "FIREWALL_ALLOWED_IPS", []ruleCase{
		{name: "the peer left out", hosts: hostsOf(pair(list("10.10.0.0/24"))),
			want: []want{{"esx02", "pvrdma", StatusFail, Critical, "192.168.50.11", "10.10.0.0/24"}}},
		{name: "the peer's network listed: near miss", hosts: hostsOf(pair(list("192.168.50.0/24"))),
			want: []want{{host: "esx02", subject: "pvrdma", status: StatusPass}}},
		{name: "All: near miss", hosts: hostsOf(pair(list())), want: []want{{host: "esx02", subject: "pvrdma", status: StatusPass}}},
		{name: "the peer's vmknic without an address, the list admits no known PVRDMA address", hosts: peerNoIPv4(pair(list("10.10.0.0/24"))), want: []want{{"esx02", "pvrdma", StatusFail, Warning, "esx01 have no IPv4 address yet", "10.10.0.0/24"}}},
		{name: "the peer's addresses not read: not evaluated, no claim", hosts: func() []facts.Host {
			hs := peerNoIPv4(pair(list("10.10.0.0/24")))()
			delete(hs[0].Sources, catalog.KindIPv4Get)
			return hs
		}, want: []want{{host: "esx02", subject: "pvrdma", status: StatusNotEvaluated, msg: "was not read"}}},
		{name: "the peer's vmknic without an address, the list admits this host's own PVRDMA subnet: near miss", hosts: peerNoIPv4(pair(list("192.168.50.0/24"))), want: []want{{host: "esx02", subject: "pvrdma", status: StatusPass}}},
	})
}

// peerNoIPv4 takes esx01's PVRDMA vmknic address away.
func peerNoIPv4(f func() *facts.Fleet) func() []facts.Host {
	return func() []facts.Host {
		hs := f().Hosts
		hs[0].IPv4 = hs[0].IPv4[:1]
		return hs
	}
}

func hostsOf(f func() *facts.Fleet) func() []facts.Host {
	return func() []facts.Host { return f().Hosts }
}
