package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// readinessPage is the readiness table (report.Readiness): every host of
// the scan against the seeds' host setup, whether or not it runs PVRDMA
// VMs, a tick or a cross per step, with the reasons under the table. It
// only scrolls; it is about the whole fleet.
type readinessPage struct{ scrollPage }

func newReadinessPage(s *shared) *readinessPage {
	return &readinessPage{scrollPage{s: s, lines: func() []string { return readinessLines(s.rep, s.width) }}}
}

// Update: the readiness table only scrolls.
func (p *readinessPage) Update(tea.Msg) (page, tea.Cmd) { return p, nil }

func (p *readinessPage) crumbs(trail []string) []string { return append(trail, "readiness") }

func (p *readinessPage) hints() []key.Binding {
	k := p.s.keys
	return []key.Binding{k.Back, k.arrows("scroll"), hint(k.RescanAll, "rescan all"), hint(k.Bundle, "bundle")}
}

// readinessLines draws the table: a header of the steps' short titles,
// one row per host (its symbols and its role), the legend, then for each
// host the steps not done (✗) and not read (?) with why.
func readinessLines(r *report.Report, width int) []string {
	if r == nil || r.Readiness == nil || len(r.Readiness.Hosts) == 0 {
		return []string{" " + stDim.Render("No readiness yet: no host has been analysed.")}
	}
	rd := r.Readiness
	var out []string
	for _, l := range wrap("READINESS: "+sanitize(r.ReadinessTitle()), width-2) {
		out = append(out, " "+stBold.Render(l))
	}
	nameW := 4
	for _, h := range rd.Hosts {
		nameW = max(nameW, len(sanitize(h.Host)))
	}
	nameW = min(nameW, max(8, width/4))
	head := fmt.Sprintf(" %-*s", nameW, "HOST")
	for _, s := range rd.Steps {
		head += "  " + report.ReadinessHead(s)
	}
	out = append(out, stDim.Render(head))
	for _, h := range rd.Hosts {
		name := sanitize(h.Host)
		if len(name) > nameW {
			name = name[:nameW-1] + "…"
		}
		line := fmt.Sprintf(" %-*s", nameW, name)
		for i, s := range rd.Steps {
			sym := "?"
			st := checks.CellUnknown
			if i < len(h.Cells) {
				st = h.Cells[i].State
				sym = report.ReadinessSymbol(st)
			}
			cell := fmt.Sprintf("%-*s", len(report.ReadinessHead(s)), sym)
			switch st {
			case checks.CellOK:
				cell = stOK.Render(cell)
			case checks.CellFail:
				cell = stCrit.Render(cell)
			case checks.CellUnknown:
				cell = stWarn.Render(cell)
			default:
				cell = stDim.Render(cell)
			}
			line += "  " + cell
		}
		out = append(out, line+"  "+stDim.Render(sanitize(report.ReadinessRole(h, rd.Switch))))
	}
	out = append(out, " "+stDim.Render(report.ReadinessLegend), "")
	for _, h := range rd.Hosts {
		var fails, unknown []string
		for i, c := range h.Cells {
			if i >= len(rd.Steps) {
				break
			}
			switch c.State {
			case checks.CellFail:
				fails = append(fails, c.Text)
			case checks.CellUnknown:
				unknown = append(unknown, rd.Steps[i].Title+": "+strings.TrimPrefix(c.Text, "not read: "))
			}
		}
		if len(fails)+len(unknown) == 0 {
			continue
		}
		out = append(out, " "+stBold.Render(sanitize(h.Host)))
		if h.Role != "pvrdma" && h.Placement != "" {
			// Whether DRS or HA can place PVRDMA VMs on a host that runs none.
			for _, l := range wrap(sanitize(h.Placement), width-4) {
				out = append(out, "   "+stDim.Render(l))
			}
		}
		for _, f := range fails {
			for i, l := range wrapHanging("✗ "+sanitize(f), width-4, width-6) {
				if i > 0 {
					l = "  " + l
				}
				out = append(out, "   "+stCrit.Render(l))
			}
		}
		for _, u := range unknown {
			for i, l := range wrapHanging("? "+sanitize(u), width-4, width-6) {
				if i > 0 {
					l = "  " + l
				}
				out = append(out, "   "+stDim.Render(l))
			}
		}
	}
	return out
}
