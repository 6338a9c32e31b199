// Package tui is the interactive troubleshooting UI (Bubble Tea v2). It is
// read-only: it never collects, parses, runs rules or changes a host. The
// cli injects everything it shows (a stream of hostio.Event, a function
// that analyzes results) and every action it offers (rescan, export a
// support bundle).
//
// The root model (Model, model.go) routes between pages: one file per
// screen (page_overview.go, page_host.go, page_finding.go and its
// evidence pane page_evidence.go, page_topology.go, page_plan.go,
// page_help.go), each its own model behind the page interface (page.go). The state the pages read
// (injected data and actions, size, hosts, analysis, toggles, status line)
// is in state.go; the frame around every page (breadcrumb, status line,
// footer) in frame.go; text helpers in text.go, table cells in table.go,
// styles in styles.go. A new screen is a page type, a key (keys.go) that
// the root or a page turns into it, and its hints.
package tui

// The screen goldens (testdata) are regenerated with make generate, which names each golden it changes
// (go test in local directory mode shows what the tests print).
//go:generate go test -count=1 -run ^(TestScreens|TestMatrixScreens|TestProgramLiveScanToFix)$ -update

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Options are the data and actions the cli injects.
type Options struct {
	// Title says where the data comes from (report.Meta.Source).
	Title string
	// Hosts are the scanned hosts in the order the user gave them. Hosts
	// that appear only in events or Results are appended.
	Hosts []string
	// Results are already-complete results (offline runs: analyze, bundles).
	// Live runs leave it empty and stream events through Program.Send.
	Results []hostio.HostResult
	// Analyze turns the results collected so far (in host order) into a
	// report and the facts it was built from. It is called off the UI loop
	// and must not keep the slice it is given.
	Analyze func([]hostio.HostResult) (*report.Report, *facts.Fleet)
	// Rescan re-runs collection for the given hosts and streams their events
	// through Program.Send again; it returns when that collection ends. Nil
	// means rescanning is not possible (offline data).
	Rescan func(ctx context.Context, hosts []string)
	// ExportBundle writes a support bundle of the current run to path. Nil
	// means bundles are not available in this build.
	ExportBundle func(path string) error
	// BundlePath is the path proposed when exporting a bundle.
	BundlePath string
	// Input and Output are the terminal streams (default stdin, stdout).
	Input  io.Reader
	Output io.Writer
	// ProgramOptions are passed to tea.NewProgram after the streams (tests
	// set the window size, for example).
	ProgramOptions []tea.ProgramOption
}

// EventMsg carries one collection event into the UI.
type EventMsg hostio.Event

// Program is a running (or ready to run) TUI.
type Program struct {
	prog  *tea.Program
	model *Model
}

// New builds the UI; call Run to show it and Send to feed it events.
func New(ctx context.Context, opts Options) *Program {
	m := NewModel(ctx, opts)
	// The size of a real terminal replaces this; other outputs (pipes in
	// tests) render at the smallest supported size.
	popts := []tea.ProgramOption{tea.WithWindowSize(80, 24)}
	if ctx != nil {
		popts = append(popts, tea.WithContext(ctx))
	}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	prog := tea.NewProgram(m, popts...)
	m.feed = newProgressFeed(func() { prog.Send(progressMsg{}) })
	return &Program{prog: prog, model: m}
}

// Send delivers a collection event to the UI, so it fits
// collect.Options.Progress: it only updates the progress the UI takes in
// once a frame (at most one message per frame wakes the UI; it blocks only
// until the UI takes that message, and not once the UI has quit).
func (p *Program) Send(ev hostio.Event) { p.model.feed.add(ev) }

// Run shows the UI until the user quits (or the context given to New ends).
func (p *Program) Run() error {
	_, err := p.prog.Run()
	return err
}
