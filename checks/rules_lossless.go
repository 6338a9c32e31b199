package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesLossless are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesLossless = []*Rule{
	{ID: "PFC_DISABLED", Plan: planPFC, Severity: Warning, Check: checkPFCDisabled,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}},
	{ID: "RDMA_ERRORS", Plan: planRDMAErrors, PlanConsequences: true, Severity: Warning, Check: checkRDMAErrors,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}},
}

// The checks of this area (prose: catalogue.yaml): lossless Ethernet on the RoCE uplinks, and the RDMA error counters that show its absence.

func checkPFCDisabled(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	seen := map[string]bool{}
	for _, d := range h.RDMADevices {
		nic := d.PairedUplink
		if nic == "" || seen[nic] {
			continue
		}
		seen[nic] = true
		okNIC, whyNIC := sourceFor(h, catalog.KindNICGet, nic)
		okDCB, whyDCB := sourceFor(h, catalog.KindDCBStatus, nic)
		det := nicDetail(h, nic)
		dcb := dcbFor(h, nic)
		pause := okNIC && det != nil && det.PauseRX && det.PauseTX
		pfc := okDCB && dcb != nil && dcb.PFCEnabled && len(dcb.PFCPriorities) > 0
		if pfc || pause {
			r.Pass(nic)
			continue
		}
		if judgedByReadiness(in, d.Name, stepLossless) {
			continue // HOST_NOT_READY reports it
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
		if h.NMLX5(nic) {
			fix += ": " + nmlx5PFC + " then reboot " + h.Host
		} else {
			fix += " (DCBX from the switch, or the NIC driver's PFC module parameter)"
		}
		fix += fmt.Sprintf("; or, without PFC, global pause: esxcli network nic pauseParams set -n %s -r true -t true", shellArg(nic, "vmnicN"))
		sev := Warning
		if !onDataPath(h, hp, d) {
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
}

func checkRDMAErrors(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for _, d := range h.RDMADevices {
		if ok, why := sourceFor(h, catalog.KindRDMAStats, d.Name); !ok {
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
		if !onDataPath(h, hp, d) {
			msg += "; PVRDMA does not use " + d.Name + " (its uplink is not on the PVRDMA vDS), so this is information only"
		}
		r.FailSeverity(offPathSeverity(h, hp, d, Warning), h.Host, d.Name, msg,
			fmt.Sprintf("Check lossless Ethernet and MTU on %s's uplink %s (esxcli network nic dcb status get -n %s; esxcli network nic get -n %s), "+
				"then cable/optics (esxcli network nic stats get -n %s); run `esxcli rdma device stats get -d %s` again to see whether the counters grow.",
				d.Name, d.PairedUplink, d.PairedUplink, d.PairedUplink, d.PairedUplink, d.Name), ev...)
	}
}
