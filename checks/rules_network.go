package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Network rules: the PVRDMA vDS and its uplinks, MTU along the path,
// lossless Ethernet, RDMA error counters, probes and RoCE versions.

func init() {
	register(&Rule{
		ID:       "RDMA_UPLINK_NOT_ON_DVS",
		Title:    "The RDMA device's uplink is not an uplink of the PVRDMA vDS",
		Severity: Critical,
		Why: "PVRDMA uses the physical HCA only when the HCA's vmnic (the RDMA device's paired uplink) is an uplink of the " +
			"vSphere Distributed Switch the PVRDMA VMs connect to. Otherwise the adapters report no physical HCA and " +
			"cross-host traffic falls back to TCP. A host may have other RDMA devices (for storage): they are only " +
			"reported when no Active RDMA device serves the PVRDMA vDS.",
		Fix:     "In the vSphere Client: Networking > PVRDMA vDS > Add and Manage Hosts > Manage physical adapters: assign the HCA's vmnic to an uplink (as the only one), with the PVRDMA VMs powered off.",
		Docs:    []string{docPVRDMA70, docHostConfig67},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList, hostio.KindDVSList, hostio.KindIPInterfaceList, hostio.KindPVRDMAVmknicOpt); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			if len(h.RDMADevices) == 0 {
				return // NO_RDMA_DEVICE reports it
			}
			use, known, why := pvrdmaInUse(h)
			if !known {
				r.NotEvaluated(h.Host, why)
				return
			}
			if !use {
				return
			}
			sw := pvrdmaSwitch(h)
			if sw == nil && len(h.DVSwitches) > 0 {
				r.NotEvaluated(h.Host, "the PVRDMA vDS could not be identified: the PVRDMA vmknic is not on a vDS and no vDS holds an RDMA uplink")
				return
			}
			if sw != nil {
				for _, d := range activeRDMA(h) {
					if hasString(sw.Uplinks, d.PairedUplink) {
						for _, o := range h.RDMADevices {
							r.Pass(o.Name)
						}
						return
					}
				}
			}
			for _, d := range h.RDMADevices {
				if sw != nil && hasString(sw.Uplinks, d.PairedUplink) {
					r.Pass(d.Name) // on the vDS but not Active: RDMA_DEVICE_DOWN reports it
					continue
				}
				ev := []Evidence{Ev(h.Host, d.Ref)}
				if sw == nil {
					ev = append(ev, sourceEv(h, hostio.KindDVSList, "no distributed switch on this host")...)
					r.Fail(d.Name, fmt.Sprintf("%s's uplink %s is on no distributed switch: %s has no vDS", d.Name, d.PairedUplink, h.Host),
						fmt.Sprintf("Add %s to the PVRDMA vDS with %s as its only uplink (vSphere Client: Networking > vDS > Add and Manage Hosts), then power-cycle the PVRDMA VMs.",
							h.Host, d.PairedUplink), ev...)
					continue
				}
				ev = append(ev, Ev(h.Host, sw.Record.RefOf("Uplinks")))
				r.Fail(d.Name, fmt.Sprintf("%s's paired uplink %s is not an uplink of %s (uplinks: %s)", d.Name, d.PairedUplink, sw.Name,
					orPlaceholder(strings.Join(sw.Uplinks, ", "), "none")),
					fmt.Sprintf("With the PVRDMA VMs powered off: vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: "+
						"on %s assign %s to an uplink of %s and unassign the others; then power the VMs on.", sw.Name, h.Host, d.PairedUplink, sw.Name),
					ev...)
			}
		},
	})

	register(&Rule{
		ID:       "DVS_MULTIPLE_UPLINKS",
		Title:    "The PVRDMA vDS has more than one uplink",
		Severity: Warning,
		Why: "VMware's PVRDMA requirements say the HCA must be the only uplink of the vDS and that PVRDMA does not support " +
			"NIC teaming (\"Do not team RoCE NICs\"). With several uplinks, PVRDMA traffic may leave through a NIC without " +
			"the HCA or fail over to one. The documents say \"must\" but describe no immediate failure; pvrdma-doctor " +
			"reports a warning (unsupported configuration), not critical.",
		Fix:     "Leave the HCA's vmnic as the only uplink of the PVRDMA vDS (vSphere Client: Networking > vDS > Add and Manage Hosts > Manage physical adapters), with no LAG.",
		Docs:    []string{docPVRDMA70, docRoCE67},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindDVSList, hostio.KindIPInterfaceList, hostio.KindRDMADeviceList, hostio.KindPVRDMAVmknicOpt); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			sw := pvrdmaSwitch(h)
			if sw == nil {
				if use, _, _ := pvrdmaInUse(h); use && len(h.DVSwitches) > 0 {
					r.NotEvaluated(h.Host, "the PVRDMA vDS could not be identified")
				}
				return
			}
			if len(sw.Uplinks) <= 1 {
				r.Pass(sw.Name)
				return
			}
			keep := ""
			for _, d := range activeRDMA(h) {
				if hasString(sw.Uplinks, d.PairedUplink) {
					keep = d.PairedUplink
					break
				}
			}
			if keep == "" {
				for _, d := range h.RDMADevices {
					if hasString(sw.Uplinks, d.PairedUplink) {
						keep = d.PairedUplink
						break
					}
				}
			}
			var drop []string
			for _, u := range sw.Uplinks {
				if u != keep {
					drop = append(drop, u)
				}
			}
			fix := fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: on %s unassign %s",
				sw.Name, h.Host, strings.Join(drop, ", "))
			if keep != "" {
				fix += fmt.Sprintf(", leaving %s (the HCA) as the only uplink", keep)
			} else {
				fix += ", leaving the HCA's vmnic as the only uplink"
			}
			r.Fail(sw.Name, fmt.Sprintf("%s, the PVRDMA vDS, has %d uplinks on %s (%s); the HCA must be the only one",
				sw.Name, len(sw.Uplinks), h.Host, strings.Join(sw.Uplinks, ", ")), fix+"; no LAG.",
				Ev(h.Host, sw.Record.RefOf("Uplinks")))
		},
	})

	register(&Rule{
		ID:       "MTU_MISMATCH",
		Title:    "MTU differs along the PVRDMA data path",
		Severity: Warning,
		Why: "RoCE frames are never fragmented: every hop of the PVRDMA data path (the PVRDMA vDS, its RDMA uplink, " +
			"the physical switch ports, the peer hosts) must carry the same MTU, or large RDMA packets are dropped and " +
			"the RDMA MTU negotiates down. Only things on that path are compared: the vmknic tagged in /Net/PVRDMAVmknic " +
			"counts only when it sits on the PVRDMA vDS (VMware's own guides tag the management vmk0 on a 1500-MTU " +
			"standard switch, which is valid: it carries control data, not RDMA frames). A vmknic/vDS or host-to-host " +
			"difference is a warning. A jumbo probe (vmkping -d -s 8972) from a vmknic on the vDS that gets no reply " +
			"while a 1472-byte probe to the same peer works proves that the network drops jumbo frames (critical). A probe " +
			"the sending host refuses itself (`sendto() failed (Message too long)`) never left the host: it proves only " +
			"that the sending vmknic's MTU is too small, nothing about the network.",
		Fix:     "Use one MTU end to end, 9000 recommended: vDS (vSphere Client: vDS > Settings > Edit > Advanced > MTU), a vmknic on the vDS (esxcli network ip interface set -i vmkN -m 9000), and every physical switch port on the path (9216).",
		Docs:    []string{docRoCE67, docRoCENetwork, docPVRDMAHPC},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, fleet *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindIPInterfaceList, hostio.KindDVSList, hostio.KindPVRDMAVmknicOpt, hostio.KindRDMAVmknicList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			sw := pvrdmaSwitch(h)
			if sw == nil {
				if use, _, _ := pvrdmaInUse(h); use {
					r.NotEvaluated(h.Host, "the PVRDMA distributed switch could not be identified")
				}
				return
			}
			v := dataPathVmknic(h)
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
			addrs := fleetAddrs(fleet)
			if v != nil {
				var lost, refused []string
				var refusedEv []Evidence
				for _, pp := range probePairs(h) {
					if pp.Jumbo == nil {
						continue
					}
					if vm := pingVmknic(*pp.Jumbo); vm != "" && vm != v.Name {
						continue
					}
					switch {
					case jumboRefused(pp, v):
						refused = append(refused, targetLabel(addrs, pp.Target))
						refusedEv = append(refusedEv, sendtoEv(h, *pp.Jumbo))
					case jumboLost(pp, v):
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
			if mine, ok := hostPathMTU(h); ok {
				var higher []string
				var peerEv []Evidence
				top := mine.MTU
				for i := range fleet.Hosts {
					o := &fleet.Hosts[i]
					if o.Host == h.Host || o.Status == hostio.StatusNotCollected {
						continue
					}
					osw, p, ok := peerPath(fleet, i)
					if osw == nil || osw.Name != sw.Name || !ok || p.MTU <= mine.MTU {
						continue
					}
					higher = append(higher, fmt.Sprintf("%s %d", o.Host, p.MTU))
					peerEv = append(peerEv, p.Evidence[0])
					top = max(top, p.MTU)
				}
				if len(higher) > 0 && !mine.Proved {
					reasons = append(reasons, fmt.Sprintf("%s's PVRDMA data path MTU is %d (%s) while peers on %s carry more (%s)",
						h.Host, mine.MTU, strings.Join(mine.Parts, ", "), sw.Name, strings.Join(higher, ", ")))
					if len(ev) == 0 {
						ev = append(ev, mine.Evidence...)
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
		},
	})

	register(&Rule{
		ID:       "PFC_DISABLED",
		Title:    "No lossless Ethernet (PFC or global pause) on the RoCE uplink",
		Severity: Warning,
		Why: "RoCE needs a lossless network: PFC (Priority Flow Control, usually priority 3) or, without PFC, global pause " +
			"frames. Without either, congestion drops RoCE packets, and every drop stalls the queue pair until a timeout " +
			"and retransmission: throughput collapses under load. pvrdma-doctor rates this a warning, and critical " +
			"when drops are seen; pvrdma-doctor raises it to critical when the paired RDMA device counts errors. Any " +
			"PFC-enabled priority counts as lossless (the switch may use a priority other than 3). An uplink that is not on " +
			"the PVRDMA data path (not an uplink of the PVRDMA vDS) is reported as information only.",
		Fix:     "Enable PFC for the RoCE priority on the switch and the host (DCBX, or for nmlx5: esxcli system module parameters set -m nmlx5_core -p \"pfctx=0x08 pfcrx=0x08\" and reboot), or global pause: esxcli network nic pauseParams set -n vmnicN -r true -t true.",
		Docs:    []string{docLossless, docRoCE67, docMellanoxPFC},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			seen := map[string]bool{}
			for _, d := range h.RDMADevices {
				nic := d.PairedUplink
				if nic == "" || seen[nic] {
					continue
				}
				seen[nic] = true
				okNIC, whyNIC := sourceFor(h, hostio.KindNICGet, nic)
				okDCB, whyDCB := sourceFor(h, hostio.KindDCBStatus, nic)
				det := nicDetail(h, nic)
				dcb := dcbFor(h, nic)
				pause := okNIC && det != nil && det.PauseRX && det.PauseTX
				pfc := okDCB && dcb != nil && dcb.PFCEnabled && len(dcb.PFCPriorities) > 0
				if pfc || pause {
					r.Pass(nic)
					continue
				}
				if !okNIC || det == nil || !okDCB || dcb == nil {
					var why []string
					for _, w := range []string{whyNIC, whyDCB} {
						if w != "" {
							why = append(why, w)
						}
					}
					if len(why) == 0 {
						why = append(why, "no pause or DCB data for "+nic)
					}
					r.NotEvaluated(nic, strings.Join(why, "; "))
					continue
				}
				ev := []Evidence{Ev(h.Host, dcb.Record.RefOf("PFC Enabled")), Ev(h.Host, det.Record.RefOf("Pause RX")), Ev(h.Host, det.Record.RefOf("Pause TX"))}
				if ref := dcb.Record.RefOf("PFC Configuration"); ref.Line > 0 {
					ev = append(ev, Ev(h.Host, ref))
				}
				state := "PFC is disabled"
				if dcb.PFCEnabled {
					state = "PFC is enabled on no priority"
				}
				msg := fmt.Sprintf("%s (%s's uplink) has no lossless configuration: %s and global pause is off (RX %t, TX %t)",
					nic, d.Name, state, det.PauseRX, det.PauseTX)
				fix := fmt.Sprintf("Enable PFC for the RoCE priority (3) on the switch port of %s and on the host", nic)
				if strings.HasPrefix(det.Driver, "nmlx5") || strings.HasPrefix(d.Driver, "nmlx5") {
					fix += ": esxcli system module parameters set -m nmlx5_core -p \"pfctx=0x08 pfcrx=0x08\" then reboot " + h.Host
				} else {
					fix += " (DCBX from the switch, or the NIC driver's PFC module parameter)"
				}
				fix += fmt.Sprintf("; or, without PFC, global pause: esxcli network nic pauseParams set -n %s -r true -t true", shellArg(nic, "vmnicN"))
				sev := Warning
				if !onDataPath(h, d) {
					sev = Info
					msg += "; PVRDMA does not use " + nic + " (it is not an uplink of the PVRDMA vDS), so this is information only"
				} else if errs := errorCounters(statsFor(h, d.Name)); len(errs) > 0 {
					sev = Critical
					st := statsFor(h, d.Name)
					msg += fmt.Sprintf("; %s already counts errors (%s)", d.Name, strings.Join(errs, ", "))
					for _, k := range errs {
						ev = append(ev, Ev(h.Host, st.Record.RefOf(k)))
					}
				}
				r.FailSeverity(sev, h.Host, nic, msg, fix+".", ev...)
			}
		},
	})

	register(&Rule{
		ID:       "RDMA_ERRORS",
		Title:    "RDMA device counts errors",
		Severity: Warning,
		Why: "Non-zero error counters of `esxcli rdma device stats get` (error packets received or sent, length errors, " +
			"queue pairs in the ERR state) mean RoCE packets are being dropped or rejected: typically no lossless " +
			"configuration (PFC), an MTU mismatch, or a bad cable/optic. The counters are cumulative since the driver " +
			"loaded, so an old, fixed problem also shows: compare two scans to see whether they still grow. A device that is " +
			"not on the PVRDMA data path is reported as information only.",
		Fix:     "Check PFC/pause and MTU on the path, then cable and optics (esxcli network nic stats get -n vmnicN); scan again later to see whether the counters grow.",
		Docs:    []string{docRoCE67, docLossless},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			for _, d := range h.RDMADevices {
				if ok, why := sourceFor(h, hostio.KindRDMAStats, d.Name); !ok {
					r.NotEvaluated(d.Name, why)
					continue
				}
				st := statsFor(h, d.Name)
				if st == nil {
					r.NotEvaluated(d.Name, "no counters for "+d.Name)
					continue
				}
				errs := errorCounters(st)
				if len(errs) == 0 {
					r.Pass(d.Name)
					continue
				}
				var parts []string
				var ev []Evidence
				for _, k := range errs {
					parts = append(parts, fmt.Sprintf("%s %d", k, st.Counters[k]))
					ev = append(ev, Ev(h.Host, st.Record.RefOf(k)))
				}
				msg := fmt.Sprintf("%s counts RDMA errors: %s", d.Name, strings.Join(parts, ", "))
				if !onDataPath(h, d) {
					msg += "; PVRDMA does not use " + d.Name + " (its uplink is not on the PVRDMA vDS), so this is information only"
				}
				r.FailSeverity(offPathSeverity(h, d, Warning), h.Host, d.Name, msg,
					fmt.Sprintf("Check lossless Ethernet and MTU on %s's uplink %s (esxcli network nic dcb status get -n %s; esxcli network nic get -n %s), "+
						"then cable/optics (esxcli network nic stats get -n %s); run `esxcli rdma device stats get -d %s` again to see whether the counters grow.",
						d.Name, d.PairedUplink, d.PairedUplink, d.PairedUplink, d.PairedUplink, d.Name), ev...)
			}
		},
	})

	register(&Rule{
		ID:       "VMKPING_UNREACHABLE",
		Title:    "A peer's PVRDMA vmknic does not answer vmkping",
		Severity: Critical,
		Why: "vmkping from the PVRDMA vmknic to a peer host's PVRDMA vmknic with a 1472-byte payload (fits any 1500 MTU, " +
			"don't-fragment set) tests plain reachability: if it gets no reply, PVRDMA between the two hosts cannot work " +
			"(wrong IP or netmask, VLAN, routing, or a blocked port). Partial loss is reported as a warning.",
		Fix:     "Check IP address and netmask of both vmknics (esxcli network ip interface ipv4 get), the VLAN of the vmknics' port group and of the switch ports, and routing between the subnets.",
		Docs:    []string{docRoCE67, docPVRDMA70},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, fleet *facts.Fleet, r *Reporter) {
			srcs := h.Sources[hostio.KindVmkping]
			if len(srcs) == 0 {
				for _, o := range fleet.Hosts {
					if o.Host != h.Host && o.Status != hostio.StatusNotCollected {
						r.NotEvaluated(h.Host, "no vmkping probes were run from this host (--no-probes, or no peer PVRDMA vmknic address was known)")
						return
					}
				}
				return // a single host has no peers to probe
			}
			addrs := fleetAddrs(fleet)
			for _, pp := range probePairs(h) {
				subject := fmt.Sprintf("%s -> %s", pingVmknicOr(pp), targetLabel(addrs, pp.Target))
				if pp.Small == nil {
					continue
				}
				p := *pp.Small
				switch {
				case !pingFailed(p) && (!p.HasStats || p.Received == p.Transmitted):
					r.Pass(subject)
				case p.MessageTooLong:
					r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("%s refused its own %d-byte probe to %s (`%s`): the sending vmknic's MTU is "+
						"below %d, so nothing was sent and reachability is unknown", h.Host, p.Payload, targetLabel(addrs, pp.Target), p.Failures[0], p.Payload+28),
						fmt.Sprintf("On %s: set %s's MTU to at least 1500 (esxcli network ip interface set -i %s -m 1500, or the PVRDMA MTU), then retry: %s",
							h.Host, pingVmknicOr(pp), pingVmknicOr(pp), p.Command), sendtoEv(h, p))
				case pingFailed(p):
					ev := []Evidence{Ev(h.Host, p.Ref)}
					how := "gets no reply from"
					if len(p.Failures) > 0 {
						how = "cannot reach"
						ev = append([]Evidence{sendtoEv(h, p)}, ev...)
						ev[0].Note = "the sending host reports the peer unreachable"
					}
					r.Fail(subject, fmt.Sprintf("%s %s %s (vmkping -s %d, %d sent, %d received)", pingVmknicOr(pp), how,
						targetLabel(addrs, pp.Target), p.Payload, p.Transmitted, p.Received),
						fmt.Sprintf("On %s: compare `esxcli network ip interface ipv4 get` on both hosts (same subnet or a route), the VLAN of both "+
							"PVRDMA vmknics' port groups and of the switch ports; then retry: %s", h.Host, p.Command), ev...)
				default:
					r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("%s loses %.0f%% of probes to %s (%d sent, %d received)", pingVmknicOr(pp),
						p.LossPercent, targetLabel(addrs, pp.Target), p.Transmitted, p.Received),
						fmt.Sprintf("Check the links and switch ports between %s and %s for errors (esxcli network nic stats get -n vmnicN); then retry: %s",
							h.Host, pp.Target, p.Command), Ev(h.Host, p.Ref))
				}
			}
			for _, s := range srcs {
				if !s.Parsed {
					r.NotEvaluated(s.Command, "probe "+strings.ReplaceAll(string(s.Status), "_", " ")+": "+s.Error)
				}
			}
		},
	})

	register(&Rule{
		ID:       "ROCE_VERSION_MISMATCH",
		Title:    "PVRDMA adapters use different RoCE versions",
		Severity: Warning,
		Why: "Two RDMA endpoints must use the same RoCE version: RoCE v1 (Ethernet only, one L2 domain) and RoCE v2 (UDP/IP, " +
			"routable) do not interoperate, and an application using GID types that differ between peers fails to connect. " +
			"vsish reports each PVRDMA backend's negotiated `RoCE version`; pvrdma-doctor assumes PVRDMA VMs on the same vDS " +
			"talk to each other and flags the adapters not on the most recent version in use (v2).",
		Fix:     "Set the same device protocol on every PVRDMA adapter (VirtualVmxnet3Vrdma.deviceProtocol = rocev2, vSphere Client: VM > Edit Settings > network adapter > Device protocol), make sure every host's RDMA device supports it (esxcli rdma device protocol list), then power-cycle the VMs.",
		Docs:    []string{docVrdmaAPI, docRoCE67},
		Applies: "ESXi 6.5 and later",
		Fleet: func(fleet *facts.Fleet, r *Reporter) {
			type adapter struct {
				h *facts.Host
				d parse.PVRDMADevice
			}
			var all []adapter
			versions := map[int][]string{}
			for i := range fleet.Hosts {
				h := &fleet.Hosts[i]
				if ok, why := h.Available(hostio.KindPVRDMADeviceLs, hostio.KindPVRDMAProperties); !ok {
					if len(h.PVRDMAListing) > 0 || h.Status == hostio.StatusNotCollected {
						r.NotEvaluatedOn(h.Host, h.Host, why)
					}
					if len(h.PVRDMADevices) == 0 {
						continue
					}
				}
				for _, d := range h.PVRDMADevices {
					if d.Props.Fields["RoCE version"].Line == 0 || d.RoCEVersion == 0 {
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
				field := a.d.Props.Fields["RoCE version"]
				peers := versions[top]
				ev := []Evidence{Ev(a.h.Host, field.Ref)}
				for _, b := range all {
					if b.d.RoCEVersion == top {
						ev = append(ev, Ev(b.h.Host, b.d.Props.Fields["RoCE version"].Ref))
						break
					}
				}
				r.FailOn(a.h.Host, vmLabel(a.d), fmt.Sprintf("%s on %s uses RoCE v%d while %d other PVRDMA adapter(s) use RoCE v%d (e.g. %s); versions in use: %s",
					vmLabel(a.d), a.h.Host, a.d.RoCEVersion, len(peers), top, peers[0], strings.Join(vs, ", ")),
					fmt.Sprintf("Power off %s, set its PVRDMA adapter's device protocol to RoCE v%d (vSphere Client: Edit Settings > network adapter > "+
						"Device protocol; VirtualVmxnet3Vrdma.deviceProtocol = rocev%d), check `esxcli rdma device protocol list` on %s shows RoCE v%d true, then power it on.",
						fixVM(a.d.VMName, a.d.WorldID), top, top, a.h.Host, top), ev...)
			}
		},
	})
}

// sendtoEv quotes the line where vmkping printed why it could not send.
func sendtoEv(h *facts.Host, p parse.Ping) Evidence {
	if p.FailureRef.Line > 0 {
		ref := p.FailureRef
		if ref.Command == "" {
			ref.Command = p.Command // the facts builder sets the ping's own Ref only
		}
		e := Ev(h.Host, ref)
		e.Note = "refused by the sending host: no packet left it"
		return e
	}
	e := Ev(h.Host, p.Ref)
	if len(p.Failures) > 0 {
		e.Note = "vmkping printed: " + p.Failures[0]
	}
	return e
}

func pingVmknicOr(pp probePair) string {
	for _, p := range []*parse.Ping{pp.Small, pp.Jumbo} {
		if p != nil {
			if v := pingVmknic(*p); v != "" {
				return v
			}
		}
	}
	return "PVRDMA vmknic"
}

// pingPayload returns the payload of the host's jumbo (or small) probes.
func pingPayload(h *facts.Host, jumbo bool) int {
	for _, p := range h.Pings {
		if (p.Payload+28 > 1500) == jumbo {
			return p.Payload
		}
	}
	if jumbo {
		return 8972
	}
	return 1472
}
