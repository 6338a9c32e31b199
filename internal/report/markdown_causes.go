package report

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// writeMarkdownRoots writes the root causes by severity, each followed by
// its consequences ("and therefore ...") with their evidence.
func writeMarkdownRoots(b *strings.Builder, r *Report) {
	// The problems by severity (each heading counts what it lists), then
	// what could not be collected: one line per cause, each host's
	// finding under it.
	groups := map[checks.Severity][]checks.Finding{}
	var collection []checks.Finding
	for _, f := range r.RootFindings() {
		if f.RuleID == checks.CollectionFailed {
			collection = append(collection, f)
			continue
		}
		groups[f.Severity] = append(groups[f.Severity], f)
	}
	for _, sev := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		fs := groups[sev]
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## %s (%s)\n", strings.ToUpper(string(sev)), plural(len(fs), "root cause", "root causes"))
		for _, f := range fs {
			writeMarkdownFinding(b, r, f)
			writeMarkdownConsequences(b, r, f, "")
		}
	}
	if len(r.CollectionFailures) > 0 || len(collection) > 0 {
		b.WriteString("\n## Not collected\n\n")
		for _, c := range r.CollectionFailures {
			fmt.Fprintf(b, "- %s\n", md(c.Line()))
		}
		for _, f := range collection {
			writeMarkdownFinding(b, r, f)
		}
	}
}

func writeMarkdownConsequences(b *strings.Builder, r *Report, f checks.Finding, indent string) {
	cs := r.ConsequencesOf(f)
	if len(cs) == 0 {
		return
	}
	b.WriteString("\n")
	for _, c := range cs {
		fmt.Fprintf(b, "%s- **%s:** %s (%s) — %s: %s\n", indent, md(therefore(c)), md(c.RuleID), md(string(c.Severity)), md(c.Subject), md(c.Message))
		for _, e := range c.Evidence {
			fmt.Fprintf(b, "%s  - evidence: %s\n", indent, markdownEvidence(e))
		}
		writeMarkdownConsequences(b, r, c, indent+"  ")
	}
}

// writeMarkdownPlans writes one numbered fix plan per host.
func writeMarkdownPlans(b *strings.Builder, r *Report) {
	if len(r.Plans) == 0 {
		return
	}
	b.WriteString("\n## Fix plan\n\nOne plan per host, in order; each step names the findings it resolves.\n")
	for _, p := range r.Plans {
		fmt.Fprintf(b, "\n### %s\n\n", md(p.Host))
		for _, s := range p.Steps {
			line := md(s.Text)
			if s.Command != "" {
				line += " Run: " + mdCode(s.Command)
			}
			if s.Optional {
				line = "*(optional)* " + line
			}
			fmt.Fprintf(b, "%d. %s", s.N, line)
			for _, w := range s.Warnings {
				fmt.Fprintf(b, " **Note:** %s.", md(w))
			}
			if len(s.Resolves) > 0 {
				fmt.Fprintf(b, " — resolves: %s", md(ResolvesText(s)))
			}
			b.WriteString("\n")
		}
		if vs := PlanVerifies(p); len(vs) > 0 {
			b.WriteString("\nVerify once the plan is done:\n\n")
			for _, v := range vs {
				fmt.Fprintf(b, "- %s\n", md(ReadText(v)))
			}
		}
		if p.Rescan != "" {
			fmt.Fprintf(b, "\nThen %s: %s.\n", md(p.Rescan), md(rescanExpect(p)))
		}
	}
}
