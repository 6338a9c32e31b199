package collect

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

func TestCommandForFileRoundTrip(t *testing.T) {
	var lines []string
	for _, c := range Stage1() {
		lines = append(lines, c.Line)
	}
	mk := func(c Command, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, c.Line)
	}
	mk(PVRDMAProperties("2100788", "0"))
	mk(RDMAStats("vmrdma12"))
	mk(NICGet("vmnic4"))
	mk(DCBStatus("vmnic5"))
	mk(Vmkping("vmk1", "", "192.168.50.12", 8972))
	mk(Vmkping("vmk2", "vxlan_stack-1", "10.0.0.1", 1472))
	for _, l := range lines {
		name := catalog.FileName(l)
		got, ok := CommandForFile(name)
		if !ok || got != l {
			t.Errorf("CommandForFile(%q) = %q, %v; want %q", name, got, ok, l)
		}
		if catalog.KindOf(got) == "" {
			t.Errorf("%q: no kind", got)
		}
	}
	// Without the .txt suffix too.
	if got, ok := CommandForFile("esxcli_rdma_device_list"); !ok || got != "esxcli rdma device list" {
		t.Errorf("without .txt: %q %v", got, ok)
	}
}

func TestCommandForFileRejects(t *testing.T) {
	for _, name := range []string{
		"", ".txt", "notes.txt", "scenario.yaml",
		"esxcli_rdma_device_list.stderr",
		"esxcli_rdma_device_stats_get_-d_vmnic0.txt",
		"esxcli_network_nic_get_-n_vmnic4_rm_-rf.txt",
		"vmkping_-I_vmk1_-c_3_-d_-s_9999_192.168.50.12.txt",
		"vmkping_-I_vmk1_-c_3_-d_-s_1472_192.168.50.999.txt",
		"vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_12_x_properties.txt",
		"esxcli_system_hostname_get.txt",
	} {
		if got, ok := CommandForFile(name); ok {
			t.Errorf("CommandForFile(%q) = %q, want not ok", name, got)
		}
	}
}
