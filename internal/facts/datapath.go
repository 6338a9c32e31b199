package facts

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The PVRDMA data-path model: from a host's facts, the pieces of the data
// path the rules reason about and the TUI draws (the tagged vmknic, the
// PVRDMA vDS, its RDMA uplinks and devices, the probes, and the Ethernet
// MTU the path really carries). It is derived once per fleet (Build keeps
// it on the Fleet; Fleet.DataPath) so that rules looking at every peer cost
// O(hosts) per fleet, not O(hosts²).

// HostPath is one host's PVRDMA data path.
type HostPath struct {
	// Tagged is the vmknic named in /Net/PVRDMAVmknic ("" when unset) and
	// TaggedRef the line that says so.
	Tagged    string
	TaggedRef parse.Ref
	// TaggedVmknic is the vmknic Tagged names (nil when there is none).
	TaggedVmknic *parse.Vmknic
	// Vmknic is the vmknic PVRDMA uses: the tagged one if it exists, else
	// the one bound to an RDMA device (nil when there is none).
	Vmknic *parse.Vmknic
	// Switch is the distributed switch the PVRDMA data path uses (nil when
	// it cannot be told): the one whose ports the PVRDMA VMs' adapters are
	// connected to, else the one holding an RDMA device's paired uplink (an
	// Active one first), else the one of Vmknic, else the only vDS. The
	// tagged vmknic is only a late hint: VMware's own setup guides tag vmk0
	// on the management standard switch while the RDMA data flows over the
	// vDS.
	Switch *parse.DVSwitch
	// DataVmknic is Vmknic when it sits on Switch (its MTU and its probes
	// are then part of the data path), else nil.
	DataVmknic *parse.Vmknic
	// Active are the RDMA devices whose state is Active; Usable those of
	// them PVRDMA can use, whose paired uplink is an uplink of Switch (every
	// Active device when Switch is unknown: the safer reading for a
	// TCP-fallback finding is not to claim one without proof).
	Active, Usable []parse.RDMADevice
	// RDMAUplinks are the uplinks of Switch paired with an RDMA device,
	// Active ones first.
	RDMAUplinks []string
	// Probes are the host's vmkping probes grouped by target, sorted.
	Probes []ProbePair
	// Pairs are the paths the host measured, by target (paths.go).
	Pairs []PathPair
	// MTU is the Ethernet MTU the path carries.
	MTU PathMTU
}

// PathMTU is the Ethernet MTU the PVRDMA data path of a host carries, with
// the evidence it was derived from. The data path is the PVRDMA vDS and its
// RDMA uplink; probes sent from a vmknic on that vDS can prove less. The
// tagged vmknic's own MTU is not part of it: RDMA frames do not cross the
// vmknic.
type PathMTU struct {
	// Known is false when nothing is known (no PVRDMA vDS, or no MTU).
	Known bool
	MTU   int
	// Parts says what MTU was derived from ("rdma-dvs MTU 9000", "vmnic4
	// MTU 9000", "vmkping -d -s 8972 to 192.168.50.12 lost"), and Refs the
	// line of the host's output behind each part.
	Parts []string
	Refs  []parse.Ref
	// Proved is set when probes proved the path drops frames above what
	// it is configured for: then MTU is the largest frame that got a
	// reply across it and Lost the smallest that left the host and got
	// none (Lost == MTU+1: measured exactly; else the path MTU lies
	// between). One fact per host: every MTU rule reads it, none
	// re-derives it from the probes.
	Proved bool
	Lost   int
	// Measured is set when probes across the RDMA fabric (both ends'
	// vmknics on their PVRDMA vDS) measured it, from or to this host: one
	// that got a reply at MTU, or Proved. When it is not, MTU is only
	// what the host's switch and uplinks are configured for: the fabric
	// (the physical switch ports) may carry less.
	Measured bool
}

// ProbePair is the small and the jumbo probe to one target.
type ProbePair struct {
	Target       string
	Small, Jumbo *parse.Ping
}

// JumboLost reports whether the jumbo probe, sent from vmknic v, left the
// host and got no reply while the small probe to the same peer did: the
// network between them drops jumbo frames (silent loss). A vmknic whose MTU
// is below the frame cannot have sent it: that is a local refusal even when
// vmkping printed no "Message too long".
func (pp ProbePair) JumboLost(v *parse.Vmknic) bool {
	if pp.Small == nil || pp.Jumbo == nil || pp.Small.Failed() || !pp.Jumbo.Failed() || pp.Jumbo.MessageTooLong {
		return false
	}
	if v.MTU > 0 && v.MTU < pp.Jumbo.Payload+28 {
		return false
	}
	vm := pp.Jumbo.Vmknic()
	return vm == "" || vm == v.Name
}

// RDMAMTUFor returns the largest RoCE MTU (4096..256) an Ethernet MTU
// carries after 96 bytes of RoCE v2 headers (Linux iboe_get_mtu).
func RDMAMTUFor(ethMTU int) int {
	usable := ethMTU - 96
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if usable >= m {
			return m
		}
	}
	return 0
}

// VmknicNamed returns the host's vmknic of that name (nil if none).
func (h *Host) VmknicNamed(name string) *parse.Vmknic {
	for i := range h.Vmknics {
		if h.Vmknics[i].Name == name {
			return &h.Vmknics[i]
		}
	}
	return nil
}

// NICNamed returns the host's physical NIC of that name (nil if none).
func (h *Host) NICNamed(vmnic string) *parse.NIC {
	for i := range h.NICs {
		if h.NICs[i].Name == vmnic {
			return &h.NICs[i]
		}
	}
	return nil
}

// PathOf derives one host's data path from its facts. Prefer the fleet's
// model (Fleet.DataPath), which derives every host's once.
func PathOf(h *Host) HostPath {
	var p HostPath
	if h.PVRDMAVmknic != nil {
		p.TaggedRef = h.PVRDMAVmknic.Record.RefOf("String Value")
		if p.TaggedRef.Line == 0 {
			p.TaggedRef = h.PVRDMAVmknic.Ref
		}
		p.Tagged = strings.TrimSpace(h.PVRDMAVmknic.StringValue)
	}
	p.TaggedVmknic = h.VmknicNamed(p.Tagged)
	p.Vmknic = pathVmknic(h, p.Tagged)
	for _, d := range h.RDMADevices {
		if strings.EqualFold(strings.TrimSpace(d.State), "active") {
			p.Active = append(p.Active, d)
		}
	}
	p.Switch = pvrdmaSwitch(h, p.Active, p.Vmknic)
	if sw := p.Switch; sw != nil {
		if p.Vmknic != nil && p.Vmknic.VDSName == sw.Name {
			p.DataVmknic = p.Vmknic
		}
		for _, d := range p.Active {
			if slices.Contains(sw.Uplinks, d.PairedUplink) {
				p.Usable = append(p.Usable, d)
			}
		}
		for _, devs := range [][]parse.RDMADevice{p.Active, h.RDMADevices} {
			for _, d := range devs {
				if slices.Contains(sw.Uplinks, d.PairedUplink) && !slices.Contains(p.RDMAUplinks, d.PairedUplink) {
					p.RDMAUplinks = append(p.RDMAUplinks, d.PairedUplink)
				}
			}
		}
	} else {
		p.Usable = p.Active
	}
	p.Probes = probePairs(h)
	p.MTU = pathMTU(h, &p)
	// A measured path below the data path's MTU proves it carries no more
	// (a search measures what the fixed sizes only bound): the host's one
	// path MTU fact, which every MTU rule reads.
	if p.DataVmknic != nil && p.MTU.Known {
		for _, pp := range pathPairs(h, func(string) (PeerAddr, bool) { return PeerAddr{}, false }) {
			if pp.Vmknic == p.DataVmknic.Name && pp.LostAt <= p.MTU.MTU {
				p.MTU.lowerToPair(&pp)
			}
		}
	}
	return p
}

// pathVmknic returns the vmknic PVRDMA uses: the tagged one if it exists,
// else the one bound to an RDMA device.
func pathVmknic(h *Host, tagged string) *parse.Vmknic {
	if tagged != "" {
		if v := h.VmknicNamed(tagged); v != nil {
			return v
		}
	}
	for _, b := range h.RDMAVmknics {
		if v := h.VmknicNamed(b.Vmknic); v != nil {
			return v
		}
	}
	return nil
}

// pvrdmaSwitch finds the distributed switch of the data path (see
// HostPath.Switch).
func pvrdmaSwitch(h *Host, active []parse.RDMADevice, vmknic *parse.Vmknic) *parse.DVSwitch {
	vms := map[string]bool{}
	for _, d := range h.PVRDMADevices {
		if d.VMName != "" {
			vms[d.VMName] = true
		}
	}
	if len(vms) > 0 {
		for i := range h.DVSwitches {
			for _, port := range h.DVSwitches[i].Record.Nested["DVPort"] {
				client := port.Get("Client")
				if j := strings.LastIndex(client, ".eth"); j > 0 && vms[client[:j]] {
					return &h.DVSwitches[i]
				}
			}
		}
	}
	for _, devs := range [][]parse.RDMADevice{active, h.RDMADevices} {
		for i := range h.DVSwitches {
			for _, d := range devs {
				if slices.Contains(h.DVSwitches[i].Uplinks, d.PairedUplink) {
					return &h.DVSwitches[i]
				}
			}
		}
	}
	if vmknic != nil && vmknic.VDSName != "" {
		for i := range h.DVSwitches {
			if h.DVSwitches[i].Name == vmknic.VDSName {
				return &h.DVSwitches[i]
			}
		}
	}
	if len(h.DVSwitches) == 1 {
		return &h.DVSwitches[0]
	}
	return nil
}

// probePairs groups a host's probes by target, sorted by target.
func probePairs(h *Host) []ProbePair {
	idx := map[string]*ProbePair{}
	for i := range h.Pings {
		p := &h.Pings[i]
		pp := idx[p.Target]
		if pp == nil {
			pp = &ProbePair{Target: p.Target}
			idx[p.Target] = pp
		}
		// The largest probe above 1500 bytes is the jumbo, the largest
		// up to 1500 the small one (a path MTU search sends many sizes).
		// A jumbo the source vmknic can send comes first, then one of at
		// most 9000 bytes, the most a vmknic accepts: an admin's saved
		// `vmkping -d -s 9000` (9028 bytes) beside the 8972-byte probe is
		// refused by its own host and says nothing of the path.
		if p.Payload+28 <= 1500 {
			if pp.Small == nil || p.Payload > pp.Small.Payload {
				pp.Small = p
			}
		} else if pp.Jumbo == nil || jumboRank(h, p) > jumboRank(h, pp.Jumbo) ||
			jumboRank(h, p) == jumboRank(h, pp.Jumbo) && p.Payload > pp.Jumbo.Payload {
			pp.Jumbo = p
		}
	}
	out := make([]ProbePair, 0, len(idx))
	for _, pp := range idx {
		out = append(out, *pp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// jumboRank ranks a jumbo probe as the one that speaks for its pair: 2
// when its source vmknic can send its frame, 1 when the frame is at most
// 9000 bytes, else 0.
func jumboRank(h *Host, p *parse.Ping) int {
	frame := p.Payload + 28
	if v := h.VmknicNamed(p.Vmknic()); v != nil && v.MTU > 0 && frame <= v.MTU {
		return 2
	}
	if frame <= MaxVmknicMTU {
		return 1
	}
	return 0
}

// MaxVmknicMTU is the largest MTU a VMkernel adapter (and a vDS) accepts.
const MaxVmknicMTU = 9000

// pathMTU derives the MTU the data path carries: the vDS, its RDMA
// uplinks, then jumbo probes from a vmknic on the vDS that were lost (a
// local "Message too long" refusal proves nothing about the path).
func pathMTU(h *Host, hp *HostPath) PathMTU {
	var p PathMTU
	lower := func(mtu int, part string, ref parse.Ref) {
		if mtu <= 0 {
			return
		}
		if p.MTU == 0 || mtu < p.MTU {
			p.MTU = mtu
		}
		p.Parts = append(p.Parts, part)
		p.Refs = append(p.Refs, ref)
	}
	sw := hp.Switch
	if sw == nil {
		return p
	}
	lower(sw.MTU, sw.Name+" MTU "+strconv.Itoa(sw.MTU), sw.Record.RefOf("MTU"))
	for _, u := range hp.RDMAUplinks {
		if n := h.NICNamed(u); n != nil && n.MTU > 0 && n.MTU != sw.MTU {
			lower(n.MTU, u+" MTU "+strconv.Itoa(n.MTU), n.Ref)
		}
	}
	if p.MTU == 0 {
		return p
	}
	p.Known = true
	return p
}

// Exact reports whether the path MTU was measured exactly (not only
// bounded) by the probes that proved it.
func (p PathMTU) Exact() bool { return p.Proved && p.Lost == p.MTU+1 }

// Carries says what the probes proved the path carries: "8982-byte
// frames" when measured exactly, "at least 1500-byte frames but not
// 9000" when bounded; what it is configured for when nothing proved
// less.
func (p PathMTU) Carries() string {
	if p.Proved && !p.Exact() && p.Lost > 0 {
		return fmt.Sprintf("at least %d-byte frames but not %d", p.MTU, p.Lost)
	}
	return fmt.Sprintf("%d-byte frames", p.MTU)
}

// lowerToPair lowers a host's data-path MTU to what a blocked pair's
// probes proved (the largest frame with a reply), from its data vmknic:
// the best evidence first (a search measures exactly what two fixed sizes
// only bound; the smallest proved bound of all the host's pairs wins).
func (p *PathMTU) lowerToPair(pp *PathPair) {
	tighter := p.Proved && pp.MTU == p.MTU && pp.LostAt > 0 && pp.LostAt < p.Lost
	if !pp.Blocked() || pp.MTU > p.MTU || pp.MTU == p.MTU && !tighter {
		return
	}
	p.MTU, p.Proved, p.Lost = pp.MTU, true, pp.LostAt
	what := fmt.Sprintf("path MTU %d measured to %s", pp.MTU, pp.Target)
	if pp.LostAt != pp.MTU+1 {
		what = fmt.Sprintf("vmkping -d -s %d to %s passed, -s %d lost", pp.MTU-28, pp.Target, pp.LostAt-28)
	}
	p.Parts = append(p.Parts, what)
	ref := parse.Ref{}
	for _, pr := range pp.Probes {
		if pr.Payload+28 == pp.LostAt {
			ref = pr.Ref
		}
	}
	if ref.Line == 0 && pp.First != nil {
		ref = pp.First.Ref
	}
	p.Refs = append(p.Refs, ref)
}

// PeerAddr names the host and vmknic that own an IPv4 address in the fleet.
type PeerAddr struct{ Host, Vmknic string }

// DataPath is the data-path model of a whole fleet: every host's path and
// the fleet's address map. It is read-only once built, and so are the facts
// it was derived from.
type DataPath struct {
	paths []HostPath // by index in Fleet.Hosts
	index map[*Host]int
	addrs map[string]PeerAddr
	stats map[string]PathStats // by host, from the measured pairs
	memo  sync.Map             // Memo's values (memo.go)
}

// of reports whether the model was derived from these hosts (the same
// slice: a fleet value copied from the built one shares it).
func (d *DataPath) of(hosts []Host) bool {
	if len(d.paths) != len(hosts) {
		return false
	}
	if len(hosts) == 0 {
		return true
	}
	i, ok := d.index[&hosts[0]]
	return ok && i == 0
}

// newDataPath derives the model of every host of the fleet.
func newDataPath(f *Fleet) *DataPath {
	d := &DataPath{index: map[*Host]int{}, addrs: map[string]PeerAddr{}}
	if f == nil {
		return d
	}
	d.paths = make([]HostPath, len(f.Hosts))
	for i := range f.Hosts {
		h := &f.Hosts[i]
		d.paths[i] = PathOf(h)
		d.index[h] = i
		for _, ip := range h.IPv4 {
			if ip.Address != "" {
				d.addrs[ip.Address] = PeerAddr{h.Host, ip.Name}
			}
		}
	}
	for i := range f.Hosts {
		hp := &d.paths[i]
		hp.Pairs = pathPairs(&f.Hosts[i], d.Owner)
		for j := range hp.Pairs {
			hp.Pairs[j].Net = probeNet(&f.Hosts[i], hp, hp.Pairs[j].Vmknic)
		}
	}
	host := map[string]int{}
	for i := range f.Hosts {
		host[f.Hosts[i].Host] = i
	}
	for i := range f.Hosts {
		hp := &d.paths[i]
		for j := range hp.Pairs {
			pp := &hp.Pairs[j]
			if o, ok := d.addrs[pp.Target]; ok {
				if k, ok := host[o.Host]; ok {
					pp.Net.PeerDataPath = probeNet(&f.Hosts[k], &d.paths[k], o.Vmknic).DataPath
				}
			}
		}
	}
	// One path MTU fact per host pair: both directions cross the same
	// links, so what either measured bounds both (a search one way beats
	// two fixed sizes the other); then each host's data-path MTU is
	// derived again from the joined pairs.
	joinReverse(d)
	for i := range f.Hosts {
		hp := &d.paths[i]
		if hp.DataVmknic == nil {
			continue
		}
		hp.MTU = pathMTU(&f.Hosts[i], hp)
		if !hp.MTU.Known {
			continue
		}
		for j := range hp.Pairs {
			if pp := &hp.Pairs[j]; pp.Vmknic == hp.DataVmknic.Name && pp.LostAt <= hp.MTU.MTU {
				hp.MTU.lowerToPair(pp)
			}
		}
	}
	// Measured: a pair across the fabric from or to the host got a reply
	// at the host's configured MTU (or the fabric was proved to carry less).
	for i := range d.paths {
		d.paths[i].MTU.Measured = d.paths[i].MTU.Proved
	}
	for _, pp := range d.Pairs() {
		if !pp.Net.Fabric() {
			continue
		}
		for _, end := range []string{pp.From, pp.To} {
			if k, ok := host[end]; ok && d.paths[k].MTU.Known && pp.MTU >= d.paths[k].MTU.MTU {
				d.paths[k].MTU.Measured = true
			}
		}
	}
	d.stats = pathStats(d.Pairs())
	return d
}

// DataPath returns the fleet's data-path model: the one Build derived, or,
// for a fleet assembled otherwise (decoded from JSON, built by hand), one
// derived now. Read it only; a caller that needs it more than once on such
// a fleet keeps the value.
func (f *Fleet) DataPath() *DataPath {
	if f != nil && f.path != nil && f.path.of(f.Hosts) {
		return f.path
	}
	return newDataPath(f)
}

// Host returns the path of the fleet's i-th host.
func (d *DataPath) Host(i int) *HostPath { return &d.paths[i] }

// For returns the path of h, a host of the fleet (one outside it gets its
// path derived now).
func (d *DataPath) For(h *Host) *HostPath {
	if i, ok := d.index[h]; ok {
		return &d.paths[i]
	}
	p := PathOf(h)
	return &p
}

// Owner names the host and vmknic of the fleet that own an IPv4 address.
func (d *DataPath) Owner(ip string) (PeerAddr, bool) {
	p, ok := d.addrs[ip]
	return p, ok
}

// joinReverse joins each measured pair with its reverse (the peer's pair
// back to this host's address): the largest frame either direction got a
// reply for and the smallest either lost bound the one path between them.
// The joined values replace MTU, LostAt, Ceiling, Exact and Lost of both;
// the probes stay each direction's own.
func joinReverse(d *DataPath) {
	type key struct{ from, to string }
	at := map[key]*PathPair{}
	for _, pp := range d.Pairs() {
		if pp.To != "" {
			at[key{pp.From, pp.To}] = pp
		}
	}
	for _, pp := range d.Pairs() {
		rev := at[key{pp.To, pp.From}]
		if rev == nil || pp.From > pp.To {
			continue
		}
		// The reverse must be probed between the same two vmknics.
		if o, ok := d.addrs[rev.Target]; !ok || o.Host != pp.From || o.Vmknic != pp.Vmknic {
			continue
		}
		mtu := max(pp.MTU, rev.MTU)
		lost := minPos(pp.LostAt, rev.LostAt)
		if lost > 0 && lost <= mtu {
			continue // the directions disagree (an asymmetric path): each keeps its own
		}
		if pp.SrcMTU > 0 && pp.SrcMTU < mtu || rev.SrcMTU > 0 && rev.SrcMTU < mtu {
			// One end's vmknic cannot send what the other measured: what
			// each direction shows is its own vmknic's limit, not the path's.
			continue
		}
		for _, x := range []*PathPair{pp, rev} {
			x.MTU, x.LostAt = mtu, lost
			x.Ceiling = minPos(x.Ceiling, lost)
			x.Lost = x.Lost || lost > 0
			x.Exact = x.MTU > 0 && x.Ceiling == x.MTU+1
		}
	}
}

// minPos is the smaller of two values, 0 standing for none.
func minPos(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}
