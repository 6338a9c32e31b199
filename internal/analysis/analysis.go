// Package analysis is the pure half of the pipeline, the same live and
// offline: captures -> facts -> findings (with the config's overrides and
// suppressions) -> report. scan, analyze, demo, diff, the TUI's rescans,
// support bundles, tests and benchmarks all go through Run.
package analysis

import (
	"log/slog"
	"slices"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/config"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Analysis is one run of the pipeline over a set of host results.
type Analysis struct {
	Results []hostio.HostResult
	Fleet   *facts.Fleet
	Checks  checks.Result
	// Suppressed are the findings the config moved out of Checks.
	Suppressed []checks.Finding
	Report     *report.Report
	// Interrupted: Options.Stop closed before every host was analysed;
	// the hosts not analysed are reported as not collected
	// (facts.NotAnalysed) and the report's notes say so.
	Interrupted bool
}

// InterruptedNote is the report's note when Options.Stop stopped the
// analysis before every host was analysed.
const InterruptedNote = "analysis interrupted: hosts not analysed yet are reported as not collected"

// Options are what a run needs besides the captures.
type Options struct {
	// Meta is the report's header: source, tool version, input notes and
	// the clock (Now; zero means time.Now()).
	Meta report.Meta
	// Config, when set, overrides severities and suppresses findings
	// before the report is built; its notes join the report's.
	Config *config.Config
	// Logger receives, at debug level, the stack of every panic the
	// engine recovered (checks.InternalError); nil means slog.Default().
	Logger *slog.Logger
	// Stop, once closed, stops the analysis at the next host (a first
	// Ctrl-C during the analysis): the hosts whose facts were not being
	// built yet are not analysed. Nil: the analysis runs to its end.
	Stop <-chan struct{}
	// BeforeHost, when set, is called as each host's analysis starts (the
	// tests hold an analysis on an event there).
	BeforeHost func(host string)
}

// Run builds the facts, runs the checks, applies the config and builds the
// report. It reads nothing but its arguments (and the clock, when
// Meta.Now is zero).
func Run(results []hostio.HostResult, opts Options) *Analysis {
	fleet, skipped := facts.BuildUntil(results, facts.Stop{Stop: opts.Stop, BeforeHost: opts.BeforeHost})
	meta := opts.Meta
	if skipped != nil {
		// The report and the results say what the facts say: the hosts
		// the interrupt stopped before are not collected.
		results = slices.Clone(results)
		for i, skip := range skipped {
			if skip {
				results[i] = facts.NotAnalysed(results[i])
			}
		}
		meta.Notes = append(append([]string(nil), meta.Notes...), InterruptedNote)
	}
	res := checks.Run(&fleet)
	if meta.Now.IsZero() {
		meta.Now = time.Now()
	}
	var suppressed []checks.Finding
	if opts.Config != nil {
		applied := opts.Config.Apply(res, meta.Now)
		res, suppressed = applied.Result, applied.Suppressed
		meta.Notes = append(append([]string(nil), meta.Notes...), applied.Notes...)
	}
	rep := report.Build(results, &fleet, res, suppressed, meta)
	logInternalErrors(opts.Logger, rep.InternalErrors)
	return &Analysis{Results: results, Fleet: &fleet, Checks: res, Suppressed: suppressed, Report: rep, Interrupted: skipped != nil}
}

// NoneAnalysed is the analysis of results with no host analysed (a second
// Ctrl-C before the analysis ended): each host not collected, with
// facts.NotAnalysedReason; it parses nothing, so it is ready at once.
func NoneAnalysed(results []hostio.HostResult, opts Options) *Analysis {
	none := make([]hostio.HostResult, len(results))
	for i, r := range results {
		none[i] = facts.NotAnalysed(r)
	}
	opts.Stop, opts.BeforeHost = nil, nil
	a := Run(none, opts)
	a.Interrupted = true
	return a
}

// logInternalErrors writes each recovered panic, with its stack, to the
// debug log: the report says what was lost, the log says where.
func logInternalErrors(l *slog.Logger, errs []checks.InternalError) {
	if len(errs) == 0 {
		return
	}
	if l == nil {
		l = slog.Default()
	}
	for _, ie := range errs {
		l.Debug("internal error recovered", "where", ie.Where, "rule", ie.RuleID, "host", ie.Host,
			"panic", ie.Panic, "stack", ie.Stack)
	}
}

// Redacted is o for the redacted copy of the same captures (a support
// bundle's report): the same config with its host values redacted, the
// header's source and notes redacted. redact nil returns o unchanged.
func (o Options) Redacted(redact func(string) string) Options {
	if redact == nil {
		return o
	}
	out := o
	out.Meta.Source = redact(o.Meta.Source)
	out.Meta.Notes = nil
	for _, n := range o.Meta.Notes {
		out.Meta.Notes = append(out.Meta.Notes, redact(n))
	}
	out.Config = o.Config.Redacted(redact)
	return out
}
