package scan_test

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

// fleetResults are the collected results of n hosts of the faulty lab
// fleet (what `analyze` reads).
func fleetResults(t *testing.T, n int) []hostio.HostResult {
	t.Helper()
	sc := fixtures.Fleet(fixtures.MustLoad(t, "mixed"), n)
	targets := make([]hostio.Target, len(sc.Hosts))
	for i, h := range sc.Hosts {
		targets[i] = hostio.Target{Name: h.Name}
	}
	return scan.Collect(context.Background(), targets, collect.Options{
		Runner: sc.Runner(), Concurrency: n, Probes: true, Logger: slog.New(slog.DiscardHandler)})
}

// heldAnalysis holds each host's analysis until release is closed, and
// says which hosts started.
type heldAnalysis struct {
	started chan string
	release chan struct{}
	once    sync.Once
}

func newHeld(n int) *heldAnalysis {
	return &heldAnalysis{started: make(chan string, n), release: make(chan struct{})}
}

func (h *heldAnalysis) before(host string) {
	h.started <- host
	<-h.release
}

func (h *heldAnalysis) let() { h.once.Do(func() { close(h.release) }) }

// A first Ctrl-C while the analysis is held on its first host stops it at
// the next host: the report holds the hosts whose analysis had started,
// says the analysis was interrupted, lists every other host as not
// analysed (not collected: the run is incomplete), and the outputs run.
func TestFirstInterruptDuringAnalysisReportsWhatWasAnalysed(t *testing.T) {
	const n = 12
	results := fleetResults(t, n)
	held := newHeld(n)
	defer held.let()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abort := make(chan struct{})
	var reported *analysis.Analysis
	go func() {
		<-held.started // the analysis is on its first host
		cancel()       // the first Ctrl-C
		held.let()
	}()
	out := scan.Run(ctx, scan.Options{
		Results:  results,
		Collect:  collect.Options{Abort: abort},
		Analysis: analysis.Options{Meta: report.Meta{Source: "unit", Now: time.Unix(0, 0)}, BeforeHost: held.before},
		Report:   func(a *analysis.Analysis) error { reported = a; return nil },
	})
	if reported == nil || !out.Interrupted || !reported.Interrupted {
		t.Fatalf("reported %v, outcome interrupted %v", reported != nil, out.Interrupted)
	}
	r := reported.Report
	if !slices.Contains(r.Notes, analysis.InterruptedNote) {
		t.Errorf("notes %q do not say the analysis was interrupted", r.Notes)
	}
	if slices.Contains(r.Notes, scan.InterruptedNote) {
		t.Errorf("notes %q say the collection was interrupted: it was not", r.Notes)
	}
	// The hosts whose analysis started before the stop (one per worker at
	// most) are analysed; the others are not.
	analysed := 0
	for _, h := range r.Hosts {
		switch {
		case h.Status == hostio.StatusNotCollected && h.Reason == facts.NotAnalysedReason:
		case h.Status != hostio.StatusNotCollected:
			analysed++
		default:
			t.Errorf("host %s: status %s, reason %q", h.Host, h.Status, h.Reason)
		}
	}
	if len(r.Hosts) != n || analysed < 1 || analysed > runtime.GOMAXPROCS(0) {
		t.Errorf("%d hosts reported, %d analysed: want %d, 1 to %d", len(r.Hosts), analysed, n, runtime.GOMAXPROCS(0))
	}
	if !r.Incomplete() || r.Summary.HostsNotCollected != n-analysed {
		t.Errorf("incomplete %v, %d not collected, want %d", r.Incomplete(), r.Summary.HostsNotCollected, n-analysed)
	}
	// What was analysed has its findings.
	found := false
	for _, f := range r.Findings {
		for _, h := range r.Hosts {
			if h.Host == f.Host && h.Status != hostio.StatusNotCollected {
				found = true
			}
		}
	}
	if !found {
		t.Error("no finding of an analysed host")
	}
}

// A second Ctrl-C while the analysis is still held returns at once with
// the report that is ready: every host not analysed, said so; no bundle
// is written (the abandoned analysis still reads the results).
func TestSecondInterruptDuringAnalysisReportsAtOnce(t *testing.T) {
	const n = 12
	results := fleetResults(t, n)
	held := newHeld(n)
	defer held.let() // the abandoned analysis ends after the test
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abort := make(chan struct{})
	go func() {
		<-held.started
		cancel()
		close(abort) // the second Ctrl-C, the analysis still held
	}()
	var reported *analysis.Analysis
	bundled := false
	out := scan.Run(ctx, scan.Options{
		Results:  results,
		Collect:  collect.Options{Abort: abort},
		Analysis: analysis.Options{Meta: report.Meta{Source: "unit", Now: time.Unix(0, 0)}, BeforeHost: held.before},
		Report:   func(a *analysis.Analysis) error { reported = a; return nil },
		Bundle: func(context.Context, []hostio.HostResult, analysis.Options) error {
			bundled = true
			return nil
		},
	})
	select {
	case <-held.release:
		t.Fatal("the analysis was released before Run returned")
	default:
	}
	if reported == nil || !out.Interrupted {
		t.Fatalf("reported %v, interrupted %v", reported != nil, out.Interrupted)
	}
	r := reported.Report
	if !slices.Contains(r.Notes, scan.AbortedNote) || len(r.Hosts) != n || r.Summary.HostsNotCollected != n || !r.Incomplete() {
		t.Errorf("notes %q, %d hosts, %d not collected, incomplete %v", r.Notes, len(r.Hosts), r.Summary.HostsNotCollected, r.Incomplete())
	}
	if bundled || out.BundleErr != scan.ErrAborted {
		t.Errorf("bundle called %v, error %v", bundled, out.BundleErr)
	}
	for _, n := range r.Notes {
		if strings.Contains(strings.ToLower(n), "seed") || strings.Contains(strings.ToLower(n), "stage") {
			t.Errorf("note %q uses the project's private words", n)
		}
	}
}

// A Ctrl-C that ended the collection does not stop the analysis of what
// was collected: every collected host is analysed.
func TestInterruptedCollectionIsAnalysedWhole(t *testing.T) {
	results := fleetResults(t, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := scan.Run(ctx, scan.Options{Results: results, Analysis: analysis.Options{Meta: report.Meta{Now: time.Unix(0, 0)}}})
	if out.Analysis.Interrupted || slices.Contains(out.Report.Notes, analysis.InterruptedNote) || out.Report.Summary.HostsNotCollected != 0 {
		t.Errorf("interrupted %v, notes %q, %d not collected", out.Analysis.Interrupted, out.Report.Notes, out.Report.Summary.HostsNotCollected)
	}
}
