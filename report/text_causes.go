package report

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// writeTextRoots writes the root causes by severity, each followed by the
// findings that follow from it ("and therefore ..."), with their evidence.
func writeTextRoots(b *strings.Builder, p painter, r *Report, wrap func(string, string)) {
	groups := r.RootsBySeverity()
	for _, sev := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		fs := groups[sev]
		if len(fs) == 0 {
			continue
		}
		title := fmt.Sprintf("%s (%s)", strings.ToUpper(string(sev)), plural(len(fs), "root cause", "root causes"))
		fmt.Fprintf(b, "\n%s\n", p.sev(sev, title))
		for _, f := range fs {
			writeFinding(b, p, f, wrap)
			writeTextConsequences(b, p, r, f, "    ", wrap)
		}
	}
}

func writeTextConsequences(b *strings.Builder, p painter, r *Report, f checks.Finding, indent string, wrap func(string, string)) {
	for _, c := range r.ConsequencesOf(f) {
		wrap(indent, p.c("1", therefore(c)+":")+" "+p.sev(c.Severity, c.RuleID)+"  "+c.Subject+" ("+string(c.Severity)+")")
		wrap(indent+"  ", c.Message)
		for _, e := range c.Evidence {
			wrap(indent+"  ", p.c("2", evidenceLabel(c.Host, e)+": "+EvidenceLine(e)))
		}
		writeTextConsequences(b, p, r, c, indent+"  ", wrap)
	}
}

// writeTextPlans writes one fix plan per host.
func writeTextPlans(b *strings.Builder, p painter, r *Report, wrap func(string, string)) {
	if len(r.Plans) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", p.c("1", "FIX PLAN (one per host, in order; each step says which findings it resolves)"))
	for _, pl := range r.Plans {
		wrap("  ", p.c("1", pl.Host))
		for _, s := range pl.Steps {
			wrap("    ", fmt.Sprintf("%d. %s", s.N, StepText(s)))
			if len(s.Resolves) > 0 {
				wrap("       ", p.c("2", "resolves: "+ResolvesText(s)))
			}
		}
	}
}

// StepText is a plan step on one line: its text and exact command.
func StepText(s checks.PlanStep) string {
	t := s.Text
	if s.Command != "" && s.Action != "verify" {
		t += " Run: " + s.Command
	}
	return t
}

// ResolvesText lists the findings a step resolves: "RULE subject, ...".
func ResolvesText(s checks.PlanStep) string {
	var parts []string
	for _, c := range s.Resolves {
		parts = append(parts, c.RuleID+" "+c.Subject)
	}
	return strings.Join(parts, "; ")
}
