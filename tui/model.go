package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Model is the Bubble Tea model of the UI: the root that routes between
// pages. It keeps the navigation stack (esc pops it, so the user always
// comes back to where they were), the help over it, the prompts on the
// status line and the keys every page shares; every other key goes to the
// page on top.
type Model struct {
	*shared
	stack []page
	// overlay is the help while it is open, over the page on top.
	overlay page

	// frame is the last screen View drew; reuseFrame says nothing has
	// changed since (a progressMsg only schedules the next frame), so
	// View returns it instead of drawing the same screen again.
	frame      string
	reuseFrame bool
	// footer and footerKey memoise footerLine: its key hints are measured
	// by rendering them, which costs more than the rest of a frame.
	footer, footerKey string
}

// NewModel builds the model; Program wraps it, tests drive it directly.
func NewModel(ctx context.Context, opts Options) *Model {
	s := newShared(ctx, opts)
	m := &Model{shared: s, stack: []page{newOverviewPage(s)}}
	for _, h := range opts.Hosts {
		s.row(h)
	}
	for i := range opts.Results {
		r := opts.Results[i]
		row := s.row(r.Host)
		row.result = &r
		row.phase = hostio.PhaseDone
		if r.Status == hostio.StatusNotCollected {
			row.phase = hostio.PhaseFailed
			row.err = r.Reason
		}
	}
	if len(opts.Results) > 0 && opts.Analyze != nil {
		// Offline data is complete: show it analyzed from the first frame.
		s.gen++
		s.apply(s.runAnalysis(s.gen)().(analysisMsg))
	}
	return m
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// page is the page on top of the stack.
func (m *Model) page() page { return m.stack[len(m.stack)-1] }

// top is where the user is on the page on top of the stack.
func (m *Model) top() *position { return m.page().pos() }

// push opens p on top of the stack.
func (m *Model) push(p page) { m.stack = append(m.stack, p) }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.page().clamp()
	case EventMsg:
		return m, m.onEvent(hostio.Event(msg))
	case progressMsg:
		m.reuseFrame = m.frame != ""
		return m, m.tick()
	case frameMsg:
		return m, m.onFrame()
	case analysisMsg:
		m.analyzing = false
		m.apply(msg)
		m.page().clamp()
		if m.dirty {
			return m, m.requestAnalysis()
		}
	case bundleMsg:
		m.status = msg.status()
		m.page().clamp()
	case rescanDoneMsg:
		m.status = "rescan of " + joinMax(msg.hosts, 3) + " finished"
	case tea.MouseWheelMsg:
		if m.overlay != nil {
			return m, m.forward(msg)
		}
		if d, ok := m.delta(msg); ok {
			m.page().move(d)
		}
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.PasteMsg:
		if m.mode != inputNone {
			m.input.insert(msg.Content)
			m.syncFilter()
		}
	}
	return m, nil
}

// forward hands a key to the help when it is open, else to the page on
// top, and opens or closes the page it returns.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	if m.overlay != nil {
		next, cmd, failed := pageUpdate(m.overlay, msg)
		m.overlay = next
		if failed != "" {
			m.status = failed
		}
		return cmd
	}
	top := m.page()
	next, cmd, failed := pageUpdate(top, msg)
	if failed != "" {
		m.status = failed
	}
	switch {
	case next == nil:
		m.pop()
	case next != top:
		m.push(next)
	}
	return cmd
}

// pop closes the page on top (never the overview).
func (m *Model) pop() {
	if len(m.stack) > 1 {
		m.stack = m.stack[:len(m.stack)-1]
		m.page().clamp()
	}
}

// onKey handles the keys every page shares (movement becomes a move of
// the page on top) and passes the others on.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.Code == tea.KeyEscape && msg.Mod == tea.ModAlt {
		// Two quick Escapes reach the program as one alt+esc (the
		// terminal sends ESC ESC): they close two levels, as two
		// separate presses would.
		esc := tea.KeyPressMsg{Code: tea.KeyEscape}
		cmd := m.onKey(esc)
		return tea.Batch(cmd, m.onKey(esc))
	}
	if m.mode != inputNone {
		return m.onInputKey(msg)
	}
	k := m.keys
	m.status = ""
	if key.Matches(msg, k.Quit) {
		return tea.Quit
	}
	if m.overlay != nil {
		return m.forward(msg)
	}
	top := m.page()
	if mp, ok := top.(*matrixPage); ok && mp.horizontal(msg) {
		return nil
	}
	if d, ok := m.delta(msg); ok {
		top.move(d)
		return nil
	}
	switch {
	case key.Matches(msg, k.Help):
		m.overlay = newHelpPage(m.shared)
	case key.Matches(msg, k.Back):
		if pos := m.top(); pos.filter != "" {
			pos.filter = ""
			top.clamp()
		} else {
			m.pop()
		}
	case key.Matches(msg, k.Topology):
		if _, on := top.(*topologyPage); !on && top.host() != "" {
			m.push(newTopologyPage(m.shared, top.host()))
		}
	case key.Matches(msg, k.Matrix):
		if _, on := top.(*matrixPage); !on {
			m.push(newMatrixPage(m.shared))
		}
	case key.Matches(msg, k.Readiness):
		if _, on := top.(*readinessPage); !on {
			m.push(newReadinessPage(m.shared))
		}
	case key.Matches(msg, k.Plan):
		if _, on := top.(*planPage); !on && top.host() != "" {
			m.push(newPlanPage(m.shared, top.host()))
		}
	case key.Matches(msg, k.Filter):
		switch top.(type) {
		case *overviewPage, *hostPage:
			m.mode = inputFilter
			m.input.SetValue(m.top().filter)
		default:
			m.status = "filter works on the host and finding lists"
		}
	case key.Matches(msg, k.Critical):
		m.toggle(checks.Critical)
	case key.Matches(msg, k.Warning):
		m.toggle(checks.Warning)
	case key.Matches(msg, k.Info):
		m.toggle(checks.Info)
	case key.Matches(msg, k.Copy):
		if _, on := top.(*findingPage); !on {
			m.status = "open a finding to copy its fix"
			return nil
		}
		return m.forward(msg)
	case key.Matches(msg, k.Rescan):
		if h := top.host(); h != "" {
			return m.rescan([]string{h})
		}
		m.status = "no host selected"
	case key.Matches(msg, k.RescanAll):
		names := make([]string, len(m.rows))
		for i, r := range m.rows {
			names[i] = r.name
		}
		return m.rescan(names)
	case key.Matches(msg, k.Bundle):
		if m.opts.ExportBundle == nil {
			m.status = "support bundle export is not available for this run"
			return nil
		}
		m.mode = inputBundle
		path := m.opts.BundlePath
		if path == "" {
			path = "pvrdma-doctor-bundle.tar.gz"
		}
		m.input.SetValue(path)
	default:
		return m.forward(msg)
	}
	return nil
}

// onInputKey edits the prompt on the status line: the filter (applied as
// it is typed) or the bundle path.
func (m *Model) onInputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		return tea.Quit
	case "esc":
		if m.mode == inputFilter {
			m.top().filter = ""
			m.page().clamp()
		}
		m.mode = inputNone
		return nil
	case "enter":
		mode := m.mode
		m.mode = inputNone
		if mode == inputBundle {
			return m.writeBundle(strings.TrimSpace(m.input.Value()))
		}
		return nil
	}
	if m.input.Update(msg) {
		m.syncFilter()
	}
	return nil
}

// syncFilter applies the filter as it is typed.
func (m *Model) syncFilter() {
	if m.mode != inputFilter {
		return
	}
	pos := m.top()
	pos.filter = m.input.Value()
	pos.cursor, pos.offset = 0, 0
	m.page().clamp()
}

func (m *Model) toggle(s checks.Severity) {
	m.showSev[s] = !m.showSev[s]
	m.page().clamp()
}
