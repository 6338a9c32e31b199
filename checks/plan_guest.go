package checks

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// The plan contributions of the guest rules: what to do inside one Linux
// guest. The driver is reloaded once, after everything that needs a
// reload (an interface's MTU, an address, the modules it needs), and each
// reload says what it must show after (the port ACTIVE, the RoCE MTU).

// adapterOf returns the guest adapter a guest finding is about.
func (p *planner) adapterOf(f Finding) *facts.GuestAdapter {
	for i := range p.guest.Adapters {
		if guestLabel(p.guest.Adapters[i]) == f.Subject {
			return &p.guest.Adapters[i]
		}
	}
	return nil
}

func planGuestKernel(p *planner, f Finding) {
	min := "4.6"
	if g := p.guest; g.OS != nil && (g.OS.ID == "centos" || g.OS.ID == "rhel") {
		min = "7.3 (kernel 3.10.0-514 with vmw_pvrdma)"
	}
	p.add(plan.PhaseGuest, plan.GuestUpgradeKernel{Version: min}, f)
}

// planGuestNoDevice: the kernel lacks the module (its RDMA modules are a
// package of their own), the module is not loaded, or it is loaded
// without a device (what its kernel messages say is to be looked at).
func planGuestNoDevice(p *planner, f Finding) {
	g := p.guest
	_, loaded := g.HasModule("vmw_pvrdma")
	switch {
	case g.ModuleMissing:
		rel := ""
		if g.Kernel != nil && showable(g.Kernel.Release) {
			rel = g.Kernel.Release
		}
		p.add(plan.PhaseGuest, plan.GuestInstallModule{Version: rel}, f)
	case !loaded:
		p.add(plan.PhaseGuest, plan.GuestLoadDriver{}, f)
	default:
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
	}
}

// planGuestPortDown: an interface that is down takes its port down: it
// comes up first, and the reload after it runs only if the port is still
// down (its check). With the interface up, the load order is the cause
// (seeds 000/001): the reload after the InfiniBand modules, kept across
// boots.
func planGuestPortDown(p *planner, f Finding) {
	a := p.adapterOf(f)
	dev := "vmw_pvrdma0"
	linkDown := false
	if a != nil {
		dev = a.Device
		if l := guestLink(p.guest, a.Netdev); l != nil && !l.Up() {
			linkDown = true
			p.add(plan.PhaseGuest, plan.GuestLinkUp{Netdev: a.Netdev}, f)
		}
	}
	p.add(plan.PhaseGuest, plan.GuestReloadDriver{Device: dev, Port: true}, f)
	if !linkDown {
		p.add(plan.PhaseGuest, plan.GuestPersistOrder{})
	}
}

func planGuestMOFED(p *planner, f Finding) {
	code := ""
	if g := p.guest; g.OS != nil && showable(g.OS.VersionCodename) {
		code = g.OS.VersionCodename
	}
	p.add(plan.PhaseGuest, plan.GuestReplaceMOFED{Value: code}, f)
}

func planGuestRDMACore(p *planner, f Finding) {
	p.add(plan.PhaseGuest, plan.GuestInstallRDMA{Value: rdmaCoreInstall(p.guest)}, f)
}

// rdmaCoreInstall is how a guest gets rdma-core, by its package manager
// and release: apt; Ubuntu before 18.04, which packages no rdma-core
// (and no vmw_pvrdma provider), from its source; yum on RHEL/CentOS 7,
// dnf on 8 and later.
func rdmaCoreInstall(g *facts.Guest) string {
	tool := "apt"
	if ok, _ := g.Installed(catalog.KindGuestRPM); ok {
		if has, _ := g.Installed(catalog.KindGuestDpkg); !has {
			tool = "yum"
		}
	}
	if g.OS == nil {
		return tool
	}
	major, _, ok := majorMinor(g.OS.VersionID)
	switch strings.ToLower(strings.TrimSpace(g.OS.ID)) {
	case "ubuntu":
		if ok && major < 18 {
			return "apt-source"
		}
	case "rhel", "centos", "rocky", "almalinux", "ol":
		if ok && major >= 8 {
			return "dnf"
		}
	}
	return tool
}

// planGuestNetdevMTU: the interface at the data path's MTU, then one
// reload, after which the port shows the RoCE MTU that allows.
func planGuestNetdevMTU(p *planner, f Finding) {
	a := p.adapterOf(f)
	if a == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	target := 9000
	if h, _ := p.fleet.HostSide(*a); h != nil {
		if hp := p.fleet.DataPath().For(h); hp != nil && hp.MTU.Known {
			target = hp.MTU.MTU
		}
	}
	p.add(plan.PhaseGuest, plan.GuestSetMTU{Netdev: a.Netdev, MTU: target}, f)
	p.add(plan.PhaseGuest, plan.GuestReloadDriver{Device: a.Device, MTU: facts.RDMAMTUFor(target)}, f)
}

// planGuestGID: without an address, one is needed (the GIDs follow it);
// with one, a reload rebuilds the GID table.
func planGuestGID(p *planner, f Finding) {
	a := p.adapterOf(f)
	if a == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	if len(a.IPv4) == 0 {
		// ib_core adds the address's GIDs when it is set: no reload.
		p.add(plan.PhaseGuest, plan.GuestSetIPv4{Netdev: a.Netdev}, f)
		return
	}
	p.add(plan.PhaseGuest, plan.GuestReloadDriver{Device: a.Device}, f)
}
