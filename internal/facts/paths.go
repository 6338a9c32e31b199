package facts

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The measured paths: per ordered pair of hosts, what the vmkping probes
// of the source to the peer's PVRDMA vmknic proved, derived from the
// captures alone (a bundle replays them; analyze works offline).

// PathPair is the measured path from one host's vmknic to a peer address.
type PathPair struct {
	// From is the probing host; To the host owning Target ("" when no
	// host of the fleet does), Vmknic the source vmknic.
	From, To, Vmknic, Target string
	// Configured is the frame the source's path is configured for: its
	// first probe (the one with several packets; the largest such the
	// source vmknic can send: an admin's saved `vmkping -d -s 9000` from
	// a vmknic at MTU 9000 is refused by the host and configures
	// nothing), payload + 28 (IPv4 and ICMP headers).
	Configured int
	// MTU is the largest frame that got a reply (payload + 28; 0: none).
	MTU int
	// Ceiling is the smallest frame that got none (0: none failed).
	// Exact is set when Ceiling == MTU+1: the path MTU is measured, not
	// bounded.
	Ceiling int
	Exact   bool
	// LostAt is the smallest frame that left the host and got no reply
	// (0: none): what the path is proved to drop. A frame the source
	// refused (larger than its vmknic's MTU) proves nothing about the
	// path: it is in Ceiling, never in LostAt.
	LostAt int
	// SrcMTU is the source vmknic's MTU (0: unknown).
	SrcMTU int
	// Rounds is how many rounds the path MTU search took (0: the
	// configured size passed, nothing was searched; a search that did not
	// record its rounds, one try after another, counts a round per try).
	Rounds int
	// Refused is set when the sending host refused a size itself
	// (`sendto() failed (Message too long)`: its vmknic MTU, nothing
	// left the host); Lost when a size left it and got no reply.
	Refused, Lost bool
	// RTT of the replies in ms (of the configured probe, else of the
	// search's successful tries) and the loss of the configured probe, %.
	RTTMin, RTTAvg, RTTMax float64
	HasRTT                 bool
	Loss                   float64
	// Probes are the runs to this target, in payload order.
	Probes []*parse.Ping
	// First is the configured-size probe (nil in odd inputs).
	First *parse.Ping
	// Net is the network the probes crossed: only a pair whose vmknics sit
	// on the PVRDMA vDS at both ends measures the RDMA fabric.
	Net ProbeNet
}

// ProbeNet is the network a pair's probes cross: the source vmknic, its
// switch and the switch's uplinks on the source host, and whether each
// end's vmknic sits on its host's PVRDMA vDS with an RDMA uplink (then the
// probes leave and arrive through the RDMA uplinks, over the RDMA fabric).
// VMware's setup guides tag vmk0, the management vmknic on vSwitch0: its
// probes cross the management network, not the RDMA fabric.
type ProbeNet struct {
	Vmknic, Switch string
	Uplinks        []string
	// RDMAUplinks are the source vDS's uplinks paired with an RDMA device.
	RDMAUplinks []string
	// DataPath: the source vmknic is on the PVRDMA vDS, which has an RDMA
	// uplink; PeerDataPath: so is the target's (false when the target is
	// no vmknic of the fleet).
	DataPath, PeerDataPath bool
}

// Fabric reports whether the probes crossed the RDMA uplinks at both ends:
// they measure the RDMA fabric.
func (n ProbeNet) Fabric() bool { return n.DataPath && n.PeerDataPath }

// String says where the probes ran: "vmk1 on rdma-dvs (RDMA uplink
// vmnic4)", "vmk0 on vSwitch0 (uplinks vmnic0, vmnic1)".
func (n ProbeNet) String() string {
	s := orWord(n.Vmknic, "the PVRDMA vmknic")
	if n.Switch != "" {
		s += " on " + n.Switch
	}
	switch {
	case n.DataPath && len(n.RDMAUplinks) > 0:
		s += " (RDMA uplink " + strings.Join(n.RDMAUplinks, ", ") + ")"
	case len(n.Uplinks) > 0:
		s += " (uplinks " + strings.Join(n.Uplinks, ", ") + ")"
	}
	return s
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// probeNet is the network of probes sent from vmknic name of h (hp its
// path).
func probeNet(h *Host, hp *HostPath, name string) ProbeNet {
	n := ProbeNet{Vmknic: name}
	v := h.VmknicNamed(name)
	if v == nil {
		return n
	}
	switch {
	case v.VDSName != "":
		n.Switch = v.VDSName
		for _, d := range h.DVSwitches {
			if d.Name == v.VDSName {
				n.Uplinks = d.Uplinks
			}
		}
		if hp.Switch != nil && hp.Switch.Name == v.VDSName {
			// Only a vDS whose every uplink is an RDMA uplink sends the
			// probes through one: a teamed non-RDMA uplink may carry them.
			n.RDMAUplinks = hp.RDMAUplinks
			n.DataPath = len(hp.RDMAUplinks) > 0
			for _, u := range n.Uplinks {
				n.DataPath = n.DataPath && slices.Contains(hp.RDMAUplinks, u)
			}
		}
	default:
		n.Switch = v.Portset
		for _, vs := range h.StandardSwitches {
			if vs.Name == v.Portset {
				n.Uplinks = vs.Uplinks
			}
		}
	}
	return n
}

// Reachable reports whether any probe got a reply.
func (p *PathPair) Reachable() bool { return p.MTU > 0 }

// Blocked reports whether the path carries less than it is configured for
// because frames left the host and were lost (not refused by the sender).
func (p *PathPair) Blocked() bool {
	return p.MTU > 0 && p.Configured > p.MTU && p.Lost && !p.refusedAbove()
}

// refusedAbove: the smallest failing size was refused by the sender.
func (p *PathPair) refusedAbove() bool {
	for _, pr := range p.Probes {
		if pr.Payload+28 == p.Ceiling && p.refusedLocally(pr) {
			return true
		}
	}
	return false
}

// refusedLocally reports whether a failed probe never left the sending
// host: vmkping printed "Message too long", or its frame (payload + 28)
// is larger than the source vmknic's MTU, which a don't-fragment probe
// cannot leave by (the max-MTU script of the 100GbE PVRDMA setup guide
// relies on it). Such a probe proves nothing about the path.
func (p *PathPair) refusedLocally(pr *parse.Ping) bool {
	return pr.Failed() && (pr.MessageTooLong || p.SrcMTU > 0 && pr.Payload+28 > p.SrcMTU)
}

// Searched reports whether one-packet search tries were sent (new-style
// probes; old bundles hold two fixed sizes).
func (p *PathPair) Searched() bool {
	for _, pr := range p.Probes {
		if pingCount(pr.Command) == 1 {
			return true
		}
	}
	return false
}

var rePingCount = regexp.MustCompile(`\s-c\s+([0-9]+)`)

func pingCount(cmd string) int {
	if m := rePingCount.FindStringSubmatch(cmd); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// pathPairs measures every target a host probed.
func pathPairs(h *Host, owner func(ip string) (PeerAddr, bool)) []PathPair {
	idx := map[string]*PathPair{}
	var order []string
	for i := range h.Pings {
		p := &h.Pings[i]
		if p.Target == "" {
			continue
		}
		pp := idx[p.Target]
		if pp == nil {
			pp = &PathPair{From: h.Host, Target: p.Target}
			if o, ok := owner(p.Target); ok {
				pp.To = o.Host
			}
			idx[p.Target] = pp
			order = append(order, p.Target)
		}
		pp.Probes = append(pp.Probes, p)
	}
	if len(order) == 0 {
		return nil
	}
	sort.Strings(order)
	out := make([]PathPair, 0, len(order))
	for _, t := range order {
		pp := idx[t]
		sort.SliceStable(pp.Probes, func(i, j int) bool { return pp.Probes[i].Payload < pp.Probes[j].Payload })
		for _, p := range pp.Probes {
			if v := h.VmknicNamed(p.Vmknic()); v != nil && pp.SrcMTU == 0 {
				pp.SrcMTU = v.MTU
			}
		}
		measure(pp)
		out = append(out, *pp)
	}
	return out
}

func measure(pp *PathPair) {
	var ok []*parse.Ping
	searched := 0
	for _, p := range pp.Probes {
		if pp.Vmknic == "" {
			pp.Vmknic = p.Vmknic()
		}
		if pingCount(p.Command) == 1 {
			searched++
			pp.Rounds = max(pp.Rounds, p.Round)
		}
		if pingCount(p.Command) != 1 && !pp.refusedLocally(p) && (pp.First == nil || p.Payload > pp.First.Payload) {
			pp.First = p
		}
		if !p.Failed() && p.Received > 0 {
			pp.MTU = max(pp.MTU, p.Payload+28)
			ok = append(ok, p)
			continue
		}
		if pp.Ceiling == 0 || p.Payload+28 < pp.Ceiling {
			pp.Ceiling = p.Payload + 28
		}
		if pp.refusedLocally(p) {
			pp.Refused = true
		} else {
			pp.Lost = true
			if pp.LostAt == 0 || p.Payload+28 < pp.LostAt {
				pp.LostAt = p.Payload + 28
			}
		}
	}
	if pp.First == nil {
		for _, p := range pp.Probes {
			if pingCount(p.Command) != 1 && (pp.First == nil || p.Payload > pp.First.Payload) {
				pp.First = p
			}
		}
	}
	if pp.First == nil && len(pp.Probes) > 0 {
		pp.First = pp.Probes[len(pp.Probes)-1]
	}
	if pp.First != nil {
		pp.Configured = pp.First.Payload + 28
		if pp.First.HasStats {
			pp.Loss = pp.First.LossPercent
		} else if pp.First.Transmitted > 0 {
			pp.Loss = float64(pp.First.Transmitted-pp.First.Received) * 100 / float64(pp.First.Transmitted)
		}
	}
	if pp.Rounds == 0 {
		pp.Rounds = searched
	}
	pp.Exact = pp.MTU > 0 && pp.Ceiling == pp.MTU+1
	// RTT: the configured probe when it got replies, else the tries that did.
	src := ok
	if pp.First != nil && !pp.First.Failed() && pp.First.AvgMs > 0 {
		src = []*parse.Ping{pp.First}
	}
	n := 0
	for _, p := range src {
		if p.AvgMs <= 0 {
			continue
		}
		lo, hi := p.MinMs, p.MaxMs
		if lo == 0 {
			lo = p.AvgMs
		}
		if hi == 0 {
			hi = p.AvgMs
		}
		if n == 0 || lo < pp.RTTMin {
			pp.RTTMin = lo
		}
		pp.RTTMax = max(pp.RTTMax, hi)
		pp.RTTAvg += p.AvgMs
		n++
	}
	if n > 0 {
		pp.RTTAvg /= float64(n)
		pp.HasRTT = true
	}
}

// Pairs returns every measured ordered pair of the fleet, by source host
// then target.
func (d *DataPath) Pairs() []*PathPair {
	var out []*PathPair
	for i := range d.paths {
		for j := range d.paths[i].Pairs {
			out = append(out, &d.paths[i].Pairs[j])
		}
	}
	return out
}

// MinPathMTU is the smallest measured path MTU of the fleet's reachable
// pairs (0 when none was measured) and the pair it was measured on.
func (d *DataPath) MinPathMTU() (int, *PathPair) {
	best, at := 0, (*PathPair)(nil)
	for _, p := range d.Pairs() {
		if p.MTU > 0 && (best == 0 || p.MTU < best) {
			best, at = p.MTU, p
		}
	}
	return best, at
}

// PathStats sum up the measured paths from and to one host: how many
// reached it, how many of those were blocked (and at which path MTU), and
// how many distinct peers they involve.
type PathStats struct {
	Measured, Blocked, Peers int
	BlockedAt                map[int]int
}

// Stats returns the path statistics of a host (derived once per fleet).
func (d *DataPath) Stats(host string) PathStats { return d.stats[host] }

// pathStats derives every host's PathStats from the measured pairs.
func pathStats(pairs []*PathPair) map[string]PathStats {
	st := map[string]PathStats{}
	peers := map[string]map[string]bool{}
	for _, o := range pairs {
		if o.To == "" || !o.Reachable() {
			continue
		}
		for _, h := range [][2]string{{o.From, o.To}, {o.To, o.From}} {
			s := st[h[0]]
			s.Measured++
			if peers[h[0]] == nil {
				peers[h[0]] = map[string]bool{}
			}
			peers[h[0]][h[1]] = true
			if o.Blocked() {
				s.Blocked++
				if s.BlockedAt == nil {
					s.BlockedAt = map[int]int{}
				}
				s.BlockedAt[o.MTU]++
			}
			s.Peers = len(peers[h[0]])
			st[h[0]] = s
		}
	}
	return st
}
