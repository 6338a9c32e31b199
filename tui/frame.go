package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The frame around every page: the breadcrumb at the top, the status line
// and the footer with the keys that lead on.

// View implements tea.Model.
func (m *Model) View() tea.View {
	if !m.reuseFrame {
		m.frame = m.render()
	}
	m.reuseFrame = false
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "pvrdma-doctor"
	return v
}

// render draws the whole screen: exactly height lines of exactly width cells.
func (m *Model) render() string {
	w := m.width
	var body []string
	if m.overlay != nil {
		body = pageView(m.overlay, w)
	} else {
		body = pageView(m.page(), w)
	}
	bh := m.bodyHeight()
	if len(body) > bh {
		body = body[:bh]
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.headerLine())
	for _, l := range body {
		lines = append(lines, fit(l, w))
	}
	for len(lines) < 1+bh {
		lines = append(lines, strings.Repeat(" ", max(w, 0)))
	}
	for _, l := range m.statusLines(m.top().filter) {
		lines = append(lines, fit(l, w))
	}
	lines = append(lines, fit(m.footerLine(), w))
	if len(lines) > m.height && m.height > 0 {
		lines = lines[len(lines)-m.height:]
	}
	return strings.Join(lines, "\n")
}

// headerLine is the breadcrumb: where the user is, and the scan's progress.
func (m *Model) headerLine() string {
	crumbs := []string{"pvrdma-doctor"}
	for _, p := range m.stack {
		crumbs = p.crumbs(crumbs)
	}
	if m.overlay != nil {
		crumbs = m.overlay.crumbs(crumbs)
	}
	left := " " + strings.Join(crumbs, " › ")
	right := m.progressText() + " "
	w := m.width
	if ansi.StringWidth(left)+ansi.StringWidth(right)+1 > w {
		right = ""
	}
	return stHeader.Render(fit(left, w-ansi.StringWidth(right)) + right)
}

// progressText summarizes collection: "collecting 3/5" or "5 hosts".
func (m *Model) progressText() string {
	done, failed := 0, 0
	for _, r := range m.rows {
		switch r.phase {
		case hostio.PhaseDone:
			done++
		case hostio.PhaseFailed:
			failed++
		}
	}
	n := len(m.rows)
	if done+failed < n {
		return fmt.Sprintf("collecting: %d of %d hosts finished", done+failed, n)
	}
	what := fmt.Sprintf("%d hosts", n)
	guests := 0
	for _, r := range m.rows {
		if r.result != nil && r.result.Role == hostio.RoleGuest {
			guests++
		}
	}
	if guests > 0 {
		what = fmt.Sprintf("%d hosts, %d guests", n-guests, guests)
	}
	if m.analyzing || m.dirty {
		return what + " · analyzing"
	}
	if m.opts.Rescan == nil && len(m.opts.Results) > 0 {
		return what + " analyzed"
	}
	return what + " scanned"
}

// footerLine hints the keys that lead on from the current screen, as many
// as fit, most important first; help and quit are always shown, at the
// right.
func (m *Model) footerLine() string {
	h := m.help
	h.SetWidth(0) // no truncation: the keys that do not fit are left out
	right := h.ShortHelpView([]keyBinding{m.keys.Help, m.keys.Quit})
	var cands []keyBinding
	if m.overlay != nil {
		cands = m.overlay.hints()
	} else {
		for _, b := range m.page().hints() {
			// Do not hint actions this run cannot do (help still lists them).
			switch b.Help().Key {
			case "r", "R":
				if m.opts.Rescan == nil {
					continue
				}
			case "b":
				if m.opts.ExportBundle == nil {
					continue
				}
			}
			cands = append(cands, b)
		}
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%d %t", m.width, m.keys.Help.Enabled() && m.keys.Quit.Enabled())
	for _, b := range cands {
		fmt.Fprintf(&key, "\x00%s\x01%s\x01%t", b.Help().Key, b.Help().Desc, b.Enabled())
	}
	if key.String() == m.footerKey {
		return m.footer
	}
	room := m.width - ansi.StringWidth(right) - 2
	var ctx []keyBinding
	for _, b := range cands {
		if ansi.StringWidth(h.ShortHelpView(append(ctx, b))) > room {
			break // strictly by importance: the rest is in help
		}
		ctx = append(ctx, b)
	}
	left := h.ShortHelpView(ctx)
	line := left
	if gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right); gap >= 1 {
		line = left + strings.Repeat(" ", gap) + right
	}
	m.footer, m.footerKey = line, key.String()
	return line
}
