package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesProbe are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesProbe = []*Rule{
	{ID: "VMKPING_UNREACHABLE", Plan: planInvestigate, Severity: Critical, Check: checkVmkpingUnreachable,
		ListedBy: listedProbes},
}

// The checks of this area (prose: catalogue.yaml): reachability between the hosts' PVRDMA vmknics (vmkping probes).

func checkVmkpingUnreachable(in *Input, r *Reporter) {
	h, hp, fleet := in.Host, in.Path, in.Fleet
	srcs := h.Sources[catalog.KindVmkping]
	if len(srcs) == 0 {
		if ok, _ := h.Available(catalog.KindIPInterfaceList, catalog.KindPVRDMAVmknicOpt); ok && hp.Vmknic == nil {
			// No PVRDMA vmknic (untagged, none bound to an RDMA device):
			// nothing to probe from (the vmknic and readiness rules say so).
			return
		}
		for _, o := range fleet.Hosts {
			if o.Host != h.Host && o.Status != hostio.StatusNotCollected {
				why := "no vmkping probes were run from this host (probes off: --probes off, or no peer PVRDMA vmknic address was known)"
				if notes := probePlanNotes(h); len(notes) > 0 {
					// The scan planned none, and said why.
					why = "no vmkping probes were run from this host: " + strings.Join(notes, "; ")
				}
				if reason, ok := sshUnreached(h); ok {
					// Reached through vCenter only: vmkping is no esxcli command.
					why = fmt.Sprintf("vmkping runs only over SSH, and %s was not reached over SSH (%s)", h.Host, reason)
				} else if h.Transport == hostio.TransportVSphereAPI {
					// esxcli read through the vSphere API: SSH failed.
					why = fmt.Sprintf("vmkping runs only over SSH, and %s was read through the vSphere API because SSH did not reach it", h.Host)
				}
				r.NotEvaluated(h.Host, why)
				return
			}
		}
		return // a single host has no peers to probe
	}
	addrs := in.Paths
	for _, pp := range hp.Probes {
		subject := fmt.Sprintf("%s -> %s", pingVmknicOr(pp), targetLabel(addrs, pp.Target))
		if pp.Small == nil {
			// Only the jumbo probe (a pasted `vmkping -d -s 8972`): a reply
			// proves the peer reachable; none cannot tell a dead peer from
			// a path that drops jumbo frames.
			switch j, pair := pp.Jumbo, pairOf(hp, pp.Target); {
			case j == nil || searched(hp, pp.Target):
			case !j.Failed() || pair != nil && pair.Reachable():
				// A reply at any size proves the peer reachable (an
				// admin's 8972-byte probe beside a refused 9000).
				r.Pass(subject)
			default:
				r.NotEvaluated(subject, fmt.Sprintf("only a %d-byte probe to %s is in the input and it got no reply: whether %s answers at all "+
					"needs a small probe too (vmkping -I %s -c 3 -d -s 1472 %s)", j.Payload, pp.Target, pp.Target, pingVmknicOr(pp), pp.Target))
			}
			continue
		}
		p := *pp.Small
		switch {
		case !p.Failed() && (!p.HasStats || p.Received == p.Transmitted):
			r.Pass(subject)
		case p.MessageTooLong:
			r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("%s refused its own %d-byte probe to %s (`%s`): the sending vmknic's MTU is "+
				"below %d, so nothing was sent and reachability is unknown", h.Host, p.Payload, targetLabel(addrs, pp.Target), p.Failures[0], p.Payload+28),
				fmt.Sprintf("On %s: set %s's MTU to at least 1500 (esxcli network ip interface set -i %s -m 1500, or the PVRDMA MTU), then retry: %s",
					h.Host, pingVmknicOr(pp), pingVmknicOr(pp), p.Command), sendtoEv(h, p))
		case p.Failed() && searched(hp, pp.Target):
			// A path MTU search ran to this peer: PATH_UNREACHABLE
			// reports a peer no size reaches, PATH_MTU_BLOCKED one that
			// smaller sizes reach.
			continue
		case p.Failed():
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
			r.NotEvaluated(s.Command, "probe "+s.State()+": "+s.Error)
		}
	}
}

// sshUnreached returns why the host's SSH connection failed when its data
// came from another source (vCenter) instead.
func sshUnreached(h *facts.Host) (string, bool) {
	for _, srcs := range h.Sources {
		for _, s := range srcs {
			if s.Status != hostio.StatusCollected && s.Cause == hostio.CauseHostUnreached {
				return hostio.CauseHostUnreached.Detail(s.Error), true
			}
		}
	}
	return "", false
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

func pingVmknicOr(pp facts.ProbePair) string {
	for _, p := range []*parse.Ping{pp.Small, pp.Jumbo} {
		if p != nil {
			if v := p.Vmknic(); v != "" {
				return v
			}
		}
	}
	return "PVRDMA vmknic"
}

// pairOf returns the host's measured pair to target (nil: none).
func pairOf(hp *facts.HostPath, target string) *facts.PathPair {
	for i := range hp.Pairs {
		if hp.Pairs[i].Target == target {
			return &hp.Pairs[i]
		}
	}
	return nil
}

// searched reports whether the host ran a path MTU search to target.
func searched(hp *facts.HostPath, target string) bool {
	for i := range hp.Pairs {
		if hp.Pairs[i].Target == target {
			return hp.Pairs[i].Searched()
		}
	}
	return false
}

// probePlanNotes are the notes in which the scan said why it probed no
// path, or not some, from a host: a peer it cannot probe ("path to PEER
// not probed: ..."), its own vmknic address no probe end ("no path probes
// to or from this host: ..."), the fleet's budget.
func probePlanNotes(h *facts.Host) []string {
	var out []string
	for _, n := range h.Notes {
		if strings.HasPrefix(n, "path to ") && strings.Contains(n, " not probed: ") ||
			strings.HasPrefix(n, "no path probes to or from this host") || strings.HasPrefix(n, "probe budget of ") {
			out = append(out, n)
		}
	}
	return out
}
