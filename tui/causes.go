package tui

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// The cause tree and the fix plan on the host and finding screens.

// causeIn reports whether f's cause is a failing finding of the report
// (a suppressed cause leaves f a root).
func (m *Model) causeIn(f checks.Finding) bool {
	if f.CausedBy == nil || m.rep == nil {
		return false
	}
	for _, g := range m.byHost[f.CausedBy.Host] {
		if g.Status == checks.StatusFail && g.Key() == f.CausedBy.Key() {
			return true
		}
	}
	return false
}

// treeRule is the RULE cell of the host screen: consequences are drawn
// under their cause ("└ TCP_FALLBACK"), which the report order puts right
// above them.
func (m *Model) treeRule(f checks.Finding) string {
	if m.causeIn(f) {
		return "└ " + sanitize(f.RuleID)
	}
	return sanitize(f.RuleID)
}

// causeLines says on the finding screen what causes the finding and what
// follows from it.
func (m *Model) causeLines(f checks.Finding, w int) []string {
	var out []string
	if m.causeIn(f) {
		c := f.CausedBy
		out = append(out, labeled("Caused by:", fmt.Sprintf("%s %s — fix that first (its plan step resolves this too)", sanitize(c.RuleID), sanitize(c.Subject)), w, stLabel)...)
	}
	if m.rep == nil {
		return out
	}
	for _, c := range m.rep.ConsequencesOf(f) {
		out = append(out, labeled("And therefore:", fmt.Sprintf("%s %s (%s)", sanitize(c.RuleID), sanitize(c.Subject), c.Severity), w, stLabel)...)
	}
	return out
}

func (m *Model) plan(host string) *checks.Plan {
	if m.rep == nil {
		return nil
	}
	return checks.PlanFor(m.rep.Plans, host)
}

// planLines is the host's fix plan, wrapped to the width.
func (m *Model) planLines(host string) []string {
	p := m.plan(host)
	w := m.width
	if p == nil {
		return []string{" " + stOK.Render("No fix plan: nothing at warning or above on "+sanitize(host)+".")}
	}
	out := []string{" " + stBold.Render("FIX PLAN for "+sanitize(host)) + stDim.Render(fmt.Sprintf("  %d steps, in order; each names the findings it resolves", len(p.Steps)))}
	for _, s := range p.Steps {
		num := fmt.Sprintf("  %2d. ", s.N)
		text := sanitize(report.StepText(s))
		if s.Optional {
			text = "(optional) " + text
		}
		for i, l := range wrapHanging(text, w-len(num), w-len(num)) {
			if i == 0 {
				out = append(out, num+l)
			} else {
				out = append(out, strings.Repeat(" ", len(num))+l)
			}
		}
		if len(s.Resolves) > 0 {
			pad := strings.Repeat(" ", len(num))
			for _, l := range wrap("resolves: "+sanitize(report.ResolvesText(s)), w-len(num)) {
				out = append(out, pad+stDim.Render(l))
			}
		}
	}
	return out
}

func (m *Model) planBody() []string {
	lines := m.planLines(m.top().host)
	v := m.top()
	end := min(v.offset+m.bodyHeight(), len(lines))
	if v.offset >= end {
		return nil
	}
	return lines[v.offset:end]
}

// planPreviewRows is how many rows the host screen keeps below its list
// for the start of the fix plan: up to a third of the body.
// It is hidden while a filter or a severity toggle narrows the list.
func (m *Model) planPreviewRows(host string) int {
	if m.plan(host) == nil || m.top().filter != "" || !m.showSev[checks.Critical] || !m.showSev[checks.Warning] || !m.showSev[checks.Info] {
		return 0
	}
	return min(len(m.planLines(host))+1, max(m.bodyHeight()/3, 3))
}

// planPreview is the start of the fix plan under the host's findings.
func (m *Model) planPreview(host string) []string {
	n := m.planPreviewRows(host)
	if n == 0 {
		return nil
	}
	lines := m.planLines(host)
	out := []string{""}
	if len(lines) > n-1 {
		lines = lines[:n-1]
		lines[len(lines)-1] = stDim.Render("  … f: the whole fix plan")
	}
	lines[0] = lines[0] + stDim.Render("  (f: full plan)")
	return append(out, lines...)
}
