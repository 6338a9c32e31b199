package redact

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A VM's .vmx (read for PVRDMA VMs) names it in its path and in
// displayName, where a quote is written |22: both are redacted, and the
// redacted command line is still the catalogue's .vmx read.
func TestRedactVMX(t *testing.T) {
	const name = `gpu "lab" $(x) node`
	path := "/vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/" + name + "/" + name + ".vmx"
	hr := hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		{Host: "esx01", Command: "esxcli vm process list", Kind: catalog.KindVMProcessList, Status: hostio.StatusCollected,
			Stdout: name + "\n   World ID: 1001\n   Display Name: " + name + "\n   UUID: 42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96\n   Config File: " + path + "\n\n"},
		{Host: "esx01", Command: "cat '" + path + "'", Kind: catalog.KindVMX, Status: hostio.StatusCollected,
			Stdout: "displayName = \"gpu |22lab|22 $(x) node\"\nuuid.bios = \"42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96\"\nethernet1.generatedAddress = \"00:50:56:8a:01:a0\"\n"},
	}}
	r := NewRedactor()
	r.Learn([]hostio.HostResult{hr})
	out := r.Results([]hostio.HostResult{hr})[0]
	for _, c := range out.Captures {
		for _, leak := range []string{"lab", "5bc7459f", "42 3e d7", "00:50:56:8a:01:a0"} {
			if strings.Contains(c.Command+c.Stdout, leak) {
				t.Errorf("%q leaks in %q / %q", leak, c.Command, c.Stdout)
			}
		}
	}
	if cmd := out.Captures[1].Command; catalog.KindOf(cmd) != catalog.KindVMX {
		t.Errorf("redacted command %q is no longer the catalogue's .vmx read", cmd)
	}
}
