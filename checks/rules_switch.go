package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesSwitch are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesSwitch = []*Rule{
	{ID: "RDMA_UPLINK_NOT_ON_DVS", Plan: planUplinks, Severity: Critical, Check: checkRDMAUplinkNotOnDVS,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList, catalog.KindDVSList, catalog.KindIPInterfaceList, catalog.KindPVRDMAVmknicOpt}},
	{ID: "DVS_MULTIPLE_UPLINKS", Plan: planUplinks, Severity: Warning, Check: checkDVSMultipleUplinks,
		Needs: []hostio.Kind{catalog.KindDVSList, catalog.KindIPInterfaceList, catalog.KindRDMADeviceList, catalog.KindPVRDMAVmknicOpt}},
}

// The checks of this area (prose: catalogue.yaml): the PVRDMA distributed switch and its uplinks.

func checkRDMAUplinkNotOnDVS(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if len(h.RDMADevices) == 0 {
		return // NO_RDMA_DEVICE reports it
	}
	use, known, why := pvrdmaInUse(h, hp)
	if !known {
		r.NotEvaluated(h.Host, why)
		return
	}
	if !use {
		return
	}
	sw := hp.Switch
	if sw == nil && len(h.DVSwitches) > 0 {
		r.NotEvaluated(h.Host, "the PVRDMA vDS could not be identified: the PVRDMA vmknic is not on a vDS and no vDS holds an RDMA uplink")
		return
	}
	if sw != nil {
		for _, d := range hp.Active {
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
			ev = append(ev, sourceEv(h, catalog.KindDVSList, "no distributed switch on this host")...)
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
}

func checkDVSMultipleUplinks(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if row := readinessFor(in, h.Host); row != nil && row.Judged() {
		return // a host without PVRDMA VMs: HOST_NOT_READY reports its uplinks
	}
	sw := hp.Switch
	if sw == nil {
		if use, _, _ := pvrdmaInUse(h, hp); use && len(h.DVSwitches) > 0 {
			r.NotEvaluated(h.Host, "the PVRDMA vDS could not be identified")
		}
		return
	}
	if len(sw.Uplinks) <= 1 {
		r.Pass(sw.Name)
		return
	}
	// The uplink to keep is the one the fix plan keeps (chooseUplink): an
	// Active RDMA device's, even when it is not on the vDS yet, so that this
	// fix never tells the admin to keep a port whose RDMA device is down.
	keep, _ := chooseUplink(h, hp)
	var drop []string
	for _, u := range sw.Uplinks {
		if u != keep {
			drop = append(drop, u)
		}
	}
	fix := fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: on %s unassign %s",
		sw.Name, h.Host, strings.Join(drop, ", "))
	switch {
	case keep == "":
		fix += ", leaving the HCA's vmnic as the only uplink"
	case hasString(sw.Uplinks, keep):
		fix += fmt.Sprintf(", leaving %s (the HCA) as the only uplink", keep)
	default:
		fix += fmt.Sprintf(", and assign %s (the Active HCA's port) as the only uplink", keep)
	}
	r.Fail(sw.Name, fmt.Sprintf("%s, the PVRDMA vDS, has %d uplinks on %s (%s); the HCA must be the only one",
		sw.Name, len(sw.Uplinks), h.Host, strings.Join(sw.Uplinks, ", ")), fix+"; no LAG.",
		Ev(h.Host, sw.Record.RefOf("Uplinks")))
}
