package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
)

// MTU along the PVRDMA data path: the path itself, and the adapters' RoCE MTU against it.

var ruleLowMTU = &Rule{
	ID:       "LOW_MTU",
	Title:    "PVRDMA active MTU is below what the data path allows",
	Severity: Warning,
	Check:    checkLowMTU,
	Why: "RoCE carries at most 4096 bytes of RDMA payload per packet when the data path (the PVRDMA vDS and its RDMA " +
		"uplink) has 9000-byte frames, and 1024 with 1500-byte frames (Ethernet MTU minus 96 bytes of RoCE v2 headers, " +
		"Linux iboe_get_mtu). An adapter at `Active MTU:1024` on a jumbo path sends four times as many packets per " +
		"message: that costs CPU and packet rate, and matters for small and medium messages and packet-rate-bound " +
		"workloads; large transfers still come close to line rate (VMware's PVRDMA HPC study ran its reference setup at " +
		"Active MTU 1024). So this is information when every adapter on the vDS runs at the same MTU, and a warning " +
		"when the adapter runs below the other adapters on its vDS: every connection with it negotiates down to its MTU, " +
		"the sign of a guest interface left at a small MTU. It is never reported for adapters that fall back to TCP " +
		"(no physical HCA): their RDMA MTU does not matter until they have one.",
	Fix: "The RoCE MTU follows the MTU of the guest's Ethernet interface of the PVRDMA adapter (vmxnet3 function of the " +
		"same PCI slot; Linux iboe_get_mtu). In the guest: `ibv_devinfo -d vmw_pvrdma0 | grep mtu` shows active_mtu, " +
		"`ip link show` the interface's MTU; set it to 9000 (ip link set dev IFACE mtu 9000, and persist it), then reload " +
		"the driver (modprobe -r vmw_pvrdma && modprobe vmw_pvrdma) or reboot the guest.",
	Docs: []string{docPVRDMAHPC, docRoCENetwork, docLinuxIBAddr},
}

func checkLowMTU(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if len(h.PVRDMADevices) == 0 {
		if ok, why := h.Available(collect.KindPVRDMADeviceLs, collect.KindPVRDMAProperties); !ok && len(h.Sources[collect.KindPVRDMAProperties]) > 0 {
			r.NotEvaluated(h.Host, why)
		}
		return
	}
	if ok, _ := h.Available(collect.KindRDMADeviceList); ok && len(hp.Usable) == 0 {
		return // traffic falls back to TCP: TCP_FALLBACK / PHYSICAL_HCA_UNAVAILABLE report it
	}
	path := hp.MTU
	if !path.Known {
		_, why := h.Available(collect.KindDVSList, collect.KindRDMADeviceList)
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

var ruleActiveMTUAbovePath = &Rule{
	ID:       "ACTIVE_MTU_ABOVE_PATH",
	Title:    "PVRDMA active MTU is larger than the data path proved to carry",
	Severity: Warning,
	Check:    checkActiveMTUAbovePath,
	Why: "When a don't-fragment jumbo probe from the PVRDMA vmknic gets no reply while a 1472-byte probe to the same peer " +
		"does, the network between the hosts carries no more than 1500-byte frames. An adapter whose RoCE Active MTU " +
		"needs bigger frames (2048 or 4096) sends packets that are silently dropped: large messages stall and retry " +
		"until the queue pair fails, while small ones work, the hardest kind of failure to diagnose. It is a consequence " +
		"of the path MTU problem MTU_MISMATCH reports, and a warning of its own until that is fixed.",
	Fix:  "Fix the path (MTU 9216 on every physical switch port between the hosts), or lower the guest interface's MTU to 1500 so that RoCE uses 1024.",
	Docs: []string{docRoCENetwork, docLinuxIBAddr},
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

var ruleMTUMismatch = &Rule{
	ID:       "MTU_MISMATCH",
	Title:    "MTU differs along the PVRDMA data path",
	Severity: Warning,
	Needs:    []collect.Kind{collect.KindIPInterfaceList, collect.KindDVSList, collect.KindPVRDMAVmknicOpt, collect.KindRDMAVmknicList},
	Check:    checkMTUMismatch,
	Why: "RoCE frames are never fragmented: every hop of the PVRDMA data path (the PVRDMA vDS, its RDMA uplink, " +
		"the physical switch ports, the peer hosts) must carry the same MTU, or large RDMA packets are dropped and " +
		"the RDMA MTU negotiates down. Only things on that path are compared: the vmknic tagged in /Net/PVRDMAVmknic " +
		"counts only when it sits on the PVRDMA vDS (VMware's own guides tag the management vmk0 on a 1500-MTU " +
		"standard switch, which is valid: it carries control data, not RDMA frames). A vmknic/vDS or host-to-host " +
		"difference is a warning. A jumbo probe (vmkping -d -s 8972) from a vmknic on the vDS that gets no reply " +
		"while a 1472-byte probe to the same peer works proves that the network drops jumbo frames (critical). A probe " +
		"the sending host refuses itself (`sendto() failed (Message too long)`) never left the host: it proves only " +
		"that the sending vmknic's MTU is too small, nothing about the network.",
	Fix:  "Use one MTU end to end, 9000 recommended: vDS (vSphere Client: vDS > Settings > Edit > Advanced > MTU), a vmknic on the vDS (esxcli network ip interface set -i vmkN -m 9000), and every physical switch port on the path (9216).",
	Docs: []string{docRoCE67, docRoCENetwork, docPVRDMAHPC},
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
			if o.Host == h.Host || o.Status == collect.StatusNotCollected {
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
