package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

// The host's RDMA devices: present, Active, RoCE-capable.

var ruleNoRDMADevice = &Rule{
	ID:       "NO_RDMA_DEVICE",
	Title:    "Host runs PVRDMA VMs but has no RDMA device",
	Severity: Critical,
	Needs:    []collect.Kind{collect.KindRDMADeviceList, collect.KindPVRDMADeviceLs},
	Check:    checkNoRDMADevice,
	Why: "Without a physical RDMA device (RoCE NIC with its ESXi RDMA driver), PVRDMA VMs on this host can only talk " +
		"RDMA to VMs on the same host (memcpy); traffic to PVRDMA VMs on other hosts falls back to a TCP-based channel " +
		"with reduced performance. It is critical when peers are on other hosts and harmless (info) when " +
		"all PVRDMA VMs share one host; pvrdma-doctor cannot see which VMs talk to each other, so it takes the safer " +
		"reading: critical as soon as another scanned host runs PVRDMA VMs, info otherwise (with a hint to scan the peers).",
	Fix: "Install an RoCE-capable NIC listed in the VMware Compatibility Guide and its RDMA driver (nmlx5_rdma, bnxtroce, " +
		"irdman), check it with `esxcli rdma device list`, and make its vmnic the only uplink of the PVRDMA vDS.",
	Docs: []string{docRDMAOverview, docPVRDMA70},
}

func checkNoRDMADevice(in *Input, r *Reporter) {
	h, fleet := in.Host, in.Fleet
	if len(h.RDMADevices) > 0 || !hasPVRDMA(h) {
		r.Pass(h.Host)
		return
	}
	ev := sourceEv(h, collect.KindRDMADeviceList, "no RDMA device listed")
	if len(h.PVRDMAListing) > 0 {
		ev = append(ev, Ev(h.Host, h.PVRDMAListing[0].Ref))
	}
	vms := joinNames(pvrdmaVMNames(h))
	var peers []string
	for i := range fleet.Hosts {
		o := &fleet.Hosts[i]
		if o.Host != h.Host && hasPVRDMA(o) {
			peers = append(peers, o.Host)
			if len(o.PVRDMAListing) > 0 && len(peers) == 1 {
				e := Ev(o.Host, o.PVRDMAListing[0].Ref)
				e.Note = "PVRDMA VMs on another host"
				ev = append(ev, e)
			}
		}
	}
	fix := fmt.Sprintf("On %s: install an RoCE NIC and its ESXi RDMA driver, check that `esxcli rdma device list` shows it Active, "+
		"make its vmnic the only uplink of the PVRDMA vDS, then power-cycle the PVRDMA VMs (%s). Until then, keep the VMs "+
		"that talk to each other on one host.", h.Host, joinNames(fixVMNames(h)))
	if len(peers) > 0 {
		verb := "run"
		if len(peers) == 1 {
			verb = "runs"
		}
		r.Fail(h.Host, fmt.Sprintf("%s has no RDMA device but runs PVRDMA VMs (%s) while %s also %s PVRDMA VMs: "+
			"cross-host PVRDMA traffic falls back to TCP", h.Host, vms, strings.Join(peers, ", "), verb), fix, ev...)
		return
	}
	r.FailSeverity(Info, h.Host, h.Host, fmt.Sprintf("%s has no RDMA device; its PVRDMA VMs (%s) can reach PVRDMA VMs on the same "+
		"host only at full speed (no other scanned host runs PVRDMA VMs; scan the peers' hosts too if they exist)", h.Host, vms), fix, ev...)
}

var ruleRDMADeviceDown = &Rule{
	ID:       "RDMA_DEVICE_DOWN",
	Title:    "RDMA device is not Active",
	Severity: Critical,
	Needs:    []collect.Kind{collect.KindRDMADeviceList},
	Check:    checkRDMADeviceDown,
	Why: "An RDMA device whose state is not Active (Down, Init, ...) carries no RDMA traffic: PVRDMA adapters bound to it " +
		"lose their physical HCA and cross-host traffic falls back to TCP. The usual cause is the paired uplink's link " +
		"(cable, optic, switch port) or the uplink being administratively down. Only a device on the PVRDMA data path " +
		"(its uplink is an uplink of the PVRDMA vDS) is critical; an unused port (e.g. the second port of a dual-port " +
		"card) is reported as information.",
	Fix:  "Bring the paired uplink's link up: check `esxcli network nic get -n vmnicN`, the cable and the switch port; if the NIC is administratively down, `esxcli network nic up -n vmnicN`.",
	Docs: []string{docPVRDMAHPC, docRDMAOverview},
}

func checkRDMADeviceDown(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for _, d := range h.RDMADevices {
		if strings.EqualFold(strings.TrimSpace(d.State), "active") {
			r.Pass(d.Name)
			continue
		}
		ev := []Evidence{Ev(h.Host, d.Ref)}
		fix := fmt.Sprintf("Check the link of %s: `esxcli network nic get -n %s` (Link Status), the cable/optic and the switch port; "+
			"then power-cycle the PVRDMA VMs so their adapters bind to the HCA again.", d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"))
		if n := h.NICNamed(d.PairedUplink); n != nil {
			ev = append(ev, Ev(h.Host, n.Ref))
			if strings.EqualFold(n.AdminStatus, "down") {
				fix = fmt.Sprintf("%s is administratively down: `esxcli network nic up -n %s`, then check that `esxcli rdma device list` shows %s Active.",
					d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"), d.Name)
			}
		}
		msg := fmt.Sprintf("%s (paired with %s) is %s, not Active", d.Name, orPlaceholder(d.PairedUplink, "no uplink"),
			orPlaceholder(d.State, "in an unknown state"))
		sev := offPathSeverity(h, hp, d, Critical)
		if sev == Info {
			msg += "; PVRDMA does not use it (its uplink is not on the PVRDMA vDS), so this is information only"
			fix = "Nothing is needed for PVRDMA. " + fix
		}
		r.FailSeverity(sev, h.Host, d.Name, msg, fix, ev...)
	}
}

var ruleRoCENotSupported = &Rule{
	ID:       "ROCE_NOT_SUPPORTED",
	Title:    "RDMA device supports neither RoCE v1 nor RoCE v2",
	Severity: Critical,
	Needs:    []collect.Kind{collect.KindRDMADeviceList, collect.KindRDMAProtocolList},
	Check:    checkRoCENotSupported,
	Why: "PVRDMA is RDMA over Converged Ethernet: the guest driver refuses a device without RoCE v1 or v2 support " +
		"(\"driver needs RoCE v1 or v2 support\"), and an iWARP-only or InfiniBand device cannot back a PVRDMA adapter.",
	Fix:  "Use an RoCE-capable NIC (check `esxcli rdma device protocol list`) as the PVRDMA vDS uplink; for Intel E810, enable RDMA (RoCEv2) in the icen module parameters and reboot.",
	Docs: []string{docLinuxPVRDMA, docRoCENetwork},
}

func checkRoCENotSupported(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for _, d := range h.RDMADevices {
		found := false
		for _, p := range h.RDMAProtocols {
			if p.Device != d.Name {
				continue
			}
			found = true
			if p.RoCEv1 || p.RoCEv2 {
				r.Pass(d.Name)
				break
			}
			msg := fmt.Sprintf("%s (%s) supports neither RoCE v1 nor RoCE v2", d.Name, orPlaceholder(d.Description, d.Driver))
			sev := offPathSeverity(h, hp, d, Critical)
			if sev == Info {
				msg += "; PVRDMA does not use it (its uplink is not on the PVRDMA vDS), so this is information only"
			}
			r.FailSeverity(sev, h.Host, d.Name, msg,
				fmt.Sprintf("Replace %s's NIC (%s) with an RoCE-capable one, or enable RoCE in its driver's module parameters "+
					"(esxcli system module parameters list -m %s) and reboot.", d.Name, d.PairedUplink, orPlaceholder(d.Driver, "DRIVER")),
				Ev(h.Host, p.Ref))
			break
		}
		if !found {
			r.NotEvaluated(d.Name, fmt.Sprintf("%s is missing from `esxcli rdma device protocol list`", d.Name))
		}
	}
}
