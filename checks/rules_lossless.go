package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesLossless are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesLossless = []*Rule{
	{ID: "PFC_DISABLED", Plan: planPFC, Severity: Warning, Check: checkPFCDisabled,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}},
	{ID: "PFC_PRIORITY_MISMATCH", Plan: planPFCPriority, Severity: Warning, Check: checkPFCPriorityMismatch,
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

// rocePriority is the PFC priority the fleet's PVRDMA uplinks run most
// (dcb status), ties going to 3 (VMware's and NVIDIA's examples), then
// to the lowest; ok is false when no PVRDMA uplink runs PFC.
func (u *pfcUse) rocePriority() (prio int, ok bool) {
	best := -1
	for p := 0; p < 8; p++ {
		n := len(u.hosts[p])
		if n == 0 {
			continue
		}
		if best < 0 || n > len(u.hosts[best]) || n == len(u.hosts[best]) && p == 3 {
			best = p
		}
	}
	return best, best >= 0
}

// checkPFCPriorityMismatch: RoCE is lossless between two hosts only when
// both ports (and the switch between them) pause the same priority. A
// host whose PVRDMA uplinks run PFC, none on the priority the other PVRDMA
// hosts run, is flagged; a ConnectX whose priority comes from its own
// pfctx/pfcrx is NMLX5_PFC_PARAMS's.
func checkPFCPriorityMismatch(in *Input, r *Reporter) {
	h := in.Host
	nics, _ := pvrdmaUplinks(h, in.Path)
	use := fleetPFC(in)
	want, ok := use.rocePriority()
	judged := false
	for _, nic := range nics {
		d := dcbFor(h, nic)
		if d == nil || !d.PFCEnabled || len(d.PFCPriorities) == 0 {
			continue // PFC_DISABLED's
		}
		judged = true
		if !ok || slices.Contains(d.PFCPriorities, want) || use.others(want, h.Host) == 0 {
			r.Pass(nic)
			continue
		}
		if h.NMLX5(nic) && pValue(h.ModuleParam("nmlx5_core", "pfctx")) != "" {
			r.Pass(nic) // static PFC: NMLX5_PFC_PARAMS compares its bitmaps
			continue
		}
		var ev []Evidence
		if ref := d.Record.RefOf("PFC Configuration"); ref.Line > 0 {
			ev = append(ev, Ev(h.Host, ref))
		}
		ev = append(ev, Ev(h.Host, d.Record.RefOf("PFC Enabled")))
		others := use.otherHosts(want, h.Host)
		r.Fail(nic, fmt.Sprintf("%s runs PFC on priority %s, while the PVRDMA uplinks of %s run it on priority %d: RoCE traffic between "+
			"them is paused on one side only, so it is not lossless", nic, joinInts(d.PFCPriorities), joinNames(others), want),
			fmt.Sprintf("Set PFC on priority %d on the switch port of %s, as on the other hosts' ports (the NIC takes it by DCBX; "+
				"`esxcli network nic dcb status get -n %s` then shows it).", want, nic, shellArg(nic, "vmnicN")), ev...)
	}
	if !judged {
		r.Pass(h.Host)
	}
}

// planPFCPriority: the switch port advertises the fleet's RoCE priority
// (DCBX); nothing changes on the host.
func planPFCPriority(p *planner, f Finding) {
	want, ok := fleetPFCOf(p).rocePriority()
	if !ok {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: f.Subject, Mode: "pfc", Priority: want, DCBX: true}, f)
}

// fleetPFCOf is the fleet's pfcUse for a plan (the rules' memo).
func fleetPFCOf(p *planner) *pfcUse { return fleetPFC(&Input{Fleet: p.fleet}) }
