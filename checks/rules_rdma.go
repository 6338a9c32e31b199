package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesRDMA are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesRDMA = []*Rule{
	{ID: "NO_RDMA_DEVICE", Plan: planNoRDMADevice, Severity: Critical, Check: checkNoRDMADevice,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}},
	{ID: "RDMA_DEVICE_DOWN", Plan: planRDMADeviceDown, Severity: Critical, Check: checkRDMADeviceDown,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}},
	{ID: "ROCE_NOT_SUPPORTED", Plan: planRoCENotSupported, Severity: Critical, Check: checkRoCENotSupported,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList, catalog.KindRDMAProtocolList}},
}

// The checks of this area (prose: catalogue.yaml): the host's RDMA devices: present, Active, RoCE-capable.

func checkNoRDMADevice(in *Input, r *Reporter) {
	h, fleet := in.Host, in.Fleet
	if len(h.RDMADevices) > 0 {
		r.Pass(h.Host)
		return
	}
	if k := pvrdmaOn(h); !k.Known {
		r.NotEvaluated(h.Host, k.Why)
		return
	}
	if !hasPVRDMA(h) {
		r.Pass(h.Host) // a host without PVRDMA VMs: HOST_NOT_READY judges it
		return
	}
	ev := append(noDeviceEvidence(h), pvrdmaEvidence(h, "")...)
	vms := joinNames(pvrdmaVMNames(h))
	var peers []string
	for i := range fleet.Hosts {
		o := &fleet.Hosts[i]
		if o.Host != h.Host && hasPVRDMA(o) {
			peers = append(peers, o.Host)
			if len(peers) == 1 {
				ev = append(ev, pvrdmaEvidence(o, "PVRDMA VMs on another host")...)
			}
		}
	}
	fix := fmt.Sprintf("On %s: %s; then power-cycle the PVRDMA VMs (%s). Until then, keep the VMs that talk to each other on one host.",
		h.Host, rdmaRemedyText(h, in.Path), joinNames(fixVMNames(h)))
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

func checkRDMADeviceDown(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for _, d := range h.RDMADevices {
		if strings.EqualFold(strings.TrimSpace(d.State), "active") {
			r.Pass(d.Name)
			continue
		}
		if judgedByReadiness(in, d.Name, stepRDMA) {
			continue // HOST_NOT_READY reports it
		}
		ev := []Evidence{Ev(h.Host, d.Ref)}
		fix := fmt.Sprintf("Check the link of %s: `esxcli network nic get -n %s` (Link Status), the cable/optic and the switch port; "+
			"then power-cycle the PVRDMA VMs whose adapters have no HCA (an adapter binds at power-on).", d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"))
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
			fix = fmt.Sprintf("Nothing is needed for PVRDMA, and no VM needs a power cycle. If %s is meant to carry traffic: check its link "+
				"(`esxcli network nic get -n %s`: Link Status), the cable or optic and the switch port.", d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"))
		} else if keep, _ := chooseUplink(h, hp); keep != "" && keep != d.PairedUplink && hp.Switch != nil {
			msg += fmt.Sprintf("; %s (another RDMA port of this host) is Active and can carry PVRDMA instead", keep)
			fix = fmt.Sprintf("With the PVRDMA VMs powered off, make %s the only uplink of %s (vSphere Client > Networking > %s > Add and "+
				"Manage Hosts > Manage physical adapters), then power them on; repair %s's link only if something else needs it.",
				keep, hp.Switch.Name, hp.Switch.Name, d.PairedUplink)
		}
		r.FailSeverity(sev, h.Host, d.Name, msg, fix, ev...)
	}
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
			if judgedByReadiness(in, d.Name, stepRDMA) {
				break // HOST_NOT_READY reports it
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
