package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/config"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

// Analysis is one run of the pipeline (package analysis).
type Analysis = analysis.Analysis

// analyze runs the one analysis (analysis.Run) of results read without a
// config (diff's inputs) with this build's version in the report.
func analyze(results []hostio.HostResult, meta report.Meta) *Analysis {
	return (&Pipeline{Meta: meta}).analyze(results)
}

// analyze runs the analysis of this run's results with its options
// (analysisOptions), without its logger: the TUI's re-analyses must not
// write on the terminal it draws.
func (p *Pipeline) analyze(results []hostio.HostResult) *Analysis {
	o := p.analysisOptions()
	o.Logger = nil
	return analysis.Run(results, o)
}

// ReportOptions are the output flags shared by scan, demo and analyze.
type ReportOptions struct {
	Output string
	FailOn string
	failOn checks.Severity
	// Config is the config file (--config; "" = the default path, which
	// may be missing).
	Config string
	// ShowSuppressed lists suppressed findings in the report.
	ShowSuppressed bool
	// Details makes the text report complete (consequences, every
	// evidence line and fix, whole plans, checks not evaluated).
	Details bool
	cfg     *config.Config
}

// outputFormats are the values of --output.
var outputFormats = []string{"text", "json", "markdown", "html", "junit", "sarif"}

const outputFlagHelp = "output format: text, json, markdown, html, junit or sarif (default: the interactive TUI on a terminal, text otherwise)"
const failOnFlagHelp = "lowest severity that makes the exit status non-zero: critical, warning or info"

// addReportFlags registers the shared output flags.
func addReportFlags(fl *pflag.FlagSet, o *ReportOptions) {
	fl.StringVarP(&o.Output, "output", "o", "", outputFlagHelp)
	fl.StringVar(&o.FailOn, "fail-on", "warning", failOnFlagHelp)
	addConfigFlag(fl, o)
	fl.BoolVar(&o.ShowSuppressed, "show-suppressed", false, "list the findings suppressed by the config file")
	fl.BoolVar(&o.Details, "details", false, "text report: everything (consequences, all evidence and fixes, whole fix plans, checks not evaluated), not only the concise view; json, markdown, html, junit and sarif are always complete")
}

// addConfigFlag registers --config.
func addConfigFlag(fl *pflag.FlagSet, o *ReportOptions) {
	fl.StringVar(&o.Config, "config", "", "config file with severity overrides and suppressions (default ~/.config/pvrdma-doctor/config.yaml if it exists)")
}

// validate checks the shared output flags before any work starts.
func (o *ReportOptions) validate() error {
	if o.Output != "" && !slices.Contains(outputFormats, o.Output) {
		return usageError("unknown --output %q: use %s", o.Output, strings.Join(outputFormats, ", "))
	}
	sev, err := checks.ParseSeverity(o.FailOn)
	if err != nil {
		return usageError("--fail-on: %v", err)
	}
	o.failOn = sev
	return o.loadConfig()
}

// loadConfig reads the config file (--config, else the default path when it
// exists) that the run's analysis applies.
func (o *ReportOptions) loadConfig() error {
	file, explicit := o.Config, o.Config != ""
	if !explicit {
		file = config.DefaultPath(homeDir())
	}
	cfg, err := config.Load(file, explicit)
	if err != nil {
		return usageError("%v", err)
	}
	o.cfg = cfg
	return nil
}

// Pipeline is the CLI's side of one run from targets to report: live
// (scan, demo) or, with Results already set, offline (analyze). It holds
// what the terminal needs (streams, output flags, the TUI) and hands the
// run itself to scan.Run (scanOptions).
type Pipeline struct {
	IO      *IOStreams
	Getenv  func(string) string
	Report  *ReportOptions
	Targets []hostio.Target
	Collect collect.Options
	Meta    report.Meta
	// Bundle, when set, lets the TUI export a support bundle of the latest
	// results to a path (nil: the TUI says bundles are not available).
	Bundle func(path string, results []hostio.HostResult) error
	// Results, when set, are analysed instead of collecting (offline:
	// analyze); the TUI shows them read-only, without rescans.
	Results []hostio.HostResult
	// Partial marks offline input that could not be read completely: the
	// exit status is at least ExitIncomplete (critical findings still win).
	Partial bool
	// Export, when set, is called with the analysis before it is presented
	// (analyze: the input summary) or, in the TUI, after the user quits;
	// its error makes the run fail with ExitError.
	Export func(*Analysis) error
	// SaveBundle, when set (scan --bundle), writes the bundle of the
	// results once the report is out, so that nothing, not even a second
	// Ctrl-C during a long write, holds the report back; with are the
	// analysis options the report was built with (scan.Options.Bundle).
	// It owns the results (they are redacted in place) and the context's
	// abort channel stops it; its error makes the run fail with ExitError
	// (ExitIncomplete when interrupted).
	SaveBundle func(ctx context.Context, results []hostio.HostResult, with analysis.Options) error
	// AfterCollect, when set, runs on a live scan's results before they are
	// analysed (the opt-in bandwidth test).
	AfterCollect func(context.Context, []hostio.HostResult) []hostio.HostResult
	// beforeHost, when set, is called as each host's analysis starts
	// (analysis.Options.BeforeHost: the tests hold and count analyses).
	beforeHost func(host string)
}

// analysisOptions are how this run's captures are analysed: its header
// (with this build's version), the config of --config and its logger. The
// report on the terminal, the TUI's and every bundle of the run use them.
func (p *Pipeline) analysisOptions() analysis.Options {
	meta := p.Meta
	if meta.Version == "" {
		meta.Version = Version
	}
	var cfg *config.Config
	if p.Report != nil {
		cfg = p.Report.cfg
	}
	return analysis.Options{Meta: meta, Config: cfg, Logger: p.Collect.Logger, BeforeHost: p.beforeHost}
}

// scanOptions are the run scan.Run makes of this pipeline: its inputs
// (ctx's second signal stops the collection's waits), its analysis and,
// with the given presentation, its outputs.
func (p *Pipeline) scanOptions(ctx context.Context, present func(*Analysis) error) scan.Options {
	copts := p.Collect
	copts.Abort = abortOf(ctx)
	return scan.Options{
		Targets: p.Targets, Collect: copts, Results: p.Results, AfterCollect: p.AfterCollect,
		BeforeAnalysis: func(results []hostio.HostResult) { setAnalysisMemoryLimit(results, p.Getenv) },
		Analysis:       p.analysisOptions(),
		Export:         p.Export, Report: present, Bundle: p.SaveBundle,
	}
}

// Run collects (unless results were given), analyzes, presents the report
// and returns the documented exit status as an error.
func (p *Pipeline) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if p.useTUI() {
		return p.partialExit(p.runTUI(ctx, p.Results))
	}
	return p.partialExit(p.exitOf(scan.Run(ctx, p.scanOptions(ctx, p.present))))
}

// exitOf maps a run's outcome to the documented exit status: an export
// that failed, then a bundle that failed (ExitIncomplete when interrupted),
// then what the report said.
func (p *Pipeline) exitOf(out *scan.Outcome) error {
	if out.ExportErr != nil {
		return WithExitCode(ExitError, out.ExportErr)
	}
	if berr := out.BundleErr; berr != nil {
		if errors.Is(berr, bundle.ErrAborted) || errors.Is(berr, scan.ErrAborted) {
			return WithExitCode(ExitIncomplete, berr)
		}
		return WithExitCode(ExitError, berr)
	}
	return out.ReportErr
}

// partialExit raises the exit status of a partial offline input to
// ExitIncomplete unless it already reports something more severe.
func (p *Pipeline) partialExit(err error) error {
	if !p.Partial {
		return err
	}
	var ec *exitCodeError
	if err == nil || errors.As(err, &ec) && ec.err == nil && (ec.code == ExitWarning || ec.code == ExitOK) {
		return WithExitCode(ExitIncomplete, nil)
	}
	return err
}

// present writes the report and maps it to the exit status.
func (p *Pipeline) present(a *Analysis) error {
	if err := writeReport(p.IO.Out, p.Report.Output, a.Report, p.IO.StdoutTTY, p.Getenv, p.Report.ShowSuppressed, p.Report.Details); err != nil {
		return err
	}
	if code := exitCodeFor(a.Report, p.Report.failOn); code != ExitOK {
		return WithExitCode(code, nil)
	}
	return nil
}

// writeReport renders the report in the chosen format.
// Suppressed findings are counted always and listed only with showSuppressed.
func writeReport(w io.Writer, format string, r *report.Report, color bool, getenv func(string) string, showSuppressed bool, details ...bool) error {
	if format != "text" && format != "" && !showSuppressed && len(r.Suppressed) > 0 {
		c := *r
		c.Suppressed = nil
		r = &c
	}
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "markdown":
		return report.WriteMarkdown(w, r)
	case "html":
		return report.WriteHTML(w, r)
	case "junit":
		return report.WriteJUnit(w, r)
	case "sarif":
		return report.WriteSARIF(w, r)
	case "text", "":
		return report.WriteText(w, r, report.TextOptions{Color: color && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb",
			ShowSuppressed: showSuppressed, Details: len(details) > 0 && details[0], Width: textWidth(getenv)})
	}
	return fmt.Errorf("unknown output format %q", format)
}

// textWidth is the text report's width: COLUMNS when it holds one (40 to
// 500), else 80.
func textWidth(getenv func(string) string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n >= 40 && n <= 500 {
		return n
	}
	return 80
}

// exitCodeFor maps a report to the documented exit codes: critical findings
// (4) first, then incomplete collection (5), then warnings or info at or
// above --fail-on (3).
func exitCodeFor(r *report.Report, failOn checks.Severity) int {
	rank := failOn.Rank()
	switch {
	case r.Summary.Critical > 0 && rank <= checks.Critical.Rank():
		return ExitCritical
	case r.Incomplete():
		return ExitIncomplete
	case (r.Summary.Warning > 0 || r.Summary.CollectionFailed > 0) && rank <= checks.Warning.Rank():
		// COLLECTION_FAILED (a warning) is counted apart from the problems
		// since schema 1.2; an output that could not be parsed still exits 3.
		return ExitWarning
	case r.Summary.Info > 0 && rank <= checks.Info.Rank():
		return ExitWarning
	case r.VerdictClass() == "nothing_checked":
		// Nothing could be checked (a guests-only scan whose guests gave
		// nothing to evaluate): never "OK".
		return ExitIncomplete
	}
	return ExitOK
}

// parseHosts splits a --hosts value: comma- or space-separated host[:port].
func parseHosts(v string) ([]hostio.Target, error) {
	var out []hostio.Target
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		t, err := parseTarget(f)
		if err != nil {
			return nil, err
		}
		if !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	return out, nil
}

func parseTarget(s string) (hostio.Target, error) {
	s = strings.TrimSpace(s)
	if err := checkHostBytes(s); err != nil {
		return hostio.Target{}, err
	}
	if s == "" || strings.ContainsAny(s, "/\\@ '\"`$;|&") {
		return hostio.Target{}, usageError("invalid host %q: expected name, name:port, IPv4 or [IPv6]:port", s)
	}
	if host, port, err := net.SplitHostPort(s); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
			return hostio.Target{}, usageError("invalid host %q: the port must be a number from 1 to 65535 after a host name or address", s)
		}
	}
	return hostio.Target{Name: s}, nil
}

// homeDir returns the user's home for default paths.
func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return h
}
