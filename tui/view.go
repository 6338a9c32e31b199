package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/textsafe"
)

var (
	stHeader   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("24"))
	stDim      = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	stBold     = lipgloss.NewStyle().Bold(true)
	stLabel    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("39"))
	stSelected = lipgloss.NewStyle().Bold(true).Reverse(true)
	stCrit     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("196"))
	stWarn     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("214"))
	stInfo     = lipgloss.NewStyle().Foreground(lipgloss.Color("75"))
	stOK       = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("42"))
	stHit      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("16")).Background(lipgloss.Color("214"))
)

func sevStyle(s checks.Severity) lipgloss.Style {
	switch s {
	case checks.Critical:
		return stCrit
	case checks.Warning:
		return stWarn
	}
	return stInfo
}

// sanitize makes text that came from a host safe and flat for one terminal
// cell row: tabs become spaces, and control and format characters (escape
// sequences included), newlines and invalid UTF-8 are shown escaped
// (textsafe.Line), never emitted. Text longer than maxShown is cut
// (capText), so that a hostile 100 kB name cannot stall every frame.
func sanitize(s string) string {
	s = capText(s)
	if !strings.Contains(s, "\t") {
		return textsafe.Line(s)
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return textsafe.Line(b.String())
}

// fit truncates a (styled) string to w cells and pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// fitRight right-aligns s in w cells.
func fitRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return fit(s, w)
}

// wrap word-wraps plain text to w cells: lines break at spaces and keep
// every word; only a word longer than the width is broken.
func wrap(s string, w int) []string { return wrapHanging(s, w, w) }

// wrapHanging wraps plain text with a first line of first cells and the
// others of rest cells. Newlines in s start a new line.
func wrapHanging(s string, first, rest int) []string {
	first, rest = max(first, 8), max(rest, 8)
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = appendWrapped(lines, strings.Fields(sanitize(para)), first, rest)
	}
	return lines
}

// appendWrapped lays words out greedily; lines[0] of the whole text gets
// first cells, every other line rest.
func appendWrapped(lines []string, words []string, first, rest int) []string {
	limit := func() int {
		if len(lines) == 0 {
			return first
		}
		return rest
	}
	var cur strings.Builder
	curW, started := 0, false
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW, started = 0, false
	}
	for _, word := range words {
		ww := ansi.StringWidth(word)
		if started && curW+1+ww <= limit() {
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		}
		if started {
			flush()
		}
		// A word longer than a whole line is broken where the line ends.
		for ww > limit() {
			head, tail := splitWidth(word, limit())
			cur.WriteString(head)
			flush()
			word, ww = tail, ansi.StringWidth(tail)
		}
		cur.WriteString(word)
		curW, started = ww, true
	}
	if started || len(words) == 0 {
		flush()
	}
	return lines
}

// splitWidth splits s after at most w cells (at least one rune).
func splitWidth(s string, w int) (string, string) {
	n := 0
	for i, r := range s {
		rw := ansi.StringWidth(string(r))
		if n+rw > w && i > 0 {
			return s[:i], s[i:]
		}
		n += rw
	}
	return s, ""
}

// labeled wraps "label text" to w cells, with a one-cell margin and a
// hanging indent of two more: the lines are ready to show as they are.
func labeled(label, text string, w int, st lipgloss.Style) []string {
	lines := wrapHanging(label+" "+text, w-1, w-3)
	for i := range lines {
		if i == 0 {
			if rest, ok := strings.CutPrefix(lines[0], label); ok {
				lines[0] = " " + st.Render(label) + rest
			} else {
				lines[0] = " " + lines[0]
			}
			continue
		}
		lines[i] = "   " + lines[i]
	}
	return lines
}

// bodyHeight is the number of rows between the header and the status line.
func (m *Model) bodyHeight() int {
	if h := m.height - 2 - len(m.statusLines()); h > 1 {
		return h
	}
	return 1
}

// listRows is how many table rows fit on a list screen.
func (m *Model) listRows() int {
	var head int
	switch v := m.top(); v.kind {
	case scrOverview:
		head = len(m.overviewHead()) + 1
	default:
		head = len(m.hostHead(v.host)) + 1 + m.planPreviewRows(v.host)
	}
	if r := m.bodyHeight() - head; r > 1 {
		return r
	}
	return 1
}

// verdictLines is the fleet verdict, wrapped on two lines at most.
// While hosts are still being collected it is a progress headline
// instead: a verdict over the hosts finished so far would read as the
// fleet's.
func (m *Model) verdictLines() []string {
	if done, busy, queued := m.collectionCounts(); busy+queued > 0 {
		head := fmt.Sprintf("Scanning: %d of %s done, %d in progress", done, plural(len(m.rows), "host"), busy)
		if queued > 0 {
			head += fmt.Sprintf(", %d queued", queued)
		}
		return []string{" " + stBold.Render(head),
			" " + stDim.Render("The fleet verdict follows when every host is done; finished hosts can be opened now.")}
	}
	if m.rep == nil {
		return []string{" " + stBold.Render("Collecting... results appear as hosts finish.")}
	}
	lines := wrap(m.rep.Verdict, m.width-2)
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = ansi.Truncate(lines[1]+" "+strings.Join(wrap(m.rep.Verdict, m.width-2)[2:], " "), m.width-2, "…")
	}
	st := verdictStyle(m.rep)
	for i := range lines {
		lines[i] = " " + st.Render(lines[i])
	}
	return lines
}

// collectionCounts counts the hosts finished, being collected and queued.
func (m *Model) collectionCounts() (done, busy, queued int) {
	for _, r := range m.rows {
		switch {
		case finished(r.phase):
			done++
		case r.phase == hostio.PhaseQueued:
			queued++
		default:
			busy++
		}
	}
	return done, busy, queued
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "pvrdma-doctor"
	return v
}

// render draws the whole screen: exactly height lines of exactly width cells.
func (m *Model) render() string {
	w := m.width
	var body []string
	if m.helpOn {
		body = m.helpBody()
	} else {
		switch m.top().kind {
		case scrOverview:
			body = m.overviewBody()
		case scrHost:
			body = m.hostBody()
		case scrFinding:
			body = m.findingBody()
		case scrTopology:
			body = m.topologyBody()
		case scrPlan:
			body = m.planBody()
		}
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
	for _, l := range m.statusLines() {
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
	for _, v := range m.stack[1:] {
		switch v.kind {
		case scrHost:
			crumbs = append(crumbs, sanitize(v.host))
		case scrFinding:
			id, _, _ := strings.Cut(v.key, "|")
			crumbs = append(crumbs, sanitize(id))
		case scrTopology:
			if len(crumbs) == 1 {
				crumbs = append(crumbs, sanitize(v.host))
			}
			crumbs = append(crumbs, "topology")
		case scrPlan:
			if len(crumbs) == 1 {
				crumbs = append(crumbs, sanitize(v.host))
			}
			crumbs = append(crumbs, "fix plan")
		}
	}
	if m.helpOn {
		crumbs = append(crumbs, "help")
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
	if m.analyzing || m.dirty {
		return fmt.Sprintf("%d hosts · analyzing", n)
	}
	if m.opts.Rescan == nil && len(m.opts.Results) > 0 {
		return fmt.Sprintf("%d hosts analyzed", n)
	}
	return fmt.Sprintf("%d hosts scanned", n)
}

// statusLines is the status line; a long message (the bundle's paths)
// wraps onto up to four lines rather than being cut.
func (m *Model) statusLines() []string {
	if m.mode != inputNone || m.status == "" {
		return []string{m.statusLine()}
	}
	lines := wrap(m.status, max(m.width-2, 1))
	if len(lines) > 4 {
		lines = lines[:4]
	}
	for i := range lines {
		lines[i] = stBold.Render(" " + lines[i])
	}
	return lines
}

// statusLine shows the input being typed, the last message, or the filters.
func (m *Model) statusLine() string {
	switch m.mode {
	case inputFilter:
		return stLabel.Render("filter: ") + m.input.View() + stDim.Render("  enter: keep · esc: clear")
	case inputBundle:
		return stLabel.Render("write support bundle to: ") + m.input.View() + stDim.Render("  enter: write · esc: cancel")
	}
	if m.status != "" {
		return stBold.Render(" " + sanitize(m.status))
	}
	var parts []string
	for i, s := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		mark := "on"
		st := sevStyle(s)
		if !m.showSev[s] {
			mark, st = "off", stDim
		}
		parts = append(parts, st.Render(fmt.Sprintf("%d %s %s", i+1, s, mark)))
	}
	line := " " + strings.Join(parts, stDim.Render(" · "))
	if f := m.top().filter; f != "" {
		line += stDim.Render(" · ") + stLabel.Render("filter: ") + sanitize(f) + stDim.Render(" (esc clears)")
	}
	return line
}

// footerLine hints the keys that lead on from the current screen, as many
// as fit, most important first; help and quit are always shown, at the
// right.
func (m *Model) footerLine() string {
	h := m.help
	h.SetWidth(0) // no truncation: the keys that do not fit are left out
	right := h.ShortHelpView([]keyBinding{m.keys.Help, m.keys.Quit})
	v := m.top()
	var cands []keyBinding
	for _, b := range m.keys.short(v.kind, v.whyAll) {
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
		case "tab/n":
			if f, ok := m.currentFinding(); !ok || len(f.Evidence) < 2 || v.whyAll {
				continue
			}
		}
		cands = append(cands, b)
	}
	if m.helpOn {
		cands = []keyBinding{m.keys.Back, m.keys.Down, m.keys.Up}
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
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

// --- overview ---------------------------------------------------------

type column struct {
	title string
	width int
	right bool
	prio  int // lower is dropped first on narrow screens; 0 = flexible
}

// layoutColumns gives the flexible column the space left, dropping
// low-priority columns until it gets at least minFlex cells.
func layoutColumns(cols []column, width, minFlex int) []column {
	for {
		fixed, flex := 2, -1 // 2: the selection gutter
		for i, c := range cols {
			if c.prio == 0 {
				flex = i
				continue
			}
			fixed += c.width + 1
		}
		if flex >= 0 && width-fixed >= minFlex || len(cols) <= 2 {
			if flex >= 0 {
				cols[flex].width = max(width-fixed, 1)
			}
			return cols
		}
		low := -1
		for i, c := range cols {
			if c.prio > 1 && (low < 0 || c.prio < cols[low].prio) {
				low = i
			}
		}
		if low < 0 {
			if flex >= 0 {
				cols[flex].width = max(width-fixed, 1)
			}
			return cols
		}
		cols = append(cols[:low:low], cols[low+1:]...)
	}
}

func renderCells(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.right {
			b.WriteString(fitRight(cells[i], c.width))
		} else {
			b.WriteString(fit(cells[i], c.width))
		}
	}
	return b.String()
}

func (m *Model) overviewColumns() []column {
	hw := 4
	for _, r := range m.rows {
		hw = max(hw, ansi.StringWidth(r.name))
	}
	hw = min(hw, 24)
	if m.hostsWithNotes() > 0 {
		hw += 2 // " !"
	}
	cw := len("COLLECTION")
	for _, r := range m.rows {
		cw = max(cw, ansi.StringWidth(collectionText(r)))
	}
	cw = min(cw, 21)
	cols := []column{
		{title: "HOST", width: hw, prio: 9},
		{title: "COLLECTION", width: cw, prio: 8},
		{title: "VERDICT", prio: 0},
		{title: "CRIT", width: 4, right: true, prio: 7},
		{title: "WARN", width: 4, right: true, prio: 6},
		{title: "INFO", width: 4, right: true, prio: 5},
		{title: "N/E", width: 3, right: true, prio: 2},
		{title: "RDMA", width: 4, right: true, prio: 4},
		{title: "VMS", width: 3, right: true, prio: 3},
	}
	return layoutColumns(cols, m.width, 16)
}

// overviewHead is what the overview shows above the table header: the
// verdict, the source, and the legend of the notes marker when a host has
// notes.
func (m *Model) overviewHead() []string {
	out := m.verdictLines()
	title := m.opts.Title
	if title == "" && m.rep != nil {
		title = m.rep.Source
	}
	out = append(out, " "+stDim.Render(sanitize(title)))
	if n := m.hostsWithNotes(); n > 0 {
		out = append(out, " "+stWarn.Render("!")+" "+stDim.Render(plural(n, "host")+" with notes (such as a host key not verified): open the host to read them"))
	}
	return out
}

// hostsWithNotes counts the hosts with notes.
func (m *Model) hostsWithNotes() int {
	n := 0
	if m.rep != nil {
		for i := range m.rep.Hosts {
			if len(m.rep.Hosts[i].Notes) > 0 {
				n++
			}
		}
	}
	return n
}

func (m *Model) overviewBody() []string {
	v := m.top()
	out := m.overviewHead()
	cols := m.overviewColumns()
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out = append(out, "  "+stDim.Render(renderCells(cols, titles)))
	vis := m.visibleRows()
	if len(vis) == 0 {
		if v.filter != "" {
			return append(out, "  "+stDim.Render("no host matches the filter (esc clears it)"))
		}
		return append(out, "  "+stDim.Render("no hosts"))
	}
	end := min(v.offset+m.listRows(), len(vis))
	for i := v.offset; i < end; i++ {
		out = append(out, m.overviewRow(cols, m.rows[vis[i]], i == v.cursor))
	}
	return out
}

func verdictStyle(r *report.Report) lipgloss.Style {
	switch r.VerdictClass() {
	case "broken", "nothing_checked":
		return stCrit
	case "degraded", "incomplete":
		return stWarn
	}
	return stOK
}

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

func (m *Model) overviewRow(cols []column, r *hostRow, selected bool) string {
	cells := make([]string, len(cols))
	h, analyzed := m.reportHost(r.name)
	for i, c := range cols {
		switch c.title {
		case "HOST":
			cells[i] = sanitize(r.name)
			if analyzed && len(h.Notes) > 0 {
				// The marker stays visible however long the name.
				cells[i] = fit(cells[i], c.width-2) + " !"
			}
		case "COLLECTION":
			cells[i] = collectionText(r)
		case "VERDICT":
			switch {
			case analyzed:
				cells[i] = sanitize(h.Verdict)
			case r.phase == hostio.PhaseFailed && r.err != "":
				cells[i] = "failed: " + sanitize(r.err)
			default:
				cells[i] = "-"
			}
		default:
			if !analyzed {
				cells[i] = "-"
				continue
			}
			var n int
			known := true
			switch c.title {
			case "CRIT":
				n = h.Critical
			case "WARN":
				n = h.Warning
			case "INFO":
				n = h.Info
			case "N/E":
				n = h.NotEvaluated
			case "RDMA":
				n, known = h.RDMADeviceCount()
			case "VMS":
				n, known = h.PVRDMAVMCount()
			}
			cells[i] = strconv.Itoa(n)
			if !known {
				cells[i] = "?" // its listing was not collected
			}
		}
	}
	if selected {
		return stSelected.Render("▶ " + renderCells(cols, cells))
	}
	// Colour what needs attention (after padding, so widths stay exact).
	for i, c := range cols {
		if !analyzed {
			continue
		}
		switch c.title {
		case "HOST":
			if len(h.Notes) > 0 {
				cells[i] = strings.TrimSuffix(cells[i], "!") + stWarn.Render("!")
			}
		case "CRIT":
			if h.Critical > 0 {
				cells[i] = stCrit.Render(fitRight(cells[i], c.width))
			}
		case "WARN":
			if h.Warning > 0 {
				cells[i] = stWarn.Render(fitRight(cells[i], c.width))
			}
		case "VERDICT":
			cells[i] = hostVerdictStyle(h).Render(fit(cells[i], c.width))
		}
	}
	return "  " + renderCells(cols, cells)
}

func hostVerdictStyle(h *report.Host) lipgloss.Style {
	switch {
	case h.Critical > 0:
		return stCrit
	case h.Warning > 0 || h.Status != hostio.StatusCollected:
		return stWarn
	case h.NotEvaluated > 0:
		return lipgloss.NewStyle()
	}
	return stOK
}

// --- host: findings list ----------------------------------------------

// hostHead is what the host screen shows above its findings: verdict,
// details and every note, wrapped (never cut: a note may say the host key
// was not verified).
func (m *Model) hostHead(host string) []string {
	var out []string
	r := m.rows[m.index[host]]
	h, analyzed := m.reportHost(host)
	switch {
	case analyzed:
		out = append(out, " "+hostVerdictStyle(h).Render(sanitize(h.Verdict)))
		detail := []string{}
		if h.Version != "" {
			detail = append(detail, "ESXi "+h.Version)
		}
		detail = append(detail, countOrUnknown(h.RDMADeviceCount)("RDMA device"), countOrUnknown(h.PVRDMAVMCount)("PVRDMA VM"))
		if h.Transport != "" {
			detail = append(detail, "via "+h.Transport)
		}
		detail = append(detail, "collection: "+collectionText(r))
		out = append(out, " "+stDim.Render(sanitize(strings.Join(detail, " · "))))
		for _, n := range h.Notes {
			out = append(out, labeled("! note:", n, m.width, stWarn)...)
		}
	default:
		out = append(out, " "+stBold.Render(sanitize(host)+": "+collectionText(r)), " "+stDim.Render("findings appear when this host has been collected and analyzed"))
	}
	return out
}

func (m *Model) hostBody() []string {
	v := m.top()
	out := m.hostHead(v.host)
	_, analyzed := m.reportHost(v.host)
	fs := m.hostFindings(v.host, v.filter)
	if len(fs) == 0 {
		switch {
		case !analyzed:
		case len(m.byHost[v.host]) > 0:
			out = append(out, "", "  "+stDim.Render("no finding shown: change the filter (esc) or the severity toggles (1 2 3)"))
		default:
			out = append(out, "", "  "+stOK.Render(fmt.Sprintf("No problem found on %s: %s passed.", sanitize(v.host), plural(m.passedOn(v.host), "check"))))
		}
		return out
	}
	cols := m.findingColumns(fs)
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out = append(out, "  "+stDim.Render(renderCells(cols, titles)))
	end := min(v.offset+m.listRows(), len(fs))
	for i := v.offset; i < end; i++ {
		f := fs[i]
		sev := string(f.Severity)
		if f.Status == checks.StatusNotEvaluated {
			sev = "not eval"
		}
		msg := f.Message
		if f.Status == checks.StatusNotEvaluated {
			msg = strings.TrimPrefix(msg, "not evaluated: ")
		}
		cells := []string{sev, m.treeRule(f), sanitize(f.Subject), sanitize(msg)}
		if i == v.cursor {
			out = append(out, stSelected.Render("▶ "+renderCells(cols, cells)))
			continue
		}
		st := sevStyle(f.Severity)
		if f.Status == checks.StatusNotEvaluated {
			st = stDim
		}
		cells[0] = st.Render(fit(cells[0], cols[0].width))
		out = append(out, "  "+renderCells(cols, cells))
	}
	return append(out, m.planPreview(v.host)...)
}

func (m *Model) findingColumns(fs []checks.Finding) []column {
	rw, sw := 4, 7
	for _, f := range fs {
		rw = max(rw, ansi.StringWidth(m.treeRule(f)))
		sw = max(sw, ansi.StringWidth(f.Subject))
	}
	rw = min(rw, 28)
	sw = min(sw, max(12, (m.width-rw-14)/3))
	cols := []column{
		{title: "SEVERITY", width: 8, prio: 9},
		{title: "RULE", width: rw, prio: 8},
		{title: "SUBJECT", width: sw, prio: 3},
		{title: "MESSAGE", prio: 0},
	}
	return layoutColumns(cols, m.width, 12)
}

func (m *Model) passedOn(host string) int {
	n := 0
	if m.rep != nil {
		for _, f := range m.rep.Passed {
			if f.Host == host {
				n++
			}
		}
	}
	return n
}

// countOrUnknown renders a count that may be unknown: "2 RDMA devices",
// "RDMA devices unknown".
func countOrUnknown(count func() (int, bool)) func(one string) string {
	return func(one string) string {
		if n, known := count(); known {
			return plural(n, one)
		}
		return one + "s unknown"
	}
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// --- finding: message, why, fix, evidence in the raw output -----------

type findingLayout struct {
	top      []string // everything above the output pane
	output   []string // the evidence's output, numbered
	hit      int      // 1-based line of output to highlight (0: none)
	paneRows int
}

func (m *Model) layoutFinding() (findingLayout, bool) {
	v := m.top()
	f, ok := m.currentFinding()
	w := m.width
	if !ok {
		return findingLayout{top: []string{"", " " + stBold.Render("This finding is no longer reported."),
			" " + stDim.Render("The last rescan no longer shows it: fixed, or its input changed. esc: back")}}, false
	}
	var top []string
	title := ""
	rule, hasRule := checks.Lookup(f.RuleID)
	if hasRule {
		title = rule.Title
	} else if m.rep != nil {
		title = m.rep.Rules[f.RuleID].Title
	}
	sev := strings.ToUpper(string(f.Severity))
	if f.Status == checks.StatusNotEvaluated {
		sev = "NOT EVALUATED"
	}
	top = append(top, " "+sevStyle(f.Severity).Render(sev)+" "+stBold.Render(sanitize(f.RuleID))+"  "+sanitize(title))
	top = append(top, " "+stDim.Render("on "+sanitize(f.Host)+" · "+sanitize(f.Subject)))
	for _, l := range wrap(f.Message, w-2) {
		top = append(top, " "+l)
	}
	top = append(top, m.causeLines(f, w)...)
	why := ""
	if hasRule {
		why = rule.Why
	} else if m.rep != nil {
		why = m.rep.Rules[f.RuleID].Why
	}
	var whyLines []string
	if why != "" {
		whyLines = labeled("Why it matters:", why, w, stLabel)
	}
	var fixLines []string
	switch {
	case f.Fix != "":
		fixLines = labeled("Fix (c copies):", shownFix(f), w, stLabel)
	case f.Status == checks.StatusNotEvaluated:
		fixLines = labeled("Fix:", "none needed yet: this check could not run. Make the missing input collectable and rescan (r).", w, stLabel)
	}

	// The evidence pane.
	var lay findingLayout
	evLabel := []string{" " + stDim.Render("No evidence recorded for this finding.")}
	if n := len(f.Evidence); n > 0 {
		idx := clampInt(v.evidence, 0, n-1)
		e := f.Evidence[idx]
		lay.output, lay.hit = m.evidenceOutput(e)
		where := "`" + sanitize(e.Command) + "`"
		if e.Host != "" && e.Host != f.Host {
			where += " on " + sanitize(e.Host)
		}
		if e.Line > 0 {
			where = fmt.Sprintf("line %d of %s", e.Line, where)
		}
		if e.Note != "" {
			where += ": " + sanitize(e.Note)
		}
		lbl := "Evidence:"
		if n > 1 {
			lbl = fmt.Sprintf("Evidence %d of %d (tab: next):", idx+1, n)
		}
		evLabel = labeled(lbl, where, w, stLabel)
	}

	// Share the height: the fix and the message always show in full, the
	// output pane keeps at least a few lines, "why" gets what is left
	// unless w asked for all of it.
	fixed := len(top) + len(fixLines) + len(evLabel)
	avail := m.bodyHeight() - fixed
	minPane := min(8, max(3, avail/2))
	if len(lay.output) < minPane {
		minPane = len(lay.output)
	}
	whyShown := len(whyLines)
	limit := avail - minPane
	if v.whyAll {
		// w trades the output pane for the full text.
		limit = avail + len(evLabel)
		evLabel, lay.output, lay.hit = nil, nil, 0
	}
	if whyShown > limit {
		whyShown = max(limit, 1)
		cut := whyLines[:whyShown]
		// Make room for the hint by dropping whole words, never letters.
		const more = " … (w: read all)"
		last := cut[whyShown-1]
		for ansi.StringWidth(last)+len([]rune(more)) > w {
			i := strings.LastIndexByte(last, ' ')
			if i <= 3 {
				break
			}
			last = strings.TrimRight(last[:i], " ")
		}
		cut[whyShown-1] = last + stDim.Render(more)
		whyLines = cut
	}
	top = append(top, whyLines...)
	top = append(top, fixLines...)
	top = append(top, evLabel...)
	lay.top = top
	lay.paneRows = max(m.bodyHeight()-len(top), 1)
	return lay, true
}

// evidenceOutput returns the capture's output, numbered, and which line
// is the evidence.
func (m *Model) evidenceOutput(e checks.Evidence) ([]string, int) {
	host := e.Host
	var capt hostio.Capture
	found := false
	if i, ok := m.index[host]; ok && m.rows[i].result != nil {
		capt, found = m.rows[i].result.Find(e.Command)
	}
	if !found {
		out := []string{stDim.Render("(the output of this command is not available: it was not collected)")}
		if e.Line > 0 && e.Text != "" {
			out = append(out, fmt.Sprintf("line %d: %s", e.Line, sanitize(e.Text)))
		}
		return out, 0
	}
	text := strings.TrimRight(capt.Stdout, "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	nw := len(strconv.Itoa(max(len(lines), 1)))
	out := make([]string, 0, len(lines)+1)
	for i, l := range lines {
		num := fmt.Sprintf("%*d │ ", nw, i+1)
		l = strings.TrimRight(sanitize(l), "\r ")
		if i+1 == e.Line {
			out = append(out, stHit.Render("▶ "+num+l))
			continue
		}
		out = append(out, "  "+stDim.Render(num)+l)
	}
	if len(lines) == 0 {
		out = append(out, stDim.Render("  (the command printed nothing)"))
	}
	if e.Line == 0 || e.Line > len(lines) {
		note := e.Note
		if note == "" {
			note = "the evidence is the output as a whole"
		}
		out = append(out, stHit.Render("▶ "+strings.Repeat(" ", nw)+" └ "+sanitize(note)))
		return out, len(out)
	}
	return out, e.Line
}

// evidenceWindow returns the highlighted output line, the number of output
// lines and the pane height of the current finding screen.
func (m *Model) evidenceWindow() (hit, total, rows int) {
	lay, ok := m.layoutFinding()
	if !ok {
		return 0, 0, 1
	}
	return lay.hit, len(lay.output), lay.paneRows
}

func (m *Model) findingBody() []string {
	lay, ok := m.layoutFinding()
	if !ok {
		return lay.top
	}
	v := m.top()
	out := append([]string(nil), lay.top...)
	end := min(v.offset+lay.paneRows, len(lay.output))
	for i := v.offset; i < end; i++ {
		out = append(out, lay.output[i])
	}
	return out
}

// --- topology -----------------------------------------------------------

func (m *Model) topologyBody() []string {
	lines := m.topologyLines()
	v := m.top()
	end := min(v.offset+m.bodyHeight(), len(lines))
	if v.offset >= end {
		return nil
	}
	return lines[v.offset:end]
}

func (m *Model) topologyLines() []string {
	host := m.top().host
	return topology(host, m.factsHost[host], m.rows[m.index[host]], m.byHost[host])
}

// --- help -----------------------------------------------------------------

func (m *Model) helpBody() []string {
	out := []string{" " + stBold.Render("Keys") + stDim.Render("  (esc or ? closes, j/k scroll; the footer of each screen shows the keys that lead on)"), ""}
	groups := m.keys.groups()
	// Lay the groups out as columns, as many per row as fit.
	var blocks []string
	for i, g := range groups {
		col := m.help.FullHelpView([][]keyBinding{g})
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
		if rowW > 0 && rowW+bw > m.width-1 {
			flush()
		}
		row = append(row, lipgloss.NewStyle().PaddingRight(4).Render(b))
		rowW += bw
	}
	flush()
	out = append(out,
		" "+stDim.Render("Lists: enter opens the selected host or finding. A finding shows why it matters, the fix"),
		" "+stDim.Render("and the command output it was read from, with the evidence line highlighted."))
	off := clampInt(m.helpOff, 0, max(len(out)-m.bodyHeight(), 0))
	m.helpOff = off
	return out[off:]
}
