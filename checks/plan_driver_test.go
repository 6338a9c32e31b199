package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The remedy of a host without an RDMA device comes from the NICs it has:
// each family's RDMA driver (and a reboot) where the NIC can carry RoCE, a
// new NIC only where none can. The family by PCI IDs, else by driver.
func TestRDMARemedyByNICFamily(t *testing.T) {
	type nic struct{ driver, vendor, device, desc string }
	for _, c := range []struct {
		name  string
		nic   nic
		want  plan.Kind
		param string // the module the step acts on
		not   []plan.Kind
	}{
		{"E810: icen's RDMA parameter", nic{"icen", "0x8086", "0x159b", "Intel(R) Ethernet Controller E810-XXV for SFP"}, plan.KindSetModuleParams, "icen",
			[]plan.Kind{plan.KindInstallNIC, plan.KindEnableModule}},
		{"ConnectX-5: nmlx5_rdma", nic{"nmlx5_core", "0x15b3", "0x1017", "Mellanox Technologies MT27800 Family [ConnectX-5]"}, plan.KindEnableModule, "nmlx5_rdma",
			[]plan.Kind{plan.KindInstallNIC}},
		{"ConnectX-6 Dx: nmlx5_rdma", nic{"nmlx5_core", "0x15b3", "0x101d", "Mellanox Technologies MT2892 Family [ConnectX-6 Dx]"}, plan.KindEnableModule, "nmlx5_rdma",
			[]plan.Kind{plan.KindInstallNIC}},
		{"ConnectX-3: nmlx4_rdma", nic{"nmlx4_en", "0x15b3", "0x1007", "Mellanox Technologies MT27520 Family [ConnectX-3 Pro]"}, plan.KindEnableModule, "nmlx4_rdma",
			[]plan.Kind{plan.KindInstallNIC}},
		{"BCM57414: bnxtroce", nic{"bnxtnet", "0x14e4", "0x16d7", "Broadcom BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller"}, plan.KindEnableModule, "bnxtroce",
			[]plan.Kind{plan.KindInstallNIC}},
		{"BCM57508: bnxtroce", nic{"bnxtnet", "0x14e4", "0x1750", "Broadcom BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet"}, plan.KindEnableModule, "bnxtroce",
			[]plan.Kind{plan.KindInstallNIC}},
		{"QLogic FastLinQ: qedrntv", nic{"qedentv", "0x1077", "0x8070", "QLogic FastLinQ QL41xxx 1/10/25 GbE Ethernet Adapter"}, plan.KindEnableModule, "qedrntv",
			[]plan.Kind{plan.KindInstallNIC}},
		{"X722: iWARP only, a new NIC", nic{"i40en", "0x8086", "0x37d2", "Intel(R) Ethernet Connection X722 for 10GBASE-T"}, plan.KindInstallNIC, "",
			[]plan.Kind{plan.KindEnableModule}},
		{"X710: no RDMA, a new NIC", nic{"i40en", "0x8086", "0x1572", "Intel(R) Ethernet Controller X710 for 10GbE SFP+"}, plan.KindInstallNIC, "",
			[]plan.Kind{plan.KindEnableModule}},
		{"X550: no RDMA, a new NIC", nic{"ixgben", "0x8086", "0x1563", "Intel(R) Ethernet Controller X550"}, plan.KindInstallNIC, "", nil},
		{"BCM5719: no RDMA, a new NIC", nic{"ntg3", "0x14e4", "0x1657", "Broadcom NetXtreme BCM5719 Gigabit Ethernet"}, plan.KindInstallNIC, "", nil},
		// Without the PCI listing, the driver and description tell.
		{"E810 by its driver", nic{"icen", "", "", "Intel(R) Ethernet Controller E810-C for QSFP"}, plan.KindSetModuleParams, "icen", []plan.Kind{plan.KindInstallNIC}},
		{"X722 by its description", nic{"i40en", "", "", "Intel(R) Ethernet Connection X722 for 10GbE SFP+"}, plan.KindInstallNIC, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, h := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			h.RDMADevices, h.RDMAProtocols, h.RDMAVmknics, h.RDMAStats = nil, nil, nil, nil
			setProp(&h, "Physical HCA available", "0")
			h.NICs = []parse.NIC{{Name: "vmnic4", PCIDevice: "0000:3b:00.0", Driver: c.nic.driver, LinkStatus: "Up", MTU: 9000, Description: c.nic.desc}}
			h.NICDetails, h.DCB = nil, nil
			if c.nic.vendor != "" {
				h.PCIDevices = []parse.PCIDevice{{Address: "0000:3b:00.0", VMkernelName: "vmnic4", VendorID: c.nic.vendor, DeviceID: c.nic.device,
					DeviceName: c.nic.desc, ModuleName: c.nic.driver}}
			}
			fleet := &facts.Fleet{Hosts: []facts.Host{a, h}}
			res := Run(fleet)
			f := one1(t, res, "NO_RDMA_DEVICE", "esx02")
			p := PlanFor(Plans(fleet, res.Findings), "esx02")
			if p == nil {
				t.Fatalf("no plan:\n%s", dump(res.Findings))
			}
			var found *PlanStep
			for i, s := range p.Steps {
				if s.Action == c.want && (c.param == "" || moduleOf(s.Params) == c.param) {
					found = &p.Steps[i]
				}
				if c.want == plan.KindInstallNIC && moduleOf(s.Params) == c.nic.driver {
					t.Errorf("step %d acts on the present NIC's driver: %s", s.N, s.Text)
				}
				for _, n := range c.not {
					if s.Action == n {
						t.Errorf("step %d %s: %s", s.N, s.Action, s.Text)
					}
				}
			}
			if found == nil {
				t.Fatalf("no %s %s step: %+v", c.want, c.param, p.Steps)
			}
			if !strings.Contains(ResolvesKeys(*found)+" "+allResolves(*p), "NO_RDMA_DEVICE|esx02|esx02") {
				t.Errorf("no step resolves NO_RDMA_DEVICE")
			}
			// The finding's own fix says the same.
			switch c.want {
			case plan.KindInstallNIC:
				if !strings.Contains(f.Fix, "can carry RoCE") || !strings.Contains(f.Fix, "install an RoCE NIC") {
					t.Errorf("fix %q", f.Fix)
				}
			default:
				if strings.Contains(f.Fix, "install an RoCE NIC") || !strings.Contains(f.Fix, "vmnic4 is") {
					t.Errorf("fix %q", f.Fix)
				}
			}
			// A driver change is made in maintenance mode and takes one
			// reboot; the host leaves it before the VMs power on.
			acts := actions(*p)
			if strings.Contains(acts, "enable_module") || strings.Contains(acts, "set_module_params") {
				if !strings.Contains(acts, "enter_maintenance") || strings.Count(acts, "reboot") != 1 ||
					strings.Index(acts, "exit_maintenance") > strings.Index(acts, "power_on_vms") {
					t.Errorf("plan %s", acts)
				}
			}
		})
	}
}

func actions(p Plan) string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, string(s.Action))
	}
	return strings.Join(out, " ")
}

func allResolves(p Plan) string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, ResolvesKeys(s))
	}
	return strings.Join(out, " ")
}

func TestNICFamilies(t *testing.T) {
	h := facts.Host{}
	h.NICs = []parse.NIC{{Name: "vmnic0", PCIDevice: "0000:18:00.0", Driver: "i40en", Description: "Intel(R) Ethernet Controller X710 for 10GbE SFP+"},
		{Name: "vmnic1", PCIDevice: "0000:19:00.0", Driver: "i40en", Description: "Intel(R) Ethernet Connection X722 for 10GbE SFP+"}}
	h.PCIDevices = []parse.PCIDevice{{Address: "0000:18:00.0", VendorID: "0x8086", DeviceID: "0x1572"}}
	if f := h.FamilyOf("vmnic0"); f.Name != "X710" || f.RoCE || f.RDMADriver != "" {
		t.Errorf("vmnic0 %+v", f)
	}
	if f := h.FamilyOf("vmnic1"); f.Name != "X722" || f.RoCE || !f.IWARPOnly {
		t.Errorf("vmnic1 %+v", f)
	}
	if f := h.FamilyOf("vmnic9"); f.Known() {
		t.Errorf("unknown NIC %+v", f)
	}
	hh := facts.Host{}
	hh.NICs = []parse.NIC{{Name: "vmnic4", Driver: "nmlx5_core"}}
	if !hh.NMLX5("vmnic4") {
		t.Error("nmlx5_core is NMLX5")
	}
}

// The remedy reads the driver layer: a driver not installed is installed
// (not enabled), one enabled since the last boot only needs the reboot, a
// disabled one is enabled; icen's RDMA parameter already on needs the
// reboot alone, and one off is set merged into icen's other options.
func TestRDMARemedyReadsTheDriverLayer(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(b *facts.Host)
		// want: an action on a module (module "" for any), its Current
		// options when set; not: actions that must not appear.
		want, module, current string
		not                   []string // "action module"
		note                  string   // a substring of the step's note
	}{
		{"nmlx5_rdma not installed: install it", func(b *facts.Host) {
			noDevice("0")(b)
			withModules(b, "nmlx5_core true true")
		}, "investigate", "", "", []string{"enable_module nmlx5_rdma"}, "Install nmlx5_rdma"},
		{"nmlx5_rdma enabled since the last boot: the reboot only", func(b *facts.Host) {
			noDevice("0")(b)
			withModules(b, "nmlx5_core true true", "nmlx5_rdma false true")
		}, "reboot", "", "", []string{"enable_module nmlx5_rdma"}, ""},
		{"nmlx5_rdma disabled: enable it", cx4Disabled, "enable_module", "nmlx5_rdma", "", nil, ""},
		{"icen's RDMA on, not booted: the reboot only", func(b *facts.Host) {
			e810Off(b)
			b.ModuleParams = nil
			withParams(b, "icen", "RDMA=1", "RSS=")
		}, "reboot", "", "", []string{"set_module_params icen"}, ""},
		{"icen's RDMA off: set, merged with its options", func(b *facts.Host) {
			e810Off(b)
			b.ModuleParams = nil
			withParams(b, "icen", "RDMA=", "RSS=4")
		}, "set_module_params", "icen", "RSS=4", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fleet := pair(c.set)()
			res := Run(fleet)
			one1(t, res, "NO_RDMA_DEVICE", "esx02")
			p := PlanFor(Plans(fleet, res.Findings), "esx02")
			if p == nil {
				t.Fatalf("no plan:\n%s", dump(res.Findings))
			}
			found := false
			for _, s := range p.Steps {
				if string(s.Action) == c.want && (c.module == "" || moduleOf(s.Params) == c.module) && strings.Contains(noteOf(s.Params), c.note) {
					found = true
					mp, _ := s.Params.(plan.SetModuleParams)
					if c.current != "" && (mp.Current == nil || *mp.Current != c.current) {
						t.Errorf("step %d: current options %v, want %q", s.N, mp.Current, c.current)
					}
				}
				for _, n := range c.not {
					if string(s.Action)+" "+moduleOf(s.Params) == n {
						t.Errorf("step %d %s: %s", s.N, n, s.Text)
					}
				}
			}
			if !found {
				t.Errorf("no %s %s step: %s", c.want, c.module, actions(*p))
			}
		})
	}
}

// moduleOf is the module a driver step acts on ("" for other steps).
func moduleOf(v plan.Value) string {
	switch a := v.(type) {
	case plan.SetModuleParams:
		return a.Module
	case plan.EnableModule:
		return a.Module
	}
	return ""
}

// noteOf is what an investigate step says ("" for other steps).
func noteOf(v plan.Value) string {
	if a, ok := v.(plan.Investigate); ok {
		return a.Note
	}
	return ""
}
