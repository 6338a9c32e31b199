package vcenter

import (
	"context"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Each adapter carries the name govc gives it (govmomi's device list:
// "ethernet-" and its unit number less 7): rdma-vm-a's PVRDMA card, after
// its vmxnet3, is ethernet-1; rdma-vm-b's only card ethernet-0.
func TestAdaptersNamedAsGovcNamesThem(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), func(c *Config) { c.Cluster = "rdma-cluster" })
	caps, err := c.Read(context.Background(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	h := facts.BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Transport: hostio.TransportSSH, Captures: caps["esx01"]})
	want := map[string][]string{"rdma-vm-a": {"vmxnet3 ethernet-0", "vrdma ethernet-1"}, "rdma-vm-b": {"vrdma ethernet-0"}}
	for _, v := range h.VMConfigs {
		w, ok := want[v.Name]
		if !ok {
			continue
		}
		delete(want, v.Name)
		var got []string
		for _, a := range v.Adapters {
			got = append(got, a.Type+" "+a.Device)
		}
		if len(got) != len(w) {
			t.Errorf("%s: adapters %v, want %v", v.Name, got, w)
			continue
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s: adapters %v, want %v", v.Name, got, w)
				break
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("not read: %v", want)
	}
}
