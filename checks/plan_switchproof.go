package checks

import (
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// jumboProbed returns a don't-fragment vmkping of at least frame bytes
// (payload + 28) between the plan's host and one of peers (any other host
// of the fleet when peers is nil), in either direction, that got every
// reply and crossed, at both ends, the port the RDMA data path uses: the
// switch ports between them evidently carry jumbo frames, so a switch MTU
// step for them targets what is already observed (issue 39: "no probe
// measured these switch ports yet" printed beside an 8972-byte probe over
// that very uplink with 3/3 replies). nil when no probe shows it.
//
// An end crosses the data path's port when its vmknic sits on its host's
// PVRDMA vDS and every uplink of that vDS is an RDMA uplink, or, on a host
// without an RDMA device yet (the plan enables its driver), the vDS has
// exactly one uplink: the probes left through it, and the RDMA device
// pairs with it. A plan that changes the host's uplinks (or installs a
// NIC) leaves the probed port behind: nothing is proved for the new one.
func (p *planner) jumboProbed(frame int, peers []string) *parse.Ping {
	h := p.host
	if h == nil || p.fleet == nil {
		return nil
	}
	for _, pr := range p.props {
		if pr.action != nil && (pr.action.Kind() == plan.KindSetUplinks || pr.action.Kind() == plan.KindInstallNIC) {
			return nil
		}
	}
	d := p.fleet.DataPath()
	ix := probedPairsOf(p.fleet, d)
	onPath := func(host, vmk string) bool {
		i, ok := ix.host[host]
		if !ok {
			return false
		}
		return crossesDataPort(&p.fleet.Hosts[i], d.Host(i), vmk)
	}
	peer := func(name string) bool {
		return name != "" && name != h.Host && (peers == nil || slices.Contains(peers, name))
	}
	for _, e := range ix.byHost[h.Host] {
		pp, to := e.pair, e.to
		switch {
		case pp.From == h.Host && peer(to.Host), to.Host == h.Host && peer(pp.From):
		default:
			continue
		}
		if !onPath(pp.From, pp.Vmknic) || !onPath(to.Host, to.Vmknic) {
			continue
		}
		for _, pg := range pp.Probes {
			if pg.Payload+28 >= frame && pg.HasStats && pg.Transmitted > 0 && pg.Received == pg.Transmitted && dontFragment(pg.Command) {
				return pg
			}
		}
	}
	return nil
}

// crossesDataPort reports whether probes sent from (or answered by) vmknic
// vmk of h leave through the port its RDMA data path uses (jumboProbed).
func crossesDataPort(h *facts.Host, hp *facts.HostPath, vmk string) bool {
	v := h.VmknicNamed(vmk)
	if v == nil || hp == nil || hp.Switch == nil || v.VDSName != hp.Switch.Name {
		return false
	}
	var uplinks []string
	for _, sw := range h.DVSwitches {
		if sw.Name == hp.Switch.Name {
			uplinks = sw.Uplinks
		}
	}
	if len(uplinks) == 0 {
		return false
	}
	if len(hp.RDMAUplinks) == 0 {
		return len(uplinks) == 1
	}
	for _, u := range uplinks {
		if !slices.Contains(hp.RDMAUplinks, u) {
			return false
		}
	}
	return true
}

// dontFragment reports whether a vmkping line sets don't-fragment (-d):
// without it a jumbo payload passes in fragments and proves no MTU.
func dontFragment(line string) bool {
	return slices.Contains(strings.Fields(line), "-d")
}

// probedPairs indexes the fleet's measured pairs once per fleet (not once
// per host): each host's pairs, sent or received, in the fleet's pair
// order, with the target's owner; and each host's place in the fleet.
type probedPairs struct {
	host   map[string]int
	byHost map[string][]ownedPair
}

type ownedPair struct {
	pair *facts.PathPair
	to   facts.PeerAddr
}

func probedPairsOf(fleet *facts.Fleet, d *facts.DataPath) *probedPairs {
	return d.Memo("checks.probedPairs", func() any {
		ix := &probedPairs{host: map[string]int{}, byHost: map[string][]ownedPair{}}
		for i := range fleet.Hosts {
			ix.host[fleet.Hosts[i].Host] = i
		}
		for _, pp := range d.Pairs() {
			to, ok := d.Owner(pp.Target)
			if !ok {
				continue
			}
			e := ownedPair{pp, to}
			ix.byHost[pp.From] = append(ix.byHost[pp.From], e)
			if to.Host != pp.From {
				ix.byHost[to.Host] = append(ix.byHost[to.Host], e)
			}
		}
		return ix
	}).(*probedPairs)
}
