package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const (
	docPVRDMASupport = "https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-networking/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html"
	docPVRDMAHPC     = "VMware, \"VMware Paravirtual RDMA for High Performance Computing: PVRDMA Setup and Performance Study\" (November 2021), section Troubleshooting"
	docRDMAOverview  = "https://docs.vmware.com/en/VMware-vSphere/6.5/com.vmware.vsphere.networking.doc/GUID-9AADBB49-876E-4E44-8149-D0523D8ADA6A.html"
	docLinuxIBAddr   = "https://github.com/torvalds/linux/blob/master/include/rdma/ib_addr.h (iboe_get_mtu: RoCE MTU from the netdev MTU)"
	docRoCENetwork   = "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.networking.doc/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html (Network Requirements for RDMA over Converged Ethernet)"
)

func vmLabel(d parse.PVRDMADevice) string {
	name := d.VMName
	if name == "" {
		name = "world " + d.WorldID
	}
	return fmt.Sprintf("%s (PVRDMA adapter %s)", name, d.Index)
}

func init() {
	register(&Rule{
		ID:       "PHYSICAL_HCA_UNAVAILABLE",
		Title:    "PVRDMA adapter is not backed by a physical RDMA device",
		Severity: Critical,
		Why: "vsish reports `Physical HCA available:0` for the VM's PVRDMA backend: the adapter is not using the host's " +
			"RDMA-capable NIC. Traffic to VMs on other hosts then goes through the TCP-based fallback channel, at a fraction " +
			"of RDMA's bandwidth and with far higher latency. VMs on the same host are unaffected (memcpy).",
		Fix: "Give the host an Active RDMA device (esxcli rdma device list) whose paired uplink is the only uplink of the " +
			"PVRDMA distributed switch, then power-cycle the VM so its adapter binds to the HCA.",
		Docs:    []string{docPVRDMAHPC, docPVRDMASupport},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindPVRDMADeviceLs, hostio.KindPVRDMAProperties); !ok {
				if len(h.PVRDMAListing) == 0 && len(h.Sources[hostio.KindPVRDMAProperties]) == 0 {
					if ok2, _ := h.Available(hostio.KindPVRDMADeviceLs); ok2 {
						return // no PVRDMA VMs on this host: nothing to check
					}
				}
				r.NotEvaluated(h.Host, why)
				if len(h.PVRDMADevices) == 0 {
					return
				}
			}
			for _, d := range h.PVRDMADevices {
				field := d.Props.Fields["Physical HCA available"]
				if field.Line == 0 {
					r.NotEvaluated(vmLabel(d), "`Physical HCA available` missing from the vsish properties")
					continue
				}
				if d.PhysicalHCA != 0 {
					r.Pass(vmLabel(d))
					continue
				}
				ev := []Evidence{Ev(h.Host, field.Ref)}
				r.Fail(vmLabel(d), fmt.Sprintf("%s has no physical HCA behind its PVRDMA adapter; cross-host RDMA falls back to TCP", vmLabel(d)),
					hcaFix(h), ev...)
			}
		},
	})

	register(&Rule{
		ID:       "LOW_MTU",
		Title:    "PVRDMA active MTU is below what the data path allows",
		Severity: Warning,
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
		Docs:    []string{docPVRDMAHPC, docRoCENetwork, docLinuxIBAddr},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, fleet *facts.Fleet, r *Reporter) {
			if len(h.PVRDMADevices) == 0 {
				if ok, why := h.Available(hostio.KindPVRDMADeviceLs, hostio.KindPVRDMAProperties); !ok && len(h.Sources[hostio.KindPVRDMAProperties]) > 0 {
					r.NotEvaluated(h.Host, why)
				}
				return
			}
			if ok, _ := h.Available(hostio.KindRDMADeviceList); ok && len(usableRDMA(h)) == 0 {
				return // traffic falls back to TCP: TCP_FALLBACK / PHYSICAL_HCA_UNAVAILABLE report it
			}
			path, ok := hostPathMTU(h)
			if !ok {
				_, why := h.Available(hostio.KindDVSList, hostio.KindRDMADeviceList)
				if why == "" {
					why = "the PVRDMA distributed switch could not be identified, so the data path MTU is unknown"
				}
				for _, d := range h.PVRDMADevices {
					r.NotEvaluated(vmLabel(d), why)
				}
				return
			}
			want := rdmaMTUFor(path.MTU)
			sw := pvrdmaSwitch(h)
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
				ev := append([]Evidence{Ev(h.Host, field.Ref)}, path.Evidence...)
				msg := fmt.Sprintf("%s runs at RDMA MTU %d while its data path carries %d-byte frames (%s), which allows %d: "+
					"%d times as many packets per message, which costs packet rate for small and medium messages (large transfers still come close to line rate)",
					vmLabel(d), d.ActiveMTU, path.MTU, strings.Join(path.Parts, ", "), want, want/d.ActiveMTU)
				sev := Info
				if top, peer := topActiveMTU(fleet, sw.Name); top > d.ActiveMTU {
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
		},
	})

	register(&Rule{
		ID:       "ACTIVE_MTU_ABOVE_PATH",
		Title:    "PVRDMA active MTU is larger than the data path proved to carry",
		Severity: Warning,
		Why: "When a don't-fragment jumbo probe from the PVRDMA vmknic gets no reply while a 1472-byte probe to the same peer " +
			"does, the network between the hosts carries no more than 1500-byte frames. An adapter whose RoCE Active MTU " +
			"needs bigger frames (2048 or 4096) sends packets that are silently dropped: large messages stall and retry " +
			"until the queue pair fails, while small ones work, the hardest kind of failure to diagnose. It is a consequence " +
			"of the path MTU problem MTU_MISMATCH reports, and a warning of its own until that is fixed.",
		Fix:     "Fix the path (MTU 9216 on every physical switch port between the hosts), or lower the guest interface's MTU to 1500 so that RoCE uses 1024.",
		Docs:    []string{docRoCENetwork, docLinuxIBAddr},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if len(h.PVRDMADevices) == 0 {
				return
			}
			path, ok := hostPathMTU(h)
			if !ok || !path.Proved {
				return
			}
			allowed := rdmaMTUFor(path.MTU)
			for _, d := range h.PVRDMADevices {
				if d.PhysicalHCA == 0 || d.ActiveMTU == 0 {
					continue
				}
				if d.ActiveMTU <= allowed {
					r.Pass(vmLabel(d))
					continue
				}
				ev := append([]Evidence{Ev(h.Host, d.Props.Fields["Active MTU"].Ref)}, path.Evidence...)
				r.Fail(vmLabel(d), fmt.Sprintf("%s runs at RDMA MTU %d, but probes proved the data path carries only %d-byte frames (%s), which allows %d: "+
					"its large RoCE packets are dropped", vmLabel(d), d.ActiveMTU, path.MTU, strings.Join(path.Parts, ", "), allowed),
					fmt.Sprintf("Fix the physical path first (MTU 9216 on every switch port between %s and its peers); until then, in %s set the PVRDMA "+
						"adapter's Ethernet interface to MTU 1500 so that RoCE uses %d.", h.Host, orPlaceholder(d.VMName, "the guest"), allowed), ev...)
			}
		},
	})

	register(&Rule{
		ID:       "TCP_FALLBACK",
		Title:    "PVRDMA traffic between hosts falls back to TCP",
		Severity: Critical,
		Why: "When two PVRDMA VMs run on different ESXi hosts and at least one of those hosts has no (active) physical " +
			"RDMA device, PVRDMA silently falls back to a TCP-based channel: applications still work, but with TCP's " +
			"latency and a fraction of RDMA's bandwidth. VMware: \"For two virtual machines that run on different ESXi hosts, " +
			"when at least one of the hosts does not have a physical RDMA device, the communication falls back to a " +
			"TCP-based channel and the performance is reduced.\" The primary evidence is vsish's `Physical HCA available` of " +
			"the host's PVRDMA adapters (what the backend really uses); the RDMA device list and the vDS uplinks are used when " +
			"vsish was not read, and the finding says when the two disagree. pvrdma-doctor assumes PVRDMA VMs on different " +
			"hosts of one scan talk to each other (they share the PVRDMA vDS); on a scan of one host it reports the risk as " +
			"information and asks to scan the peer hosts.",
		Fix: "Install an RoCE-capable NIC with its ESXi RDMA driver on every host that runs PVRDMA VMs and make it the uplink " +
			"of the PVRDMA vDS, or keep the VMs that talk to each other on one host (memcpy path).",
		Docs:    []string{docRDMAOverview, docPVRDMASupport},
		Applies: "ESXi 6.5 and later",
		Fleet: func(fleet *facts.Fleet, r *Reporter) {
			type hostInfo struct {
				h              *facts.Host
				devKnown       bool // the RDMA device list was read
				usable         bool // an Active RDMA device serves the PVRDMA vDS
				hcaOne, hcaOff []parse.PVRDMADevice
			}
			var with []hostInfo
			for i := range fleet.Hosts {
				h := &fleet.Hosts[i]
				if ok, why := h.Available(hostio.KindPVRDMADeviceLs); !ok {
					r.NotEvaluatedOn(h.Host, h.Host, why)
					continue
				}
				if !hasPVRDMA(h) {
					continue
				}
				hi := hostInfo{h: h}
				for _, d := range h.PVRDMADevices {
					if d.Props.Fields["Physical HCA available"].Line == 0 {
						continue
					}
					if d.PhysicalHCA != 0 {
						hi.hcaOne = append(hi.hcaOne, d)
					} else {
						hi.hcaOff = append(hi.hcaOff, d)
					}
				}
				ok, why := h.Available(hostio.KindRDMADeviceList)
				hi.devKnown = ok
				hi.usable = ok && len(usableRDMA(h)) > 0
				if !ok && len(hi.hcaOne)+len(hi.hcaOff) == 0 {
					r.NotEvaluatedOn(h.Host, h.Host, why)
					continue
				}
				with = append(with, hi)
			}
			for _, hi := range with {
				h := hi.h
				var peers []string
				for _, o := range with {
					if o.h != h {
						peers = append(peers, o.h.Host)
					}
				}
				sort.Strings(peers)
				// vsish's `Physical HCA available` is what the PVRDMA backend
				// really uses: the primary evidence. The device list and the
				// vDS uplinks are the fallback when vsish was not read.
				vsish := len(hi.hcaOne)+len(hi.hcaOff) > 0
				falls := !hi.usable
				if vsish {
					falls = len(hi.hcaOne) == 0
				}
				vms := pvrdmaVMNames(h)
				subject := fmt.Sprintf("%s (%s)", h.Host, joinNames(vms))
				var hcaEv []Evidence
				for _, d := range hi.hcaOff {
					hcaEv = append(hcaEv, Ev(h.Host, d.Props.Fields["Physical HCA available"].Ref))
				}
				if !falls {
					if vsish && hi.devKnown && !hi.usable {
						ev := []Evidence{Ev(h.Host, hi.hcaOne[0].Props.Fields["Physical HCA available"].Ref)}
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
				switch active := activeRDMA(h); {
				case !hi.devKnown:
					reason = "vsish shows no adapter bound to a physical HCA (the RDMA device list was not read)"
				case hi.usable:
					reason = fmt.Sprintf("vsish shows no adapter bound to a physical HCA, although %s on %s is Active: the sources disagree, "+
						"and vsish (what the PVRDMA backend uses) wins; the adapters were probably powered on before the device was up",
						usableRDMA(h)[0].Name, pvrdmaSwitch(h).Name)
				case len(active) > 0 && pvrdmaSwitch(h) != nil:
					reason = fmt.Sprintf("%s's Active RDMA device %s is paired with %s, which is not an uplink of %s",
						h.Host, active[0].Name, active[0].PairedUplink, pvrdmaSwitch(h).Name)
				case len(h.RDMADevices) > 0:
					reason = h.Host + " has no Active RDMA device"
				}
				ev := append(hcaEv, rdmaListEvidence(h)...)
				fix := fmt.Sprintf("On %s: install an RoCE NIC and its RDMA driver (check with: esxcli rdma device list), make its vmnic the "+
					"only uplink of the PVRDMA vDS (vSphere Client > Networking > vDS > Add and Manage Hosts > Manage physical adapters), "+
					"then power-cycle the PVRDMA VMs. Or migrate the VMs that talk to each other onto one host.", h.Host)
				switch active := activeRDMA(h); {
				case hi.usable:
					fix = fmt.Sprintf("On %s: power-cycle the PVRDMA VMs (%s) so that their adapters bind to %s, then check `Physical HCA available:1` in vsish.",
						h.Host, joinNames(vms), usableRDMA(h)[0].Name)
				case len(active) > 0 && pvrdmaSwitch(h) != nil:
					// The host has a working RNIC; it is just not the vDS's uplink.
					sw := pvrdmaSwitch(h)
					fix = fmt.Sprintf("On %s: make %s (paired with %s) the only uplink of %s: vSphere Client > Networking > %s > "+
						"Add and Manage Hosts > Manage physical adapters, assign %s to the uplink and unassign %s; then power-cycle the "+
						"PVRDMA VMs (%s).", h.Host, active[0].PairedUplink, active[0].Name, sw.Name, sw.Name, active[0].PairedUplink,
						strings.Join(sw.Uplinks, ", "), joinNames(fixVMNames(h)))
					ev = append(ev, Ev(h.Host, sw.Record.RefOf("Uplinks")))
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
		},
	})

	register(&Rule{
		ID:       "COLLECTION_FAILED",
		Title:    "Some commands or hosts could not be collected",
		Severity: Warning,
		Why: "A check whose input is missing cannot pass or fail: pvrdma-doctor reports it as not evaluated. This " +
			"finding lists what was not collected and why, so that nobody mistakes an incomplete scan for a healthy one.",
		Fix: "Fix the reason shown (SSH enabled and reachable, credentials, host key, command timeout) and scan again; " +
			"commands that fail on the host itself may need a newer ESXi release or driver.",
		Docs:    []string{"README.md#what-gets-run-on-your-hosts"},
		Applies: "all",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if h.Status == hostio.StatusNotCollected {
				target := h.Address
				if target == "" {
					target = h.Host
				}
				r.Fail(h.Host, fmt.Sprintf("%s was not collected: %s", h.Host, h.Reason),
					fmt.Sprintf("Check that %s is reachable on SSH, that SSH is enabled (Host > Configure > Services > SSH), "+
						"and that the credentials and host key are right; then scan again.", h.Host),
					Evidence{Host: h.Host, Command: "ssh " + target, Note: h.Reason})
				return
			}
			kinds := make([]string, 0, len(h.Sources))
			for k := range h.Sources {
				kinds = append(kinds, string(k))
			}
			sort.Strings(kinds)
			bad := false
			// Outputs lost from a damaged bundle, and commands that an offline
			// input (transcript, saved outputs) simply does not hold, are not
			// the host's fault: one finding per host for each, with its own fix.
			var damaged, absent []Evidence
			for _, k := range kinds {
				for _, s := range h.Sources[hostio.Kind(k)] {
					switch {
					case s.Status != hostio.StatusCollected && collect.InputDamaged(s.Error):
						damaged = append(damaged, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
					case s.Status != hostio.StatusCollected && collect.NotInInput(s.Error):
						absent = append(absent, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
					case s.Status == hostio.StatusCollected && !s.Parsed:
						bad = true
						r.Fail(s.Command, fmt.Sprintf("output of `%s` could not be parsed: %s", s.Command, s.Error),
							"Run the command on the host and check its output; attach it to a bug report if it looks normal.",
							Evidence{Host: h.Host, Command: s.Command})
					case s.Status != hostio.StatusCollected:
						bad = true
						r.Fail(s.Command, fmt.Sprintf("`%s` %s: %s", s.Command, strings.ReplaceAll(string(s.Status), "_", " "), s.Error),
							"Run the command on the host by hand to see why it fails; raise --command-timeout if it is only slow.",
							Evidence{Host: h.Host, Command: s.Command})
					}
				}
			}
			commands := func(ev []Evidence) string {
				var cs []string
				for i, e := range ev {
					if i == 5 {
						cs = append(cs, fmt.Sprintf("and %d more", len(ev)-5))
						break
					}
					cs = append(cs, "`"+e.Command+"`")
				}
				return strings.Join(cs, ", ")
			}
			if len(damaged) > 0 {
				bad = true
				r.Fail("outputs missing from the bundle",
					fmt.Sprintf("%d command output(s) of %s are missing or corrupt in the bundle, which is damaged (the commands did not fail on the host): %s",
						len(damaged), h.Host, commands(damaged)),
					"The bundle is damaged (see the PARTIAL INPUT note): ask for a new bundle, or run the commands on the host.",
					damaged...)
			}
			if len(absent) > 0 {
				bad = true
				r.Fail("commands not in the input",
					fmt.Sprintf("%d command(s) are missing for %s (%s), so the checks that need them were not evaluated: %s",
						len(absent), h.Host, absent[0].Note, commands(absent)),
					"Run the missing commands on the host and add their outputs (paste them into the transcript, or save them "+
						"as <command>.txt), or scan the host with pvrdma-doctor.",
					absent...)
			}
			if !bad {
				r.Pass(h.Host)
			}
		},
	})
}

type adapterRef struct {
	label string
	ev    Evidence
}

// topActiveMTU returns the largest Active MTU of the HCA-backed PVRDMA
// adapters on the named vDS across the fleet, and one adapter running at it.
func topActiveMTU(fleet *facts.Fleet, dvs string) (int, adapterRef) {
	top, at := 0, adapterRef{}
	for i := range fleet.Hosts {
		o := &fleet.Hosts[i]
		sw, _, _ := peerPath(fleet, i)
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

func pvrdmaVMNames(h *facts.Host) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range h.PVRDMADevices {
		n := d.VMName
		if n == "" {
			n = "world " + d.WorldID
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		for _, e := range h.PVRDMAListing {
			out = append(out, "device "+e.Name)
		}
	}
	return out
}

// rdmaListEvidence points at the RDMA device list: the non-active devices,
// or the (empty) listing itself.
func rdmaListEvidence(h *facts.Host) []Evidence {
	var ev []Evidence
	for _, d := range h.RDMADevices {
		ev = append(ev, Ev(h.Host, d.Ref))
	}
	if len(ev) == 0 {
		for _, s := range h.Sources[hostio.KindRDMADeviceList] {
			ev = append(ev, Evidence{Host: h.Host, Command: s.Command, Note: "no RDMA device listed"})
		}
	}
	return ev
}

// hcaFix tailors the PHYSICAL_HCA_UNAVAILABLE remediation to the host.
func hcaFix(h *facts.Host) string {
	active := activeRDMA(h)
	sw := pvrdmaSwitch(h)
	switch {
	case len(h.RDMADevices) == 0:
		return "This host has no RDMA device: install an RoCE-capable NIC and its ESXi RDMA driver (nmlx5_rdma, bnxtroce, irdman), " +
			"add its vmnic as the only uplink of the PVRDMA vDS, then power-cycle the VM."
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
