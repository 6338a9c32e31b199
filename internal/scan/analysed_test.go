package scan_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

// An analysis given with the results (the TUI's, on quitting) is the one
// presented: nothing is analysed again. Without results it is ignored
// (a live scan analyses what it collected).
func TestRunPresentsTheGivenAnalysis(t *testing.T) {
	results := fleetResults(t, 3)
	var runs atomic.Int32
	opts := analysis.Options{Meta: report.Meta{Source: "unit", Now: time.Unix(0, 0)},
		BeforeHost: func(string) { runs.Add(1) }}
	given := analysis.Run(results, opts)
	runs.Store(0)
	var reported *analysis.Analysis
	out := scan.Run(context.Background(), scan.Options{Results: results, Analysed: given, Analysis: opts,
		Report: func(a *analysis.Analysis) error { reported = a; return nil }})
	if reported != given || out.Report != given.Report || runs.Load() != 0 {
		t.Fatalf("reported the given analysis: %v; hosts analysed again: %d", reported == given, runs.Load())
	}
	// Without Results the given analysis is not about what Run reports.
	scan.Run(context.Background(), scan.Options{Analysed: given, Analysis: opts,
		Report: func(a *analysis.Analysis) error { reported = a; return nil }})
	if reported == given {
		t.Fatal("a live run presented an analysis given for other results")
	}
}
