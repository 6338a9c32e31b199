package facts

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// bcmHost is a host with a two-port BCM57508 (bnxtnet) and the given
// bnxtnet parameters.
func bcmHost(params ...parse.ModuleParam) *Host {
	h := &Host{}
	h.NICs = []parse.NIC{
		{Name: "vmnic4", PCIDevice: "0000:3b:00.0", Driver: "bnxtnet", Description: "Broadcom BCM57508 NetXtreme-E 100Gb RDMA Ethernet Controller"},
		{Name: "vmnic5", PCIDevice: "0000:3b:00.1", Driver: "bnxtnet", Description: "Broadcom BCM57508 NetXtreme-E 100Gb RDMA Ethernet Controller"},
	}
	for _, p := range params {
		p.Module = "bnxtnet"
		h.ModuleParams = append(h.ModuleParams, p)
	}
	return h
}

func TestRoCESwitchFromTheHostsOwnParameters(t *testing.T) {
	drss := parse.ModuleParam{Name: "DRSS", Type: "int", Description: "Number of RSS queues"}
	for _, c := range []struct {
		name   string
		params []parse.ModuleParam
		nic    string
		// want: "" no switch; else "param off=bool set".
		want string
	}{
		{"disable_roce=1", []parse.ModuleParam{drss, {Name: "disable_roce", Type: "array of int", Value: "1", Description: "Disable the RoCE support"}},
			"vmnic4", "disable_roce true 0"},
		{"per port, the other port's value kept", []parse.ModuleParam{{Name: "disable_roce", Value: "0,1", Description: "Disable RoCE per port"}},
			"vmnic5", "disable_roce true 0,0"},
		{"per port, this port on (near miss)", []parse.ModuleParam{{Name: "disable_roce", Value: "0,1", Description: "Disable RoCE per port"}},
			"vmnic4", "disable_roce false "},
		{"disable_roce unset (near miss: RoCE on by default)", []parse.ModuleParam{{Name: "disable_roce", Description: "Disable RoCE"}},
			"vmnic4", "disable_roce false "},
		{"a name from the description only", []parse.ModuleParam{{Name: "roce_off", Value: "1", Description: "Disable RoCE on the ports"}},
			"vmnic4", "roce_off true 0"},
		{"an enable switch set to 0", []parse.ModuleParam{{Name: "enable_roce", Value: "0", Description: "Enable RoCE"}},
			"vmnic4", "enable_roce true 1"},
		{"an enable switch unset, default off", []parse.ModuleParam{{Name: "RDMA", Description: "Enable RDMA (0: off, default 0)"}},
			"vmnic4", "RDMA true 1,1"},
		{"a count is no switch", []parse.ModuleParam{{Name: "roce_max_qp", Value: "0", Description: "Number of RoCE queue pairs"}},
			"vmnic4", ""},
		{"no RoCE parameter", []parse.ModuleParam{drss}, "vmnic4", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := bcmHost(c.params...).RoCESwitchOf(c.nic)
			got := ""
			if s != nil {
				got = s.Param.Name + " " + map[bool]string{true: "true", false: "false"}[s.Off] + " " + s.Set
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// The bound driver names a NIC's family; PCI IDs of another family are a
// note.
func TestFamilyOfBoundDriverWins(t *testing.T) {
	h := &Host{}
	h.NICs = []parse.NIC{
		{Name: "vmnic0", PCIDevice: "0000:18:00.0", Driver: "i40en", Description: "Intel(R) Ethernet Controller X710 for 10GbE SFP+"},
		{Name: "vmnic4", PCIDevice: "0000:3b:00.0", Driver: "nmlx5_core", Description: "Mellanox Technologies MT28800 Family [ConnectX-5 Ex]"},
	}
	// A stale or wrong PCI table: vmnic0 listed with a ConnectX-5's IDs.
	h.PCIDevices = []parse.PCIDevice{
		{Address: "0000:18:00.0", VMkernelName: "vmnic0", VendorID: "0x15b3", DeviceID: "0x1017", ModuleName: "i40en"},
		{Address: "0000:3b:00.0", VMkernelName: "vmnic4", VendorID: "0x15b3", DeviceID: "0x1019", ModuleName: "nmlx5_core"},
	}
	if f := h.FamilyOf("vmnic0"); f.Name != "X710" || f.RoCE || f.RDMADriver != "" {
		t.Errorf("vmnic0 = %+v, want the bound i40en's X710", f)
	}
	if n := h.IdentityConflict("vmnic0"); !strings.Contains(n, "ConnectX-5") || !strings.Contains(n, "i40en") {
		t.Errorf("note = %q", n)
	}
	// Near miss: PCI IDs and driver agree; the PCI IDs name the model.
	if f := h.FamilyOf("vmnic4"); f.Name != "ConnectX-5" || f.RDMADriver != "nmlx5_rdma" {
		t.Errorf("vmnic4 = %+v", f)
	}
	if n := h.IdentityConflict("vmnic4"); n != "" {
		t.Errorf("vmnic4 note = %q", n)
	}
	// Only pci list's Module Name: it is the bound driver too.
	h2 := &Host{}
	h2.PCIDevices = []parse.PCIDevice{{Address: "0000:5e:00.0", VMkernelName: "vmnic2", VendorID: "0x15b3", DeviceID: "0x1017", ModuleName: "icen"}}
	if f := h2.FamilyOf("vmnic2"); f.Name != "E810" {
		t.Errorf("vmnic2 = %+v, want icen's E810", f)
	}
}
