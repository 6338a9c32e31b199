package checks

import (
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
		want  ActionKind
		param string // the module the step acts on
		not   []ActionKind
	}{
		{"E810: icen's RDMA parameter", nic{"icen", "0x8086", "0x159b", "Intel(R) Ethernet Controller E810-XXV for SFP"}, ActSetModuleParams, "icen",
			[]ActionKind{ActInstallNIC, ActEnableModule}},
		{"ConnectX-5: nmlx5_rdma", nic{"nmlx5_core", "0x15b3", "0x1017", "Mellanox Technologies MT27800 Family [ConnectX-5]"}, ActEnableModule, "nmlx5_rdma",
			[]ActionKind{ActInstallNIC}},
		{"ConnectX-6 Dx: nmlx5_rdma", nic{"nmlx5_core", "0x15b3", "0x101d", "Mellanox Technologies MT2892 Family [ConnectX-6 Dx]"}, ActEnableModule, "nmlx5_rdma",
			[]ActionKind{ActInstallNIC}},
		{"ConnectX-3: nmlx4_rdma", nic{"nmlx4_en", "0x15b3", "0x1007", "Mellanox Technologies MT27520 Family [ConnectX-3 Pro]"}, ActEnableModule, "nmlx4_rdma",
			[]ActionKind{ActInstallNIC}},
		{"BCM57414: bnxtroce", nic{"bnxtnet", "0x14e4", "0x16d7", "Broadcom BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller"}, ActEnableModule, "bnxtroce",
			[]ActionKind{ActInstallNIC}},
		{"BCM57508: bnxtroce", nic{"bnxtnet", "0x14e4", "0x1750", "Broadcom BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet"}, ActEnableModule, "bnxtroce",
			[]ActionKind{ActInstallNIC}},
		{"QLogic FastLinQ: qedrntv", nic{"qedentv", "0x1077", "0x8070", "QLogic FastLinQ QL41xxx 1/10/25 GbE Ethernet Adapter"}, ActEnableModule, "qedrntv",
			[]ActionKind{ActInstallNIC}},
		{"X722: iWARP only, a new NIC", nic{"i40en", "0x8086", "0x37d2", "Intel(R) Ethernet Connection X722 for 10GBASE-T"}, ActInstallNIC, "",
			[]ActionKind{ActEnableModule}},
		{"X710: no RDMA, a new NIC", nic{"i40en", "0x8086", "0x1572", "Intel(R) Ethernet Controller X710 for 10GbE SFP+"}, ActInstallNIC, "",
			[]ActionKind{ActEnableModule}},
		{"X550: no RDMA, a new NIC", nic{"ixgben", "0x8086", "0x1563", "Intel(R) Ethernet Controller X550"}, ActInstallNIC, "", nil},
		{"BCM5719: no RDMA, a new NIC", nic{"ntg3", "0x14e4", "0x1657", "Broadcom NetXtreme BCM5719 Gigabit Ethernet"}, ActInstallNIC, "", nil},
		// Without the PCI listing, the driver and description tell.
		{"E810 by its driver", nic{"icen", "", "", "Intel(R) Ethernet Controller E810-C for QSFP"}, ActSetModuleParams, "icen", []ActionKind{ActInstallNIC}},
		{"X722 by its description", nic{"i40en", "", "", "Intel(R) Ethernet Connection X722 for 10GbE SFP+"}, ActInstallNIC, "", nil},
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
				if s.Action == c.want && (c.param == "" || s.Params.Module == c.param) {
					found = &p.Steps[i]
				}
				if c.want == ActInstallNIC && s.Params.Module == c.nic.driver {
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
			case ActInstallNIC:
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
