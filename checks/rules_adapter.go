package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesAdapter are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesAdapter = []*Rule{
	{ID: "PHYSICAL_HCA_UNAVAILABLE", Plan: planRebind, PlanConsequences: true, Severity: Critical, Check: checkPhysicalHCAUnavailable,
		ListedBy: listedAdapters},
	{ID: "TCP_FALLBACK", Plan: planRebind, PlanConsequences: true, Severity: Critical, Scope: FleetScope, Check: checkTCPFallback,
		ListedBy: []hostio.Kind{catalog.KindPVRDMADeviceLs}},
	{ID: "ROCE_VERSION_MISMATCH", Plan: planRoCEVersion, Severity: Warning, Scope: FleetScope, Check: checkRoCEVersionMismatch,
		ListedBy: listedAdapters},
}

// The checks of this area (prose: catalogue.yaml): the VMs' PVRDMA adapters: bound to a physical HCA, TCP fallback between hosts, RoCE versions.

// maxNamedUnread is how many adapters without properties are each
// reported not evaluated by name; more are one result for the host.
const maxNamedUnread = 8

// checkPhysicalHCAUnavailable reads each adapter's vsish properties: they
// prove its HCA state alone (the world ID is in the command line and in
// `VMM leader ID`), without the vsish listing or the VM process list. An
// adapter the listing names whose properties were not read is not
// evaluated, by name; without the listing and any properties the engine
// says so (ListedBy).
func checkPhysicalHCAUnavailable(in *Input, r *Reporter) {
	h := in.Host
	switch unread, total := unreadAdapters(h, maxNamedUnread+1); {
	case total > maxNamedUnread:
		// Many (a listing past the per-host cap of stage 2): one result,
		// not one per adapter.
		r.NotEvaluated(h.Host, fmt.Sprintf("the vsish properties of %d listed adapters were not read: %s", total, unreadText(unread, total)))
	default:
		for _, a := range unread {
			r.NotEvaluated(vmLabel(a.dev), a.why)
		}
	}
	for _, d := range h.PVRDMADevices {
		field := d.Props.Lookup("Physical HCA available")
		if field.Line == 0 {
			r.NotEvaluated(vmLabel(d), "`Physical HCA available` missing from the vsish properties")
			continue
		}
		if d.PhysicalHCA != 0 {
			r.Pass(vmLabel(d))
			continue
		}
		ev := []Evidence{Ev(h.Host, field.Ref)}
		msg := fmt.Sprintf("%s has no physical HCA behind its PVRDMA adapter; cross-host RDMA falls back to TCP", vmLabel(d))
		if u := bindableDevice(h, in.Path); u != nil && in.Path.Switch != nil {
			// The host has a device the adapter could bind to: nothing
			// collected says why it did not.
			msg += fmt.Sprintf(". %s (paired with %s) is Active on %s, so nothing collected explains it; an adapter binds to the HCA when "+
				"its VM powers on, so it may have powered on before the device was up", u.Name, u.PairedUplink, in.Path.Switch.Name)
			ev = append(ev, Ev(h.Host, u.Ref))
		}
		r.Fail(vmLabel(d), msg, hcaFix(h, in.Path), ev...)
	}
}

func checkTCPFallback(in *Input, r *Reporter) {
	type hostInfo struct {
		h              *facts.Host
		hp             *facts.HostPath
		devKnown       bool // the RDMA device list was read
		usable         bool // an Active RDMA device serves the PVRDMA vDS
		hcaOne, hcaOff []parse.PVRDMADevice
	}
	var with []hostInfo
	for _, i := range in.Ready {
		h, hp := &in.Fleet.Hosts[i], in.Paths.Host(i)
		if k := pvrdmaOn(h); !k.Known {
			r.NotEvaluatedOn(h.Host, h.Host, k.Why)
			continue
		}
		if !hasPVRDMA(h) {
			continue
		}
		hi := hostInfo{h: h, hp: hp}
		for _, d := range h.PVRDMADevices {
			if d.Props.Lookup("Physical HCA available").Line == 0 {
				continue
			}
			if d.PhysicalHCA != 0 {
				hi.hcaOne = append(hi.hcaOne, d)
			} else {
				hi.hcaOff = append(hi.hcaOff, d)
			}
		}
		ok, why := h.Available(catalog.KindRDMADeviceList)
		hi.devKnown = ok
		hi.usable = ok && len(hp.Usable) > 0
		if !ok && len(hi.hcaOne)+len(hi.hcaOff) == 0 {
			r.NotEvaluatedOn(h.Host, h.Host, why)
			continue
		}
		with = append(with, hi)
	}
	// The peers of a failing host are the others of these (made only for
	// a host that fails: a list per host would cost hosts^2).
	names := make([]string, 0, len(with))
	for _, o := range with {
		names = append(names, o.h.Host)
	}
	sort.Strings(names)
	for _, hi := range with {
		h, hp := hi.h, hi.hp
		// vsish's `Physical HCA available` is what the PVRDMA backend
		// really uses: the primary evidence. The device list and the
		// vDS uplinks are the fallback when vsish was not read.
		// (fallsBack, which VM_PEERS_WITHOUT_RDMA reads too).
		vsish := len(hi.hcaOne)+len(hi.hcaOff) > 0
		falls, known := fallsBack(h, hp)
		vms := pvrdmaVMNames(h)
		subject := fmt.Sprintf("%s (%s)", h.Host, joinNames(vms))
		if !known {
			// Some adapters unbound, the others not read, an Active
			// device on the host: the unbound ones fall back
			// (PHYSICAL_HCA_UNAVAILABLE says so), the host may not.
			r.NotEvaluatedOn(h.Host, h.Host, fmt.Sprintf("vsish shows %d of the %d listed PVRDMA adapters, none bound to a physical HCA, "+
				"while an RDMA device is Active: whether the others are bound was not read (`vsish -e cat .../properties` of each)",
				len(hi.hcaOff), len(h.PVRDMAListing)))
			continue
		}
		var hcaEv []Evidence
		for _, d := range hi.hcaOff {
			hcaEv = append(hcaEv, Ev(h.Host, d.Props.Lookup("Physical HCA available").Ref))
		}
		if !falls {
			if vsish && hi.devKnown && !hi.usable {
				ev := []Evidence{Ev(h.Host, hi.hcaOne[0].Props.Lookup("Physical HCA available").Ref)}
				ev = append(ev, rdmaListEvidence(h)...)
				r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("the sources disagree on %s: vsish shows %s bound to a physical HCA "+
					"(`Physical HCA available:1`), while `esxcli rdma device list` shows no Active RDMA device on the PVRDMA vDS; "+
					"pvrdma-doctor trusts vsish (it is what the PVRDMA backend uses), so it reports no TCP fallback", h.Host, vmLabel(hi.hcaOne[0])),
					fmt.Sprintf("Scan %s again: if the device list still disagrees, check `esxcli rdma device list` and the uplinks of the PVRDMA vDS by hand.", h.Host), ev...)
				continue
			}
			r.PassOn(h.Host, h.Host)
			continue
		}
		reason := h.Host + " has no RDMA device"
		switch active := hp.Active; {
		case !hi.devKnown:
			reason = "vsish shows no adapter bound to a physical HCA (the RDMA device list was not read)"
		case hi.usable:
			// Without the vDS list (Switch nil) every Active device counts
			// as usable: say which is known.
			on := "on " + hp.Usable[0].PairedUplink + " (which vDS it serves is unknown: `esxcli network vswitch dvs vmware list` was not read)"
			if hp.Switch != nil {
				on = "on " + hp.Switch.Name
			}
			reason = fmt.Sprintf("vsish shows no adapter bound to a physical HCA, although %s %s is Active: the sources disagree, "+
				"and vsish (what the PVRDMA backend uses) wins; the adapters were probably powered on before the device was up",
				hp.Usable[0].Name, on)
		case len(active) > 0 && hp.Switch != nil:
			reason = fmt.Sprintf("%s's Active RDMA device %s is paired with %s, which is not an uplink of %s",
				h.Host, active[0].Name, active[0].PairedUplink, hp.Switch.Name)
		case len(h.RDMADevices) > 0:
			reason = h.Host + " has no Active RDMA device"
		}
		ev := append(hcaEv, rdmaListEvidence(h)...)
		if !vsish {
			// vsish was not read: vCenter's configuration shows the VMs.
			ev = append(ev, pvrdmaEvidence(h, "")...)
			if k := pvrdmaOn(h); k.VCenter {
				reason += " (from vCenter: vsish, which shows the adapters' HCA binding, needs SSH)"
			}
		}
		fix := fmt.Sprintf("On %s: %s; then power-cycle the PVRDMA VMs. Or migrate the VMs that talk to each other onto one host.",
			h.Host, rdmaRemedyText(h, hp))
		switch active := hp.Active; {
		case !hi.devKnown:
			fix = unreadDevicesFix(h)
		case hi.usable:
			fix = fmt.Sprintf("On %s: power-cycle the PVRDMA VMs (%s) so that their adapters bind to %s, then check `Physical HCA available:1` in vsish.",
				h.Host, joinNames(vms), hp.Usable[0].Name)
		case len(active) > 0 && hp.Switch != nil:
			// The host has a working RNIC; it is just not the vDS's uplink.
			sw := hp.Switch
			fix = fmt.Sprintf("On %s: make %s (paired with %s) the only uplink of %s: vSphere Client > Networking > %s > "+
				"Add and Manage Hosts > Manage physical adapters, assign %s to the uplink and unassign %s; then power-cycle the "+
				"PVRDMA VMs (%s).", h.Host, active[0].PairedUplink, active[0].Name, sw.Name, sw.Name, active[0].PairedUplink,
				strings.Join(sw.Uplinks, ", "), joinNames(fixVMNames(h)))
			ev = append(ev, Ev(h.Host, sw.Record.RefOf("Uplinks")))
		}
		var peers []string
		for _, n := range names {
			if n != h.Host {
				peers = append(peers, n)
			}
		}
		if len(peers) == 0 {
			r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("PVRDMA VMs on %s (%s) would reach PVRDMA VMs on other hosts over TCP: %s. "+
				"No other scanned host runs PVRDMA VMs, so pvrdma-doctor cannot tell whether they have cross-host peers: scan the peer hosts too",
				h.Host, joinNames(vms), reason), fix, ev...)
			continue
		}
		r.FailOn(h.Host, subject, fmt.Sprintf("PVRDMA VMs on %s (%s) reach their peers on %s over TCP: %s",
			h.Host, joinNames(vms), strings.Join(peers, ", "), reason), fix, ev...)
	}
}

func checkRoCEVersionMismatch(in *Input, r *Reporter) {
	fleet := in.Fleet
	type adapter struct {
		h *facts.Host
		d parse.PVRDMADevice
	}
	var all []adapter
	versions := map[int][]string{}
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		if ok, why := h.Available(catalog.KindPVRDMADeviceLs, catalog.KindPVRDMAProperties); !ok {
			if len(h.PVRDMAListing) > 0 || h.Status == hostio.StatusNotCollected {
				r.NotEvaluatedOn(h.Host, h.Host, why)
			}
			if len(h.PVRDMADevices) == 0 {
				continue
			}
		}
		for _, d := range h.PVRDMADevices {
			if d.Props.Lookup("RoCE version").Line == 0 || d.RoCEVersion == 0 {
				r.NotEvaluatedOn(h.Host, vmLabel(d), "`RoCE version` missing from the vsish properties")
				continue
			}
			all = append(all, adapter{h, d})
			versions[d.RoCEVersion] = append(versions[d.RoCEVersion], h.Host+"/"+vmLabel(d))
		}
	}
	top := 0
	var vs []string
	for v := range versions {
		top = max(top, v)
		vs = append(vs, "v"+strconv.Itoa(v))
	}
	sort.Strings(vs)
	for _, a := range all {
		if a.d.RoCEVersion == top {
			r.PassOn(a.h.Host, vmLabel(a.d))
			continue
		}
		field := a.d.Props.Lookup("RoCE version")
		peers := versions[top]
		ev := []Evidence{Ev(a.h.Host, field.Ref)}
		for _, b := range all {
			if b.d.RoCEVersion == top {
				ev = append(ev, Ev(b.h.Host, b.d.Props.Lookup("RoCE version").Ref))
				break
			}
		}
		r.FailOn(a.h.Host, vmLabel(a.d), fmt.Sprintf("%s on %s uses RoCE v%d while %d other PVRDMA adapter(s) use RoCE v%d (e.g. %s); versions in use: %s",
			vmLabel(a.d), a.h.Host, a.d.RoCEVersion, len(peers), top, peers[0], strings.Join(vs, ", ")),
			fmt.Sprintf("Power off %s, set its PVRDMA adapter's device protocol to RoCE v%d (vSphere Client: Edit Settings > network adapter > "+
				"Device protocol; VirtualVmxnet3Vrdma.deviceProtocol = rocev%d), check `esxcli rdma device protocol list` on %s shows RoCE v%d true, then power it on.",
				fixVM(a.d.VMName, a.d.WorldID), top, top, a.h.Host, top), ev...)
	}
}

// bindableDevice returns a device PVRDMA adapters can bind to: Active, an
// uplink of the PVRDMA vDS, with RoCE (not listed without it); nil if none.
func bindableDevice(h *facts.Host, hp *facts.HostPath) *parse.RDMADevice {
	for i, d := range hp.Usable {
		ok := true
		for _, p := range h.RDMAProtocols {
			if p.Device == d.Name && !p.RoCEv1 && !p.RoCEv2 {
				ok = false
			}
		}
		if ok {
			return &hp.Usable[i]
		}
	}
	return nil
}

// rdmaListEvidence points at the RDMA device list: the non-active devices,
// or the (empty) listing itself.
func rdmaListEvidence(h *facts.Host) []Evidence {
	var ev []Evidence
	for _, d := range h.RDMADevices {
		ev = append(ev, Ev(h.Host, d.Ref))
	}
	if len(ev) == 0 {
		ev = noDeviceEvidence(h)
	}
	return ev
}

// devicesRead reports whether the host's RDMA device list was read whole.
func devicesRead(h *facts.Host) bool {
	ok, _ := h.Available(catalog.KindRDMADeviceList)
	return ok
}

// unreadDevicesFix is the fix of an adapter without HCA on a host whose
// RDMA device list was not read: read it first, advise nothing it does
// not show (no new NIC for a host whose NIC may only lack its driver).
func unreadDevicesFix(h *facts.Host) string {
	return fmt.Sprintf("Run `esxcli rdma device list` on %s (it was not read): PVRDMA needs an Active RDMA device whose paired uplink is the "+
		"only uplink of the PVRDMA vDS; once there is one, power-cycle the PVRDMA VMs so that their adapters bind to it.", h.Host)
}

// hcaFix tailors the PHYSICAL_HCA_UNAVAILABLE remediation to the host.
func hcaFix(h *facts.Host, hp *facts.HostPath) string {
	active := hp.Active
	sw := hp.Switch
	switch {
	case len(h.RDMADevices) == 0 && !devicesRead(h):
		return unreadDevicesFix(h)
	case len(h.RDMADevices) == 0:
		return "This host has no RDMA device: " + rdmaRemedyText(h, hp) + "; then power-cycle the VM."
	case len(active) == 0:
		d := h.RDMADevices[0]
		return fmt.Sprintf("%s is %s: check the link of %s (esxcli network nic get -n %s), cabling and the switch port, then power-cycle the VM.",
			d.Name, d.State, d.PairedUplink, d.PairedUplink)
	case sw != nil && !hasString(sw.Uplinks, active[0].PairedUplink):
		return fmt.Sprintf("%s's paired uplink %s is not an uplink of %s (uplinks: %s): in the vSphere Client, Networking > %s > Add and Manage Hosts > "+
			"Manage physical adapters, assign %s to the uplink (and leave it the only one), then power-cycle the VM.",
			active[0].Name, active[0].PairedUplink, sw.Name, strings.Join(sw.Uplinks, ", "), sw.Name, active[0].PairedUplink)
	}
	return fmt.Sprintf("Check that %s (paired with %s) is the only uplink of the PVRDMA vDS and Active, then power-cycle the VM so that its "+
		"PVRDMA adapter binds to the HCA.", active[0].Name, active[0].PairedUplink)
}
