// Package scan is the one entry point of a run: collect (or take the
// captures given) -> analysis -> outputs. The commands (scan, demo, bundle,
// paths, plan, analyze, the TUI's last report) and the lab-driven tests
// build Options and call Run; the TUI's background collections and rescans
// call Collect. collect.Collect runs here and nowhere else in the tool, and
// the report the terminal shows and the one a support bundle holds are
// built from the same analysis.Options (Options.Analysis; the bundle's
// redacted through analysis.Options.Redacted), so their verdicts agree.
package scan

import (
	"context"
	"errors"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// InterruptedNote is the report's note when the context ended the
// collection: what had not finished is reported as not collected.
const InterruptedNote = "scan interrupted: hosts and commands that had not finished are reported as not collected"

// Options are one run: its inputs, how they are analysed, and its outputs.
type Options struct {
	// Targets and Collect are a live scan's hosts and collector options
	// (Collect.Abort is the second signal: it stops waiting at once).
	Targets []hostio.Target
	Collect collect.Options
	// Results, when not nil, are analysed instead of collecting (an
	// offline input, or the latest results of the TUI).
	Results []hostio.HostResult
	// Analysed, when not nil, is an analysis of exactly Results made
	// already (the TUI's last, on quitting): it is presented instead of
	// analysing them again. Ignored without Results.
	Analysed *analysis.Analysis
	// AfterCollect, when set, runs on a live scan's results before they
	// are analysed, unless the scan was interrupted (the opt-in bandwidth
	// test).
	AfterCollect func(context.Context, []hostio.HostResult) []hostio.HostResult
	// BeforeAnalysis, when set, sees the results once they are all in,
	// before the analysis (the CLI sets the runtime's memory limit there).
	BeforeAnalysis func([]hostio.HostResult)

	// Analysis is the report's header (source, version, notes, clock),
	// the config (severity overrides, suppressions) and the logger of
	// recovered panics: the terminal's report and the bundle's are both
	// built with it.
	Analysis analysis.Options

	// The outputs, called in this order. Export gets the analysis first
	// (analyze's input summary); Report presents it (its error is the
	// run's exit status: findings, a write error); Bundle, last, gets the
	// results and the analysis options the report was built with, once
	// nothing else holds the analysis (it may consume the results). Bundle
	// is not called when Export failed.
	Export func(*analysis.Analysis) error
	Report func(*analysis.Analysis) error
	Bundle func(ctx context.Context, results []hostio.HostResult, with analysis.Options) error
	// KeepReport keeps the report in the Outcome even when Bundle ran (the
	// bundle command prints it once the bundle is written).
	KeepReport bool
}

// Outcome is what a run leaves: the verdict always, the analysis unless a
// bundle consumed the results, and each output's error.
type Outcome struct {
	// Verdict is the report's verdict line.
	Verdict string
	// Analysis is nil when Bundle ran (it may have consumed the results).
	Analysis *analysis.Analysis
	// Report is the analysis' report; kept after Bundle with KeepReport.
	Report *report.Report
	// Interrupted: the context ended the collection.
	Interrupted bool
	ExportErr   error
	ReportErr   error
	BundleErr   error
}

// Run collects (unless Results are given), analyses and produces the
// outputs. It never fails itself: every error is an output's, in Outcome.
func Run(ctx context.Context, o Options) *Outcome {
	if ctx == nil {
		ctx = context.Background()
	}
	out := &Outcome{}
	results := o.Results
	aopts := o.Analysis
	if results == nil {
		results = Collect(ctx, o.Targets, o.Collect)
		if ctx.Err() != nil {
			out.Interrupted = true
			aopts.Meta.Notes = append(append([]string(nil), aopts.Meta.Notes...), InterruptedNote)
		} else if o.AfterCollect != nil {
			results = o.AfterCollect(ctx, results)
		}
	}
	if o.BeforeAnalysis != nil {
		o.BeforeAnalysis(results)
	}
	a, aborted := o.Analysed, false
	if a == nil || o.Results == nil {
		a, aborted = analyse(ctx, results, aopts, o.Collect.Abort)
	}
	if a.Interrupted {
		out.Interrupted = true
	}
	out.Verdict, out.Analysis, out.Report = a.Report.Verdict, a, a.Report
	if o.Export != nil {
		out.ExportErr = o.Export(a)
	}
	if o.Report != nil {
		out.ReportErr = o.Report(a)
	}
	if o.Bundle == nil || out.ExportErr != nil {
		return out
	}
	if aborted {
		// The abandoned analysis may still read the results the bundle
		// would redact in place: no bundle.
		out.BundleErr = ErrAborted
		return out
	}
	// The report is out: only the bundle needs the results now, and the
	// analysis can go (it holds pieces of the outputs).
	out.Analysis = nil
	if !o.KeepReport {
		out.Report = nil
	}
	out.BundleErr = o.Bundle(ctx, results, aopts)
	return out
}

// ErrAborted is the bundle's error when a second signal ended the run
// before the analysis did: nothing is written.
var ErrAborted = errors.New("not written: interrupted before the analysis ended")

// AbortedNote is the report's note when a second signal ended the run
// before the analysis did: the report lists the hosts, none analysed.
const AbortedNote = "analysis interrupted again: no host was analysed; run the scan again, or analyze its saved outputs, for findings"

// analyse runs the analysis of results. A first signal during the
// analysis (ctx ending, when it had not ended during the collection)
// stops it at the next host: the report says what was analysed and that
// the analysis was interrupted. A second (abort) returns at once with
// the report that is ready: none is, so every host is reported not
// analysed (aborted true; the abandoned analysis still reads results).
func analyse(ctx context.Context, results []hostio.HostResult, aopts analysis.Options, abort <-chan struct{}) (a *analysis.Analysis, aborted bool) {
	if ctx.Err() == nil {
		aopts.Stop = ctx.Done()
	}
	if abort == nil {
		return analysis.Run(results, aopts), false
	}
	done := make(chan *analysis.Analysis, 1)
	go func() { done <- analysis.Run(results, aopts) }()
	select {
	case a := <-done:
		return a, false
	case <-abort:
	}
	select {
	case a := <-done:
		// Ready at the same moment: the report that is ready is this one.
		return a, false
	default:
	}
	aopts.Meta.Notes = append(append([]string(nil), aopts.Meta.Notes...), AbortedNote)
	return analysis.NoneAnalysed(results, aopts), true
}

// Collect runs the staged collector on targets: the one call of
// collect.Collect (the TUI's background scan and rescans stream their
// events through opts.Progress).
func Collect(ctx context.Context, targets []hostio.Target, opts collect.Options) []hostio.HostResult {
	return collect.Collect(ctx, targets, opts)
}
