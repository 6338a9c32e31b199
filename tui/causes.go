package tui

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The cause tree and the fix plan on the host and finding screens.

// causeIn reports whether f's cause is a failing finding of the report
// (a suppressed cause leaves f a root).
func (s *shared) causeIn(f checks.Finding) bool {
	if f.CausedBy == nil || s.rep == nil {
		return false
	}
	for _, g := range s.byHost[f.CausedBy.Host] {
		if g.Status == checks.StatusFail && g.Key() == f.CausedBy.Key() {
			return true
		}
	}
	return false
}

// treeRule is the RULE cell of host's screen: consequences are drawn
// under their cause ("└ TCP_FALLBACK"), which the report order puts right
// above them when it is a finding of the same host; a consequence of a
// finding of another host or guest is marked "← " (its cause is on that
// screen, the finding screen names it), never drawn under a row it does not
// follow from.
func (s *shared) treeRule(f checks.Finding, host string) string {
	switch {
	case s.causeIn(f) && f.CausedBy.Host == host:
		return "└ " + sanitize(f.RuleID)
	case s.causeIn(f):
		return "← " + sanitize(f.RuleID)
	}
	return sanitize(f.RuleID)
}

// causeLines says on the finding screen what causes the finding and what
// follows from it.
func (s *shared) causeLines(f checks.Finding, w int) []string {
	var out []string
	if s.causeIn(f) {
		c := f.CausedBy
		on := ""
		if c.Host != f.Host {
			on = " on " + sanitize(c.Host)
		}
		out = append(out, labeled("Caused by:", fmt.Sprintf("%s %s%s — fix that first (its plan step resolves this too)", sanitize(c.RuleID), sanitize(c.Subject), on), w, stLabel)...)
	}
	if s.rep == nil {
		return out
	}
	for _, c := range s.rep.ConsequencesOf(f) {
		out = append(out, labeled("And therefore:", fmt.Sprintf("%s %s (%s)", sanitize(c.RuleID), sanitize(c.Subject), c.Severity), w, stLabel)...)
	}
	return out
}

func (s *shared) plan(host string) *checks.Plan {
	if s.rep == nil {
		return nil
	}
	return checks.PlanFor(s.rep.Plans, host)
}

// planLines is the host's fix plan, wrapped to the width.
func (s *shared) planLines(host string) []string {
	p := s.plan(host)
	w := s.width
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
		pad := strings.Repeat(" ", len(num))
		for _, wn := range s.Warnings {
			for _, l := range wrap("! "+sanitize(wn), w-len(num)) {
				out = append(out, pad+stWarn.Render(l))
			}
		}
		if len(s.Resolves) > 0 {
			for _, l := range wrap("resolves: "+sanitize(report.ResolvesText(s)), w-len(num)) {
				out = append(out, pad+stDim.Render(l))
			}
		}
	}
	if vs := report.PlanVerifies(*p); len(vs) > 0 {
		out = append(out, " "+stBold.Render("VERIFY once the plan is done"))
		for _, v := range vs {
			for i, l := range wrap(sanitize(report.ReadText(v)), w-6) {
				if i == 0 {
					out = append(out, "    - "+l)
				} else {
					out = append(out, "      "+l)
				}
			}
		}
	}
	return out
}
