package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
	"github.com/pvrdma-doctor/pvrdma-doctor/tui"
)

// useTUI reports whether the run lands in the interactive UI: no --output
// and both stdin and stdout are terminals.
func (p *Pipeline) useTUI() bool {
	return p.Report.Output == "" && p.IO.StdoutTTY && p.IO.StdinTTY
}

// tuiRun is one TUI session: it keeps the latest result of every host (from
// the first scan and from rescans) so that the exit status and bundles
// reflect what the user saw last.
type tuiRun struct {
	p      *Pipeline
	ctx    context.Context
	send   func(hostio.Event)
	mu     sync.Mutex
	latest map[string]hostio.HostResult
	order  []string // hosts in first-seen order: targets, offline results, events
	closed bool
	active sync.WaitGroup
}

// progress records finished hosts and forwards every event to the UI.
func (r *tuiRun) progress(ev hostio.Event) {
	if ev.Result != nil {
		r.mu.Lock()
		r.record(*ev.Result)
		r.mu.Unlock()
	}
	r.send(ev)
}

// record keeps a host's latest result; r.mu must be held.
func (r *tuiRun) record(res hostio.HostResult) {
	if _, ok := r.latest[res.Host]; !ok && !r.known(res.Host) {
		r.order = append(r.order, res.Host)
	}
	r.latest[res.Host] = res
}

func (r *tuiRun) known(host string) bool {
	for _, h := range r.order {
		if h == host {
			return true
		}
	}
	return false
}

// results returns the latest results in host order.
func (r *tuiRun) results() []hostio.HostResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]hostio.HostResult, 0, len(r.latest))
	for _, h := range r.order {
		if res, ok := r.latest[h]; ok {
			out = append(out, res)
		}
	}
	return out
}

// collect runs one collection of the given targets, streaming events to the
// UI; it does nothing once the UI has quit.
func (r *tuiRun) collect(targets []hostio.Target, peers []hostio.HostResult) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.active.Add(1)
	r.mu.Unlock()
	defer r.active.Done()
	opts := r.p.Collect
	opts.Peers = peers
	opts.Progress = r.progress
	if stderrTTY(r.p.IO) {
		// Log lines on the terminal would tear the UI apart; the UI shows
		// every host's state and failure itself.
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	scan.Collect(r.ctx, targets, opts)
}

// rescan re-collects the named hosts (the UI's Rescan action).
func (r *tuiRun) rescan(_ context.Context, hosts []string) {
	want := map[string]bool{}
	for _, h := range hosts {
		want[h] = true
	}
	var targets []hostio.Target
	for _, t := range r.p.Targets {
		if want[t.Name] {
			targets = append(targets, t)
		}
	}
	if len(targets) > 0 {
		// The other hosts' latest results let the rescanned hosts probe
		// their paths to them again without reconnecting to them.
		var peers []hostio.HostResult
		for _, res := range r.results() {
			if !want[res.Host] {
				peers = append(peers, res)
			}
		}
		r.collect(targets, peers)
	}
}

// runTUI runs the interactive UI. Live runs (offline == nil) collect in the
// background while the user browses; offline runs show the given results.
// After the user quits, collection still running is cancelled (those hosts
// count as not collected), an analysis still running stops at its next
// host, and the exit status is that of the last results: the UI's last
// analysis of them when it has one, else a new one.
func (p *Pipeline) runTUI(ctx context.Context, offline []hostio.HostResult) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run := &tuiRun{p: p, ctx: cctx, latest: map[string]hostio.HostResult{}}
	analyses := &tuiAnalyses{p: p, stop: cctx.Done()}
	hosts := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		hosts[i] = t.Name
		if !run.known(t.Name) {
			run.order = append(run.order, t.Name)
		}
	}
	opts := tui.Options{
		Title:      p.Meta.Source,
		Hosts:      hosts,
		Results:    offline,
		Analyze:    analyses.analyze,
		BundlePath: fmt.Sprintf("pvrdma-doctor-bundle-%s.tar.gz", time.Now().Format("20060102-150405")),
		Input:      p.IO.In,
		Output:     p.IO.Out,
	}
	if offline == nil {
		opts.Rescan = run.rescan
	}
	for _, r := range offline {
		run.record(r)
	}
	if p.Bundle != nil {
		opts.ExportBundle = func(path string) error { return p.Bundle(path, run.results()) }
	}
	ui := tui.New(cctx, opts)
	run.send = ui.Send
	if offline == nil {
		go run.collect(p.Targets, nil)
	}
	err := ui.Run()
	run.mu.Lock()
	run.closed = true
	run.mu.Unlock()
	// Quitting stops the background work: the collection (its hosts count
	// as not collected) and a running analysis (at its next host).
	cancel()
	run.active.Wait()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("interactive UI: %w", err)
	}
	// The last results, as the user saw them last, go through the same
	// run as a report: the verdict line, the export, the bundle.
	so := p.scanOptions(ctx, func(a *Analysis) error {
		fmt.Fprintln(p.IO.Out, a.Report.Verdict)
		if code := exitCodeFor(a.Report, p.Report.failOn); code != ExitOK {
			return WithExitCode(code, nil)
		}
		return nil
	})
	so.Results, so.Analysis.Logger = run.results(), nil
	// The UI's last analysis of these very captures is the report: only
	// when there is none (quit while collecting) are they analysed here.
	so.Analysed = analyses.current(so.Results)
	return p.exitOf(scan.Run(ctx, so))
}
