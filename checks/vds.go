package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Which distributed switch is the PVRDMA vDS of a fleet. The seeds build
// one ("rdma-dvs", seed 000; "RDMA DSwitch", seed 002): the vDS whose only
// uplink on each host is the RoCE NIC, at MTU 9000, that every PVRDMA VM's
// adapter is connected to. When the VMs use several, or none exists yet
// (a cluster prepared before its first PVRDMA VM), the vDS that has an
// RDMA uplink and jumbo frames is preferred; when that does not single
// one out, none is named rather than a guess.

// vdsInfo is one distributed switch of the fleet as its members see it.
type vdsInfo struct {
	// Key identifies it: its VDS ID (normalised), else "name:" + Name.
	Key  string
	Name string
	// Members are the hosts that list it; RDMAHosts those where an Active
	// RDMA device's paired uplink is one of its uplinks.
	Members, RDMAHosts []string
	// MTU is its largest MTU on any member.
	MTU int
	// VMs counts the PVRDMA VMs whose adapters use it.
	VMs int
}

// rdma reports whether the switch has an Active RDMA uplink somewhere, and
// jumbo whether it carries jumbo frames.
func (v *vdsInfo) rdma() bool  { return len(v.RDMAHosts) > 0 }
func (v *vdsInfo) jumbo() bool { return v.MTU >= 9000 }

// vdsKey is a switch's key (vdsInfo.Key).
func vdsKey(id, name string) string {
	if u := normUUID(id); u != "" {
		return u
	}
	return "name:" + name
}

// vdsOf returns the host's entry for the switch with key (nil if it is
// not a member).
func vdsOf(h *facts.Host, key string) *parse.DVSwitch {
	for i := range h.DVSwitches {
		d := &h.DVSwitches[i]
		if vdsKey(d.VDSID, d.Name) == key || "name:"+d.Name == key {
			return d
		}
	}
	return nil
}

// fleetSwitches lists the fleet's distributed switches, each with its
// members, RDMA uplinks and MTU, sorted by name.
func fleetSwitches(fleet *facts.Fleet, paths *facts.DataPath) map[string]*vdsInfo {
	out := map[string]*vdsInfo{}
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		var active []parse.RDMADevice
		if paths != nil {
			active = paths.Host(i).Active
		}
		for _, d := range h.DVSwitches {
			k := vdsKey(d.VDSID, d.Name)
			v := out[k]
			if v == nil {
				v = &vdsInfo{Key: k, Name: d.Name}
				out[k] = v
			}
			v.Members = append(v.Members, h.Host)
			v.MTU = max(v.MTU, d.MTU)
			for _, a := range active {
				if hasString(d.Uplinks, a.PairedUplink) && !hasString(v.RDMAHosts, h.Host) {
					v.RDMAHosts = append(v.RDMAHosts, h.Host)
				}
			}
		}
	}
	return out
}

// chooseVDS picks the PVRDMA vDS among candidates: those with PVRDMA VMs
// when any has some, else all. The best is the one with an RDMA uplink and
// jumbo frames; several such are told apart by their PVRDMA VMs (or, with
// none, the hosts with an RDMA uplink), one of each only; without an RDMA
// uplink anywhere only a single candidate is chosen. nil when nothing
// singles one out; why says how it was chosen.
func chooseVDS(cands []*vdsInfo) (best *vdsInfo, why string) {
	var withVMs []*vdsInfo
	for _, c := range cands {
		if c.VMs > 0 {
			withVMs = append(withVMs, c)
		}
	}
	pool := cands
	if len(withVMs) > 0 {
		pool = withVMs
	}
	if len(pool) == 0 {
		return nil, ""
	}
	if len(pool) == 1 {
		c := pool[0]
		if c.VMs > 0 {
			return c, "the vDS of the PVRDMA VMs' adapters"
		}
		return c, "the only vDS"
	}
	score := func(c *vdsInfo) int {
		s := 0
		if c.rdma() {
			s += 2
		}
		if c.jumbo() {
			s++
		}
		return s
	}
	top := -1
	var group []*vdsInfo
	for _, c := range pool {
		switch s := score(c); {
		case s > top:
			top, group = s, []*vdsInfo{c}
		case s == top:
			group = append(group, c)
		}
	}
	if top < 2 {
		return nil, "" // no candidate has an RDMA uplink: no direction
	}
	what := "an Active RDMA uplink"
	if top == 3 {
		what += " and jumbo frames"
	}
	if len(group) == 1 {
		return group[0], fmt.Sprintf("the only one with %s", what)
	}
	count := func(c *vdsInfo) int {
		if len(withVMs) > 0 {
			return c.VMs
		}
		return len(c.RDMAHosts)
	}
	sort.SliceStable(group, func(i, j int) bool { return count(group[i]) > count(group[j]) })
	if count(group[0]) == count(group[1]) {
		return nil, ""
	}
	unit := "PVRDMA VMs"
	if len(withVMs) == 0 {
		unit = "hosts with an RDMA uplink"
	}
	return group[0], fmt.Sprintf("of the vDSs with %s, the one with the most %s", what, unit)
}

// pvrdmaVDS is the fleet's PVRDMA vDS (nil when it cannot be told): the
// one the PVRDMA VMs use (each VM's configured vDS, else its host's data
// path vDS), chosen by chooseVDS.
func pvrdmaVDS(fleet *facts.Fleet, paths *facts.DataPath) (*vdsInfo, string) {
	all := fleetSwitches(fleet, paths)
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		if !hasPVRDMA(h) {
			continue
		}
		counted := map[string]bool{}
		for _, v := range vmViews(h) {
			for _, c := range v.Configs {
				for _, a := range c.PVRDMA() {
					if !onDVS(a) || counted[v.Name] {
						continue
					}
					if s := all[vdsKey(a.DVSUUID, a.DVSName)]; s != nil {
						s.VMs++
						counted[v.Name] = true
					} else if s := byName(all, a.DVSName); s != nil {
						s.VMs++
						counted[v.Name] = true
					}
				}
			}
		}
		if paths == nil {
			continue
		}
		sw := paths.Host(i).Switch
		if sw == nil {
			continue
		}
		s := all[vdsKey(sw.VDSID, sw.Name)]
		if s == nil {
			continue
		}
		for _, n := range pvrdmaVMNames(h) {
			if !counted[n] {
				s.VMs++
				counted[n] = true
			}
		}
	}
	cands := make([]*vdsInfo, 0, len(all))
	for _, v := range all {
		cands = append(cands, v)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].Name+cands[i].Key < cands[j].Name+cands[j].Key })
	return chooseVDS(cands)
}

// byName finds a switch by name (an adapter that names its vDS only).
func byName(all map[string]*vdsInfo, name string) *vdsInfo {
	if name == "" {
		return nil
	}
	for _, v := range all {
		if strings.EqualFold(v.Name, name) {
			return v
		}
	}
	return nil
}
