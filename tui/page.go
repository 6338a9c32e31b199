package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// page is one screen: the overview, a host's findings, a finding with its
// evidence, a host's topology or fix plan, the help. Each page keeps its
// own place (selection, scroll, filter) and reads everything else from
// the shared state.
//
// The root model (Model) owns the navigation stack, the status line and
// the keys every screen shares (quit, help, back, filter, severity
// toggles, topology, fix plan, rescan, bundle). It turns the movement keys
// and the mouse wheel into a move, passes a page the other keys, and draws
// the page's body between the breadcrumb and the status line.
type page interface {
	// Update handles a message the root passes on and returns the page to
	// show next: the page itself, a new page to open on top of it, or nil
	// to close it.
	Update(msg tea.Msg) (page, tea.Cmd)
	// View draws the body: at most bodyHeight lines, each of which the
	// root fits to the width.
	View() []string
	// move moves the selection (lists) or the scroll by d rows: the root
	// turns the movement keys and the mouse wheel into d.
	move(d int)
	// pos is where the user is on the page; the root sets the list filter
	// from the filter prompt and shows it on the status line.
	pos() *position
	// clamp keeps the selection and the scroll in range after the data,
	// the size or the filter changed.
	clamp()
	// host is the host the page is about (the selected one on the
	// overview), or "".
	host() string
	// crumbs appends the page's part of the breadcrumb to trail.
	crumbs(trail []string) []string
	// hints are the keys that lead on from the page, most important first
	// (the footer shows as many as fit).
	hints() []key.Binding
}

// position is where the user is on a page.
type position struct {
	cursor int    // selected row (lists)
	offset int    // first row shown
	filter string // the / filter (lists)
}

func (p *position) pos() *position { return p }

// clampList keeps the selection among n rows and in the rows shown.
func (p *position) clampList(n, rows int) {
	p.cursor = clampInt(p.cursor, 0, n-1)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
	p.offset = clampInt(p.offset, 0, n-rows)
}

// window returns the lines of a scrolled page that fit in height rows.
func (p *position) window(lines []string, height int) []string {
	end := min(p.offset+height, len(lines))
	if p.offset >= end {
		return nil
	}
	return lines[p.offset:end]
}

func clampInt(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// delta is how far a movement key or the mouse wheel moves the selection
// (lists) or the scroll (other pages); ok is false for any other message.
func (s *shared) delta(msg tea.Msg) (d int, ok bool) {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		d = wheel(msg)
		return d, d != 0
	case tea.KeyPressMsg:
		k := s.keys
		switch {
		case key.Matches(msg, k.Up):
			return -1, true
		case key.Matches(msg, k.Down):
			return 1, true
		case key.Matches(msg, k.PageUp):
			return -s.pageSize(), true
		case key.Matches(msg, k.PageDown):
			return s.pageSize(), true
		case key.Matches(msg, k.Top):
			return -1 << 30, true
		case key.Matches(msg, k.Bottom):
			return 1 << 30, true
		}
	}
	return 0, false
}

// wheel is how far the mouse wheel scrolls: three rows a notch.
func wheel(msg tea.MouseWheelMsg) int {
	switch msg.Button {
	case tea.MouseWheelUp:
		return -3
	case tea.MouseWheelDown:
		return 3
	}
	return 0
}

// is reports whether msg is a key press of one of the bindings.
func is(msg tea.Msg, b ...key.Binding) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && key.Matches(k, b...)
}
