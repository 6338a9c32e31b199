package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesMTU are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesMTU = []*Rule{
	{ID: "LOW_MTU", Plan: planLowMTU, Severity: Warning, Check: checkLowMTU,
		ListedBy: listedAdapters},
	{ID: "ACTIVE_MTU_ABOVE_PATH", Plan: planInvestigate, Severity: Warning, Check: checkActiveMTUAbovePath,
		ListedBy: []hostio.Kind{catalog.KindPVRDMADeviceLs, catalog.KindPVRDMAProperties, catalog.KindVmkping}},
	{ID: "MTU_MISMATCH", Plan: planMTUMismatch, Severity: Warning, Check: checkMTUMismatch,
		Needs: []hostio.Kind{catalog.KindIPInterfaceList, catalog.KindDVSList, catalog.KindPVRDMAVmknicOpt, catalog.KindRDMAVmknicList}},
	{ID: "JUMBO_FRAMES_NOT_CONFIGURED", Severity: Info, Check: checkJumboNotConfigured,
		Needs: []hostio.Kind{catalog.KindDVSList, catalog.KindRDMADeviceList}},
}

// The checks of this area (prose: catalogue.yaml): MTU along the PVRDMA data path: the path itself, and the adapters' RoCE MTU against it.

func checkLowMTU(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if len(h.PVRDMADevices) == 0 {
		if ok, why := h.Available(catalog.KindPVRDMADeviceLs, catalog.KindPVRDMAProperties); !ok && len(h.Sources[catalog.KindPVRDMAProperties]) > 0 {
			r.NotEvaluated(h.Host, why)
		}
		return
	}
	if ok, _ := h.Available(catalog.KindRDMADeviceList); ok && len(hp.Usable) == 0 {
		return // traffic falls back to TCP: TCP_FALLBACK / PHYSICAL_HCA_UNAVAILABLE report it
	}
	path := hp.MTU
	if !path.Known {
		_, why := h.Available(catalog.KindDVSList, catalog.KindRDMADeviceList)
		if why == "" {
			why = "the PVRDMA distributed switch could not be identified, so the data path MTU is unknown"
		}
		for _, d := range h.PVRDMADevices {
			r.NotEvaluated(vmLabel(d), why)
		}
		return
	}
	want := facts.RDMAMTUFor(path.MTU)
	sw := hp.Switch
	for _, d := range h.PVRDMADevices {
		field := d.Props.Lookup("Active MTU")
		if field.Line == 0 || d.ActiveMTU == 0 {
			r.NotEvaluated(vmLabel(d), "`Active MTU` missing from the vsish properties")
			continue
		}
		if d.PhysicalHCA == 0 {
			continue // falls back to TCP: its RDMA MTU does not matter yet
		}
		if d.ActiveMTU >= want {
			r.Pass(vmLabel(d))
			continue
		}
		ev := append([]Evidence{Ev(h.Host, field.Ref)}, evs(h.Host, path.Refs)...)
		carries := fmt.Sprintf("carries %s (%s)", path.Carries(), strings.Join(path.Parts, ", "))
		if !path.Measured {
			carries = fmt.Sprintf("is configured for %d-byte frames (%s; %s)", path.MTU, strings.Join(path.Parts, ", "), notMeasured(hp))
		}
		msg := fmt.Sprintf("%s runs at RDMA MTU %d while its data path %s, which allows %d: "+
			"%d times as many packets per message, which costs packet rate for small and medium messages (large transfers still come close to line rate)",
			vmLabel(d), d.ActiveMTU, carries, want, want/d.ActiveMTU)
		sev := Info
		if top, peer := topActiveMTU(in.Fleet, in.Paths, sw.Name); top > d.ActiveMTU {
			sev = Warning
			msg += fmt.Sprintf("; other adapters on %s run at %d (e.g. %s), and every connection with this one negotiates down to %d",
				sw.Name, top, peer.label, d.ActiveMTU)
			ev = append(ev, peer.ev)
		} else {
			msg += fmt.Sprintf("; every adapter on %s runs at %d, as in VMware's reference setup", sw.Name, d.ActiveMTU)
		}
		fix := fmt.Sprintf("In %s: check `ibv_devinfo -d vmw_pvrdma0 | grep mtu` (active_mtu) and the MTU of the PVRDMA adapter's Ethernet interface "+
			"(`ip link show`; the RoCE MTU follows it); set it to %d (ip link set dev IFACE mtu %d, and persist it), then reload the driver: "+
			"modprobe -r vmw_pvrdma && modprobe vmw_pvrdma (or reboot the guest).", orPlaceholder(d.VMName, "the guest"), path.MTU, path.MTU)
		// The known cause is the guest interface's MTU: say what the
		// guest shows, or that it was not scanned.
		switch g, a := guestSide(in.Fleet, h, d); {
		case a == nil:
			msg += "; the usual cause is the MTU of the guest's PVRDMA interface (the guest was not scanned: scan --guests shows it)"
		case a.NetdevMTU > 0 && facts.RDMAMTUFor(a.NetdevMTU) > d.ActiveMTU:
			msg += fmt.Sprintf("; the cause is unknown: %s's interface %s is at MTU %d, which allows %d, so the guest's MTU does not cap it "+
				"(a port keeps the MTU it had when vmw_pvrdma loaded: a reload picks up a later change)",
				g.Guest, a.Netdev, a.NetdevMTU, facts.RDMAMTUFor(a.NetdevMTU))
			ev = append(ev, Ev(g.Guest, a.NetdevRef))
			fix = fmt.Sprintf("In %s (its interface %s is already at MTU %d): reload the driver so that the port picks up the interface's MTU: "+
				"`sudo modprobe -r vmw_pvrdma && sudo modprobe vmw_pvrdma` (stop its RDMA jobs first); then `ibv_devinfo -d %s | grep active_mtu` should show %d. "+
				"If it stays %d, nothing pvrdma-doctor read explains it: compare the adapter's settings with one that runs at %d.",
				g.Guest, shellArg(a.Netdev, "IFACE"), a.NetdevMTU, shellArg(a.Device, "DEVICE"), min(want, facts.RDMAMTUFor(a.NetdevMTU)), d.ActiveMTU, want)
		}
		r.FailSeverity(sev, h.Host, vmLabel(d), msg, jumboTestFirst(hp)+fix, ev...)
	}
}

// notMeasured says why the RDMA fabric's path MTU of a host is not
// measured: no probe crossed an RDMA uplink to or from it.
func notMeasured(hp *facts.HostPath) string {
	for i := range hp.Pairs {
		if pp := &hp.Pairs[i]; !pp.Net.Fabric() {
			return "the RDMA fabric's path MTU is not measured: the probes ran from " + pp.Net.String() + ", not across an RDMA uplink"
		}
	}
	return "the RDMA fabric's path MTU is not measured: no probe crossed its RDMA uplink"
}

// jumboTestFirst is the start of a fix that raises an MTU to the data
// path's configured one when nothing measured the RDMA fabric: prove it
// carries jumbo frames first (seed 000's test), else the larger RoCE
// packets are lost on the way ("" when the fabric was measured).
func jumboTestFirst(hp *facts.HostPath) string {
	if hp == nil || !hp.MTU.Known || hp.MTU.Measured || hp.MTU.MTU <= 1500 {
		return ""
	}
	sw := "the PVRDMA vDS"
	if hp.Switch != nil {
		sw = hp.Switch.Name
	}
	return fmt.Sprintf("Only if a jumbo test across the RDMA fabric passes (nothing measured it): from a vmknic on %s at each end "+
		"(create one at MTU %d if there is none) `vmkping -I vmkN -d -s %d PEER` must get replies, or, between two PVRDMA guests with "+
		"their interfaces at %d, “Setting up a 100GbE PVRDMA Network on vCenter 7”'s test `ping -M do -s %d -c 3 PEER`; if it fails, fix the switch ports first. Then: ",
		sw, hp.MTU.MTU, hp.MTU.MTU-28, hp.MTU.MTU, hp.MTU.MTU-28)
}

// guestSide returns the scanned guest and guest adapter of a host-side
// PVRDMA adapter (nil when its guest was not scanned).
func guestSide(fleet *facts.Fleet, h *facts.Host, d parse.PVRDMADevice) (*facts.Guest, *facts.GuestAdapter) {
	for gi := range fleet.Guests {
		g := &fleet.Guests[gi]
		for ai := range g.Adapters {
			a := &g.Adapters[ai]
			if hh, dd := fleet.HostSide(*a); hh == h && dd != nil && dd.WorldID == d.WorldID && dd.Index == d.Index {
				return g, a
			}
		}
	}
	return nil, nil
}

func checkActiveMTUAbovePath(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if len(h.PVRDMADevices) == 0 {
		return
	}
	path := hp.MTU
	if !path.Known || !path.Proved {
		return
	}
	allowed := facts.RDMAMTUFor(path.MTU)
	for _, d := range h.PVRDMADevices {
		if d.PhysicalHCA == 0 || d.ActiveMTU == 0 {
			continue
		}
		// RoCE v2 adds 96 bytes of headers to the RDMA MTU: the frame the
		// adapter's packets need, against what the probes proved.
		need := d.ActiveMTU + 96
		if d.ActiveMTU <= allowed || need <= path.MTU {
			r.Pass(vmLabel(d))
			continue
		}
		ev := append([]Evidence{Ev(h.Host, d.Props.Lookup("Active MTU").Ref)}, evs(h.Host, path.Refs)...)
		msg := fmt.Sprintf("%s runs at RDMA MTU %d, but probes proved the data path carries only %s (%s), which allows %d: "+
			"its large RoCE packets (%d-byte frames) are dropped", vmLabel(d), d.ActiveMTU, path.Carries(), strings.Join(path.Parts, ", "), allowed, need)
		if path.Lost > need {
			// Bounded, not measured: the frames it needs lie between.
			msg = fmt.Sprintf("%s runs at RDMA MTU %d, whose RoCE packets need %d-byte frames, and probes proved the data path carries %s (%s): "+
				"whether it carries %d-byte frames is not measured, and only RDMA MTU %d is proved to fit",
				vmLabel(d), d.ActiveMTU, need, path.Carries(), strings.Join(path.Parts, ", "), need, allowed)
		}
		r.Fail(vmLabel(d), msg,
			fmt.Sprintf("Fix the physical path first (MTU 9216 on every switch port between %s and its peers); until then, in %s set the PVRDMA "+
				"adapter's Ethernet interface to MTU %d so that RoCE uses %d.", h.Host, orPlaceholder(d.VMName, "the guest"), path.MTU, allowed), ev...)
	}
}

func checkMTUMismatch(in *Input, r *Reporter) {
	h, hp, fleet := in.Host, in.Path, in.Fleet
	sw := hp.Switch
	if sw == nil {
		if use, _, _ := pvrdmaInUse(h, hp); use {
			r.NotEvaluated(h.Host, "the PVRDMA distributed switch could not be identified")
		}
		return
	}
	if row := readinessFor(in, h.Host); row != nil && row.Judged() {
		if c := row.Cell(stepMTU); c != nil && c.State == CellFail {
			return // a host without PVRDMA VMs: HOST_NOT_READY reports it
		}
	}
	v := hp.DataVmknic
	subject := sw.Name
	if v != nil {
		subject = v.Name
	}
	sev := Warning
	var reasons, fixes []string
	var ev []Evidence
	if v != nil && v.MTU > 0 && sw.MTU > 0 && v.MTU != sw.MTU {
		reasons = append(reasons, fmt.Sprintf("%s (on %s) has MTU %d but %s has MTU %d", v.Name, sw.Name, v.MTU, sw.Name, sw.MTU))
		ev = append(ev, Ev(h.Host, v.Record.RefOf("MTU")), Ev(h.Host, sw.Record.RefOf("MTU")))
		if v.MTU < sw.MTU {
			fixes = append(fixes, fmt.Sprintf("esxcli network ip interface set -i %s -m %d", shellArg(v.Name, "vmkN"), sw.MTU))
		} else {
			fixes = append(fixes, fmt.Sprintf("raise %s's MTU to %d (vSphere Client: %s > Settings > Edit > Advanced > MTU)", sw.Name, v.MTU, sw.Name))
		}
	}
	addrs := in.Paths
	if v != nil {
		var refused []string
		var refusedEv []Evidence
		refusedFrame := 0
		for _, pp := range hp.Probes {
			if pp.Jumbo == nil {
				continue
			}
			if vm := pp.Jumbo.Vmknic(); vm != "" && vm != v.Name {
				continue
			}
			switch {
			case jumboRefused(pp, v) && (sw.MTU <= 0 || pp.Jumbo.Payload+28 <= sw.MTU):
				// Refused by its own vmknic a frame the vDS carries: the
				// vmknic is below its switch. A frame above the vDS's MTU
				// (an admin's `vmkping -d -s 9000`: 9028 bytes) is refused
				// by any vmknic and proves nothing.
				refused = append(refused, targetLabel(addrs, pp.Target))
				refusedEv = append(refusedEv, sendtoEv(h, *pp.Jumbo))
				if refusedFrame == 0 || pp.Jumbo.Payload+28 < refusedFrame {
					refusedFrame = pp.Jumbo.Payload + 28
				}
			case pp.JumboLost(v):
				// Jumbo frames that left the host and were lost: the pair's
				// path MTU, measured or bounded, is PATH_MTU_BLOCKED's, the
				// one headline of the lost frames.
			}
		}
		if len(refused) > 0 {
			if len(fixes) == 0 && sw.MTU > v.MTU {
				fixes = append(fixes, fmt.Sprintf("esxcli network ip interface set -i %s -m %d", v.Name, min(sw.MTU, facts.MaxVmknicMTU)))
			}
			reasons = append(reasons, fmt.Sprintf("%s refuses its own jumbo probes to %s (`sendto() failed (Message too long)`): %s's MTU %d is "+
				"below the %d-byte frame (payload + 28 bytes of IPv4 and ICMP headers), so the packets never left the host (this says nothing about the physical network)",
				h.Host, strings.Join(refused, ", "), v.Name, v.MTU, refusedFrame))
			ev = append(ev, refusedEv[0])
		}
	}
	// Peers: the data-path MTU of every other host on the same vDS.
	if mine := hp.MTU; mine.Known {
		var higher []string
		var peerEv []Evidence
		top := mine.MTU
		for i := range fleet.Hosts {
			o := &fleet.Hosts[i]
			if o.Host == h.Host || o.Status == hostio.StatusNotCollected {
				continue
			}
			op := in.Paths.Host(i)
			osw, p := op.Switch, op.MTU
			if osw == nil || osw.Name != sw.Name || !p.Known || p.MTU <= mine.MTU {
				continue
			}
			higher = append(higher, fmt.Sprintf("%s %d", o.Host, p.MTU))
			peerEv = append(peerEv, Ev(o.Host, p.Refs[0]))
			top = max(top, p.MTU)
		}
		if len(higher) > 0 && !mine.Proved {
			reasons = append(reasons, fmt.Sprintf("%s's PVRDMA data path MTU is %d (%s) while peers on %s carry more (%s)",
				h.Host, mine.MTU, strings.Join(mine.Parts, ", "), sw.Name, strings.Join(higher, ", ")))
			if len(ev) == 0 {
				ev = append(ev, evs(h.Host, mine.Refs)...)
			}
			ev = append(ev, peerEv...)
			if len(fixes) == 0 {
				fixes = append(fixes, fmt.Sprintf("raise %s on %s to MTU %d like its peers (vSphere Client: %s > Settings > Edit > Advanced > MTU)",
					sw.Name, h.Host, top, sw.Name))
			}
		}
	}
	if len(reasons) == 0 {
		r.Pass(subject)
		return
	}
	r.FailSeverity(sev, h.Host, subject, strings.Join(reasons, "; "), "On "+h.Host+": "+strings.Join(fixes, "; ")+".", ev...)
}

// checkJumboNotConfigured says (info) when a host's PVRDMA data path is
// configured below jumbo frames: the PVRDMA vDS and its RDMA uplinks as
// configured (not what probes proved: PATH_MTU_BLOCKED and MTU_MISMATCH
// report a network that drops what the hosts send), and what RoCE MTU that
// caps. The seeds set MTU 9000 on the switch ports and the vDS (seed 000,
// seed 001); nothing is broken at 1500.
func checkJumboNotConfigured(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	sw := hp.Switch
	if sw == nil || sw.MTU <= 0 {
		// MTU_MISMATCH says why the path is unknown; where an input that
		// finds the PVRDMA vDS is missing, this rule cannot say either.
		if ok, why := h.Available(catalog.KindIPInterfaceList, catalog.KindPVRDMAVmknicOpt, catalog.KindPVRDMADeviceLs); !ok {
			r.NotEvaluated(h.Host, why)
		}
		return
	}
	if use, known, why := pvrdmaInUse(h, hp); !use {
		if !known {
			r.NotEvaluated(h.Host, why)
		}
		return
	}
	configured := sw.MTU
	parts := []string{fmt.Sprintf("%s at MTU %d", sw.Name, sw.MTU)}
	ev := []Evidence{Ev(h.Host, sw.Record.RefOf("MTU"))}
	for _, u := range hp.RDMAUplinks {
		if n := h.NICNamed(u); n != nil && n.MTU > 0 {
			configured = min(configured, n.MTU)
			parts = append(parts, fmt.Sprintf("its RDMA uplink %s at %d", u, n.MTU))
			ev = append(ev, Ev(h.Host, n.Ref))
		}
	}
	if v := hp.DataVmknic; v != nil && v.MTU > 0 {
		parts = append(parts, fmt.Sprintf("%s at %d", v.Name, v.MTU))
	}
	roce := facts.RDMAMTUFor(configured)
	if roce >= 4096 {
		r.Pass(sw.Name)
		return
	}
	r.Fail(sw.Name, fmt.Sprintf("jumbo frames are not configured on %s's PVRDMA data path (%s): RoCE is capped at RDMA MTU %d "+
		"(4096 needs frames of 4192 bytes or more after RoCE's 96 bytes of headers); the PVRDMA guides set MTU 9000 on the switch ports and the vDS. "+
		"Nothing is broken: large transfers still come close to line rate, small and medium messages cost more packets",
		h.Host, strings.Join(parts, ", "), roce),
		fmt.Sprintf("If the workload needs it, set MTU 9000 end to end, the physical network first: the switch ports of the RDMA uplinks "+
			"(9216), then %s (vSphere Client: %s > Settings > Edit > Advanced > MTU 9000), the vmknics on it (esxcli network ip interface set "+
			"-i vmkN -m 9000); prove it with `vmkping -I vmkN -d -s 8972 PEER` between the hosts; then set the PVRDMA guests' interfaces to "+
			"9000 and reload vmw_pvrdma.", sw.Name, sw.Name), ev...)
}

type adapterRef struct {
	label string
	ev    Evidence
}

// topActiveMTU returns the largest Active MTU of the HCA-backed PVRDMA
// adapters on the named vDS across the fleet, and one adapter running at it
// (derived once per fleet and switch, not once per host).
func topActiveMTU(fleet *facts.Fleet, paths *facts.DataPath, dvs string) (int, adapterRef) {
	type topAt struct {
		top int
		at  adapterRef
	}
	v := paths.Memo("checks.topActiveMTU\x00"+dvs, func() any {
		top, at := 0, adapterRef{}
		for i := range fleet.Hosts {
			o := &fleet.Hosts[i]
			sw := paths.Host(i).Switch
			if sw == nil || sw.Name != dvs {
				continue
			}
			for _, d := range o.PVRDMADevices {
				if d.PhysicalHCA != 0 && d.ActiveMTU > top {
					top = d.ActiveMTU
					at = adapterRef{label: o.Host + "/" + vmLabel(d), ev: Ev(o.Host, d.Props.Lookup("Active MTU").Ref)}
				}
			}
		}
		return topAt{top, at}
	}).(topAt)
	return v.top, v.at
}
