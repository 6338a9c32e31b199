package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A VM as its .vmx (ethernet0 management, ethernet1 PVRDMA) and vCenter
// (only the PVRDMA card, which govc names ethernet-0) describe it.
func govcVMView(vcMAC string, vcAdapters ...parse.VMAdapter) vmView {
	vmx := parse.VMConfig{Source: "vmx", Name: "vm1", Adapters: []parse.VMAdapter{
		{Label: "ethernet0", Type: "vmxnet3", MAC: "00:50:56:00:00:01"},
		{Label: "ethernet1", Type: "vrdma", MAC: "00:50:56:00:00:02"}}}
	if vcAdapters == nil {
		vcAdapters = []parse.VMAdapter{{Label: "Network adapter 2", Type: "vrdma", Device: "ethernet-0", MAC: vcMAC, Network: "pvrdma-pg", DVSName: "rdma-dvs"}}
	}
	return vmView{Name: "vm1", Configs: []parse.VMConfig{vmx, {Source: "vcenter", Name: "vm1", Adapters: vcAdapters}}}
}

// govc's device name is vCenter's, for the .vmx adapter it is: by MAC,
// else as the one PVRDMA adapter of both; never the .vmx's ethernetN.
func TestGovcDeviceFromVCenter(t *testing.T) {
	for _, c := range []struct {
		name  string
		v     vmView
		label string
		want  string
	}{
		{"same MAC", govcVMView("00:50:56:00:00:02"), "ethernet1", "ethernet-0"},
		{"one PVRDMA adapter in each source", govcVMView("00:50:56:aa:aa:aa"), "ethernet1", "ethernet-0"},
		{"vCenter's own label", govcVMView(""), "Network adapter 2", "ethernet-0"},
		// Near misses: the management adapter is no PVRDMA one; two
		// PVRDMA cards in vCenter and no MAC match leave it open; no
		// vCenter data gives no name.
		{"a non-PVRDMA adapter without a MAC match", govcVMView("00:50:56:aa:aa:aa"), "ethernet0", ""},
		{"two PVRDMA cards, no MAC match", govcVMView("", parse.VMAdapter{Label: "Network adapter 1", Type: "vrdma", Device: "ethernet-0"},
			parse.VMAdapter{Label: "Network adapter 3", Type: "vrdma", Device: "ethernet-2"}), "ethernet1", ""},
		{"no vCenter data", vmView{Name: "vm1", Configs: govcVMView("").Configs[:1]}, "ethernet1", ""},
	} {
		if got := govcDeviceOf(c.v, c.label); got != c.want {
			t.Errorf("%s: govcDeviceOf(%q) = %q, want %q", c.name, c.label, got, c.want)
		}
	}
}

// The PVRDMA port group is the one vCenter shows the switch's PVRDMA
// adapters on; none, several, or another switch's give none.
func TestPVRDMAPortgroupFromVCenter(t *testing.T) {
	fleet := func(adapters ...parse.VMAdapter) *planner {
		h := facts.Host{Host: "esx01", HostFacts: catalog.HostFacts{VMConfigs: []parse.VMConfig{{Source: "vcenter", Name: "vm1", Adapters: adapters}}}}
		return &planner{fleet: &facts.Fleet{Hosts: []facts.Host{h}}}
	}
	pg := func(name, sw string) parse.VMAdapter {
		return parse.VMAdapter{Type: "vrdma", Network: name, DVSName: sw}
	}
	for _, c := range []struct {
		name string
		p    *planner
		want string
	}{
		{"one port group", fleet(pg("pvrdma-pg", "rdma-dvs"), pg("pvrdma-pg", "rdma-dvs")), "pvrdma-pg"},
		{"two port groups", fleet(pg("pvrdma-pg", "rdma-dvs"), pg("pvrdma-pg2", "rdma-dvs")), ""},
		{"another switch's", fleet(pg("other-pg", "other-dvs")), ""},
		{"a vmxnet3 on the switch", fleet(parse.VMAdapter{Type: "vmxnet3", Network: "vm-pg", DVSName: "rdma-dvs"}), ""},
	} {
		if got := c.p.pvrdmaPortgroup("rdma-dvs"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A generic type becomes the generic 64-bit Linux guest ID; any other
// type is the admin's to name.
func TestLinux64GuestID(t *testing.T) {
	for in, want := range map[string]string{
		"other-64": "otherLinux64Guest", "otherGuest64": "otherLinux64Guest", "other": "otherLinux64Guest", "otherGuest": "otherLinux64Guest",
		"": "", "centos": "", "otherLinux": "", "winNetStandard": "", "xyzzy": "",
	} {
		if got := linux64GuestID(in); got != want {
			t.Errorf("linux64GuestID(%q) = %q, want %q", in, got, want)
		}
	}
}

// A scanned guest's distribution names its guest ID; a release vSphere
// does not name, or another Linux, is Other Linux (64-bit).
func TestReleaseGuestID(t *testing.T) {
	for _, c := range []struct{ id, version, want string }{
		{"ubuntu", "22.04", "ubuntu64Guest"},
		{"rhel", "8.9", "rhel8_64Guest"},
		{"centos", "7", "centos7_64Guest"},
		{"debian", "12", "debian12_64Guest"},
		{"ol", "9.3", "oracleLinux9_64Guest"},
		{"sles", "15.5", "sles15_64Guest"},
		{"rocky", "9.3", "rockylinux_64Guest"},
		// Near misses: a release outside vSphere's names, no version, an
		// unknown distribution.
		{"rhel", "10.0", "otherLinux64Guest"},
		{"debian", "", "otherLinux64Guest"},
		{"arch", "", "otherLinux64Guest"},
	} {
		if got := releaseGuestID(parse.OSRelease{ID: c.id, VersionID: c.version}); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.id, c.version, got, c.want)
		}
	}
}

// The guest ID comes from the VM's own scanned guest (linked by host and
// VM), else from its generic type.
func TestGuestIDOfTheVM(t *testing.T) {
	g := facts.Guest{Guest: "g1", GuestFacts: catalog.GuestFacts{OS: &parse.OSRelease{ID: "ubuntu", VersionID: "22.04"}},
		Adapters: []facts.GuestAdapter{{Host: "esx01", VMName: "vm1"}}}
	p := &planner{fleet: &facts.Fleet{Guests: []facts.Guest{g}}}
	for _, c := range []struct{ host, vm, current, want string }{
		{"esx01", "vm1", "other-64", "ubuntu64Guest"},
		{"esx01", "vm1", "xyzzy", "ubuntu64Guest"},
		{"esx02", "vm1", "other-64", "otherLinux64Guest"},
		{"esx01", "vm2", "xyzzy", ""},
	} {
		if got := p.guestIDOf(c.host, c.vm, c.current); got != c.want {
			t.Errorf("%s/%s (%s): %q, want %q", c.host, c.vm, c.current, got, c.want)
		}
	}
}
