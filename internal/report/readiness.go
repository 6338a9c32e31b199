package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// The readiness table: every host of the scan against the seeds' host
// setup (checks.Readiness), hosts x steps, each cell a tick with what was
// found or the reason the step is not done. The text report, HTML,
// Markdown and the TUI draw it from Report.Readiness; JSON carries it.

// Readiness symbols, one per cell state.
var readinessSymbol = map[string]string{checks.CellOK: "✓", checks.CellFail: "✗", checks.CellUnknown: "?", checks.CellNA: "-"}

// ReadinessSymbol is a cell's symbol: ✓ done, ✗ not done, ? not read, -
// does not apply.
func ReadinessSymbol(state string) string {
	if s, ok := readinessSymbol[state]; ok {
		return s
	}
	return "?"
}

// ReadinessLegend explains the symbols.
const ReadinessLegend = "✓ done  ✗ not done  ? not read  - does not apply"

// readinessHeads are the text report's short column titles, by step.
var readinessHeads = map[string]string{"rdma_nic": "NIC", "vds_uplink": "UPLINK", "vmknic_tag": "TAG", "firewall": "FW",
	"mtu": "MTU", "lossless": "LOSSLESS"}

// ReadinessHead is a step's short title ("NIC", "UPLINK").
func ReadinessHead(step checks.ReadinessStep) string {
	if h, ok := readinessHeads[step.ID]; ok {
		return h
	}
	return strings.ToUpper(step.Title)
}

// ReadinessTitle is the table's heading: what it checks, the PVRDMA vDS
// and how many hosts are ready.
func (r *Report) ReadinessTitle() string {
	rd := r.Readiness
	if rd == nil {
		return ""
	}
	ready := 0
	for _, h := range rd.Hosts {
		if h.State == checks.StateReady {
			ready++
		}
	}
	vds := "no PVRDMA vDS found"
	if rd.Switch != "" {
		vds = "PVRDMA vDS " + rd.Switch
	}
	return fmt.Sprintf("host setup for PVRDMA (%s): %d of %s ready", vds, ready, plural(len(rd.Hosts), "host", "hosts"))
}

// ReadinessRole says in a few words what a host is to PVRDMA and, for a
// host without PVRDMA VMs, whether DRS or HA can place them on it.
func ReadinessRole(h checks.HostReadiness, vds string) string {
	switch h.Role {
	case "pvrdma":
		s := plural(len(h.VMs)+h.MoreVMs, "PVRDMA VM", "PVRDMA VMs")
		if h.VMsFrom == "vcenter" {
			s += " (vCenter)"
		}
		return s
	case "member", "no_vds":
		s := "no PVRDMA VM"
		switch {
		case h.State != checks.StateNotReady:
		case h.Placeable == nil:
			s += "; DRS/HA unknown"
		case *h.Placeable:
			s += "; DRS/HA place VMs"
		default:
			s += "; DRS/HA off"
		}
		return s
	case "outside":
		return "not on " + vds
	}
	return "not known"
}

// readinessReasons says, for one host, each step not done (and, with
// unknown, each step not read): "RDMA NIC: no RDMA device; vmknic tag:
// Net.PVRDMAVmknic unset".
func readinessReasons(h checks.HostReadiness, steps []checks.ReadinessStep, state string) string {
	var out []string
	for i, c := range h.Cells {
		if c.State != state || i >= len(steps) {
			continue
		}
		if state == checks.CellFail {
			out = append(out, c.Text) // says what it is about
			continue
		}
		out = append(out, steps[i].Title+": "+strings.TrimPrefix(c.Text, "not read: "))
	}
	return strings.Join(out, "; ")
}

// readinessShown are the rows the concise text shows: every host that is
// not ready (or not known), and the ready ones while the table stays short.
const readinessReadyRows = 8

// writeTextReadiness writes the readiness table: a row of symbols per
// host and its role; with details, the reasons under the table (without,
// each host's findings say them).
func writeTextReadiness(b *strings.Builder, p painter, r *Report, wrap func(string, string), width int, details bool) {
	rd := r.Readiness
	if rd == nil || len(rd.Hosts) == 0 {
		return
	}
	t := readinessText{b: b, p: p, rd: rd, wrap: wrap, width: width, details: details}
	if t.shown() == 0 {
		return
	}
	b.WriteString("\n")
	wrap("", p.c("1", "READINESS")+" "+r.ReadinessTitle())
	t.nameW = t.nameWidth()
	head := fmt.Sprintf("  %-*s", t.nameW, "HOST")
	for _, s := range rd.Steps {
		head += "  " + ReadinessHead(s)
	}
	b.WriteString(p.c("2", head) + "\n")
	t.writeRows()
	wrap("  ", p.c("2", ReadinessLegend))
	if details {
		t.writeReasons()
	} // else each host's findings say why (HOST_NOT_READY lists the steps)
}

// readinessText is the readiness table being written as text.
type readinessText struct {
	b       *strings.Builder
	p       painter
	rd      *checks.Readiness
	wrap    func(string, string)
	width   int
	details bool
	nameW   int
}

// readinessKnown: something was read of the host. A host of which
// nothing was read has nothing to tick: the concise view leaves its row
// out (NOT COLLECTED says why), and the table when no host is left.
func readinessKnown(h checks.HostReadiness) bool {
	for _, c := range h.Cells {
		if c.State != checks.CellUnknown {
			return true
		}
	}
	return false
}

// shown counts the rows the table has.
func (t *readinessText) shown() int {
	n := 0
	for _, h := range t.rd.Hosts {
		if t.details || readinessKnown(h) {
			n++
		}
	}
	return n
}

// nameWidth is the width of the names' column: a name too long to leave
// the symbols room goes on a line of its own, and a role that does not
// fit after them under them, so no line is wider than the report.
func (t *readinessText) nameWidth() int {
	colsW := 0
	for _, s := range t.rd.Steps {
		colsW += 2 + len(ReadinessHead(s))
	}
	nameW := 4
	for _, h := range t.rd.Hosts {
		nameW = max(nameW, len(h.Host))
	}
	nameW = max(4, min(nameW, t.width-2-colsW-2))
	if !t.details && len(t.rd.Hosts) > mergeList {
		nameW = max(nameW, len(fmt.Sprintf("%d hosts", len(t.rd.Hosts))))
	}
	return nameW
}

// symbols are a host's row of symbols and its role, the key of the rows
// in the same state.
func (t *readinessText) symbols(h checks.HostReadiness) string {
	var s []string
	for i := range t.rd.Steps {
		sym := "?"
		if i < len(h.Cells) {
			sym = ReadinessSymbol(h.Cells[i].State)
		}
		s = append(s, sym)
	}
	return strings.Join(s, " ") + "|" + ReadinessRole(h, t.rd.Switch)
}

// writeRows writes a row per host; a large fleet's rows in the same
// state are one row ("12 hosts" with the same symbols and role, its names
// under it), and past readinessReadyRows the ready hosts are counted.
func (t *readinessText) writeRows() {
	same := map[string][]string{}
	if !t.details && len(t.rd.Hosts) > mergeList {
		for _, h := range t.rd.Hosts {
			if h.State != checks.StateReady && readinessKnown(h) {
				same[t.symbols(h)] = append(same[t.symbols(h)], h.Host)
			}
		}
	}
	ready, hidden, unread := 0, 0, 0
	written := map[string]bool{}
	for _, h := range t.rd.Hosts {
		if !t.details && !readinessKnown(h) {
			unread++
			continue
		}
		var group []string
		if g := same[t.symbols(h)]; h.State != checks.StateReady && len(g) >= mergeHosts {
			if written[t.symbols(h)] {
				continue
			}
			written[t.symbols(h)] = true
			group = g
		}
		if h.State == checks.StateReady {
			ready++
			if !t.details && ready > readinessReadyRows {
				hidden++
				continue
			}
		}
		t.writeRow(h, group)
	}
	if hidden > 0 {
		t.wrap("  ", t.p.c("2", fmt.Sprintf("and %s ready (--details lists them)", plural(hidden, "more host", "more hosts"))))
	}
	if unread > 0 {
		t.wrap("  ", t.p.c("2", fmt.Sprintf("and %s of which nothing was read", plural(unread, "host", "hosts"))))
	}
}

// writeRow writes one host's row, or a group's (its names under it).
func (t *readinessText) writeRow(h checks.HostReadiness, group []string) {
	code := "32"
	switch h.State {
	case checks.StateNotReady:
		code = "31"
	case checks.StateUnknown:
		code = "33"
	}
	name := h.Host
	if group != nil {
		name = fmt.Sprintf("%d hosts", len(group))
	}
	if len(name) > t.nameW {
		t.b.WriteString(t.p.c(code, "  "+name) + "\n")
		name = ""
	}
	line := fmt.Sprintf("  %-*s", t.nameW, name)
	for i, s := range t.rd.Steps {
		sym := "?"
		if i < len(h.Cells) {
			sym = ReadinessSymbol(h.Cells[i].State)
		}
		line += "  " + fmt.Sprintf("%-*s", len(ReadinessHead(s)), sym)
	}
	role := ReadinessRole(h, t.rd.Switch)
	if cells(line)+2+len(role) <= t.width {
		t.b.WriteString(t.p.c(code, line) + "  " + role + "\n")
	} else {
		t.b.WriteString(t.p.c(code, strings.TrimRight(line, " ")) + "\n")
		t.wrap("    ", role)
	}
	if group != nil {
		t.wrap("    ", t.p.c("2", nameList(group, 6)))
	}
}

// writeReasons writes, under the table, why each host is not ready or
// not known.
func (t *readinessText) writeReasons() {
	hang := func(s string) {
		for i, l := range strings.Split(unkeep(Wrap(s, t.width-4)), "\n") {
			if i == 0 {
				t.b.WriteString("  " + l + "\n")
			} else {
				t.b.WriteString("    " + l + "\n")
			}
		}
	}
	for _, h := range t.rd.Hosts {
		if why := readinessReasons(h, t.rd.Steps, checks.CellFail); why != "" {
			hang("✗ " + h.Host + ": " + why)
		}
		if why := readinessReasons(h, t.rd.Steps, checks.CellUnknown); why != "" {
			hang(t.p.c("2", "? "+h.Host+" not read: "+why))
		}
	}
}

// cells is the width of a line of the table in terminal cells (its
// symbols are one cell each, three bytes).
func cells(s string) int { return len([]rune(s)) }

// readinessHTML is the readiness table as HTML: one row per host, each
// cell its symbol and what was found or why the step is not done.
func readinessHTML(r *Report) template.HTML {
	rd := r.Readiness
	if rd == nil || len(rd.Hosts) == 0 {
		return ""
	}
	var b strings.Builder
	esc := template.HTMLEscapeString
	fmt.Fprintf(&b, "<h2 id=\"readiness\">Readiness</h2>\n<p class=\"meta\">%s. %s.</p>\n<div class=\"scroll\"><table class=\"readiness\">\n<tr><th>host</th>",
		esc(capitalFirst(r.ReadinessTitle())), esc(ReadinessLegend))
	for _, s := range rd.Steps {
		fmt.Fprintf(&b, "<th title=\"%s\">%s</th>", esc(s.Seed), esc(s.Title))
	}
	b.WriteString("<th>role</th></tr>\n")
	for _, h := range rd.Hosts {
		cls := map[string]string{checks.StateReady: "ok", checks.StateNotReady: "critical", checks.StateUnknown: "warning"}[h.State]
		fmt.Fprintf(&b, "<tr class=\"%s\"><td>%s</td>", cls, esc(h.Host))
		for _, c := range h.Cells {
			fmt.Fprintf(&b, "<td class=\"r-%s\">%s %s</td>", esc(strings.ReplaceAll(c.State, "/", "")), esc(ReadinessSymbol(c.State)), esc(c.Text))
		}
		fmt.Fprintf(&b, "<td>%s", esc(ReadinessRole(h, rd.Switch)))
		if h.Placement != "" && h.Role != "pvrdma" {
			fmt.Fprintf(&b, "<br><small>%s</small>", esc(h.Placement))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table></div>\n")
	return template.HTML(b.String())
}

// writeMarkdownReadiness writes the readiness table as Markdown.
func writeMarkdownReadiness(b *strings.Builder, r *Report) {
	rd := r.Readiness
	if rd == nil || len(rd.Hosts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Readiness\n\n%s. %s.\n\n| host |", md(capitalFirst(r.ReadinessTitle())), md(ReadinessLegend))
	for _, s := range rd.Steps {
		b.WriteString(" " + md(s.Title) + " |")
	}
	b.WriteString(" role |\n|---|")
	for range rd.Steps {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, h := range rd.Hosts {
		b.WriteString("| " + md(h.Host) + " |")
		for _, c := range h.Cells {
			b.WriteString(" " + ReadinessSymbol(c.State) + " " + md(c.Text) + " |")
		}
		b.WriteString(" " + md(ReadinessRole(h, rd.Switch)) + " |\n")
	}
}

// capitalFirst starts a sentence with a capital, except on a name that
// has its own lower-case start (vSphere, vmk1, esxcli).
func capitalFirst(s string) string {
	if s == "" || (len(s) > 1 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// evidenceHTML is EvidenceLine for HTML: a vCenter property (the path and
// value the JSON line shows) is highlighted.
func evidenceHTML(e checks.Evidence) template.HTML {
	if e.Property == "" || e.Line <= 0 {
		return template.HTML(template.HTMLEscapeString(EvidenceLine(e)))
	}
	s := template.HTMLEscapeString(fmt.Sprintf("`%s` line %d: ", e.Command, e.Line)) + "<mark>" + template.HTMLEscapeString(strings.TrimSpace(e.Property)) + "</mark>"
	if e.Note != "" {
		s += template.HTMLEscapeString(" (" + e.Note + ")")
	}
	return template.HTML(s)
}
