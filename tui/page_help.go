package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpPage lists every key, grouped. It opens over any page (? again or
// esc closes it) and takes every key but quit while it is open: only ↑↓
// and the mouse wheel scroll it.
type helpPage struct {
	position
	s *shared
}

func newHelpPage(s *shared) *helpPage { return &helpPage{s: s} }

func (p *helpPage) Update(msg tea.Msg) (page, tea.Cmd) {
	k := p.s.keys
	switch {
	case is(msg, k.Help, k.Back):
		return nil, nil
	case is(msg, k.Down):
		p.move(1)
	case is(msg, k.Up):
		p.move(-1)
	}
	if msg, ok := msg.(tea.MouseWheelMsg); ok {
		p.move(wheel(msg))
	}
	return p, nil
}

// move scrolls; View keeps the end in range.
func (p *helpPage) move(d int) { p.offset = max(p.offset+d, 0) }

// clamp: the help keeps its scroll in range as it draws.
func (p *helpPage) clamp() {}

func (p *helpPage) host() string { return "" }

func (p *helpPage) crumbs(trail []string) []string { return append(trail, "help") }

func (p *helpPage) hints() []key.Binding {
	k := p.s.keys
	return []key.Binding{k.Back, k.Down, k.Up}
}

func (p *helpPage) View() []string {
	out := []string{" " + stBold.Render("Keys") + stDim.Render("  (esc or ? closes, j/k scroll; the footer of each screen shows the keys that lead on)"), ""}
	groups := p.s.keys.groups()
	// Lay the groups out as columns, as many per row as fit.
	var blocks []string
	for i, g := range groups {
		col := p.s.help.FullHelpView([][]keyBinding{g})
		blocks = append(blocks, stLabel.Render(groupTitles[i])+"\n"+col)
	}
	var row []string
	rowW := 0
	flush := func() {
		if len(row) == 0 {
			return
		}
		joined := lipgloss.JoinHorizontal(lipgloss.Top, row...)
		for _, l := range strings.Split(joined, "\n") {
			out = append(out, " "+l)
		}
		out = append(out, "")
		row, rowW = nil, 0
	}
	for _, b := range blocks {
		bw := lipgloss.Width(b) + 4
		if rowW > 0 && rowW+bw > p.s.width-1 {
			flush()
		}
		row = append(row, lipgloss.NewStyle().PaddingRight(4).Render(b))
		rowW += bw
	}
	flush()
	out = append(out,
		" "+stDim.Render("Lists: enter opens the selected host or finding. A finding shows why it matters, the fix"),
		" "+stDim.Render("and the command output it was read from, with the evidence line highlighted."))
	off := clampInt(p.offset, 0, max(len(out)-p.s.bodyHeight(), 0))
	p.offset = off
	return out[off:]
}
