package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// rulesPath are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesPath = []*Rule{
	{ID: "PATH_MTU_BLOCKED", Plan: planPathBlocked, Severity: Critical, Check: checkPathMTUBlocked,
		ListedBy: listedProbes},
	{ID: "PATH_UNREACHABLE", Plan: planInvestigate, Severity: Critical, Check: checkPathUnreachable,
		ListedBy: listedProbes},
	{ID: "HIGH_LATENCY", Plan: planInvestigate, Severity: Info, Check: checkHighLatency,
		ListedBy: listedProbes},
}

// The checks of this area (prose: catalogue.yaml): the measured paths between the hosts' PVRDMA vmknics (internal/facts/paths.go): path MTU, reachability, latency.

// HighLatencyMs is the average vmkping round trip above which a path is
// worth a note: vmkping's echo crosses both hosts' vmkernel stacks, and
// round trips near 0.1 ms are common between two hosts on one leaf
// switch, so only ten times that says the path itself is long (a router,
// a firewall, a stretched fabric). Below it, a vmkping round trip is
// within a vmkernel's normal RTT and no finding (VMware's vSphere
// Bitfusion guide's 50 µs is the RDMA latency, which vmkping does not
// measure: source bitfusion-latency in catalogue.yaml).
const HighLatencyMs = 1.0

// pairSubject names a measured pair: "vmk1 -> esx02".
func pairSubject(pp *facts.PathPair) string {
	to := pp.To
	if to == "" {
		to = pp.Target
	}
	return orPlaceholder(pp.Vmknic, "PVRDMA vmknic") + " -> " + to
}

// probedNet says where a pair's probes ran, and whether that is the RDMA
// fabric (both vmknics on their host's PVRDMA vDS, with an RDMA uplink).
func probedNet(pp *facts.PathPair) string {
	switch {
	case pp.Net.Fabric():
		return "probed from " + pp.Net.String() + ", across the RDMA fabric"
	case pp.Net.DataPath:
		return "probed from " + pp.Net.String() + " to a vmknic that is not on a PVRDMA vDS with an RDMA uplink: not the RDMA fabric alone"
	}
	return "probed from " + pp.Net.String() + ", not across an RDMA uplink: another network than the RDMA fabric"
}

// pairEv quotes the probes of a pair that decide it: the largest size
// that passed and the smallest that did not.
func pairEv(host string, pp *facts.PathPair) []Evidence {
	var ev []Evidence
	for _, p := range pp.Probes {
		if p.Payload+28 == pp.MTU || p.Payload+28 == pp.Ceiling {
			e := Ev(host, p.Ref)
			if p.Payload+28 == pp.Ceiling && p.MessageTooLong {
				e = sendtoEv(&facts.Host{Host: host}, *p)
			}
			ev = append(ev, e)
		}
	}
	if len(ev) == 0 && pp.First != nil {
		ev = append(ev, Ev(host, pp.First.Ref))
	}
	return ev
}

// pathHop is the hop a blocked pair most likely crosses: what to fix
// (name) and why the measurements point there; key is the same for every
// pair that points at the same hop (in either direction).
type pathHop struct{ name, why, key string }

// likelyHop names the hop a blocked pair most likely crosses: the link of
// a host whose every measured path (from it and to it, with at least two
// peers) is blocked, the one whose paths are blocked at this pair's MTU
// when both ends are; else a link between the two hosts.
func likelyHop(paths *facts.DataPath, pp *facts.PathPair) pathHop {
	var ends []string
	for _, h := range []string{pp.From, pp.To} {
		if st := paths.Stats(h); h != "" && st.Peers >= 2 && st.Blocked == st.Measured {
			ends = append(ends, h)
		}
	}
	same := func(h string) int { return paths.Stats(h).BlockedAt[pp.MTU] }
	if len(ends) == 2 && same(ends[1]) > same(ends[0]) {
		ends = ends[1:]
	}
	if len(ends) == 1 || len(ends) == 2 && same(ends[0]) > same(ends[1]) {
		h := ends[0]
		return pathHop{h + "'s own link (its RDMA uplink and the switch port it is cabled to)",
			fmt.Sprintf("every measured path from and to %s (%d peers) is blocked", h, paths.Stats(h).Peers), "own:" + h}
	}
	to := orPlaceholder(pp.To, pp.Target)
	between := "between:" + min(pp.From, to) + "|" + max(pp.From, to)
	if paths.Stats(pp.From).Peers < 2 && paths.Stats(to).Peers < 2 {
		return pathHop{"the links between " + pp.From + " and " + to,
			"they have no other measured path, so which of their links (or a switch between them) cannot be told: scan more hosts, or probe with --probes all", between}
	}
	return pathHop{"a link between " + pp.From + " and " + to,
		"each of them has other measured paths that are not blocked, so it is a link on this route only (an inter-switch link, a port of a switch between them)", between}
}

func checkPathMTUBlocked(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for i := range hp.Pairs {
		pp := &hp.Pairs[i]
		if !pp.Reachable() {
			continue // PATH_UNREACHABLE
		}
		subject := pairSubject(pp)
		if !pp.Blocked() {
			r.Pass(subject)
			continue
		}
		measured := fmt.Sprintf("carries %d-byte frames", pp.MTU)
		if pp.Exact {
			measured += fmt.Sprintf(" (a %d-byte don't-fragment payload passes, %d is lost)", pp.MTU-28, pp.Ceiling-28)
		} else {
			measured = fmt.Sprintf("carries at least %d-byte frames but not %d (payload %d passes, %d is lost)", pp.MTU, pp.Ceiling, pp.MTU-28, pp.Ceiling-28)
		}
		rdma := facts.RDMAMTUFor(pp.MTU)
		hop := likelyHop(in.Paths, pp)
		msg := fmt.Sprintf("%s -> %s %s while %s is configured for %d: the probes left %s and the larger frames were dropped on the way "+
			"(silent loss, not a local refusal). Likely hop: %s: %s. A %d-byte path allows RDMA MTU %d at most (a 9000-byte path allows 4096)",
			h.Host, targetLabel(in.Paths, pp.Target), measured, orPlaceholder(pp.Vmknic, "the PVRDMA vmknic"), pp.Configured, h.Host,
			hop.name, hop.why, pp.MTU, rdma)
		fix := fmt.Sprintf("Set MTU 9216 on %s first, then on every other switch port and inter-switch link of the PVRDMA network; until then "+
			"run the PVRDMA adapters at RDMA MTU %d. Verify with: vmkping -I %s -c 3 -d -s %d %s",
			hop.name, rdma, shellArg(orPlaceholder(pp.Vmknic, "vmk1"), "vmkN"), pp.Configured-28, pp.Target)
		if !pp.Net.Fabric() {
			// Another network than the RDMA fabric: what it drops says
			// nothing about the RDMA frames (severity follows relevance).
			msg = fmt.Sprintf("%s -> %s %s while %s is configured for %d (%s): the probes left %s and the larger frames were dropped "+
				"on the way, on a network PVRDMA's RDMA traffic does not cross, so this is information only; the RDMA fabric's path MTU "+
				"is not measured by these probes", h.Host, targetLabel(in.Paths, pp.Target), measured, orPlaceholder(pp.Vmknic, "the PVRDMA vmknic"),
				pp.Configured, probedNet(pp), h.Host)
			fix = fmt.Sprintf("Nothing for RDMA on this evidence. To measure the RDMA fabric, probe between vmknics on the PVRDMA vDS at both ends "+
				"(vmkping -I vmkN -d -s 8972 PEER from a vmknic on it; create one at MTU 9000 if there is none); for this network, set MTU %d on "+
				"its switch ports only if something on it needs jumbo frames.", pp.Configured)
			r.FailSeverity(Info, h.Host, subject, msg, fix, pairEv(h.Host, pp)...)
			continue
		}
		r.Fail(subject, msg, fix, pairEv(h.Host, pp)...)
	}
}

func checkPathUnreachable(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for i := range hp.Pairs {
		pp := &hp.Pairs[i]
		subject := pairSubject(pp)
		if pp.Reachable() {
			r.Pass(subject)
			continue
		}
		if !pp.Searched() {
			continue // two fixed sizes (an older scan): VMKPING_UNREACHABLE
		}
		if pp.Refused && !pp.Lost {
			// Nothing left the host (MTU_MISMATCH / VMKPING_UNREACHABLE say
			// why); a scan's search goes down to sizes every vmknic sends,
			// so only a partial input holds no probe that left it.
			if pp.Searched() {
				r.NotEvaluated(subject, fmt.Sprintf("every probe to %s in the input was refused by the sending vmknic (Message too long): "+
					"whether %s answers was not measured", pp.Target, targetLabel(in.Paths, pp.Target)))
			}
			continue
		}
		r.Fail(subject, fmt.Sprintf("%s gets no reply from %s at any size (%d probes from %d down to %d bytes, don't-fragment): "+
			"the PVRDMA vmknics cannot reach each other", orPlaceholder(pp.Vmknic, "the PVRDMA vmknic"), targetLabel(in.Paths, pp.Target),
			len(pp.Probes), pp.Probes[len(pp.Probes)-1].Payload, pp.Probes[0].Payload),
			fmt.Sprintf("On %s: compare `esxcli network ip interface ipv4 get` on both hosts (same subnet or a route), the VLAN of both "+
				"PVRDMA vmknics' port groups and of the switch ports; then retry: vmkping -I %s -c 3 -d -s 56 %s",
				h.Host, shellArg(orPlaceholder(pp.Vmknic, "vmk1"), "vmkN"), pp.Target), pairEv(h.Host, pp)...)
	}
}

func checkHighLatency(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	for i := range hp.Pairs {
		pp := &hp.Pairs[i]
		if !pp.HasRTT {
			continue
		}
		subject := pairSubject(pp)
		if pp.RTTAvg <= HighLatencyMs {
			r.Pass(subject)
			continue
		}
		var ev []Evidence
		if pp.First != nil && !pp.First.Failed() {
			ev = append(ev, Ev(h.Host, pp.First.Ref))
		} else {
			ev = pairEv(h.Host, pp)
		}
		r.Fail(subject, fmt.Sprintf("%s -> %s: vmkping round trip %.3f/%.3f/%.3f ms (min/avg/max), average above %.0f ms, ten times the vmkernel round trip "+
			"common between two hosts on one leaf switch (about 0.1 ms): the path itself is long. This is an upper bound, not the RDMA latency: vmkping's ICMP echo crosses both hosts' "+
			"vmkernel network stacks (%s), so it says nothing is wrong by itself; no RDMA latency was measured",
			h.Host, targetLabel(in.Paths, pp.Target), pp.RTTMin, pp.RTTAvg, pp.RTTMax, HighLatencyMs, probedNet(pp)),
			fmt.Sprintf("Nothing on this evidence alone. Measure the RDMA latency between PVRDMA VMs on %s and %s with perftest's ib_send_lat "+
				"(`ib_send_lat` in one guest, `ib_send_lat SERVER-IP` in the other, “Setting up a 100GbE PVRDMA Network on vCenter 7”); only if it is above what the application needs "+
				"(50 µs for Bitfusion), shorten the path: switch hops, a router or firewall on the way, slower links (esxcli network nic list: speed).",
				h.Host, orPlaceholder(pp.To, pp.Target)), ev...)
	}
}
