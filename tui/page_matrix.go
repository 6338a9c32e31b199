package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// matrixPage is the measured path matrix of the fleet: hosts x hosts (row:
// from, column: to), each cell the path MTU coloured by what it carries
// (green 9000, yellow less, red blocked or unreachable, orange refused by
// the sender or lossy); ↑↓ and ←→ move the selected cell, enter opens the
// pair's probe evidence. Opened with m from any page.
type matrixPage struct {
	position  // cursor: the row (from host), offset: the first row shown
	s         *shared
	col, col0 int // selected column, first column shown
}

func newMatrixPage(s *shared) *matrixPage { return &matrixPage{s: s} }

// paths is the matrix of the latest analysis (nil without probes).
func (p *matrixPage) paths() *report.Paths {
	if p.s.rep == nil {
		return nil
	}
	return p.s.rep.Paths
}

func (p *matrixPage) hosts() []string {
	if m := p.paths(); m != nil {
		return m.Hosts
	}
	return nil
}

// Update opens the selected pair on enter and moves the column on ←→.
func (p *matrixPage) Update(msg tea.Msg) (page, tea.Cmd) {
	hs := p.hosts()
	if len(hs) == 0 {
		return p, nil
	}
	if is(msg, p.s.keys.Open) && p.cursor != p.col {
		from, to := hs[p.cursor], hs[p.col]
		if p.paths().Pair(from, to) != nil {
			return newPairPage(p.s, from, to), nil
		}
	}
	return p, nil
}

// horizontal moves the selected column on ←/h and →/l (the root asks the
// matrix before it treats them as back and open: on the matrix they only
// ever move the column, even at its edges; esc goes back, enter opens).
func (p *matrixPage) horizontal(msg tea.KeyPressMsg) bool {
	n := len(p.hosts())
	switch msg.String() {
	case "left", "h":
		if p.col == 0 {
			p.s.status = "first column (esc goes back)"
		}
		p.col--
	case "right", "l", "tab":
		if p.col >= n-1 {
			p.s.status = "last column (enter opens the selected pair)"
		}
		p.col++
	default:
		return false
	}
	p.clamp()
	return true
}

func (p *matrixPage) move(d int) {
	p.cursor += d
	p.clamp()
}

// cellW is the width of a column: the longest host name, at least 6.
func (p *matrixPage) cellW() int {
	w := 6
	for _, h := range p.hosts() {
		w = max(w, len(sanitize(h))+1)
	}
	return w
}

func (p *matrixPage) nameW() int {
	w := 7
	for _, h := range p.hosts() {
		w = max(w, len(sanitize(h)))
	}
	return w + 1
}

// colsShown is how many columns fit in the width.
func (p *matrixPage) colsShown() int {
	if n := (p.s.width - 1 - p.nameW()) / p.cellW(); n > 1 {
		return n
	}
	return 1
}

const matrixHead = 3 // title, legend, column header
const matrixFoot = 2 // blank, the selected pair

// note is what the probes did not measure (the RDMA fabric when they ran
// from a vmknic off the PVRDMA vDS), wrapped: it sits under the legend.
func (p *matrixPage) note() []string {
	if m := p.paths(); m != nil && m.NotFabric != "" {
		return wrap(sanitize(m.NotFabric)+".", p.s.width-2)
	}
	return nil
}

func (p *matrixPage) listRows() int {
	if r := p.s.bodyHeight() - matrixHead - matrixFoot - len(p.note()); r > 1 {
		return r
	}
	return 1
}

func (p *matrixPage) clamp() {
	n := len(p.hosts())
	p.clampList(n, p.listRows())
	p.col = clampInt(p.col, 0, n-1)
	shown := p.colsShown()
	if p.col < p.col0 {
		p.col0 = p.col
	}
	if p.col >= p.col0+shown {
		p.col0 = p.col - shown + 1
	}
	p.col0 = clampInt(p.col0, 0, n-shown)
}

func (p *matrixPage) host() string { return "" }

func (p *matrixPage) crumbs(trail []string) []string { return append(trail, "path matrix") }

func (p *matrixPage) hints() []key.Binding {
	k := p.s.keys
	cols := key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←→", "column"))
	return []key.Binding{hint(k.Open, "probes"), hint(k.Back, "back"), k.arrows("row"), cols, hint(k.RescanAll, "rescan all")}
}

// cellStyle colours a cell by path MTU and status.
func cellStyle(x *report.Pair) lipgloss.Style {
	switch {
	case x == nil:
		return stDim
	case x.Status == report.PairBlocked || x.Status == report.PairUnreachable:
		return stCrit
	case x.Status != report.PairOK:
		return stWarn
	case x.PathMTU >= 9000:
		return stOK
	}
	return stInfo
}

func (p *matrixPage) View() []string {
	m := p.paths()
	if m == nil || len(m.Pairs) == 0 {
		return []string{"", " " + stBold.Render("No path probes in this run."),
			" " + stDim.Render("Scan with --probes ring (the default) or --probes all to measure the path MTU between hosts.")}
	}
	p.clamp()
	hs := m.Hosts
	cw, nw := p.cellW(), p.nameW()
	lines := []string{
		" " + stBold.Render(fmt.Sprintf("Path MTU from row to column · fleet minimum %d (%s)", m.FleetMinMTU, sanitize(m.MinPair))),
		" " + stDim.Render("green 9000 · blue less · red ! blocked / -- unreachable · orange < refused by the sender, ~ lossy · . not probed"),
	}
	for _, l := range p.note() {
		lines = append(lines, " "+stWarn.Render(l))
	}
	head := " " + fmt.Sprintf("%-*s", nw, "from\\to")
	end := min(p.col0+p.colsShown(), len(hs))
	for j := p.col0; j < end; j++ {
		name := fmt.Sprintf("%*s", cw, sanitize(hs[j]))
		if j == p.col {
			name = stBold.Render(name)
		}
		head += name
	}
	lines = append(lines, stLabel.Render(head))
	for i := p.offset; i < min(p.offset+p.listRows(), len(hs)); i++ {
		row := fmt.Sprintf("%-*s", nw, sanitize(hs[i]))
		if i == p.cursor {
			row = stBold.Render(row)
		}
		row = " " + row
		for j := p.col0; j < end; j++ {
			text, st := "-", stDim
			if i != j {
				x := m.Pair(hs[i], hs[j])
				text, st = x.Cell(), cellStyle(x)
			}
			cell := fmt.Sprintf("%*s", cw, text)
			if i == p.cursor && j == p.col {
				st = st.Reverse(true)
			}
			row += st.Render(cell)
		}
		lines = append(lines, row)
	}
	lines = append(lines, "", " "+p.selectedLine())
	return lines
}

// selectedLine says what the selected cell measured.
func (p *matrixPage) selectedLine() string {
	hs := p.hosts()
	from, to := hs[p.cursor], hs[p.col]
	if from == to {
		return stDim.Render(sanitize(from) + " to itself: not probed")
	}
	x := p.paths().Pair(from, to)
	if x == nil {
		return stDim.Render(fmt.Sprintf("%s -> %s: not probed (ring probes reach the next hosts only: --probes all)", sanitize(from), sanitize(to)))
	}
	return cellStyle(x).Render(pairSummary(x))
}

func pairSummary(x *report.Pair) string {
	s := fmt.Sprintf("%s -> %s: %s, path MTU %d of %d configured (%s)", sanitize(x.From), sanitize(x.To), x.Status, x.PathMTU,
		x.ConfiguredMTU, sanitize(x.RDMAText()))
	if !x.Exact && x.PathMTU > 0 && x.PathMTU < x.ConfiguredMTU {
		s += ", at least"
	}
	if x.RTTAvgMs != nil {
		s += fmt.Sprintf(", RTT %.3f/%.3f/%.3f ms", *x.RTTMinMs, *x.RTTAvgMs, *x.RTTMaxMs)
	}
	return s
}

// pairPage is one measured pair: its summary, the findings about it and
// every probe with what it got, scrolled.
type pairPage struct {
	scrollPage
	to string
}

func newPairPage(s *shared, from, to string) *pairPage {
	p := &pairPage{to: to}
	p.scrollPage = scrollPage{s: s, name: from, lines: func() []string { return s.pairLines(from, to) }}
	return p
}

func (p *pairPage) Update(tea.Msg) (page, tea.Cmd) { return p, nil }

func (p *pairPage) crumbs(trail []string) []string {
	return append(trail, sanitize(p.name)+" -> "+sanitize(p.to))
}

// pairLines draws a pair: summary, findings, probes.
func (s *shared) pairLines(from, to string) []string {
	var out []string
	if s.rep == nil || s.rep.Paths == nil {
		return out
	}
	x := s.rep.Paths.Pair(from, to)
	if x == nil {
		return []string{" not probed"}
	}
	out = append(out, " "+cellStyle(x).Render(pairSummary(x)), "")
	var fs []checks.Finding
	for _, f := range s.byHost[from] {
		if strings.HasSuffix(f.Subject, " -> "+to) && f.Status == checks.StatusFail {
			fs = append(fs, f)
		}
	}
	for _, f := range fs {
		out = append(out, " "+sevStyle(f.Severity).Render(string(f.Severity)+" "+f.RuleID))
		for _, l := range wrap(sanitize(f.Message), max(s.width-4, 20)) {
			out = append(out, "   "+l)
		}
		out = append(out, "")
	}
	rounds := ""
	if x.Rounds > 0 {
		rounds = fmt.Sprintf("; search: %d round%s", x.Rounds, map[bool]string{true: "s"}[x.Rounds > 1])
	}
	out = append(out, " "+stLabel.Render(fmt.Sprintf("Probes (%d%s), smallest first", len(x.Probes), rounds)))
	var pp *facts.PathPair
	if s.fleet != nil {
		for _, c := range s.fleet.DataPath().Pairs() {
			if c.From == from && c.To == to {
				pp = c
			}
		}
	}
	if pp == nil {
		for _, c := range x.Probes {
			out = append(out, "   "+sanitize(c))
		}
		return out
	}
	for _, pr := range pp.Probes {
		got := fmt.Sprintf("%d sent, %d received", pr.Transmitted, pr.Received)
		st := stOK
		switch {
		case pr.MessageTooLong:
			got, st = "refused by the sender: sendto() failed (Message too long)", stWarn
		case pr.Failed():
			got, st = got+": lost", stCrit
		case pr.AvgMs > 0:
			got += fmt.Sprintf(", %.3f ms", pr.AvgMs)
		}
		out = append(out, fmt.Sprintf("   %5d B  %s", pr.Payload+28, st.Render(got)), "     "+stDim.Render(sanitize(pr.Command)))
	}
	return out
}
