package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// shared is the state every page reads, in one place: what the cli
// injected (data and actions), the terminal size, the hosts and their
// collection progress, the latest analysis, the severity toggles and the
// status line. The root model (Model) changes it as messages arrive;
// pages read it, and set the status after an action of their own.
type shared struct {
	ctx  context.Context
	opts Options
	keys keyMap
	help help.Model

	width, height int

	rows  []*hostRow
	index map[string]int
	// version counts the hosts added and the analyses applied: pages
	// cache what they derive from rows and analysis under it.
	version int

	// The latest analysis and what was derived from it.
	rep       *report.Report
	fleet     *facts.Fleet
	repHosts  map[string]int              // host -> index in rep.Hosts
	repGuests map[string]int              // guest -> index in rep.Guests
	byHost    map[string][]checks.Finding // host -> findings (fail and not evaluated)
	factsHost map[string]*facts.Host

	gen, appliedGen int  // analysis generations requested / applied
	analyzing       bool // an analysis is running
	dirty           bool // results changed since the running analysis started

	showSev map[checks.Severity]bool

	// feed is the live collection's progress (Program.Send), taken in
	// once a frame; tick schedules that frame (frameTick; tests: theirs).
	feed *progressFeed
	tick func() tea.Cmd

	// The status line: a prompt being typed, or the result of the last
	// action (cleared by the next key).
	mode   inputMode
	input  lineInput
	status string
}

// hostRow is one host as the UI knows it: its collection progress and its
// latest finished result.
type hostRow struct {
	name   string
	phase  hostio.Phase
	done   int
	total  int
	err    string
	result *hostio.HostResult
}

// inputMode says what the text input is for.
type inputMode int

const (
	inputNone inputMode = iota
	inputFilter
	inputBundle
)

// analysisMsg carries a finished analysis back into the UI loop.
type analysisMsg struct {
	gen   int
	rep   *report.Report
	fleet *facts.Fleet
}

func newShared(ctx context.Context, opts Options) *shared {
	if ctx == nil {
		ctx = context.Background()
	}
	s := &shared{
		ctx: ctx, opts: opts, keys: newKeyMap(), help: help.New(),
		width: 80, height: 24,
		index:   map[string]int{},
		showSev: map[checks.Severity]bool{checks.Critical: true, checks.Warning: true, checks.Info: true},
		tick:    frameTick,
	}
	s.help.Styles = help.DefaultDarkStyles()
	return s
}

// row returns the host's row, adding it when new.
func (s *shared) row(name string) *hostRow {
	if i, ok := s.index[name]; ok {
		return s.rows[i]
	}
	r := &hostRow{name: name, phase: hostio.PhaseQueued}
	s.index[name] = len(s.rows)
	s.rows = append(s.rows, r)
	s.version++
	return r
}

// results returns the finished results in host order.
func (s *shared) results() []hostio.HostResult {
	out := make([]hostio.HostResult, 0, len(s.rows))
	for _, r := range s.rows {
		if r.result != nil {
			out = append(out, *r.result)
		}
	}
	return out
}

// onEvent records a collection event.
func (s *shared) onEvent(ev hostio.Event) tea.Cmd {
	r := s.row(ev.Host)
	r.phase, r.done, r.total, r.err = ev.Phase, ev.Done, ev.Total, ev.Err
	if ev.Result != nil {
		res := *ev.Result
		r.result = &res
		if s.collecting() {
			// One analysis when the collection ends, not one per host:
			// the hosts still being collected would change its verdict.
			s.dirty = true
			return nil
		}
		return s.requestAnalysis()
	}
	return nil
}

// collecting reports whether a host is still queued or being collected.
func (s *shared) collecting() bool {
	for _, r := range s.rows {
		if r.phase != hostio.PhaseDone && r.phase != hostio.PhaseFailed {
			return true
		}
	}
	return false
}

// runAnalysis returns a command that analyzes a snapshot of the results.
func (s *shared) runAnalysis(gen int) tea.Cmd {
	res := s.results()
	analyze := s.opts.Analyze
	return func() tea.Msg {
		rep, fleet := analyze(res)
		return analysisMsg{gen: gen, rep: rep, fleet: fleet}
	}
}

// requestAnalysis starts an analysis, or marks one as needed when one is
// already running (so a burst of finished hosts costs one or two runs).
func (s *shared) requestAnalysis() tea.Cmd {
	if s.opts.Analyze == nil {
		return nil
	}
	if s.analyzing {
		s.dirty = true
		return nil
	}
	s.analyzing = true
	s.dirty = false
	s.gen++
	return s.runAnalysis(s.gen)
}

// apply installs an analysis.
func (s *shared) apply(a analysisMsg) {
	if a.gen <= s.appliedGen || a.rep == nil {
		return
	}
	s.appliedGen = a.gen
	s.rep, s.fleet = a.rep, a.fleet
	s.repHosts = make(map[string]int, len(a.rep.Hosts))
	for i, h := range a.rep.Hosts {
		s.repHosts[h.Host] = i
	}
	s.repGuests = make(map[string]int, len(a.rep.Guests))
	for i, g := range a.rep.Guests {
		s.repGuests[g.Host] = i
	}
	s.byHost = map[string][]checks.Finding{}
	for _, f := range a.rep.Findings {
		s.byHost[f.Host] = append(s.byHost[f.Host], f)
	}
	s.factsHost = map[string]*facts.Host{}
	if a.fleet != nil {
		for i := range a.fleet.Hosts {
			s.factsHost[a.fleet.Hosts[i].Host] = &a.fleet.Hosts[i]
		}
	}
	s.version++
}

func (s *shared) reportHost(name string) (*report.Host, bool) {
	if s.rep == nil {
		return nil, false
	}
	i, ok := s.repHosts[name]
	if !ok {
		if g, ok := s.repGuests[name]; ok {
			return &s.rep.Guests[g], true
		}
		return nil, false
	}
	return &s.rep.Hosts[i], true
}

// capture is the output of command in the host's latest result.
func (s *shared) capture(host, command string) (hostio.Capture, bool) {
	if i, ok := s.index[host]; ok && s.rows[i].result != nil {
		return s.rows[i].result.Find(command)
	}
	return hostio.Capture{}, false
}

func finished(p hostio.Phase) bool { return p == hostio.PhaseDone || p == hostio.PhaseFailed }

// collectionText is a host's collection state in a few words.
func collectionText(r *hostRow) string {
	switch r.phase {
	case hostio.PhaseCollecting, hostio.PhaseProbing:
		if r.total > 0 {
			verb := "collecting"
			if r.phase == hostio.PhaseProbing {
				verb = "probing"
			}
			return fmt.Sprintf("%s %d of %d", verb, r.done, r.total)
		}
	case hostio.PhaseDone:
		if r.result != nil {
			switch r.result.Status {
			case hostio.StatusPartial:
				return "partial"
			case hostio.StatusNotCollected:
				return "failed"
			}
			d := r.result.Duration
			if d == 0 {
				return "collected" // offline data: no timing
			}
			if d < time.Second {
				return "done " + d.Round(time.Millisecond).String()
			}
			return "done " + d.Round(100*time.Millisecond).String()
		}
	case hostio.PhaseFailed:
		return "failed"
	}
	return string(r.phase)
}

// bodyHeight is the number of rows between the header and the status line.
func (s *shared) bodyHeight() int {
	if h := s.height - 2 - len(s.statusText()); h > 1 {
		return h
	}
	return 1
}

// pageSize is how far page up and page down move.
func (s *shared) pageSize() int {
	if p := s.bodyHeight() - 3; p > 1 {
		return p
	}
	return 1
}

// statusText is the last message wrapped onto up to four lines (a long
// message, such as the bundle's paths, wraps rather than being cut), or
// one line for the prompt or the toggles.
func (s *shared) statusText() []string {
	if s.mode != inputNone || s.status == "" {
		return []string{""}
	}
	lines := wrap(s.status, max(s.width-2, 1))
	if len(lines) > 4 {
		lines = lines[:4]
	}
	return lines
}

// statusLines is the status line; filter is the current page's list
// filter.
func (s *shared) statusLines(filter string) []string {
	if s.mode != inputNone || s.status == "" {
		return []string{s.statusLine(filter)}
	}
	lines := s.statusText()
	for i := range lines {
		lines[i] = stBold.Render(" " + lines[i])
	}
	return lines
}

// statusLine shows the input being typed, the last message, or the filters.
func (s *shared) statusLine(filter string) string {
	switch s.mode {
	case inputFilter:
		return stLabel.Render("filter: ") + s.input.View() + stDim.Render("  enter: keep · esc: clear")
	case inputBundle:
		return stLabel.Render("write support bundle to: ") + s.input.View() + stDim.Render("  enter: write · esc: cancel")
	}
	if s.status != "" {
		return stBold.Render(" " + sanitize(s.status))
	}
	// The severity toggles, keys in brackets so that they never read as
	// counts ("1 critical" would).
	var parts []string
	for i, sev := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		mark := "shown"
		st := sevStyle(sev)
		if !s.showSev[sev] {
			mark, st = "hidden", stDim
		}
		parts = append(parts, st.Render(fmt.Sprintf("[%d] %s: %s", i+1, sev, mark)))
	}
	line := " " + strings.Join(parts, stDim.Render(" · "))
	if filter != "" {
		line += stDim.Render(" · ") + stLabel.Render("filter: ") + sanitize(filter) + stDim.Render(" (esc clears)")
	}
	return line
}
