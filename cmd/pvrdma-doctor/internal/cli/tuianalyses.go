package cli

import (
	"sync"
	"unsafe"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// tuiAnalyses runs the TUI's analyses and remembers the last ones, so that
// the report printed after the UI reuses the analysis the user saw instead
// of analysing the same captures again (seconds on 1,000 hosts). Once stop
// is closed (the UI quit), an analysis still running stops at the next
// host and reports what it analysed, saying so.
type tuiAnalyses struct {
	p       *Pipeline
	stop    <-chan struct{}
	running sync.WaitGroup

	mu sync.Mutex
	// complete and stopped are the last analysis that analysed every host
	// and the last one the quit stopped, each with its input.
	complete, stopped     *Analysis
	completeIn, stoppedIn []hostio.HostResult
}

// analyze is the TUI's Analyze.
func (t *tuiAnalyses) analyze(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
	t.running.Add(1)
	defer t.running.Done()
	o := t.p.analysisOptions()
	o.Logger, o.Stop = nil, t.stop
	a := analysis.Run(rs, o)
	// The UI does not keep the slice it gives; the structs are copied,
	// the captures are shared (they are compared by identity).
	in := append([]hostio.HostResult(nil), rs...)
	t.mu.Lock()
	if a.Interrupted {
		t.stopped, t.stoppedIn = a, in
	} else {
		t.complete, t.completeIn = a, in
	}
	t.mu.Unlock()
	return a.Report, a.Fleet
}

// current waits for a running analysis (stop must be closed: it ends at
// the next host) and returns the last one made of exactly results: a
// complete one first, else one the quit stopped; nil when none is.
func (t *tuiAnalyses) current(results []hostio.HostResult) *Analysis {
	t.running.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.complete != nil && sameCaptures(t.completeIn, results) {
		return t.complete
	}
	if t.stopped != nil && sameCaptures(t.stoppedIn, results) {
		return t.stopped
	}
	return nil
}

// sameCaptures reports whether a and b are the same hosts' same results in
// the same order: the same outcome and the very same captures (a rescan or
// a host finished later gives a new capture slice).
func sameCaptures(a, b []hostio.HostResult) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Host != y.Host || x.Status != y.Status || x.Reason != y.Reason || x.Role != y.Role ||
			!x.Start.Equal(y.Start) || x.Duration != y.Duration ||
			len(x.Captures) != len(y.Captures) || len(x.Notes) != len(y.Notes) ||
			unsafe.SliceData(x.Captures) != unsafe.SliceData(y.Captures) {
			return false
		}
	}
	return true
}
