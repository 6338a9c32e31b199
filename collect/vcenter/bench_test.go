package vcenter

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/vim25/mo"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter/vcsim"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
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
		readVMConfigs(ctx, b, c, hosts, 1000)
	}
}

// readVMConfigs is one iteration of what scan --vcenter does after login:
// Read, the captures rendered, and each host's facts built; it fails b
// unless the facts hold want VM configurations.
func readVMConfigs(ctx context.Context, b *testing.B, c *Client, hosts []Host, want int) {
	caps, err := c.Read(ctx, hosts)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for name, cs := range caps {
		h := facts.BuildHost(hostio.HostResult{Host: name, Status: hostio.StatusCollected, Captures: cs})
		n += len(h.VMConfigs)
	}
	if n != want {
		b.Fatalf("%d VM configs, want %d", n, want)
	}
}

// BenchmarkRead1250VMs is the same read of 1,250 PVRDMA VMs on 25 hosts,
// beside govc (govmomi's own CLI, the tool an admin would reach for)
// collecting the same VM properties from the same simulator in one
// PropertyCollector retrieval: `govc object.collect -json -type m /
// <the VM properties pvrdma-doctor reads>`, run as a process (its login
// included) with GOVC_BIN naming the binary (skipped without it). Both
// are bound by vcsim, in this process: its property collector copies and
// XML-encodes every VM.
func BenchmarkRead1250VMs(b *testing.B) {
	s, c, hosts := simSession(b, bigInventory(25, 50), nil)
	ctx := context.Background()
	b.Run("pvrdma-doctor", func(b *testing.B) {
		for b.Loop() {
			readVMConfigs(ctx, b, c, hosts, 1250)
		}
	})
	b.Run("pvrdma-doctor-vm-retrieval", func(b *testing.B) {
		// Only the VM retrieval of Read: what govc does below.
		_, dc, err := c.scope(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			var vms []mo.VirtualMachine
			if err := c.retrieve(ctx, dc, "VirtualMachine", VMProps, &vms); err != nil || len(vms) != 1250 {
				b.Fatalf("%d VMs: %v", len(vms), err)
			}
		}
	})
	b.Run("govc", func(b *testing.B) {
		bin := os.Getenv("GOVC_BIN")
		if bin == "" {
			b.Skip("GOVC_BIN not set")
		}
		u := *s.URL
		u.User = url.UserPassword(testUser, testPassword)
		args := append([]string{"object.collect", "-json", "-type", "m", "/"}, VMProps...)
		for b.Loop() {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "GOVC_URL="+u.String(), "GOVC_INSECURE=1")
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("govc: %v", err)
			}
			if n := strings.Count(string(out), `"config.hardware.device"`); n != 1250 {
				b.Fatalf("govc listed %d VMs' devices, want 1250", n)
			}
		}
	})
}
