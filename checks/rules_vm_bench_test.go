package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// vmHost is a good host running n PVRDMA VMs, each with its .vmx read.
func vmHost(n int) facts.Host {
	h := goodHost("esx01", "192.168.50.11")
	h.DVSwitches[0].VDSID = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"
	for i := range n {
		name := fmt.Sprintf("vm-%04d", i)
		wid := fmt.Sprint(3000000 + i)
		uuid := fmt.Sprintf("42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 %02x %02x", i/256, i%256)
		path := "/vmfs/volumes/66aa-bb/" + name + "/" + name + ".vmx"
		h.VMs = append(h.VMs, parse.VMProcess{DisplayName: name, WorldID: wid, UUID: uuid, ConfigFile: path})
		h.PVRDMAListing = append(h.PVRDMAListing, parse.VsishEntry{Name: wid + "_0", IsDir: true})
		text := strings.Replace(healthyVMX(name), "42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96", uuid, 1)
		if i%10 == 0 {
			text = strings.Replace(text, `sched.mem.pin = "TRUE"`, `sched.mem.pin = "FALSE"`, 1)
			text = strings.Replace(text, `sched.mem.min = "16384"`, `sched.mem.min = "0"`, 1)
		}
		addVMX(&h, path, text)
	}
	return h
}

// The VM rules on a host with 500 PVRDMA VMs: every VM joined to its
// process once per rule, linear in the VMs.
func BenchmarkVMRules500VMs(b *testing.B) {
	fleet := &facts.Fleet{Hosts: []facts.Host{vmHost(500)}}
	rules := append(append([]*Rule{}, rulesVM...), rulesGPU...)
	b.ReportAllocs()
	for b.Loop() {
		if res := RunRules(fleet, rules); len(failingRule(res, "VM_MEMORY_NOT_RESERVED")) != 50 {
			b.Fatalf("%d memory findings, want 50", len(failingRule(res, "VM_MEMORY_NOT_RESERVED")))
		}
	}
}

func failingRule(res Result, id string) []Finding {
	var out []Finding
	for _, f := range res.Findings {
		if f.RuleID == id && f.Status == StatusFail {
			out = append(out, f)
		}
	}
	return out
}

// Joining a host's VM sources is linear: 4x the VMs, about 4x the memory.
func TestVMViewsLinear(t *testing.T) {
	small, large := vmHost(250), vmHost(1000)
	a := testutil.Allocated(func() { vmViews(&small) })
	c := testutil.Allocated(func() { vmViews(&large) })
	if ratio := float64(c) / float64(a); ratio > 6 {
		t.Errorf("4x the VMs allocate %.1fx (%d -> %d bytes)", ratio, a, c)
	}
	if v := vmViews(&large); len(v) != 1000 || v[999].Proc == nil || len(v[999].Configs) != 1 {
		t.Errorf("%d views", len(v))
	}
}
