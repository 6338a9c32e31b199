package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesGuest are this area's rules in the catalogue (catalogueList) (each runs once per scanned Linux guest):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesGuest = []*Rule{
	{ID: "GUEST_KERNEL_TOO_OLD", Plan: planGuestKernel, Severity: Critical, Scope: GuestScope, Check: checkGuestKernelTooOld,
		Needs: []hostio.Kind{catalog.KindGuestKernel}},
	{ID: "GUEST_NO_PVRDMA_DEVICE", Plan: planGuestNoDevice, Severity: Critical, Scope: GuestScope, Check: checkGuestNoPVRDMADevice,
		Needs: []hostio.Kind{catalog.KindGuestIBClass, catalog.KindGuestLsmod}},
	{ID: "GUEST_PORT_DOWN", Plan: planGuestPortDown, Severity: Critical, Scope: GuestScope, Check: checkGuestPortDown,
		ListedBy: []hostio.Kind{catalog.KindGuestIBClass}},
	{ID: "GUEST_MOFED_CONFLICT", Plan: planGuestMOFED, Severity: Critical, Scope: GuestScope, Check: checkGuestMOFEDConflict,
		Needs: []hostio.Kind{catalog.KindGuestDevinfo, catalog.KindGuestOFED}},
	{ID: "GUEST_RDMA_CORE_MISSING", Plan: planGuestRDMACore, Severity: Critical, Scope: GuestScope, Check: checkGuestRDMACoreMissing},
	{ID: "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", Plan: planGuestNetdevMTU, Severity: Warning, Scope: GuestScope, Check: checkGuestNetdevMTU,
		ListedBy: []hostio.Kind{catalog.KindGuestIBClass},
		Needs:    []hostio.Kind{catalog.KindGuestIPLink}},
	{ID: "GUEST_NO_ROCEV2_GID", Plan: planGuestGID, Severity: Warning, Scope: GuestScope, Check: checkGuestNoRoCEv2GID,
		ListedBy: []hostio.Kind{catalog.KindGuestIBClass},
		Needs:    []hostio.Kind{catalog.KindGuestIPAddr}},
	{ID: "GUEST_BANDWIDTH_LOW", Plan: planInvestigate, Severity: Warning, Scope: GuestScope, Check: checkGuestBandwidthLow},
}

// The checks of this area (prose: catalogue.yaml): inside the Linux guests (scan --guests), each guest
// PVRDMA device read together with its host-side adapter (same MAC).

// evaluateGuests runs a guest rule on every scanned guest: a guest not
// collected, or missing one of the rule's Needs, gets one not-evaluated
// result with the reason.
func evaluateGuests(rule *Rule, fleet *facts.Fleet, paths *facts.DataPath, errs *[]InternalError) []Finding {
	var out []Finding
	for i := range fleet.Guests {
		g := &fleet.Guests[i]
		rep := &Reporter{rule: rule, host: g.Guest}
		switch {
		case g.Status == hostio.StatusNotCollected:
			rep.NotEvaluated(g.Guest, "guest not collected: "+g.Reason)
		default:
			if len(rule.Needs) > 0 {
				if ok, why := g.Available(rule.Needs...); !ok {
					rep.NotEvaluated(g.Guest, why)
					break
				}
			}
			if ie := runCheck(rule, &Input{Fleet: fleet, Paths: paths, Guest: g}, rep); ie != nil {
				*errs = append(*errs, *ie)
				rep.NotEvaluated(g.Guest, internalWhy(rule.ID))
				break
			}
			if len(rule.ListedBy) > 0 && len(rep.results) == 0 {
				if ok, why := g.Available(rule.ListedBy...); !ok {
					rep.NotEvaluated(g.Guest, why)
				}
			}
		}
		out = append(out, rep.results...)
	}
	return out
}

// The guest's module commands, as the plans' guest steps run them
// (package plan): the reload after the InfiniBand modules, the first load,
// and keeping the order at boot.
const (
	guestModuleReload  = plan.GuestModuleReload
	guestModuleLoad    = plan.GuestModuleLoad
	guestModulePersist = plan.GuestModulePersist
)

// guestLabel names a guest adapter with its host side when known:
// "vmw_pvrdma0 (hpc-node01 PVRDMA adapter 0 on esx01)".
func guestLabel(a facts.GuestAdapter) string {
	if a.Host == "" {
		return a.Device
	}
	vm := orPlaceholder(a.VMName, "world "+a.WorldID)
	if a.Index == "" {
		return fmt.Sprintf("%s (%s on %s)", a.Device, vm, a.Host)
	}
	return fmt.Sprintf("%s (%s PVRDMA adapter %s on %s)", a.Device, vm, a.Index, a.Host)
}

// hostSideHealthy says whether the host side of a guest adapter is known
// to be healthy (bound to a physical HCA on a host whose RDMA device is
// Active), with the evidence; known is false when no scanned host has it.
func hostSideHealthy(in *Input, a facts.GuestAdapter) (healthy, known bool, ev []Evidence, why string) {
	h, d := in.Fleet.HostSide(a)
	if h == nil || d == nil {
		return false, false, nil, ""
	}
	ref := d.Props.RefOf("Physical HCA available")
	ev = append(ev, Ev(h.Host, ref))
	if d.PhysicalHCA != 1 {
		return false, true, ev, fmt.Sprintf("its host-side adapter on %s has no physical HCA", h.Host)
	}
	if ok, _ := h.Available(catalog.KindRDMADeviceList); ok && len(in.Paths.For(h).Usable) == 0 {
		return false, true, ev, fmt.Sprintf("%s has no usable RDMA device", h.Host)
	}
	return true, true, ev, fmt.Sprintf("its host-side adapter on %s is bound to a physical HCA", h.Host)
}

// hostAdapterByNetdev finds, for a guest without a PVRDMA device, the
// host-side PVRDMA adapter whose MAC one of the guest's interfaces carries
// (the vmxnet3 half of the adapter exists without vmw_pvrdma).
func hostAdapterByNetdev(in *Input) (string, *facts.Host, *parse.PVRDMADevice, parse.Ref) {
	for _, l := range in.Guest.Links {
		if l.MAC == "" {
			continue
		}
		for i := range in.Fleet.Hosts {
			h := &in.Fleet.Hosts[i]
			for j := range h.PVRDMADevices {
				if strings.EqualFold(h.PVRDMADevices[j].MAC, l.MAC) {
					return l.Name, h, &h.PVRDMADevices[j], l.Ref
				}
			}
		}
	}
	return "", nil, nil, parse.Ref{}
}

func checkGuestNoPVRDMADevice(in *Input, r *Reporter) {
	g := in.Guest
	if len(g.Adapters) > 0 {
		r.Pass(g.Guest)
		return
	}
	var ev []Evidence
	netdev, h, d, lref := hostAdapterByNetdev(in)
	subject := g.Guest
	sev := Warning
	where := "no scanned host shows a PVRDMA adapter with the MAC of one of its interfaces (scan its host too)"
	if h != nil {
		sev = Critical
		where = fmt.Sprintf("its interface %s is the Ethernet half of %s on %s", netdev, vmLabel(*d), h.Host)
		ev = append(ev, Ev(g.Guest, lref), Ev(h.Host, d.Ref))
	}
	var cause, fix string
	_, loaded := g.HasModule("vmw_pvrdma")
	switch {
	case g.ModuleMissing:
		rel := "$(uname -r)"
		if g.Kernel != nil {
			rel = g.Kernel.Release
		}
		cause = "the kernel has no vmw_pvrdma module (`modinfo vmw_pvrdma`: not found)"
		ev = append(ev, Ev(g.Guest, g.ModuleMissingRef))
		fix = fmt.Sprintf("Install the kernel's RDMA modules and load the driver: on Ubuntu `sudo apt-get install linux-modules-extra-%s` "+
			"(on RHEL the kernel-modules package of the running kernel), then, in the order of “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog: %s.", rel, guestModuleReload)
	case !loaded:
		cause = "the vmw_pvrdma module is installed but not loaded (`lsmod` does not list it)"
		fix = "Load the driver after the other InfiniBand modules, as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: " + guestModuleLoad + ". " + guestModulePersist
	default:
		cause = "vmw_pvrdma is loaded but created no RDMA device (see its kernel messages: a probe failure, or no paired vmxnet3)"
		for _, l := range g.Dmesg {
			ev = append(ev, Ev(g.Guest, l.Ref))
		}
		fix = "Make sure vmxnet3 is loaded (`lsmod`), then reload the driver as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: " + guestModuleReload + "."
	}
	r.FailSeverity(sev, g.Guest, subject, fmt.Sprintf("%s has no vmw_pvrdma RDMA device: %s; %s", g.Guest, cause, where), fix, ev...)
}

func checkGuestPortDown(in *Input, r *Reporter) {
	g := in.Guest
	for _, a := range g.Adapters {
		label := guestLabel(a)
		if !a.StateKnown {
			r.NotEvaluated(label, "no port state: neither sysfs, `ibv_devinfo -v` nor `rdma link show` gave one")
			continue
		}
		if a.Active {
			r.Pass(label)
			continue
		}
		ev := []Evidence{Ev(g.Guest, a.StateRef)}
		healthy, known, hev, hwhy := hostSideHealthy(in, a)
		ev = append(ev, hev...)
		msg := fmt.Sprintf("port %d of %s in %s is %s, not ACTIVE", a.Port, a.Device, g.Guest, a.State)
		l := guestLink(g, a.Netdev)
		switch {
		case l != nil && !l.Up():
			// The driver reports its paired interface's link: down while
			// the interface is, whatever the load order.
			msg += fmt.Sprintf(": its interface %s is down, and the port follows it", a.Netdev)
		case healthy:
			msg += " while " + hwhy + ": the guest driver is the cause (vmw_pvrdma loaded before the other InfiniBand modules)"
		case known:
			// No HCA behind the adapter makes PVRDMA fall back to TCP (seed
			// 004); it does not take the guest's port down, so the host side
			// is a separate finding, not the cause.
			msg += "; " + hwhy + ", but that does not take a port down (without an HCA, PVRDMA traffic falls back to TCP, the vSphere documentation's “Remote Direct Memory Access for Virtual Machines”, " +
				"and the port stays ACTIVE): the likely cause is in the guest (vmw_pvrdma loaded before the other InfiniBand modules, “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog)"
		default:
			msg += "; its host side was not scanned"
		}
		fix := "In " + g.Guest + ", reload vmw_pvrdma after the other InfiniBand modules, exactly as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: " + guestModuleReload +
			"; `ibv_devinfo -d " + a.Device + "` must then show PORT_ACTIVE. " + guestModulePersist
		if l != nil && !l.Up() {
			fix = fmt.Sprintf("In %s, bring the paired interface up (`sudo ip link set dev %s up`; the driver reports the port down while its netdev is down); "+
				"if `ibv_devinfo -d %s` still shows the port DOWN, reload vmw_pvrdma after the other InfiniBand modules as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: %s.",
				g.Guest, shellArg(a.Netdev, "IFACE"), a.Device, guestModuleReload)
			ev = append(ev, Ev(g.Guest, l.Ref))
		}
		r.Fail(label, msg, fix, ev...)
	}
}

func guestLink(g *facts.Guest, name string) *parse.NetLink {
	for i := range g.Links {
		if name != "" && g.Links[i].Name == name {
			return &g.Links[i]
		}
	}
	return nil
}

// mofedEvidence returns the lines that show MLNX_OFED user space in the
// guest: ofed_info -s, and packages whose version carries "mlnx" or whose
// name is a MOFED package.
func mofedEvidence(g *facts.Guest) []Evidence {
	var ev []Evidence
	if g.OFED != nil {
		ev = append(ev, Ev(g.Guest, g.OFED.Ref))
	}
	for _, p := range g.Packages {
		n := strings.ToLower(p.Name)
		if strings.Contains(strings.ToLower(p.Version), "mlnx") || strings.HasPrefix(n, "mlnx-ofed") || strings.HasPrefix(n, "mlnx-ofa") {
			ev = append(ev, Ev(g.Guest, p.Ref))
		}
	}
	return ev
}

func checkGuestMOFEDConflict(in *Input, r *Reporter) {
	g := in.Guest
	mofed := mofedEvidence(g)
	if len(mofed) == 0 {
		r.Pass(g.Guest)
		return
	}
	// The PVRDMA provider is usable when ibv_devices lists the kernel's
	// PVRDMA device and libibverbs did not fail to load it.
	var broken []Evidence
	for _, w := range g.ProviderWarnings {
		if w.Driver == "vmw_pvrdma" || w.Driver == "" {
			broken = append(broken, Ev(g.Guest, w.Ref))
		}
	}
	// The devices libibverbs can open: ibv_devices' list when it ran (it
	// runs when ibv_devinfo lists fewer devices than sysfs), else
	// ibv_devinfo's, which enumerates the same way.
	verbs := map[string]bool{}
	for _, d := range g.IBDevices {
		verbs[d.Name] = true
	}
	if len(g.Sources[catalog.KindGuestDevices]) > 0 {
		verbs = map[string]bool{}
		for _, d := range g.VerbsDevices {
			verbs[d.Name] = true
		}
	}
	var missing []string
	for _, a := range g.Adapters {
		if !verbs[a.Device] {
			missing = append(missing, a.Device)
		}
	}
	if ok, _ := g.Installed(catalog.KindGuestDevinfo); !ok {
		r.NotEvaluated(g.Guest, "MLNX_OFED is installed but `ibv_devinfo` is not, so whether libibverbs can open the PVRDMA device is unknown")
		return
	}
	if len(broken) == 0 && len(missing) == 0 {
		r.Pass(g.Guest)
		return
	}
	msg := fmt.Sprintf("%s has MLNX_OFED user-space libraries (%s), which carry no vmw_pvrdma provider", g.Guest, mofed[0].Text)
	if len(missing) > 0 {
		msg += fmt.Sprintf(": libibverbs does not list %s, which the kernel has", joinNames(missing))
	} else {
		msg += ": libibverbs cannot load the vmw_pvrdma provider"
	}
	codename := "CODENAME"
	if g.OS != nil && g.OS.VersionCodename != "" && showable(g.OS.VersionCodename) {
		codename = g.OS.VersionCodename
	}
	fix := fmt.Sprintf("Replace MOFED's verbs libraries with the distribution's rdma-core, as VMware's “PVRDMA and vSphere Bitfusion” blog does: on Ubuntu "+
		"`sudo apt-get purge ibverbs-providers ibverbs-utils libibverbs-dev libibverbs1` (without -y: it lists what it removes, "+
		"MPI or UCX packages that depend on the verbs libraries included, and asks first) then "+
		"`sudo apt-get update && sudo apt-get install -y --reinstall -t %s rdma-core libibverbs1 ibverbs-providers infiniband-diags ibverbs-utils perftest`; "+
		"on RHEL remove MLNX_OFED (`sudo /usr/sbin/ofed_uninstall.sh`) and `sudo yum install -y rdma-core libibverbs libibverbs-utils infiniband-diags`. "+
		"In an NGC container, do it in the image (VMware's “PVRDMA and vSphere Bitfusion” blog's Dockerfile).", codename)
	ev := append(mofed, broken...)
	r.Fail(g.Guest, msg, fix, ev...)
}

// rdmaCorePackages are the packages that carry the vmw_pvrdma user-space
// provider: Debian/Ubuntu ibverbs-providers (rdma-core), RHEL/SUSE
// libibverbs / rdma-core.
var rdmaCorePackages = map[string]bool{"ibverbs-providers": true, "libibverbs": true, "rdma-core": true, "libibverbs1": true}

func checkGuestRDMACoreMissing(in *Input, r *Reporter) {
	g := in.Guest
	dpkgOK, _ := g.Available(catalog.KindGuestDpkg)
	rpmOK, _ := g.Available(catalog.KindGuestRPM)
	hasDpkg, _ := g.Installed(catalog.KindGuestDpkg)
	hasRPM, _ := g.Installed(catalog.KindGuestRPM)
	if !(dpkgOK && hasDpkg) && !(rpmOK && hasRPM) {
		_, why := g.Available(catalog.KindGuestDpkg, catalog.KindGuestRPM)
		if why == "" {
			why = "neither dpkg-query nor rpm is installed: the package list is unknown"
		}
		r.NotEvaluated(g.Guest, why)
		return
	}
	if len(mofedEvidence(g)) > 0 {
		r.Pass(g.Guest) // MOFED replaces rdma-core: GUEST_MOFED_CONFLICT judges it
		return
	}
	found := map[string]bool{}
	for _, p := range g.Packages {
		if rdmaCorePackages[p.Name] {
			found[p.Name] = true
		}
	}
	provider := found["ibverbs-providers"] || (hasRPM && (found["libibverbs"] || found["rdma-core"]))
	if provider {
		r.Pass(g.Guest)
		return
	}
	var have []string
	for n := range found {
		have = append(have, n)
	}
	sort.Strings(have)
	msg := fmt.Sprintf("%s has no rdma-core verbs provider package (ibverbs-providers / libibverbs), so no RDMA application can open the PVRDMA device", g.Guest)
	if len(have) > 0 {
		msg += fmt.Sprintf(" (installed: %s)", strings.Join(have, ", "))
	}
	if ok, prog := g.Installed(catalog.KindGuestDevinfo); !ok {
		msg += fmt.Sprintf("; %s is not installed either", prog)
	}
	fix := "Install rdma-core as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: on Ubuntu/Debian `sudo apt-get install -y rdma-core ibverbs-providers ibverbs-utils infiniband-diags perftest`; " +
		"on RHEL/CentOS `sudo yum install -y rdma-core libibverbs libibverbs-utils infiniband-diags`."
	if hasRPM && !hasDpkg {
		fix = "Install rdma-core as VMware's “PVRDMA and vSphere Bitfusion” blog does: `sudo yum install -y rdma-core libibverbs libibverbs-utils infiniband-diags`."
	} else if hasDpkg && !hasRPM {
		fix = "Install rdma-core as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do: `sudo apt-get install -y rdma-core ibverbs-providers ibverbs-utils infiniband-diags perftest`."
	}
	if how := rdmaCoreInstall(g); how == "apt-source" || how == "dnf" {
		w := plan.GuestInstallRDMA{Value: how}.Words(g.Guest)
		fix = w.Text
		if w.Command != "" {
			fix += " `" + w.Command + "`."
		}
	}
	var ev []Evidence
	for _, k := range []hostio.Kind{catalog.KindGuestDpkg, catalog.KindGuestRPM} {
		for _, s := range g.Sources[k] {
			if s.Parsed {
				ev = append(ev, Evidence{Host: g.Guest, Command: s.Command, Note: "no ibverbs-providers / libibverbs package listed"})
			}
		}
	}
	r.Fail(g.Guest, msg, fix, ev...)
}

func checkGuestNetdevMTU(in *Input, r *Reporter) {
	g := in.Guest
	for _, a := range g.Adapters {
		label := guestLabel(a)
		if a.NetdevMTU == 0 {
			r.NotEvaluated(label, "the MTU of its interface is unknown (no netdev from `rdma link show` or sysfs, or it is not in `ip -o link`)")
			continue
		}
		capMTU := facts.RDMAMTUFor(a.NetdevMTU)
		h, _ := in.Fleet.HostSide(a)
		pathMTU := 0
		var pathEv []Evidence
		if h != nil {
			if hp := in.Paths.For(h); hp != nil && hp.MTU.Known {
				pathMTU = hp.MTU.MTU
				pathEv = evs(h.Host, hp.MTU.Refs)
			}
		}
		allowed := facts.RDMAMTUFor(pathMTU)
		if capMTU >= 4096 || (pathMTU > 0 && allowed <= capMTU) {
			r.Pass(label)
			continue
		}
		ev := append([]Evidence{Ev(g.Guest, a.NetdevRef)}, pathEv...)
		msg := fmt.Sprintf("%s's interface %s has MTU %d, which caps its RoCE MTU at %d", a.Device, a.Netdev, a.NetdevMTU, capMTU)
		sev := Warning
		target := 9000
		fixFirst := ""
		if pathMTU > 0 {
			hp := in.Paths.For(h)
			if hp.MTU.Measured {
				msg += fmt.Sprintf(" while the host's PVRDMA data path carries %d-byte frames (RoCE %d)", pathMTU, allowed)
			} else {
				msg += fmt.Sprintf(" while the host's PVRDMA data path is configured for %d-byte frames (RoCE %d; %s)", pathMTU, allowed, notMeasured(hp))
			}
			target = pathMTU
			fixFirst = jumboTestFirst(hp)
			// As LOW_MTU: a warning when other adapters on the vDS run
			// higher (connections with this one negotiate down), else
			// information (seed 002's reference runs every adapter at 1024).
			if hp.Switch != nil {
				if top, _ := topActiveMTU(in.Fleet, in.Paths, hp.Switch.Name); top <= capMTU {
					sev = Info
					msg += fmt.Sprintf("; every adapter on %s runs at %d or less, as in VMware's reference setup", hp.Switch.Name, capMTU)
				}
			}
		} else {
			msg += " (its host's data path was not scanned)"
			sev = Info
		}
		fix := fixFirst + fmt.Sprintf("In %s: `sudo ip link set dev %s mtu %d` and persist it (netplan `mtu: %d` / ifcfg `MTU=%d`), then reload the driver so that "+
			"the port picks it up: `sudo modprobe -r vmw_pvrdma && sudo modprobe vmw_pvrdma` (stop its RDMA jobs first).",
			g.Guest, shellArg(a.Netdev, "IFACE"), target, target, target)
		r.FailSeverity(sev, g.Guest, label, msg, fix, ev...)
	}
}

func checkGuestNoRoCEv2GID(in *Input, r *Reporter) {
	g := in.Guest
	for _, a := range g.Adapters {
		label := guestLabel(a)
		_, d := in.Fleet.HostSide(a)
		if d == nil || d.RoCEVersion != 2 {
			if d == nil {
				r.NotEvaluated(label, "its host side was not scanned, so the RoCE version in use is unknown")
			} else {
				r.Pass(label)
			}
			continue
		}
		typed := false
		for _, gid := range a.GIDs {
			typed = typed || gid.Type != ""
		}
		if !typed {
			r.NotEvaluated(label, "the GID types are unknown (neither sysfs gid_attrs/types nor `ibv_devinfo -v` printed them)")
			continue
		}
		if len(a.IPv4) == 0 {
			r.Fail(label, fmt.Sprintf("%s's interface %s has no IPv4 address, so %s has no RoCE v2 GID while its host-side adapter uses RoCE v2",
				a.Device, orPlaceholder(a.Netdev, "(unknown)"), a.Device),
				fmt.Sprintf("In %s, configure the PVRDMA interface's IPv4 address (`sudo ip addr add ADDRESS/PREFIX dev %s`, and persist it in netplan or ifcfg); the driver then adds its RoCE v2 GID.",
					g.Guest, shellArg(a.Netdev, "IFACE")), Ev(g.Guest, a.NetdevRef), Ev(hostOf(in, a), d.Props.RefOf("RoCE version")))
			continue
		}
		ok := false
		for _, gid := range a.GIDs {
			ip, mapped := parse.GIDIPv4(gid.GID)
			if mapped && gid.Type == "RoCE v2" && contains(a.IPv4, ip) {
				ok = true
			}
		}
		if ok {
			r.Pass(label)
			continue
		}
		ev := []Evidence{Ev(hostOf(in, a), d.Props.RefOf("RoCE version"))}
		for _, gid := range a.GIDs {
			if !parse.GIDZero(gid.GID) {
				ev = append(ev, Ev(g.Guest, gid.Ref))
			}
		}
		r.Fail(label, fmt.Sprintf("%s has no RoCE v2 GID for %s's address %s while its host-side adapter uses RoCE v2: RoCE v2 peers cannot address it",
			a.Device, a.Netdev, strings.Join(a.IPv4, ", ")),
			fmt.Sprintf("In %s, reload the driver so that it rebuilds its GID table from the interface's addresses: `sudo modprobe -r vmw_pvrdma && sudo modprobe vmw_pvrdma` (stop its RDMA jobs first); "+
				"check `grep . /sys/class/infiniband/%s/ports/1/gid_attrs/types/*` shows RoCE v2 for the entry of %s.", g.Guest, a.Device, a.IPv4[0]), ev...)
	}
}

func hostOf(in *Input, a facts.GuestAdapter) string {
	if h, _ := in.Fleet.HostSide(a); h != nil {
		return h.Host
	}
	return a.Host
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkGuestBandwidthLow compares the opt-in bandwidth test (the guest as
// the client) with the line rate of the uplink its host-side adapter uses.
func checkGuestBandwidthLow(in *Input, r *Reporter) {
	g := in.Guest
	if len(g.Bandwidth) == 0 {
		return // the test was not run (it is opt-in)
	}
	best := g.Bandwidth[0]
	for _, b := range g.Bandwidth {
		if b.MsgBytes > best.MsgBytes {
			best = b
		}
	}
	subject := g.Guest + " (ib_send_bw)"
	var lineMbps int
	var ev []Evidence
	for _, a := range g.Adapters {
		if h, _ := in.Fleet.HostSide(a); h != nil && lineMbps == 0 {
			if hp := in.Paths.For(h); hp != nil && len(hp.Usable) > 0 {
				lineMbps = hp.Usable[0].SpeedMbps
				ev = append(ev, Ev(h.Host, hp.Usable[0].Ref))
			}
		}
	}
	if lineMbps == 0 {
		r.NotEvaluated(subject, fmt.Sprintf("ib_send_bw measured %.2f Gb/s, but the line rate of its host's RDMA uplink is unknown (host not scanned, or no usable RDMA device)", best.AvgGbps))
		return
	}
	line := float64(lineMbps) / 1000
	pct := 100 * best.AvgGbps / line
	if pct >= 50 {
		r.Pass(subject)
		return
	}
	r.Fail(subject, fmt.Sprintf("ib_send_bw from %s measured %.2f Gb/s (%d-byte messages), %.0f%% of the %.0f Gb/s line rate of its host's RDMA uplink; "+
		"VMware's “PVRDMA Setup and Performance Study” expects close to line rate on large messages", g.Guest, best.AvgGbps, best.MsgBytes, pct, line),
		"Check the host side first (PHYSICAL_HCA_UNAVAILABLE, TCP_FALLBACK, PFC and MTU findings of the hosts), then the guests' RoCE MTU "+
			"(`ibv_devinfo -d DEV | grep active_mtu`) and that no other traffic shares the uplink; run the test again.",
		append([]Evidence{Ev(g.Guest, best.Ref)}, ev...)...)
}
