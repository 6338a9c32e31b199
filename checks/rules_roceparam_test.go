package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const cmdParamsBNXT = "esxcli system module parameters list -m bnxtnet"

// bcm57508 makes esx02's PVRDMA uplink a BCM57508 port (bnxtnet) without
// an RDMA device, bnxtroce as the module list row says ("bnxtroce true
// true": loaded, enabled) and bnxtnet's parameters as listed ("name=value"
// with the driver's own descriptions).
func bcm57508(roce string, params ...string) func(b *facts.Host) {
	return func(b *facts.Host) {
		noDevice("0")(b)
		b.NICs = []parse.NIC{{Name: "vmnic4", PCIDevice: "0000:3b:00.0", AdminStatus: "Up", LinkStatus: "Up", MTU: 9000, Driver: "bnxtnet",
			Description: "Broadcom BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet", Ref: ref(cmdNICList, 4, "vmnic4  bnxtnet")}}
		b.PCIDevices = []parse.PCIDevice{{Address: "0000:3b:00.0", VMkernelName: "vmnic4", VendorID: "0x14e4", DeviceID: "0x1750", ModuleName: "bnxtnet"}}
		b.NICDetails, b.DCB = nil, nil
		withModules(b, "bnxtnet true true", roce)
		collected(b, cmdParamsBNXT)
		desc := map[string]string{"disable_roce": "Disable the RoCE capability of the port (1: RoCE off; default 0)", "DRSS": "Number of RSS queues"}
		for i, x := range params {
			n, v, _ := strings.Cut(x, "=")
			b.ModuleParams = append(b.ModuleParams, parse.ModuleParam{Module: "bnxtnet", Name: n, Value: v, Description: desc[n],
				Ref: ref(cmdParamsBNXT, 3+i, n+"  int  "+v+"  "+desc[n])})
		}
	}
}

func TestRuleRoCEOffInLANDriver(t *testing.T) {
	runCases(t, "ROCE_OFF_IN_LAN_DRIVER", []ruleCase{
		{name: "bnxtroce loaded, disable_roce=1", hosts: hostsOf(pair(bcm57508("bnxtroce true true", "DRSS=4", "disable_roce=1"))),
			want: []want{{"esx02", "vmnic4", StatusFail, Critical, "disable_roce parameter", "disable_roce  int  1"}}},
		{name: "bnxtroce enabled since the last boot, disable_roce=1: a reboot alone is not enough",
			hosts: hostsOf(pair(bcm57508("bnxtroce false true", "disable_roce=1"))),
			want:  []want{{"esx02", "vmnic4", StatusFail, Critical, "enabled, not loaded", ""}}},
		{name: "disable_roce=0: near miss", hosts: hostsOf(pair(bcm57508("bnxtroce true true", "DRSS=4", "disable_roce=0"))),
			want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
		{name: "bnxtroce disabled: the chain breaks at the driver (RDMA_DRIVER_NOT_LOADED's)", hosts: hostsOf(pair(bcm57508("bnxtroce false false", "disable_roce=1"))),
			want: []want{{host: "esx02", subject: "esx02", status: StatusPass}}},
		{name: "parameters not read", hosts: hostsOf(pair(func(b *facts.Host) {
			bcm57508("bnxtroce true true", "disable_roce=1")(b)
			b.ModuleParams = nil
			delete(b.Sources, "module_parameters")
		})), want: []want{{host: "esx02", subject: "vmnic4", status: StatusNotEvaluated, msg: "was not read"}}},
	})
}

// The chain's first broken link decides the remedy: RoCE switched off in
// the LAN driver is set back on (no "enable bnxtroce" for a loaded
// driver); with nothing the host shows to explain the missing device,
// the cause is not determined and the next check is named, with no
// driver step and no reboot.
func TestRDMARemedyWalksTheDriverChain(t *testing.T) {
	run := func(t *testing.T, f func(b *facts.Host)) (Finding, Plan) {
		t.Helper()
		fleet := pair(f)()
		res := Run(fleet)
		nd := one1(t, res, "NO_RDMA_DEVICE", "esx02")
		p := PlanFor(Plans(fleet, res.Findings), "esx02")
		if p == nil {
			t.Fatalf("no plan:\n%s", dump(res.Findings))
		}
		return nd, *p
	}
	t.Run("disable_roce=1", func(t *testing.T) {
		nd, p := run(t, bcm57508("bnxtroce true true", "DRSS=4", "disable_roce=1"))
		acts := actions(p)
		if strings.Contains(acts, "enable_module") || strings.Count(acts, "reboot") != 1 || !strings.Contains(acts, "set_module_params") {
			t.Fatalf("plan %s", acts)
		}
		for _, s := range p.Steps {
			switch a := s.Params.(type) {
			case plan.SetModuleParams:
				if a.Module != "bnxtnet" || len(a.Set) != 1 || a.Set[0] != (plan.Setting{Name: "disable_roce", Value: "0"}) ||
					!strings.Contains(s.Command, "DRSS=4 disable_roce=0") || a.RoCE != "vmnic4" {
					t.Errorf("step %d: %+v %s", s.N, a, s.Command)
				}
				verified := false
				for _, v := range s.Verify {
					verified = verified || v.Command == "esxcli rdma device list" &&
						v.Holds("Name     Driver    State   MTU   Speed     Paired Uplink  Description\nvmrdma0  bnxtroce  Active  4096  100 Gbps  vmnic4         Broadcom\n")
				}
				if !verified {
					t.Errorf("step %d does not verify vmnic4's RDMA device: %+v", s.N, s.Verify)
				}
			case plan.Reboot:
				if a.Pending || !strings.Contains(s.Text, "driver changes above") {
					t.Errorf("reboot %+v: %s", a, s.Text)
				}
			}
		}
		if nd.CausedBy == nil || nd.CausedBy.RuleID != "ROCE_OFF_IN_LAN_DRIVER" {
			t.Errorf("NO_RDMA_DEVICE caused by %+v", nd.CausedBy)
		}
		if !strings.Contains(nd.Fix, "disable_roce=0") || strings.Contains(nd.Fix, "module set -m bnxtroce -e true") {
			t.Errorf("fix %q", nd.Fix)
		}
	})
	t.Run("not determined", func(t *testing.T) {
		nd, p := run(t, bcm57508("bnxtroce true true", "DRSS=4", "disable_roce=0"))
		if acts := actions(p); acts != "investigate" {
			t.Fatalf("plan %s, want the next check only", acts)
		}
		note := p.Steps[0].Text
		for _, w := range []string{"not determined", "ENABLE_ROCE", "niccli", "bnxtroce is enabled and loaded"} {
			if !strings.Contains(note, w) || !strings.Contains(nd.Fix, w) {
				t.Errorf("%q missing: step %q, fix %q", w, note, nd.Fix)
			}
		}
		if strings.Contains(nd.Fix, "-e true") || strings.Contains(strings.ToLower(nd.Fix), "and reboot") {
			t.Errorf("fix prescribes what is done: %q", nd.Fix)
		}
	})
	t.Run("enabled since the last boot: the reboot says so", func(t *testing.T) {
		nd, p := run(t, bcm57508("bnxtroce false true", "disable_roce=0"))
		if strings.Contains(nd.Fix, "-e true") || !strings.Contains(nd.Fix, "loads at the next boot") {
			t.Errorf("fix %q", nd.Fix)
		}
		acts := actions(p)
		if strings.Contains(acts, "enable_module") || strings.Contains(acts, "set_module_params") || !strings.Contains(acts, "reboot") {
			t.Fatalf("plan %s", acts)
		}
		for _, s := range p.Steps {
			if r, ok := s.Params.(plan.Reboot); ok && (!r.Pending || strings.Contains(s.Text, "changes above")) {
				t.Errorf("reboot %+v: %s", r, s.Text)
			}
		}
	})
	t.Run("disabled: enabled, not set", func(t *testing.T) {
		_, p := run(t, bcm57508("bnxtroce false false", "disable_roce=0"))
		if acts := actions(p); !strings.Contains(acts, "enable_module") || strings.Contains(acts, "set_module_params") {
			t.Fatalf("plan %s", acts)
		}
	})
}

// "Install a RoCE NIC" names no vendor's steps after it: the plan says to
// scan again, and the driver and lossless steps come from that scan.
func TestInstallNICThenRescan(t *testing.T) {
	fleet := pair(func(b *facts.Host) {
		noDevice("0")(b)
		b.NICs = []parse.NIC{{Name: "vmnic4", PCIDevice: "0000:3b:00.0", LinkStatus: "Up", MTU: 9000, Driver: "i40en",
			Description: "Intel(R) Ethernet Controller X710 for 10GbE SFP+"}}
		b.NICDetails, b.DCB = nil, nil
	})()
	res := Run(fleet)
	p := PlanFor(Plans(fleet, res.Findings), "esx02")
	if p == nil {
		t.Fatal("no plan")
	}
	acts := actions(*p)
	if !strings.Contains(acts, "install_nic") || strings.Contains(acts, "set_module_params") || strings.Contains(acts, "enable_module") {
		t.Fatalf("plan %s", acts)
	}
	rescan := false
	for _, s := range p.Steps {
		rescan = rescan || s.Action == plan.KindInvestigate && strings.Contains(s.Text, "scan esx02 again")
		if strings.Contains(s.Text, "nmlx5") && s.Action != plan.KindInstallNIC {
			t.Errorf("step %d names a vendor's driver: %s", s.N, s.Text)
		}
	}
	if !rescan {
		t.Errorf("no rescan step: %s", acts)
	}
}

// Two links broken (bnxtroce disabled and disable_roce=1): the driver is
// the headline, and its fix, NO_RDMA_DEVICE's and the plan all fix both.
func TestDriverDisabledAndRoCEOff(t *testing.T) {
	fleet := pair(bcm57508("bnxtroce false false", "DRSS=4", "disable_roce=1"))()
	res := Run(fleet)
	nd := one1(t, res, "NO_RDMA_DEVICE", "esx02")
	dr := one1(t, res, "RDMA_DRIVER_NOT_LOADED", "esx02")
	if nd.CausedBy == nil || nd.CausedBy.RuleID != "RDMA_DRIVER_NOT_LOADED" {
		t.Errorf("NO_RDMA_DEVICE caused by %+v", nd.CausedBy)
	}
	for _, f := range []Finding{nd, dr} {
		if !strings.Contains(f.Fix, "-e true") || !strings.Contains(f.Fix, "DRSS=4 disable_roce=0") {
			t.Errorf("%s fix %q", f.RuleID, f.Fix)
		}
	}
	p := PlanFor(Plans(fleet, res.Findings), "esx02")
	if acts := actions(*p); !strings.Contains(acts, "enable_module") || !strings.Contains(acts, "set_module_params") || strings.Count(acts, "reboot") != 1 {
		t.Errorf("plan %s", acts)
	}
}

// A NIC driven by i40en whose PCI IDs say ConnectX-5 is an X710 for every
// rule (no nmlx5_rdma remedy for it), and the inconsistency is a note.
func TestRuleNICIdentityConflict(t *testing.T) {
	const cmdPCI = "esxcli hardware pci list"
	conflict := func(id string) func(b *facts.Host) {
		return func(b *facts.Host) {
			collected(b, cmdPCI)
			b.NICs = append(b.NICs, parse.NIC{Name: "vmnic0", PCIDevice: "0000:18:00.0", LinkStatus: "Up", Driver: "i40en",
				Description: "Intel(R) Ethernet Controller X710 for 10GbE SFP+", Ref: ref(cmdNICList, 3, "vmnic0  0000:18:00.0  i40en")})
			b.PCIDevices = append(b.PCIDevices, parse.PCIDevice{Address: "0000:18:00.0", VMkernelName: "vmnic0", VendorID: id[:6], DeviceID: id[7:],
				ModuleName: "i40en", Ref: ref(cmdPCI, 40, "Device ID: "+id[7:])})
		}
	}
	runCases(t, "NIC_IDENTITY_CONFLICT", []ruleCase{
		{name: "ConnectX-5 IDs, i40en bound", hosts: hostsOf(pair(conflict("0x15b3 0x1017"))),
			want: []want{{"esx02", "vmnic0", StatusFail, Info, "PCI IDs say ConnectX-5", "Device ID: 0x1017"}}},
		{name: "X710 IDs, i40en bound: near miss", hosts: hostsOf(pair(conflict("0x8086 0x1572"))),
			want: []want{{host: "esx02", subject: "esx02", status: StatusPass}}},
	})
	fleet := pair(func(b *facts.Host) {
		conflict("0x15b3 0x1017")(b)
		noDevice("0")(b)
		b.NICs = b.NICs[len(b.NICs)-1:] // vmnic0 only: no NIC can carry RoCE
		b.DVSwitches[0].Uplinks = []string{"vmnic0"}
		withModules(b, "i40en true true", "nmlx5_core true true", "nmlx5_rdma false false")
	})()
	res := Run(fleet)
	for _, f := range res.Findings {
		if f.Status == StatusFail && f.RuleID == "RDMA_DRIVER_NOT_LOADED" {
			t.Errorf("the i40en port is judged a ConnectX: %s", f.Message)
		}
	}
	if nd := one1(t, res, "NO_RDMA_DEVICE", "esx02"); !strings.Contains(nd.Fix, "install an RoCE NIC") {
		t.Errorf("fix %q", nd.Fix)
	}
}

// "nmlx5_rdma, the RDMA driver of vmnic0, vmnic4" where vmnic0 is bound
// to i40en: the bound driver decides, so only the ConnectX port is named.
func TestRDMADriverNamesOnlyItsOwnPorts(t *testing.T) {
	fleet := pair(func(b *facts.Host) {
		cx4Disabled(b)
		collected(b, "esxcli hardware pci list")
		b.NICs = append(b.NICs, parse.NIC{Name: "vmnic0", PCIDevice: "0000:18:00.0", LinkStatus: "Up", Driver: "i40en",
			Description: "Intel(R) Ethernet Controller X710 for 10GbE SFP+", Ref: ref(cmdNICList, 3, "vmnic0  i40en")})
		// The PCI listing gives the X710 port a ConnectX-5's IDs.
		b.PCIDevices = append(b.PCIDevices, parse.PCIDevice{Address: "0000:18:00.0", VMkernelName: "vmnic0", VendorID: "0x15b3", DeviceID: "0x1017", ModuleName: "i40en"})
		b.DVSwitches[0].Uplinks = []string{"vmnic0", "vmnic4"}
	})()
	res := Run(fleet)
	f := one1(t, res, "RDMA_DRIVER_NOT_LOADED", "esx02")
	if strings.Contains(f.Message, "vmnic0") || !strings.Contains(f.Message, "of vmnic4 ") {
		t.Errorf("message %q", f.Message)
	}
}
