package vcenter

import (
	"context"
	"strings"
	"testing"

	"github.com/vmware/govmomi/vim25/types"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter/vcsim"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// clusterInventory is a datacenter before its first PVRDMA VM: cluster
// gpu-a (DRS fully automated, HA on) holds esx01 (ready: ConnectX-5 as the
// only uplink of rdma-dvs, vmk1 tagged, pvrdma ruleset open), esx02 (a
// member of rdma-dvs with nothing set up) and esx03 (not on rdma-dvs);
// cluster gpu-b (DRS and HA off) holds esx04, set up like esx02.
func clusterInventory() vcsim.Inventory {
	rdma := types.HostRdmaDevice{Device: "vmrdma0", Driver: "nmlx5_rdma", Description: "MT27800 Family [ConnectX-5]",
		Backing:        &types.HostRdmaDevicePnicBacking{PairedUplink: "vmnic4"},
		ConnectionInfo: types.HostRdmaDeviceConnectionInfo{State: "active", Mtu: 4096, SpeedInMbps: 100000},
		Capability:     types.HostRdmaDeviceCapability{RoceV1Capable: true, RoceV2Capable: true}}
	vmk1 := func(ip string) types.HostVirtualNic {
		return types.HostVirtualNic{Device: "vmk1", Spec: types.HostVirtualNicSpec{Mac: "00:50:56:6e:01:21", Mtu: 9000,
			Ip:                     &types.HostIpConfig{IpAddress: ip, SubnetMask: "255.255.255.0"},
			DistributedVirtualPort: &types.DistributedVirtualSwitchPortConnection{SwitchUuid: "rdma-dvs", PortgroupKey: "pvrdma-pg", PortKey: "8"}}}
	}
	return vcsim.Inventory{
		User: testUser, Password: testPassword, Cluster: "gpu-a",
		ClusterConfig: vcsim.ClusterConfig{DRS: true, HA: true},
		Clusters:      []vcsim.Cluster{{Name: "gpu-b", Hosts: []string{"esx04"}}},
		Switches: []vcsim.Switch{{Name: "rdma-dvs", MaxMTU: 9000, Uplinks: []string{"uplink1"}, Portgroups: []string{"pvrdma-pg"},
			Members: []string{"esx01", "esx02", "esx04"}}},
		Hosts: []vcsim.Host{
			{Name: "esx01", RDMA: []types.HostRdmaDevice{rdma}, Vnics: []types.HostVirtualNic{vmk1("192.168.50.11")},
				Options: map[string]string{"Net.PVRDMAVmknic": "vmk1"}, PVRDMAFirewall: true, Uplinks: map[string][]string{"rdma-dvs": {"vmnic4"}}},
			{Name: "esx02", Uplinks: map[string][]string{"rdma-dvs": {"vmnic2"}}},
			{Name: "esx03"},
			{Name: "esx04", Uplinks: map[string][]string{"rdma-dvs": {"vmnic2"}}},
		},
	}
}

// The cluster of each host, with DRS and HA, is read from vCenter; the
// hosts off the vDS are not its members; and the readiness of each host
// follows: esx02 not ready where DRS and HA place VMs (a warning), esx04
// not ready where they are off (information), esx03 off the vDS.
func TestReadClustersIntoReadiness(t *testing.T) {
	_, c, hosts := simSession(t, clusterInventory(), nil)
	if len(hosts) != 4 {
		t.Fatalf("hosts %+v", hosts)
	}
	caps, err := c.Read(context.Background(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	var fleet facts.Fleet
	var results []hostio.HostResult
	for _, h := range hosts {
		results = append(results, hostio.HostResult{Host: h.Name, Status: hostio.StatusPartial, Reason: "SSH refused", Captures: caps[h.Name]})
	}
	fleet = facts.Build(results)
	want := map[string]struct {
		cluster  string
		drs, ha  bool
		switches int
	}{"esx01": {"gpu-a", true, true, 1}, "esx02": {"gpu-a", true, true, 1}, "esx03": {"gpu-a", true, true, 0}, "esx04": {"gpu-b", false, false, 1}}
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		cl, standalone := h.Cluster()
		w := want[h.Host]
		if cl == nil || standalone || cl.Name != w.cluster || cl.DRS == nil || *cl.DRS != w.drs || cl.HA == nil || *cl.HA != w.ha ||
			cl.DRSRef.Line == 0 || !strings.Contains(cl.DRSRef.Property, "drsConfig.enabled") {
			t.Errorf("%s: cluster %+v standalone %t, want %+v", h.Host, cl, standalone, w)
		}
		if len(h.DVSwitches) != w.switches {
			t.Errorf("%s: switches %+v", h.Host, h.DVSwitches)
		}
	}
	rd := checks.ReadinessOf(&fleet)
	if rd.Switch != "rdma-dvs" {
		t.Fatalf("PVRDMA vDS %q (%s)", rd.Switch, rd.SwitchWhy)
	}
	res := checks.Run(&fleet)
	got := map[string]checks.Finding{}
	for _, f := range res.Findings {
		if f.RuleID == "HOST_NOT_READY" {
			got[f.Host] = f
		}
	}
	for _, w := range []struct {
		host   string
		status checks.Status
		sev    checks.Severity
		msg    string
	}{
		{"esx02", checks.StatusFail, checks.Warning, "Cluster gpu-a: DRS (fullyAutomated) places and moves VMs on it, and HA restarts"},
		{"esx03", checks.StatusFail, checks.Info, "is not on rdma-dvs"},
		{"esx04", checks.StatusFail, checks.Info, "Cluster gpu-b: DRS and HA are off"},
	} {
		f := got[w.host]
		if f.Status != w.status || f.Severity != w.sev || !strings.Contains(f.Message, w.msg) {
			t.Errorf("%s: %s %s %q, want %s %s %q", w.host, f.Status, f.Severity, f.Message, w.status, w.sev, w.msg)
		}
	}
	if f, ok := got["esx01"]; ok {
		t.Errorf("esx01 is ready (its lossless setup needs SSH): %+v", f)
	}
}
