package vcenter

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/vcenter/vcsim"
)

// bigInventory is 20 hosts with 50 PVRDMA VMs each: 1,000 VMs.
func bigInventory(hosts, perHost int) vcsim.Inventory {
	inv := pvrdmaInventory()
	base := inv.Hosts[0]
	inv.Hosts = nil
	for h := range hosts {
		hs := base
		hs.Name = fmt.Sprintf("esx%03d", h+1)
		hs.VMs = nil
		for v := range perHost {
			hs.VMs = append(hs.VMs, vcsim.VM{Name: fmt.Sprintf("rdma-%03d-%02d", h+1, v), Version: "vmx-19", GuestID: "ubuntu64Guest",
				MemoryMB: 8192, ReservationMB: 8192, LockedToMax: true, PoweredOff: true,
				Extra:    map[string]string{"vrdma0.nativeEndpointSupport": "TRUE"},
				Adapters: []vcsim.Adapter{{}, {Protocol: "rocev2", Switch: "dvs-rdma", Portgroup: "pg-rdma"}}})
		}
		inv.Hosts = append(inv.Hosts, hs)
	}
	return inv
}

// BenchmarkRead1000VMs reads the configuration of 1,000 PVRDMA VMs on 20
// hosts from vcsim over the real API (one PropertyCollector retrieval per
// object type), renders the captures, and parses them into facts: the
// target is under 5 s (bench/RESULTS.md).
func BenchmarkRead1000VMs(b *testing.B) {
	start := time.Now()
	_, c, hosts := simSession(b, bigInventory(20, 50), nil)
	b.Logf("vcsim inventory of 1,000 VMs built in %s", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		caps, err := c.Read(ctx, hosts)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for name, cs := range caps {
			h := facts.BuildHost(hostio.HostResult{Host: name, Status: hostio.StatusCollected, Captures: cs})
			n += len(h.VMConfigs)
		}
		if n != 1000 {
			b.Fatalf("%d VM configs, want 1000", n)
		}
	}
}
