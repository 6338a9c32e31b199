package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesMTU are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesMTU = []*Rule{
	{ID: "LOW_MTU", Severity: Warning, Check: checkLowMTU},
	{ID: "ACTIVE_MTU_ABOVE_PATH", Severity: Warning, Check: checkActiveMTUAbovePath},
	{ID: "MTU_MISMATCH", Severity: Warning, Check: checkMTUMismatch,
		Needs: []hostio.Kind{catalog.KindIPInterfaceList, catalog.KindDVSList, catalog.KindPVRDMAVmknicOpt, catalog.KindRDMAVmknicList}},
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
		field := d.Props.Fields["Active MTU"]
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
		msg := fmt.Sprintf("%s runs at RDMA MTU %d while its data path carries %d-byte frames (%s), which allows %d: "+
			"%d times as many packets per message, which costs packet rate for small and medium messages (large transfers still come close to line rate)",
			vmLabel(d), d.ActiveMTU, path.MTU, strings.Join(path.Parts, ", "), want, want/d.ActiveMTU)
		sev := Info
		if top, peer := topActiveMTU(in.Fleet, in.Paths, sw.Name); top > d.ActiveMTU {
			sev = Warning
			msg += fmt.Sprintf("; other adapters on %s run at %d (e.g. %s), and every connection with this one negotiates down to %d",
				sw.Name, top, peer.label, d.ActiveMTU)
			ev = append(ev, peer.ev)
		} else {
			msg += fmt.Sprintf("; every adapter on %s runs at %d, as in VMware's reference setup", sw.Name, d.ActiveMTU)
		}
		r.FailSeverity(sev, h.Host, vmLabel(d), msg,
			fmt.Sprintf("In %s: check `ibv_devinfo -d vmw_pvrdma0 | grep mtu` (active_mtu) and the MTU of the PVRDMA adapter's Ethernet interface "+
				"(`ip link show`; the RoCE MTU follows it); set it to %d (ip link set dev IFACE mtu %d, and persist it), then reload the driver: "+
				"modprobe -r vmw_pvrdma && modprobe vmw_pvrdma (or reboot the guest).", orPlaceholder(d.VMName, "the guest"), path.MTU, path.MTU),
			ev...)
	}
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
		if d.ActiveMTU <= allowed {
			r.Pass(vmLabel(d))
			continue
		}
		ev := append([]Evidence{Ev(h.Host, d.Props.Fields["Active MTU"].Ref)}, evs(h.Host, path.Refs)...)
		r.Fail(vmLabel(d), fmt.Sprintf("%s runs at RDMA MTU %d, but probes proved the data path carries only %d-byte frames (%s), which allows %d: "+
			"its large RoCE packets are dropped", vmLabel(d), d.ActiveMTU, path.MTU, strings.Join(path.Parts, ", "), allowed),
			fmt.Sprintf("Fix the physical path first (MTU 9216 on every switch port between %s and its peers); until then, in %s set the PVRDMA "+
				"adapter's Ethernet interface to MTU 1500 so that RoCE uses %d.", h.Host, orPlaceholder(d.VMName, "the guest"), allowed), ev...)
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
		var lost, refused []string
		var refusedEv []Evidence
		for _, pp := range hp.Probes {
			if pp.Jumbo == nil {
				continue
			}
			if vm := pp.Jumbo.Vmknic(); vm != "" && vm != v.Name {
				continue
			}
			switch {
			case jumboRefused(pp, v):
				refused = append(refused, targetLabel(addrs, pp.Target))
				refusedEv = append(refusedEv, sendtoEv(h, *pp.Jumbo))
			case pp.JumboLost(v) && searched(hp, pp.Target):
				// A path MTU search measured this pair: PATH_MTU_BLOCKED is
				// the one headline of the lost jumbo frames.
			case pp.JumboLost(v):
				lost = append(lost, targetLabel(addrs, pp.Target))
				ev = append(ev, Ev(h.Host, pp.Jumbo.Ref), Ev(h.Host, pp.Small.Ref))
			}
		}
		if len(refused) > 0 {
			if len(fixes) == 0 {
				fixes = append(fixes, fmt.Sprintf("esxcli network ip interface set -i %s -m %d", v.Name, max(sw.MTU, pingPayload(h, true)+28)))
			}
			reasons = append(reasons, fmt.Sprintf("%s refuses its own jumbo probes to %s (`sendto() failed (Message too long)`): %s's MTU %d is "+
				"below the %d-byte frame, so the packets never left the host (this says nothing about the physical network)",
				h.Host, strings.Join(refused, ", "), v.Name, v.MTU, pingPayload(h, true)+28))
			ev = append(ev, refusedEv[0])
		}
		if len(lost) > 0 {
			sev = Critical
			reasons = append(reasons, fmt.Sprintf("vmkping -d -s %d from %s to %s gets no reply while 1472-byte probes do: the packets left %s "+
				"and the network between the hosts drops jumbo frames", pingPayload(h, true), v.Name, strings.Join(lost, ", "), h.Host))
			fixes = append(fixes, "set MTU 9216 on every physical switch port between the hosts (the vDS and vmknics already carry the jumbo frames)")
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

type adapterRef struct {
	label string
	ev    Evidence
}

// topActiveMTU returns the largest Active MTU of the HCA-backed PVRDMA
// adapters on the named vDS across the fleet, and one adapter running at it.
func topActiveMTU(fleet *facts.Fleet, paths *facts.DataPath, dvs string) (int, adapterRef) {
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
				at = adapterRef{label: o.Host + "/" + vmLabel(d), ev: Ev(o.Host, d.Props.Fields["Active MTU"].Ref)}
			}
		}
	}
	return top, at
}
