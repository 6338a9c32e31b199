package offline

import (
	"os"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func scenarioOutput(t testing.TB, host, file string) string {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/scenarios/mixed/" + host + "/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 23: a pasted session as a terminal wraps it. A command line
// wrapped mid-word (`.../2101236_0/pr` then `operties`, at 132 columns)
// or at a space (`-o` then `/Net/PVRDMAVmknic`) is one command, its
// output starting after the wrapped rest; a long value wrapped with a
// one-space continuation (` Server Appliance/...` after `Config File:
// .../VMware vCenter`) is one value, and the .vmx read the doctor names
// for that VM is the full path.
func TestTranscriptWrappedByTheTerminal(t *testing.T) {
	props := scenarioOutput(t, "esx01", "vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_2101236_0_properties.txt")
	opt := scenarioOutput(t, "esx01", "esxcli_system_settings_advanced_list_-o_Net_PVRDMAVmknic.txt")
	ls := "2101236_0/\n"
	vms := "vcsa-01\n   World ID: 2101236\n   Process ID: 0\n   VMX Cartel ID: 2101235\n" +
		"   UUID: 42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 97\n   Display Name: vcsa-01\n" +
		"   Config File: /vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter\n" +
		" Server Appliance/VMware vCenter Server Appliance.vmx\n"
	text := "[root@esx01:~] vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2101236_0/pr\noperties\n" + props +
		"[root@esx01:~] esxcli system settings advanced list -o\n/Net/PVRDMAVmknic\n" + opt +
		"[root@esx01:~] vsish -e ls /vmkModules/vrdma/pvrdmaDevices\n" + ls +
		"[root@esx01:~] esxcli vm process list\n" + vms + "[root@esx01:~] \n"
	in, err := FromTranscript(text)
	if err != nil {
		t.Fatal(err)
	}
	hr := in.Results[0]
	byKind := map[hostio.Kind]hostio.Capture{}
	for _, c := range hr.Captures {
		byKind[c.Kind] = c
	}
	p := byKind[catalog.KindPVRDMAProperties]
	if p.Command != "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2101236_0/properties" || p.Stdout != props {
		t.Errorf("wrapped vsish command: %q, output %q", p.Command, p.Stdout)
	}
	if o := byKind[catalog.KindPVRDMAVmknicOpt]; !o.OK() || o.Stdout != opt {
		t.Errorf("wrapped -o value: %+v", o)
	}
	for _, rd := range in.Read[0].Commands {
		if strings.HasPrefix(rd.Command, "vsish -e cat") && rd.Line != 2 {
			t.Errorf("the properties' output starts after line %d, want 2 (output line k is transcript line Line+k)", rd.Line)
		}
	}
	h := facts.BuildHost(hr)
	if len(h.VMs) != 1 || h.VMs[0].ConfigFile != "/vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter Server Appliance/VMware vCenter Server Appliance.vmx" {
		t.Fatalf("wrapped Config File: %+v", h.VMs)
	}
	if len(h.PVRDMADevices) != 1 || h.PVRDMADevices[0].PhysicalHCA != 0 || h.PVRDMADevices[0].VMName != "vcsa-01" {
		t.Errorf("adapter %+v", h.PVRDMADevices)
	}
	for _, s := range h.Sources[catalog.KindVMProcessList] {
		if s.Partial() {
			t.Errorf("the wrapped value was skipped: %s", s.SkippedSummary())
		}
	}
}
