package redact

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A host read from vCenter only (SSH off): its VMs' names are learned from
// the vCenter capture and redacted everywhere, and the capture still parses.
func TestVCenterVMNamesRedacted(t *testing.T) {
	text := parse.RenderVCenterVMs(parse.VCenterVMDoc{Host: "esx-prod-17", VMs: []parse.VCenterVM{
		{Name: "payroll-db-01", UUID: "4203c2a1-1111-2222-3333-444455556666", ConfigFile: "[ds1] payroll-db-01/payroll-db-01.vmx",
			GuestHostName: "pdb01.corp.example.com", GuestIP: "10.44.3.21",
			GuestNet: []parse.VCenterGuestNIC{{MAC: "00:50:56:8b:01:a0", IPs: []string{"10.44.3.21", "fd00:44::21"}}}}}})
	in := []hostio.HostResult{{Host: "esx-prod-17", Status: hostio.StatusPartial, Captures: []hostio.Capture{
		{Host: "esx-prod-17", Command: "vcenter vm config", Kind: catalog.KindVCenterVMs, Stdout: text, Status: hostio.StatusCollected}}}}
	r := NewRedactor()
	r.Learn(in)
	out := r.Results(in)
	got := out[0].Captures[0].Stdout
	for _, secret := range []string{"payroll-db-01", "esx-prod-17", "4203c2a1", "pdb01", "10.44.3.21", "fd00:44::21", "00:50:56:8b:01:a0"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q left in the redacted capture:\n%s", secret, got)
		}
	}
	vms, err := parse.VCenterVMConfig(got)
	if err != nil || len(vms) != 1 || !strings.HasPrefix(vms[0].Name, "vm-") || vms[0].Guest == nil || len(vms[0].Guest.NICs) != 1 {
		t.Errorf("redacted capture: %v %+v", err, vms)
	}
}

// The cluster of a host, in vCenter's host capture (a datacenter-wide scan
// reads clusters no --cluster named): a token, and the capture still
// parses with its DRS and HA settings.
func TestVCenterClusterNamesRedacted(t *testing.T) {
	on := true
	text := parse.RenderVCenterHost(parse.VCenterHostDoc{Host: "esx-prod-17", Parent: "ClusterComputeResource:domain-c7",
		Cluster: &parse.VCenterCluster{Name: "payroll-gpu", DRSEnabled: &on, DRSBehavior: "fullyAutomated", HAEnabled: &on}})
	in := []hostio.HostResult{{Host: "esx-prod-17", Status: hostio.StatusPartial, Captures: []hostio.Capture{
		{Host: "esx-prod-17", Command: "vcenter host config", Kind: catalog.KindVCenterHost, Stdout: text, Status: hostio.StatusCollected}}}}
	r := NewRedactor()
	r.Learn(in)
	got := r.Results(in)[0].Captures[0].Stdout
	if strings.Contains(got, "payroll-gpu") {
		t.Errorf("the cluster's name left in the redacted capture:\n%s", got)
	}
	h, err := parse.VCenterHostConfig(got)
	if err != nil || h.Cluster == nil || !strings.HasPrefix(h.Cluster.Name, "cluster-") || h.Cluster.DRS == nil || !*h.Cluster.DRS {
		t.Errorf("redacted capture: %v %+v", err, h.Cluster)
	}
}

// --redact-names (Redactor.Names): the names of distributed switches and
// port groups and vCenter's managed-object IDs become tokens, in every
// capture, and the captures still parse; without it they are kept (the
// default: they name no host, address or VM).
func TestSiteNamesRedactedOnRequest(t *testing.T) {
	yes := true
	vmText := parse.RenderVCenterVMs(parse.VCenterVMDoc{Host: "esx-prod-17", VMs: []parse.VCenterVM{{
		Name: "payroll-db-01", MoRef: "vm-4021",
		Adapters: []parse.VCenterAdapter{{Label: "Network adapter 2", Type: "VirtualVmxnet3Vrdma", MAC: "00:50:56:8b:01:a1", Connected: &yes,
			Network: "pvrdma-pg-prod", DVSName: "dc1-rdma-vds", DVSUUID: "50 2b 11 22 33 44 55 66-77 88 99 aa bb cc dd ee", PortgroupKey: "dvportgroup-1234"}}}}})
	hostText := parse.RenderVCenterHost(parse.VCenterHostDoc{Host: "esx-prod-17", Parent: "ClusterComputeResource:domain-c7"})
	ifList := "Name  Port Group  Portset  Netstack\nvmk1  N/A  DvsPortset-0  defaultTcpipStack\n   VDS Name: dc1-rdma-vds\n"
	in := []hostio.HostResult{{Host: "esx-prod-17", Status: hostio.StatusPartial, Captures: []hostio.Capture{
		{Host: "esx-prod-17", Command: "vcenter vm config", Kind: catalog.KindVCenterVMs, Stdout: vmText, Status: hostio.StatusCollected},
		{Host: "esx-prod-17", Command: "vcenter host config", Kind: catalog.KindVCenterHost, Stdout: hostText, Status: hostio.StatusCollected},
		{Host: "esx-prod-17", Command: "note", Kind: "note", Stdout: "port group pvrdma-pg-prod (dvportgroup-1234) on dc1-rdma-vds, domain-c7, vm-4021\n" + ifList, Status: hostio.StatusCollected},
	}}}
	secrets := []string{"pvrdma-pg-prod", "dc1-rdma-vds", "dvportgroup-1234", "vm-4021", "domain-c7"}
	r := NewRedactor()
	r.Learn(in)
	kept := r.Results(in)
	if !strings.Contains(kept[0].Captures[2].Stdout, "dc1-rdma-vds") {
		t.Errorf("without --redact-names a switch name was redacted: %s", kept[0].Captures[2].Stdout)
	}
	r = NewRedactor()
	r.Names = true
	r.Learn(in)
	out := r.Results(in)
	for _, c := range out[0].Captures {
		for _, s := range secrets {
			if strings.Contains(c.Stdout, s) {
				t.Errorf("%q left in %s:\n%s", s, c.Command, c.Stdout)
			}
		}
	}
	vms, err := parse.VCenterVMConfig(out[0].Captures[0].Stdout)
	if err != nil || len(vms) != 1 || len(vms[0].Adapters) != 1 || !strings.HasPrefix(vms[0].Adapters[0].DVSName, "switch-") ||
		!strings.HasPrefix(vms[0].Adapters[0].Network, "portgroup-") || !strings.HasPrefix(vms[0].Adapters[0].PortgroupKey, "moid-") {
		t.Errorf("redacted capture: %v %+v", err, vms)
	}
	tm := r.TokenMap()
	if back := tm.Reverse(out[0].Captures[2].Stdout); back != in[0].Captures[2].Stdout {
		t.Errorf("reversed:\n%s\nwant\n%s", back, in[0].Captures[2].Stdout)
	}
}
