package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// overviewPage is the fleet: its verdict, where the data came from, and a
// row per host with its collection state, verdict and counts. enter opens
// the selected host.
type overviewPage struct {
	position
	s *shared

	// visible caches the rows that match the filter.
	visible        []int
	visibleOK      bool
	visibleVersion int
	visibleFilter  string
	visibleSev     string
}

func newOverviewPage(s *shared) *overviewPage { return &overviewPage{s: s} }

// Update opens the selected host on enter.
func (p *overviewPage) Update(msg tea.Msg) (page, tea.Cmd) {
	if !is(msg, p.s.keys.Open) || p.host() == "" {
		return p, nil
	}
	return newHostPage(p.s, p.host()), nil
}

func (p *overviewPage) move(d int) {
	p.cursor += d
	p.clamp()
}

func (p *overviewPage) clamp() { p.clampList(len(p.visibleRows()), p.listRows()) }

// host is the selected host.
func (p *overviewPage) host() string {
	vis := p.visibleRows()
	if len(vis) == 0 {
		return ""
	}
	return p.s.rows[vis[p.cursor]].name
}

func (p *overviewPage) crumbs(trail []string) []string { return trail }

func (p *overviewPage) hints() []key.Binding {
	k := p.s.keys
	return []key.Binding{k.Open, hint(k.Back, "clear"), k.Filter, hint(k.Rescan, "rescan"), hint(k.Bundle, "bundle"), k.Topology, hint(k.Matrix, "paths"), hint(k.Readiness, "readiness"), k.arrows("move"), hint(k.RescanAll, "rescan all")}
}

// listRows is how many table rows fit under the head.
func (p *overviewPage) listRows() int {
	if r := p.s.bodyHeight() - len(p.head()) - 1; r > 1 {
		return r
	}
	return 1
}

// verdictLines is the fleet verdict, wrapped on two lines at most.
// While hosts are still being collected it is a progress headline
// instead: a verdict over the hosts finished so far would read as the
// fleet's.
func (p *overviewPage) verdictLines() []string {
	if done, busy, queued := p.collectionCounts(); busy+queued > 0 {
		head := fmt.Sprintf("Scanning: %d of %s done, %d in progress", done, plural(len(p.s.rows), "host"), busy)
		if queued > 0 {
			head += fmt.Sprintf(", %d queued", queued)
		}
		return []string{" " + stBold.Render(head),
			" " + stDim.Render("The fleet verdict follows when every host is done; finished hosts can be opened now.")}
	}
	if p.s.analyzing || p.s.dirty {
		// Never a verdict the running analysis may change.
		return []string{" " + stBold.Render("Analyzing "+plural(len(p.s.rows), "host")+"..."),
			" " + stDim.Render("The fleet verdict follows when the analysis ends.")}
	}
	if p.s.rep == nil {
		return []string{" " + stBold.Render("Collecting... results appear as hosts finish.")}
	}
	lines := wrap(p.s.rep.Verdict, p.s.width-2)
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = ansi.Truncate(lines[1]+" "+strings.Join(wrap(p.s.rep.Verdict, p.s.width-2)[2:], " "), p.s.width-2, "…")
	}
	st := verdictStyle(p.s.rep)
	for i := range lines {
		lines[i] = " " + st.Render(lines[i])
	}
	return lines
}

// collectionCounts counts the hosts finished, being collected and queued.
func (p *overviewPage) collectionCounts() (done, busy, queued int) {
	for _, r := range p.s.rows {
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

func (p *overviewPage) columns() []column {
	hw := 4
	for _, r := range p.s.rows {
		hw = max(hw, ansi.StringWidth(r.name))
	}
	hw = min(hw, 24)
	if p.hostsWithNotes() > 0 {
		hw += 2 // " !"
	}
	cw := len("COLLECTION")
	for _, r := range p.s.rows {
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
	return layoutColumns(cols, p.s.width, 16)
}

// head is what the overview shows above the table header: the
// verdict, the source, and the legend of the notes marker when a host has
// notes.
func (p *overviewPage) head() []string {
	out := p.verdictLines()
	title := p.s.opts.Title
	if title == "" && p.s.rep != nil {
		title = p.s.rep.Source
	}
	out = append(out, " "+stDim.Render(sanitize(title)))
	if n := p.hostsWithNotes(); n > 0 {
		out = append(out, " "+stWarn.Render("!")+" "+stDim.Render(plural(n, "host")+" with notes (such as a host key not verified): open the host to read them"))
	}
	return out
}

// hostsWithNotes counts the hosts with notes.
func (p *overviewPage) hostsWithNotes() int {
	n := 0
	if p.s.rep != nil {
		for i := range p.s.rep.Hosts {
			if len(p.s.rep.Hosts[i].Notes) > 0 {
				n++
			}
		}
	}
	return n
}

func (p *overviewPage) View() []string {
	out := p.head()
	cols := p.columns()
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out = append(out, "  "+stDim.Render(renderCells(cols, titles)))
	vis := p.visibleRows()
	if len(vis) == 0 {
		if p.filter != "" {
			return append(out, "  "+stDim.Render("no host matches the filter (esc clears it)"))
		}
		return append(out, "  "+stDim.Render("no hosts"))
	}
	end := min(p.offset+p.listRows(), len(vis))
	for i := p.offset; i < end; i++ {
		out = append(out, p.row(cols, p.s.rows[vis[i]], i == p.cursor))
	}
	return out
}

func (p *overviewPage) row(cols []column, r *hostRow, selected bool) string {
	cells := make([]string, len(cols))
	h, analyzed := p.s.reportHost(r.name)
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
				cells[i] = sanitize(h.Line())
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
				n = h.Headline().Critical
			case "WARN":
				n = h.Headline().Warning
			case "INFO":
				n = h.Headline().Info
			case "N/E":
				n = h.NotEvaluated
			case "RDMA":
				n, known = h.RDMADeviceCount()
			case "VMS":
				n, known = h.PVRDMAVMCount()
			}
			cells[i] = strconv.Itoa(n)
			switch {
			case h.Role == hostio.RoleGuest && (c.title == "RDMA" || c.title == "VMS"):
				cells[i] = "-" // host-side counts: a guest has none
			case !known:
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

// visibleRows returns the rows matching the filter (cached until the
// filter, the hosts or the analysis change).
func (p *overviewPage) visibleRows() []int {
	sev := fmt.Sprint(p.s.showSev[checks.Critical], p.s.showSev[checks.Warning], p.s.showSev[checks.Info])
	if p.visibleOK && p.visibleVersion == p.s.version && p.visibleFilter == p.filter && p.visibleSev == sev {
		return p.visible
	}
	f := strings.ToLower(p.filter)
	out := make([]int, 0, len(p.s.rows))
	for i, r := range p.s.rows {
		if (f == "" || strings.Contains(strings.ToLower(p.rowSearchText(r)), f)) && p.sevShown(r) {
			out = append(out, i)
		}
	}
	p.visible, p.visibleOK, p.visibleVersion, p.visibleFilter, p.visibleSev = out, true, p.s.version, p.filter, sev
	return out
}

// sevShown applies the severity toggles (1, 2, 3) to a row: a host whose
// problems are all of hidden severities is hidden; one without problems
// stays.
func (p *overviewPage) sevShown(r *hostRow) bool {
	any := false
	for _, f := range p.s.byHost[r.name] {
		if f.Status != checks.StatusFail || f.RuleID == checks.CollectionFailed {
			continue
		}
		if p.s.showSev[f.Severity] {
			return true
		}
		any = true
	}
	return !any
}

// rowSearchText is what the overview filter matches: name, verdict,
// collection state and the rule IDs of the host's failing findings (not
// the checks that could not be evaluated: /MTU must not list a host only
// because its MTU checks did not run).
func (p *overviewPage) rowSearchText(r *hostRow) string {
	parts := []string{r.name, string(r.phase), r.err}
	if h, ok := p.s.reportHost(r.name); ok {
		parts = append(parts, h.Verdict, string(h.Status))
	}
	for _, f := range p.s.byHost[r.name] {
		if f.Status == checks.StatusFail {
			parts = append(parts, f.RuleID)
		}
	}
	return strings.Join(parts, " ")
}
