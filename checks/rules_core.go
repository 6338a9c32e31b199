package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const (
	docPVRDMASupport = "https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-networking/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html"
	docPVRDMAHPC     = "VMware, \"VMware Paravirtual RDMA for High Performance Computing: PVRDMA Setup and Performance Study\" (November 2021), section Troubleshooting"
	docRDMAOverview  = "https://docs.vmware.com/en/VMware-vSphere/6.5/com.vmware.vsphere.networking.doc/GUID-9AADBB49-876E-4E44-8149-D0523D8ADA6A.html"
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
			if ok, why := h.Available(collect.KindPVRDMADeviceLs, collect.KindPVRDMAProperties); !ok {
				if len(h.PVRDMAListing) == 0 && len(h.Sources[collect.KindPVRDMAProperties]) == 0 {
					if ok2, _ := h.Available(collect.KindPVRDMADeviceLs); ok2 {
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
		Title:    "PVRDMA active MTU is below what the network path allows",
		Severity: Warning,
		Why: "RoCE carries at most 4096-byte RDMA messages per frame when the Ethernet path has 9000-byte frames " +
			"(9000 - 96 bytes of RoCE v2 headers), and only 1024 with 1500-byte frames. A PVRDMA adapter stuck at " +
			"`Active MTU:1024` on a jumbo-frame path sends four times as many packets for the same data and loses a large " +
			"part of its bandwidth. The active MTU is settled when the guest driver brings the port up, so it stays low " +
			"when the VM's interface or the vDS had a small MTU at that time. pvrdma-doctor rates this a warning, not critical: " +
			"PVRDMA reports its MTU from the host device, so a guest may legitimately run lower than its netdev suggests.",
		Fix: "Use MTU 9000 end to end (physical switch, vDS, PVRDMA vmknic, and the guest's PVRDMA-paired vmxnet3 " +
			"interface), then reload the guest driver (modprobe -r vmw_pvrdma && modprobe vmw_pvrdma) or reboot the guest.",
		Docs:    []string{docPVRDMAHPC, docRoCENetwork},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if len(h.PVRDMADevices) == 0 {
				if ok, why := h.Available(collect.KindPVRDMADeviceLs, collect.KindPVRDMAProperties); !ok && len(h.Sources[collect.KindPVRDMAProperties]) > 0 {
					r.NotEvaluated(h.Host, why)
				}
				return
			}
			path, ok := hostPathMTU(h)
			if !ok {
				_, why := h.Available(collect.KindPVRDMAVmknicOpt, collect.KindIPInterfaceList, collect.KindDVSList)
				if why == "" {
					why = "the PVRDMA vmknic and its distributed switch could not be identified, so the path MTU is unknown"
				}
				for _, d := range h.PVRDMADevices {
					r.NotEvaluated(vmLabel(d), why)
				}
				return
			}
			want := rdmaMTUFor(path.MTU)
			for _, d := range h.PVRDMADevices {
				field := d.Props.Fields["Active MTU"]
				if field.Line == 0 || d.ActiveMTU == 0 {
					r.NotEvaluated(vmLabel(d), "`Active MTU` missing from the vsish properties")
					continue
				}
				if d.ActiveMTU >= want {
					r.Pass(vmLabel(d))
					continue
				}
				ev := append([]Evidence{Ev(h.Host, field.Ref)}, path.Evidence...)
				r.Fail(vmLabel(d),
					fmt.Sprintf("%s runs at RDMA MTU %d, but its path carries %d-byte frames (%s), which allows %d",
						vmLabel(d), d.ActiveMTU, path.MTU, strings.Join(path.Parts, ", "), want),
					"In the guest, set the PVRDMA-paired vmxnet3 interface to MTU 9000 (ip link set dev <iface> mtu 9000, and persist it), "+
						"then reload the driver: modprobe -r vmw_pvrdma && modprobe vmw_pvrdma (or reboot the guest).",
					ev...)
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
			"TCP-based channel and the performance is reduced.\" pvrdma-doctor assumes PVRDMA VMs on different hosts of one " +
			"scan talk to each other (they share the PVRDMA vDS).",
		Fix: "Install an RoCE-capable NIC with its ESXi RDMA driver on every host that runs PVRDMA VMs and make it the uplink " +
			"of the PVRDMA vDS, or keep the VMs that talk to each other on one host (memcpy path).",
		Docs:    []string{docRDMAOverview, docPVRDMASupport},
		Applies: "ESXi 6.5 and later",
		Fleet: func(fleet *facts.Fleet, r *Reporter) {
			type hostInfo struct {
				h      *facts.Host
				active bool
			}
			var with []hostInfo
			for i := range fleet.Hosts {
				h := &fleet.Hosts[i]
				if ok, why := h.Available(collect.KindPVRDMADeviceLs); !ok {
					r.NotEvaluatedOn(h.Host, h.Host, why)
					continue
				}
				if !hasPVRDMA(h) {
					continue
				}
				if ok, why := h.Available(collect.KindRDMADeviceList); !ok {
					r.NotEvaluatedOn(h.Host, h.Host, why)
					continue
				}
				with = append(with, hostInfo{h, len(usableRDMA(h)) > 0})
			}
			for _, hi := range with {
				var peers []string
				for _, o := range with {
					if o.h != hi.h {
						peers = append(peers, o.h.Host)
					}
				}
				sort.Strings(peers)
				if len(peers) == 0 {
					continue
				}
				var broken []string
				for _, o := range with {
					if !o.active {
						broken = append(broken, o.h.Host)
					}
				}
				if len(broken) == 0 {
					r.PassOn(hi.h.Host, hi.h.Host)
					continue
				}
				if hi.active {
					// Its traffic to the broken hosts falls back too, but the
					// finding belongs to the host that lacks the device.
					r.PassOn(hi.h.Host, hi.h.Host)
					continue
				}
				h := hi.h
				vms := pvrdmaVMNames(h)
				reason := h.Host + " has no RDMA device"
				switch active := activeRDMA(h); {
				case len(active) > 0:
					reason = fmt.Sprintf("%s's Active RDMA device %s is paired with %s, which is not an uplink of %s",
						h.Host, active[0].Name, active[0].PairedUplink, pvrdmaSwitch(h).Name)
				case len(h.RDMADevices) > 0:
					reason = h.Host + " has no Active RDMA device"
				}
				ev := rdmaListEvidence(h)
				fix := fmt.Sprintf("On %s: install an RoCE NIC and its RDMA driver (check with: esxcli rdma device list), make its vmnic the "+
					"only uplink of the PVRDMA vDS (vSphere Client > Networking > vDS > Add and Manage Hosts > Manage physical adapters), "+
					"then power-cycle the PVRDMA VMs. Or migrate the VMs that talk to each other onto one host.", h.Host)
				if active := activeRDMA(h); len(active) > 0 {
					// The host has a working RNIC; it is just not the vDS's uplink.
					sw := pvrdmaSwitch(h)
					fix = fmt.Sprintf("On %s: make %s (paired with %s) the only uplink of %s: vSphere Client > Networking > %s > "+
						"Add and Manage Hosts > Manage physical adapters, assign %s to the uplink and unassign %s; then power-cycle the "+
						"PVRDMA VMs (%s).", h.Host, active[0].PairedUplink, active[0].Name, sw.Name, sw.Name, active[0].PairedUplink,
						strings.Join(sw.Uplinks, ", "), strings.Join(fixVMNames(h), ", "))
					ev = append(ev, Ev(h.Host, sw.Record.RefOf("Uplinks")))
				}
				r.FailOn(h.Host, fmt.Sprintf("%s (%s)", h.Host, strings.Join(vms, ", ")),
					fmt.Sprintf("PVRDMA VMs on %s (%s) reach their peers on %s over TCP: %s",
						h.Host, strings.Join(vms, ", "), strings.Join(peers, ", "), reason),
					fix, ev...)
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
			if h.Status == collect.StatusNotCollected {
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
				for _, s := range h.Sources[collect.Kind(k)] {
					switch {
					case s.Status != collect.StatusCollected && collect.InputDamaged(s.Error):
						damaged = append(damaged, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
					case s.Status != collect.StatusCollected && collect.NotInInput(s.Error):
						absent = append(absent, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
					case s.Status == collect.StatusCollected && !s.Parsed:
						bad = true
						r.Fail(s.Command, fmt.Sprintf("output of `%s` could not be parsed: %s", s.Command, s.Error),
							"Run the command on the host and check its output; attach it to a bug report if it looks normal.",
							Evidence{Host: h.Host, Command: s.Command})
					case s.Status != collect.StatusCollected:
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
		for _, s := range h.Sources[collect.KindRDMADeviceList] {
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
