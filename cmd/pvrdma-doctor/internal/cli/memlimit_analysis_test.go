package cli

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The analysis lets the heap grow by 64 MiB or by half of what is live,
// whichever is more: a small fleet gets the 64 MiB, a large one room in
// proportion to what it holds (so the collector's work per host does not
// grow with the fleet); the memory limit stays above what that lets the
// heap reach, and a flood of output keeps the scan's own limit.
func TestAnalysisGCPercentAndMemoryLimit(t *testing.T) {
	out := strings.Repeat("x", 24<<10)
	fleet := func(n int) []hostio.HostResult {
		results := make([]hostio.HostResult, n)
		for i := range results {
			results[i].Captures = []hostio.Capture{{Stdout: out}}
		}
		return results
	}
	if got, want := analysisLive(fleet(1000)), int64(4*1000*(24<<10)+1000*(32<<10)); got != want {
		t.Errorf("1,000 hosts of 24 KiB: live estimate %d, want %d", got, want)
	}
	for _, c := range []struct{ hosts, percent int }{{0, 100}, {10, 100}, {100, 100}, {500, 100}, {600, 85}, {1000, 51}, {3000, 50}, {30000, 50}} {
		rs := fleet(c.hosts)
		live, pct, limit := analysisLive(rs), analysisGCPercent(rs), analysisMemoryLimit(rs)
		if pct != c.percent {
			t.Errorf("%d hosts: GC percent %d, want %d", c.hosts, pct, c.percent)
		}
		room := live * int64(pct) / 100
		if room < min(analysisHeadroom, live)-live/100 || room < live/2 {
			t.Errorf("%d hosts: %d MiB live may grow by %d MiB only", c.hosts, live>>20, room>>20)
		}
		if goal := live + room; limit <= goal {
			t.Errorf("%d hosts: memory limit %d MiB at or below the heap's goal %d MiB", c.hosts, limit>>20, goal>>20)
		}
	}
	flood := make([]hostio.HostResult, 70)
	for i := range flood {
		flood[i].Captures = []hostio.Capture{{Stdout: strings.Repeat("y", 1<<20)}, {Stderr: strings.Repeat("z", 14<<20)}}
	}
	if analysisMemoryLimit(flood) <= scanMemoryLimit(70) {
		t.Error("flooding hosts: the analysis limit is below the scan's")
	}
	if analysisGCPercent(flood) != minAnalysisGCPercent {
		t.Errorf("flooding hosts: GC percent %d", analysisGCPercent(flood))
	}
}

// A user's GOGC and GOMEMLIMIT are kept; otherwise the analysis sets both.
func TestSetAnalysisMemoryLimitKeepsTheUsers(t *testing.T) {
	saved := limitScanMemory
	oldPct := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		limitScanMemory = saved
		debug.SetGCPercent(oldPct)
		debug.SetMemoryLimit(oldLimit)
	})
	limitScanMemory = true
	rs := make([]hostio.HostResult, 3000)
	for i := range rs {
		rs[i].Captures = []hostio.Capture{{Stdout: strings.Repeat("x", 24<<10)}}
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	current := func() (int, int64) {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	setAnalysisMemoryLimit(rs, env(nil))
	if p, l := current(); p != 50 || l != analysisMemoryLimit(rs) {
		t.Errorf("no user settings: GC percent %d, limit %d; want 50, %d", p, l, analysisMemoryLimit(rs))
	}

	debug.SetGCPercent(77)
	debug.SetMemoryLimit(math.MaxInt64)
	setAnalysisMemoryLimit(rs, env(map[string]string{"GOGC": "77", "GOMEMLIMIT": "8GiB"}))
	if p, l := current(); p != 77 || l != math.MaxInt64 {
		t.Errorf("GOGC=77 GOMEMLIMIT set: GC percent %d, limit %d", p, l)
	}

	debug.SetMemoryLimit(256 << 20)
	setAnalysisMemoryLimit(rs, env(nil))
	if _, l := current(); l != 256<<20 {
		t.Errorf("a lower limit in force was raised to %d", l)
	}
}
