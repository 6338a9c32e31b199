package checks

import (
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// runMemo caches fleet-wide values derived from the facts for the length of
// one RunRules call, so that per-host rules that look at every peer (probe
// target names, peers' path MTU) cost O(hosts) per fleet instead of
// O(hosts^2): at 1,000 hosts they dominated checks.Run (pprof).
type runMemo struct {
	addrsOnce sync.Once
	addrs     map[string]peerAddr

	pathsOnce sync.Once
	paths     []peerPathMTU // by index in fleet.Hosts
}

// peerPathMTU is a host's PVRDMA switch and path MTU.
type peerPathMTU struct {
	sw   *parse.DVSwitch
	path pathMTU
	ok   bool
}

var memos sync.Map // *facts.Fleet -> *runMemo

// withMemo makes fleet's derived values cached until the returned func runs.
func withMemo(fleet *facts.Fleet) func() {
	if fleet == nil {
		return func() {}
	}
	if _, loaded := memos.LoadOrStore(fleet, &runMemo{}); loaded {
		return func() {} // an outer (or concurrent) run owns it
	}
	return func() { memos.Delete(fleet) }
}

func memoOf(fleet *facts.Fleet) *runMemo {
	if fleet == nil {
		return nil
	}
	if m, ok := memos.Load(fleet); ok {
		return m.(*runMemo)
	}
	return nil
}

// peerPath returns the PVRDMA switch and path MTU of fleet.Hosts[i].
func peerPath(fleet *facts.Fleet, i int) (*parse.DVSwitch, pathMTU, bool) {
	m := memoOf(fleet)
	if m == nil {
		o := &fleet.Hosts[i]
		p, ok := hostPathMTU(o)
		return pvrdmaSwitch(o), p, ok
	}
	m.pathsOnce.Do(func() {
		m.paths = make([]peerPathMTU, len(fleet.Hosts))
		for j := range fleet.Hosts {
			o := &fleet.Hosts[j]
			p, ok := hostPathMTU(o)
			m.paths[j] = peerPathMTU{sw: pvrdmaSwitch(o), path: p, ok: ok}
		}
	})
	pp := m.paths[i]
	return pp.sw, pp.path, pp.ok
}
