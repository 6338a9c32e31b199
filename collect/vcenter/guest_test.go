package vcenter

import (
	"context"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter/vcsim"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The guest's network identity (guest.net, guest.ipAddress,
// guest.hostName, guest.toolsRunningStatus) is read in the same
// retrieval as the VM configuration and kept as VMware Tools reports it.
func TestReadGuestIdentity(t *testing.T) {
	inv := pvrdmaInventory()
	vms := inv.Hosts[0].VMs
	vms[0].Adapters[0].MAC = "00:50:56:8B:01:A0"
	vms[0].Adapters[1].MAC = "00:50:56:8a:01:a0"
	vms[0].Guest = &vcsim.Guest{HostName: "rdma-vm-a.lab", IPAddress: "10.20.0.101",
		IPs: map[int][]string{0: {"10.20.0.101", "fe80::250:56ff:fe8b:1a0"}, 1: {"192.168.50.101"}}}
	_, c, hosts := simSession(t, inv, nil)
	caps, err := c.Read(context.Background(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	h := facts.BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Transport: hostio.TransportSSH, Captures: caps["esx01"]})
	byName := map[string]parse.VMConfig{}
	for _, v := range h.VMConfigs {
		byName[v.Name] = v
	}
	a := byName["rdma-vm-a"]
	if a.PowerState != "poweredOn" || a.Guest == nil {
		t.Fatalf("rdma-vm-a: power %q guest %+v", a.PowerState, a.Guest)
	}
	g := a.Guest
	if g.HostName != "rdma-vm-a.lab" || g.IPAddress != "10.20.0.101" || g.ToolsRunningStatus != "guestToolsRunning" || len(g.NICs) != 2 {
		t.Fatalf("guest %+v", g)
	}
	if n := g.NICs[0]; n.MAC != "00:50:56:8b:01:a0" || len(n.IPs) != 2 || n.IPs[0] != "10.20.0.101" || !n.ConnectedSet || !n.Connected {
		t.Errorf("management NIC %+v", n)
	}
	if n := g.NICs[1]; n.MAC != "00:50:56:8a:01:a0" || len(n.IPs) != 1 || n.IPs[0] != "192.168.50.101" || n.MAC != a.Adapters[1].MAC {
		t.Errorf("PVRDMA NIC %+v (adapter %+v)", n, a.Adapters[1])
	}
	// Without Tools: vCenter says so, and knows no address.
	b := byName["rdma-vm-b"]
	if b.Guest == nil || b.Guest.ToolsRunningStatus != "guestToolsNotRunning" || b.Guest.IPAddress != "" {
		t.Errorf("rdma-vm-b guest %+v", b.Guest)
	}
	for _, n := range b.Guest.NICs {
		if len(n.IPs) > 0 {
			t.Errorf("rdma-vm-b NIC with addresses %+v", n)
		}
	}
}
