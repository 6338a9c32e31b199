package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// manyPVRDMAVMs is the stage 1 of a host running n PVRDMA VMs (one adapter
// each) and n plain ones.
func manyPVRDMAVMs(n int) []hostio.Capture {
	var vms, ls strings.Builder
	for i := range 2 * n {
		wid := 2000000 + i
		fmt.Fprintf(&vms, "vm %05d (prod)\n   World ID: %d\n   Process ID: 0\n   VMX Cartel ID: %d\n   UUID: 42 00\n   Display Name: vm %05d (prod)\n"+
			"   Config File: /vmfs/volumes/66aa-bb/vm %05d (prod)/vm %05d (prod).vmx\n\n", i, wid, wid-1, i, i, i)
		if i%2 == 0 {
			fmt.Fprintf(&ls, "%d_0/\n", wid)
		}
	}
	return []hostio.Capture{
		{Command: "esxcli vm process list", Kind: catalog.KindVMProcessList, Stdout: vms.String(), Status: hostio.StatusCollected},
		{Command: "vsish -e ls " + PVRDMADevicesDir, Kind: catalog.KindPVRDMADeviceLs, Stdout: ls.String(), Status: hostio.StatusCollected},
	}
}

// A host with 5,000 PVRDMA VMs plans at most the stage-2 cap: the vsish
// reads first, the .vmx reads in what is left, the rest counted in the
// note; planning stays linear.
func TestPlanVMXBoundedByCap(t *testing.T) {
	caps := manyPVRDMAVMs(5000)
	cmds, notes := planStage2(context.Background(), caps, DefaultMaxStage2)
	if len(cmds) != DefaultMaxStage2 {
		t.Errorf("%d commands planned, cap %d", len(cmds), DefaultMaxStage2)
	}
	note := strings.Join(notes, "\n")
	if !strings.Contains(note, "9,488 more follow-up commands not collected (cap of 512 per host): 4,488 PVRDMA device properties, 5,000 .vmx files of PVRDMA VMs") {
		t.Errorf("notes %q", notes)
	}
	// 200 VMs fit: every one gets its .vmx read.
	cmds, _ = planStage2(context.Background(), manyPVRDMAVMs(200), DefaultMaxStage2)
	n := 0
	for _, c := range cmds {
		if c.Kind == catalog.KindVMX {
			n++
		}
	}
	if n != 200 || len(cmds) != 400 {
		t.Errorf("200 PVRDMA VMs: %d .vmx reads of %d commands", n, len(cmds))
	}
}

func benchPlan(b *testing.B, n int) {
	caps := manyPVRDMAVMs(n)
	b.ReportAllocs()
	for b.Loop() {
		if cmds, _ := planStage2(context.Background(), caps, DefaultMaxStage2); len(cmds) == 0 {
			b.Fatal("nothing planned")
		}
	}
}

// Stage-2 planning of a host with 200 (all read) and 5,000 PVRDMA VMs (capped).
func BenchmarkPlanStage2VMX200(b *testing.B)  { benchPlan(b, 200) }
func BenchmarkPlanStage2VMX5000(b *testing.B) { benchPlan(b, 5000) }
