package checks

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Whether the hosts' PVRDMA vmknics reach each other (issue 39): PVRDMA's
// control data between two hosts goes from one tagged vmknic to the other,
// so the tagged vmknics of all PVRDMA hosts must reach each other. Two
// vmknics in one subnet do. Two in different subnets do only through a
// router, and a route is asserted only when the data shows one: a gateway
// on the sending vmknic's netstack and a probe that crossed it (a vmkping
// between the two addresses that got a reply). Otherwise the vmknics are in
// different subnets and no route is known; the fix is the vmknic in the
// peers' subnet, never one the peers cannot reach.

// vmkAddr is a host's PVRDMA vmknic with its IPv4 address and subnet.
type vmkAddr struct {
	host   *facts.Host
	hp     *facts.HostPath
	vmknic *parse.Vmknic
	ip     *parse.IPv4Interface
	addr   netip.Addr
	subnet netip.Prefix
}

// pvrdmaAddr returns the host's PVRDMA vmknic (the tagged one, else the one
// bound to an RDMA device) with a usable IPv4 address and netmask.
func pvrdmaAddr(h *facts.Host, hp *facts.HostPath) (vmkAddr, bool) {
	if hp == nil || hp.Vmknic == nil {
		return vmkAddr{}, false
	}
	return vmknicAddr(h, hp, hp.Vmknic)
}

// vmknicAddr returns a vmknic of the host with its IPv4 address and subnet.
func vmknicAddr(h *facts.Host, hp *facts.HostPath, v *parse.Vmknic) (vmkAddr, bool) {
	ip := ipv4Of(h, v.Name)
	if ip == nil {
		return vmkAddr{}, false
	}
	a, err := netip.ParseAddr(ip.Address)
	pre := parse.Subnet(ip.Address, ip.Netmask)
	if err != nil || !a.Is4() || a.IsUnspecified() || !pre.IsValid() {
		return vmkAddr{}, false
	}
	return vmkAddr{host: h, hp: hp, vmknic: v, ip: ip, addr: a, subnet: pre}, true
}

// reachIndex is every scanned host's PVRDMA vmknic address, derived once
// per fleet (DataPath.Memo), so that what a host asks of its peers (which
// are in another subnet, which subnet most are in, which probe crossed
// two subnets) costs nothing in a fleet whose vmknics share a subnet and
// never a walk of every host's probes per peer: the per-host questions
// of PVRDMA_VMKNIC_OTHER_SUBNET, DSCP_TRUST and the tag step stay linear
// in the fleet.
type reachIndex struct {
	addrs  []vmkAddr            // the hosts' PVRDMA vmknics with an address, in host order
	byName map[string]int       // addresses per host name (a host is its peers' peer by name)
	counts map[netip.Prefix]int // addresses per subnet (each grouped by its own)
	first  map[netip.Prefix]int // where each subnet appears first
	mu     sync.Mutex           // guards in and across
	in     map[netip.Prefix]int // addresses a prefix contains, counted once per prefix
	across map[[2]netip.Prefix]probeAt
	probes []probeAt // the probes that got a reply, their ends resolved (built on first use)
	exact  map[[2]netip.Addr]probeAt
}

// probeAt is a probe that got a reply, from an address to an address.
type probeAt struct {
	host     *facts.Host
	ping     *parse.Ping
	from, to netip.Addr
}

func reachOf(fleet *facts.Fleet) *reachIndex {
	paths := fleet.DataPath()
	return paths.Memo("checks.reach", func() any {
		ix := &reachIndex{byName: map[string]int{}, counts: map[netip.Prefix]int{}, first: map[netip.Prefix]int{},
			in: map[netip.Prefix]int{}, across: map[[2]netip.Prefix]probeAt{}}
		for i := range fleet.Hosts {
			if a, ok := pvrdmaAddr(&fleet.Hosts[i], paths.Host(i)); ok {
				if _, seen := ix.first[a.subnet]; !seen {
					ix.first[a.subnet] = len(ix.addrs)
				}
				ix.addrs = append(ix.addrs, a)
				ix.byName[a.host.Host]++
				ix.counts[a.subnet]++
			}
		}
		return ix
	}).(*reachIndex)
}

// peers is how many PVRDMA vmknic addresses the host's peers have.
func (ix *reachIndex) peers(h *facts.Host) int { return len(ix.addrs) - ix.byName[h.Host] }

// inPrefix is how many of the fleet's PVRDMA vmknic addresses the prefix
// contains (counted once per prefix).
func (ix *reachIndex) inPrefix(pre netip.Prefix) int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if n, ok := ix.in[pre]; ok {
		return n
	}
	n := 0
	if len(ix.counts) == 1 && ix.counts[pre] == len(ix.addrs) {
		n = len(ix.addrs) // the one subnet every address is in
	} else {
		for _, a := range ix.addrs {
			if pre.Contains(a.addr) {
				n++
			}
		}
	}
	ix.in[pre] = n
	return n
}

// outside are the host's peers whose PVRDMA vmknic is not in the prefix,
// in host order (none, without a walk, when the counts show every peer in
// it).
func (ix *reachIndex) outside(h *facts.Host, pre netip.Prefix) []vmkAddr {
	self := 0
	for _, a := range ix.mine(h) {
		if pre.Contains(a.addr) {
			self++
		}
	}
	if ix.inPrefix(pre)-self == ix.peers(h) {
		return nil
	}
	var out []vmkAddr
	for _, a := range ix.addrs {
		if a.host.Host != h.Host && !pre.Contains(a.addr) {
			out = append(out, a)
		}
	}
	return out
}

// mine are the host's own entries (by name; one but for a fleet that
// names two hosts alike).
func (ix *reachIndex) mine(h *facts.Host) []vmkAddr {
	if ix.byName[h.Host] == 0 {
		return nil
	}
	var out []vmkAddr
	for _, a := range ix.addrs {
		if a.host.Host == h.Host {
			out = append(out, a)
			if len(out) == ix.byName[h.Host] {
				break
			}
		}
	}
	return out
}

// peersSubnet is the subnet most of the host's peers' PVRDMA vmknics are
// in (on a tie, the one that reached that count first in host order), and
// how many are; from the counts, walking the peers only on a tie.
func (ix *reachIndex) peersSubnet(h *facts.Host) (netip.Prefix, int) {
	own := map[netip.Prefix]int{}
	for _, a := range ix.mine(h) {
		own[a.subnet]++
	}
	var best netip.Prefix
	max, tied := 0, false
	for pre, n := range ix.counts {
		n -= own[pre]
		switch {
		case n > max:
			best, max, tied = pre, n, false
		case n == max && n > 0:
			tied = true
		}
	}
	if !tied {
		return best, max
	}
	var peers []vmkAddr
	for _, a := range ix.addrs {
		if a.host.Host != h.Host {
			peers = append(peers, a)
		}
	}
	return peersSubnet(peers)
}

// netstackGateway returns the IPv4 row that gives the vmknic's netstack a
// gateway (the vmknic's own first, then another vmknic of the same
// netstack instance); nil when none does.
func netstackGateway(h *facts.Host, v *parse.Vmknic) *parse.IPv4Interface {
	hasGW := func(ip *parse.IPv4Interface) bool {
		g, err := netip.ParseAddr(strings.TrimSpace(ip.Gateway))
		return err == nil && g.Is4() && !g.IsUnspecified()
	}
	if ip := ipv4Of(h, v.Name); ip != nil && hasGW(ip) {
		return ip
	}
	for i := range h.Vmknics {
		o := &h.Vmknics[i]
		if o.Name == v.Name || o.Netstack != v.Netstack {
			continue
		}
		if ip := ipv4Of(h, o.Name); ip != nil && hasGW(ip) {
			return ip
		}
	}
	return nil
}

// crossedProbe returns a probe between the two vmknics' subnets (sent
// from any scanned host's vmknic in one to an address in the other) that
// got a reply: a router between the two subnets works. Probes between the
// very two vmknics come first; a scan that probes a ring of hosts proves
// the route between two subnets with any pair across it. The fleet's
// probes are resolved once, and each pair of subnets looked up once.
func crossedProbe(fleet *facts.Fleet, a, b vmkAddr) (*facts.Host, *parse.Ping) {
	ix := reachOf(fleet)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.exact == nil {
		ix.resolveProbes(fleet)
	}
	if p, ok := ix.exact[addrPair(a.addr, b.addr)]; ok {
		return p.host, p.ping
	}
	key := [2]netip.Prefix{a.subnet, b.subnet}
	p, ok := ix.across[key]
	if !ok {
		for _, q := range ix.probes {
			if a.subnet.Contains(q.from) && b.subnet.Contains(q.to) || b.subnet.Contains(q.from) && a.subnet.Contains(q.to) {
				p = q
				break
			}
		}
		ix.across[key] = p
	}
	return p.host, p.ping
}

// resolveProbes lists the fleet's probes that got a reply with their two
// ends (the sending vmknic's address, the target), in host order, and the
// first probe between each two addresses.
func (ix *reachIndex) resolveProbes(fleet *facts.Fleet) {
	ix.exact = map[[2]netip.Addr]probeAt{}
	for i := range fleet.Hosts {
		x := &fleet.Hosts[i]
		for j := range x.Pings {
			p := &x.Pings[j]
			if p.Failed() || p.HasStats && p.Received == 0 {
				continue
			}
			to, err := netip.ParseAddr(p.Target)
			if err != nil {
				continue
			}
			src := p.Vmknic()
			if src == "" {
				if hp := fleet.DataPath().For(x); hp != nil && hp.Vmknic != nil {
					src = hp.Vmknic.Name
				}
			}
			ip := ipv4Of(x, src)
			if ip == nil {
				continue
			}
			from, err := netip.ParseAddr(ip.Address)
			if err != nil {
				continue
			}
			q := probeAt{host: x, ping: p, from: from, to: to}
			ix.probes = append(ix.probes, q)
			if k := addrPair(from, to); ix.exact[k].ping == nil {
				ix.exact[k] = q
			}
		}
	}
}

// addrPair is the two addresses in order (a probe either way).
func addrPair(a, b netip.Addr) [2]netip.Addr {
	if b.Less(a) {
		a, b = b, a
	}
	return [2]netip.Addr{a, b}
}

// route says whether the data shows a route between two PVRDMA vmknics in
// different subnets, with its evidence; why says what is missing when it
// does not.
func route(fleet *facts.Fleet, a, b vmkAddr) (shown bool, ev []Evidence, why string) {
	gw := netstackGateway(a.host, a.vmknic)
	ph, probe := crossedProbe(fleet, a, b)
	switch {
	case gw != nil && probe != nil:
		return true, []Evidence{Ev(a.host.Host, gw.Ref), Ev(ph.Host, probe.Ref)}, ""
	case gw == nil && probe == nil:
		why = fmt.Sprintf("no gateway on %s's netstack and no probe between %s and %s got a reply", a.vmknic.Name, a.subnet, b.subnet)
	case gw == nil:
		why = fmt.Sprintf("no gateway on %s's netstack", a.vmknic.Name)
	default:
		on := ""
		if gw.Name != a.vmknic.Name {
			on = " (set on " + gw.Name + ")"
		}
		why = fmt.Sprintf("%s's netstack has gateway %s%s, but no probe between %s and %s got a reply", a.vmknic.Name, gw.Gateway, on, a.subnet, b.subnet)
	}
	return false, nil, why
}

// unrouted are the peers whose PVRDMA vmknic is in another subnet than
// me's with no route shown.
func unrouted(fleet *facts.Fleet, me vmkAddr, peers []vmkAddr) (out []vmkAddr, why string) {
	for _, p := range peers {
		if me.subnet.Contains(p.addr) {
			continue
		}
		if shown, _, w := route(fleet, me, p); !shown {
			out = append(out, p)
			if why == "" {
				why = w
			}
		}
	}
	return out, why
}

// peersSubnet is the subnet most of the peers' PVRDMA vmknics are in (the
// first in host order on a tie), and how many are.
func peersSubnet(peers []vmkAddr) (netip.Prefix, int) {
	count := map[netip.Prefix]int{}
	var best netip.Prefix
	for _, p := range peers {
		count[p.subnet]++
		if n := count[p.subnet]; n > count[best] {
			best = p.subnet
		}
	}
	return best, count[best]
}

// vmknicIn returns the host's vmknic other than skip whose address is in
// the subnet (one on the PVRDMA vDS first, then one bound to an RDMA
// device, then any), with its address row.
func vmknicIn(h *facts.Host, hp *facts.HostPath, subnet netip.Prefix, skip string) (vmkAddr, bool) {
	var cands []vmkAddr
	for i := range h.Vmknics {
		v := &h.Vmknics[i]
		if v.Name == skip {
			continue
		}
		if a, ok := vmknicAddr(h, hp, v); ok && subnet.Contains(a.addr) {
			cands = append(cands, a)
		}
	}
	rank := func(a vmkAddr) int {
		switch {
		case hp != nil && hp.Switch != nil && a.vmknic.VDSName == hp.Switch.Name:
			return 0
		case find(h.RDMAVmknics, func(b *parse.RDMAVmknic) bool { return b.Vmknic == a.vmknic.Name }) != nil:
			return 1
		}
		return 2
	}
	sort.SliceStable(cands, func(i, j int) bool { return rank(cands[i]) < rank(cands[j]) })
	if len(cands) == 0 {
		return vmkAddr{}, false
	}
	return cands[0], true
}

// tagTarget is the vmknic to tag on a host whose tag is unset or wrong:
// one in the subnet of the other hosts' PVRDMA vmknics (on the PVRDMA vDS
// first); with no peer address known, the host's vmknic on the PVRDMA vDS,
// else vmk0 as VMware's PVRDMA guides tag it. It is "" when the peers are
// known and none of the host's vmknics is in their subnet; why then says
// so (never a vmknic the peers cannot reach).
func tagTarget(fleet *facts.Fleet, h *facts.Host, hp *facts.HostPath, sw *parse.DVSwitch) (target, why string) {
	ix := reachOf(fleet)
	if ix.peers(h) == 0 {
		if sw != nil {
			target = dvsVmknic(h, sw.Name)
		}
		if target == "" && h.VmknicNamed("vmk0") != nil {
			target = "vmk0" // the management vmknic, as VMware's PVRDMA guides tag it (VMware's “PVRDMA Setup and Performance Study”)
		}
		return target, ""
	}
	subnet, _ := ix.peersSubnet(h)
	if sw != nil {
		// The vmknic on the PVRDMA vDS, when it is in the peers' subnet.
		if v := h.VmknicNamed(dvsVmknic(h, sw.Name)); v != nil {
			if a, ok := vmknicAddr(h, hp, v); ok && subnet.Contains(a.addr) {
				return v.Name, ""
			}
		}
	}
	if a, ok := vmknicIn(h, hp, subnet, ""); ok {
		return a.vmknic.Name, ""
	}
	return "", fmt.Sprintf("no vmknic of %s has an address in %s, the subnet of the other hosts' PVRDMA vmknics", h.Host, subnet)
}

// otherSubnet is what PVRDMA_VMKNIC_OTHER_SUBNET found on a host: its
// tagged vmknic, the peers it cannot reach, and the vmknic to tag instead.
type otherSubnet struct {
	me       vmkAddr
	peers    []vmkAddr
	subnet   netip.Prefix // the peers' subnet
	instead  vmkAddr      // the host's vmknic in it (vmknic nil: none)
	why      string       // what shows no route
	blamed   bool         // this host's tag is the one to change
	offOnVDS bool         // the tagged vmknic is not on the PVRDMA vDS
}

// otherSubnetOf judges the host's tagged vmknic against its peers'. The
// host is the one to change when its tagged vmknic is off the PVRDMA vDS;
// else, when no unreachable peer's tag is off its own PVRDMA vDS, when
// fewer hosts share its subnet than the peers' (or as many, and it has a
// vmknic in theirs or neither side has one: nothing tells which side is
// wrong, so both say it). Otherwise the peers' own findings say it.
func otherSubnetOf(in *Input) (otherSubnet, bool) {
	h, hp := in.Host, in.Path
	if hp == nil || hp.TaggedVmknic == nil {
		return otherSubnet{}, false
	}
	me, ok := vmknicAddr(h, hp, hp.TaggedVmknic)
	if !ok {
		return otherSubnet{}, false
	}
	ix := reachOf(in.Fleet)
	out := ix.outside(h, me.subnet)
	bad, why := unrouted(in.Fleet, me, out)
	if len(bad) == 0 {
		return otherSubnet{}, false
	}
	o := otherSubnet{me: me, peers: bad, why: why}
	var n int
	o.subnet, n = peersSubnet(bad)
	if a, ok := vmknicIn(h, hp, o.subnet, me.vmknic.Name); ok {
		o.instead = a
	}
	mine := 1 + ix.peers(h) - len(out) // this host and its peers in its subnet
	o.offOnVDS = hp.Switch != nil && me.vmknic.VDSName != hp.Switch.Name
	peerOff, peerCan := false, false
	for _, p := range bad {
		peerOff = peerOff || p.hp.Switch != nil && p.vmknic.VDSName != p.hp.Switch.Name
		if _, ok := vmknicIn(p.host, p.hp, me.subnet, p.vmknic.Name); ok {
			peerCan = true
		}
	}
	switch {
	case o.offOnVDS:
		o.blamed = true
	case peerOff:
	case mine < n:
		o.blamed = true
	case mine == n:
		o.blamed = o.instead.vmknic != nil || !peerCan
	}
	return o, true
}

// where names the switch a vmknic sits on.
func vmknicWhere(v *parse.Vmknic) string {
	if v.VDSName != "" {
		return "distributed switch " + v.VDSName
	}
	return "standard switch " + orPlaceholder(v.Portset, "(unknown)")
}

func checkVmknicOtherSubnet(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	v := hp.TaggedVmknic
	if v == nil {
		return // PVRDMA_VMKNIC_UNSET reports it
	}
	if row := readinessFor(in, h.Host); row != nil && row.Judged() {
		return // a host without PVRDMA VMs: HOST_NOT_READY's vmknic tag step reports it (one headline)
	}
	if covered, why := h.Covers(catalog.KindIPv4Get, v.Name); ipv4Of(h, v.Name) == nil && !covered {
		r.NotEvaluated(v.Name, why)
		return
	}
	o, found := otherSubnetOf(in)
	if !found || !o.blamed {
		r.Pass(v.Name)
		return
	}
	var names []string
	ev := []Evidence{Ev(h.Host, o.me.ip.Ref), Ev(h.Host, v.Record.RefOf("VDS Name"))}
	for i, p := range o.peers {
		if i == peerNameLimit {
			names[len(names)-1] += " and " + moreHosts(len(o.peers)-i) // the finding names a few and counts the rest (linear in the fleet)
			break
		}
		names = append(names, fmt.Sprintf("%s (%s %s)", p.host.Host, p.vmknic.Name, p.addr))
		ev = append(ev, Ev(p.host.Host, p.ip.Ref))
	}
	where := vmknicWhere(v)
	if sw := hp.Switch; sw != nil && o.offOnVDS {
		where += ", not the PVRDMA vDS " + sw.Name
	}
	msg := fmt.Sprintf("%s, tagged for PVRDMA on %s, is in %s (on %s), while the PVRDMA vmknics of %s are in %s: the vmknics are in "+
		"different subnets and no route between them is known (%s), so PVRDMA's control data between them does not get through",
		v.Name, h.Host, o.me.subnet, where, strings.Join(names, ", "), o.subnet, o.why)
	var fix string
	if a := o.instead; a.vmknic != nil {
		ev = append(ev, Ev(h.Host, a.ip.Ref))
		fix = fmt.Sprintf("Tag %s (%s, %s, in the peers' subnet %s): esxcli system settings advanced set -o /Net/PVRDMAVmknic -s %s. "+
			"One command: no reboot, no VM power-off.", a.vmknic.Name, vmknicWhere(a.vmknic), a.addr, o.subnet, shellArg(a.vmknic.Name, "vmkN"))
	} else {
		target := "a vmknic"
		if sw := hp.Switch; sw != nil {
			target = "a vmknic on " + sw.Name
		}
		fix = fmt.Sprintf("No vmknic of %s has an address in %s, the peers' subnet, so no tag is proposed: create %s with an address in "+
			"%s and tag it (esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN), or route between %s and %s and "+
			"probe across it.", h.Host, o.subnet, target, o.subnet, o.me.subnet, o.subnet)
	}
	r.Fail(v.Name, msg, fix, ev...)
}

// planVmknicOtherSubnet: the vmknic in the peers' subnet tagged (one
// command), or the fix in words when the host has none.
func planVmknicOtherSubnet(p *planner, f Finding) {
	in := &Input{Fleet: p.fleet, Host: p.host, Path: p.path}
	if o, ok := otherSubnetOf(in); ok && o.instead.vmknic != nil {
		p.add(plan.PhaseHost, plan.TagVmknic{Vmknic: o.instead.vmknic.Name}, f)
		return
	}
	p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
}
