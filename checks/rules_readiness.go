package checks

import (
	"fmt"
	"strings"
)

// rulesReadiness are this area's rules in the catalogue (catalogueList).
var rulesReadiness = []*Rule{
	{ID: "HOST_NOT_READY", Plan: planHostNotReady, Severity: Warning, Check: checkHostNotReady},
}

// The checks of this area (prose: catalogue.yaml): the readiness of the
// hosts that run no PVRDMA VM
// (readiness.go), for the day DRS, HA or an admin puts one there.

func checkHostNotReady(in *Input, r *Reporter) {
	h := in.Host
	row := readinessFor(in, h.Host)
	if row == nil || row.Role == "pvrdma" {
		return // a host with PVRDMA VMs: the steps' own rules judge it
	}
	if row.Role == "unknown" {
		r.NotEvaluated(h.Host, row.why)
		return
	}
	var failed, unknown []string
	var ev []Evidence
	var fixes []string
	for _, c := range row.Cells {
		switch c.State {
		case CellFail:
			failed = append(failed, c.Text)
			ev = append(ev, c.Evidence...)
			if c.fix != "" {
				fixes = append(fixes, c.fix)
			}
		case CellUnknown:
			if decisive[c.Step] {
				unknown = append(unknown, stepTitle(c.Step)+": "+strings.TrimPrefix(c.Text, "not read: "))
			}
		}
	}
	if len(failed) == 0 {
		if len(unknown) > 0 {
			r.NotEvaluated(h.Host, strings.Join(unknown, "; "))
			return
		}
		r.Pass(h.Host)
		return
	}
	rd := readinessOf(in.Fleet, in.Paths)
	where := "runs no PVRDMA VM"
	switch row.Role {
	case "member":
		where = fmt.Sprintf("is on %s, the PVRDMA vDS, and runs no PVRDMA VM", rd.Switch)
	case "outside":
		where = fmt.Sprintf("runs no PVRDMA VM and is not on %s, the PVRDMA vDS (so DRS and HA cannot place PVRDMA VMs on it: "+
			"they need the VMs' port group)", rd.Switch)
	}
	msg := fmt.Sprintf("%s %s, but is not ready for PVRDMA: %s", h.Host, where, strings.Join(failed, "; "))
	sev := Info
	switch {
	case row.Role == "outside":
		msg += ". Information: it takes PVRDMA VMs only once it joins " + rd.Switch
	case len(row.parked) > 0:
		sev = Warning
		msg += fmt.Sprintf(". %s, registered on it and powered off, will run there when powered on: %s",
			joinNames(row.parked), consequences(row))
	case row.Placeable != nil && *row.Placeable:
		sev = Warning
		msg += fmt.Sprintf(". %s: for a PVRDMA VM placed there, %s", capitalFirst(row.Placement), consequences(row))
	case row.Placeable != nil:
		msg += fmt.Sprintf(". %s: information until a PVRDMA VM is moved there", capitalFirst(row.Placement))
	case row.Role == "member":
		// On the PVRDMA vDS it has the VMs' port group: a vMotion or an
		// HA restart can put a PVRDMA VM there; only vCenter can show it
		// cannot (memberRisk).
		sev = Warning
		msg += ". " + memberRisk(row)
	default:
		msg += ". Whether DRS or HA can place PVRDMA VMs on it is unknown without vCenter (scan with --vcenter): information"
	}
	if len(unknown) > 0 {
		msg += "; not read: " + strings.Join(unknown, "; ")
	}
	if sev == Warning || row.Placeable != nil {
		ev = append(ev, row.placementEv...)
	}
	fix := fmt.Sprintf("Set %s up as the PVRDMA guides do for each ESXi host: %s; then scan it again (the readiness table shows each step).",
		h.Host, strings.Join(fixes, "; "))
	r.FailSeverity(sev, h.Host, h.Host, msg, fix, ev...)
}

// consequences says what the steps a host lacks do to a PVRDMA VM placed
// there, and no more than that: without an RDMA uplink its cross-host
// traffic falls back to TCP (seed 004); without the vmknic tag or the
// ruleset PVRDMA's control data does not reach the other hosts (seed 002);
// a lower MTU caps its RoCE MTU; without lossless Ethernet congestion drops
// RoCE packets.
func consequences(row *HostReadiness) string {
	var out []string
	failed := func(steps ...string) bool {
		for _, st := range steps {
			if c := row.Cell(st); c != nil && c.State == CellFail {
				return true
			}
		}
		return false
	}
	if failed(stepRDMA, stepUplink) {
		out = append(out, "its traffic to other hosts falls back to TCP (no Active RDMA uplink)")
	}
	if failed(stepVmknic, stepFirewall) {
		out = append(out, "PVRDMA's control data does not reach the other hosts (the tagged vmknic and the pvrdma ruleset carry it)")
	}
	if failed(stepMTU) {
		out = append(out, "its RoCE MTU is capped below what its peers' path carries")
	}
	if failed(stepLossless) {
		out = append(out, "RoCE runs without lossless Ethernet (congestion drops its packets)")
	}
	if len(out) == 0 {
		return "it would not get the setup the PVRDMA guides prescribe"
	}
	return strings.Join(out, "; ")
}

// stepTitle names a readiness step.
func stepTitle(id string) string {
	for _, s := range ReadinessSteps {
		if s.ID == id {
			return s.Title
		}
	}
	return id
}

// capitalFirst starts a sentence with a capital, except on a name that
// has its own lower-case start (vSphere, vmk1, esxcli).
func capitalFirst(s string) string {
	if s == "" || (len(s) > 1 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// judgedByReadiness reports whether HOST_NOT_READY reports a step of an
// RDMA device of the host as not done (the device its readiness reads, on
// a host without PVRDMA VMs): the device rules then leave it to that
// finding, one headline for one host that is not ready. A step it could
// not read stays theirs to say so.
func judgedByReadiness(in *Input, device, step string) bool {
	if in.Fleet == nil || in.Paths == nil {
		return false
	}
	row := readinessFor(in, in.Host.Host)
	if row == nil || !row.Judged() || row.Device != device {
		return false
	}
	c := row.Cell(step)
	return c != nil && c.State == CellFail
}

// memberRisk says why a member of the PVRDMA vDS that is not ready is a
// warning when vCenter did not say where DRS and HA place VMs: its
// membership gives it the PVRDMA VMs' port group, so a vMotion, DRS or an
// HA restart can put a PVRDMA VM there, and nothing read shows otherwise.
// vCenter lowers it (HostReadiness.Placeable false: a host in no cluster,
// or in one with DRS and HA off).
func memberRisk(row *HostReadiness) string {
	return fmt.Sprintf("As a member of the PVRDMA vDS it has the PVRDMA VMs' port group, so a vMotion, DRS or an HA restart can place "+
		"a PVRDMA VM on it: for such a VM, %s (whether DRS or HA does is vCenter's to say: scan with --vcenter)", consequences(row))
}
