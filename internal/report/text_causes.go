package report

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// writeTextRoots writes, for each host with findings, its root causes
// (most severe first), each followed by the findings that follow from it
// ("and therefore ...") with their evidence, then the host's fix plan.
func writeTextRoots(b *strings.Builder, p painter, r *Report, wrap func(string, string), width int) {
	roots := r.RootFindings()
	for _, h := range r.Entries() {
		var mine []checks.Finding
		for _, f := range roots {
			if f.Host == h.Host {
				mine = append(mine, f)
			}
		}
		if len(mine) == 0 && (h.Role != hostio.RoleGuest || checks.PlanFor(r.Plans, h.Host) == nil) {
			continue
		}
		code := "1;32"
		switch {
		case h.Critical > 0:
			code = "1;31"
		case h.Warning > 0 || h.CollectionFailed > 0:
			code = "1;33"
		}
		b.WriteString("\n")
		wrap("", p.c(code, keepCounts(h.Host+" — "+h.Verdict)))
		// The heading counts exactly the entries listed under it: the
		// problems first, then what could not be collected.
		var problems, collection []checks.Finding
		for _, f := range mine {
			if f.RuleID == checks.CollectionFailed {
				collection = append(collection, f)
			} else {
				problems = append(problems, f)
			}
		}
		if len(problems) > 0 {
			wrap("  ", p.c("1", fmt.Sprintf("ROOT CAUSES (%d)", len(problems))))
		} else if h.Role == hostio.RoleGuest && len(collection) == 0 {
			wrap("  ", p.c("1", "NO ROOT CAUSE IN THE GUEST (its findings are shown under their host-side causes)"))
		}
		for _, f := range problems {
			writeFinding(b, p, f, wrap)
			writeTextConsequences(b, p, r, f, "    ", wrap)
		}
		if len(collection) > 0 {
			wrap("  ", p.c("1", fmt.Sprintf("NOT COLLECTED (%d)", len(collection))))
		}
		for _, f := range collection {
			writeFinding(b, p, f, wrap)
			writeTextConsequences(b, p, r, f, "    ", wrap)
		}
		if pl := checks.PlanFor(r.Plans, h.Host); pl != nil {
			wrap("  ", p.c("1", "FIX PLAN (in order; each step names the findings it resolves)"))
			for _, s := range pl.Steps {
				head := fmt.Sprintf("%d. ", s.N)
				pad := strings.Repeat(" ", len(head))
				text := StepText(s)
				if s.Optional {
					text = "(optional) " + text
				}
				for i, l := range strings.Split(unkeep(Wrap(text, width-4-len(head))), "\n") {
					if i == 0 {
						b.WriteString("    " + head + l + "\n")
					} else {
						b.WriteString("    " + pad + l + "\n")
					}
				}
				for _, w := range s.Warnings {
					wrap("    "+pad, p.c("33", "! "+w))
				}
				if s.Require != nil {
					wrap("    "+pad, p.c("2", "first: "+ReadText(*s.Require)))
				}
				if len(s.Resolves) > 0 {
					wrap("    "+pad, p.c("2", "resolves: "+ResolvesText(s)))
				}
			}
			if vs := PlanVerifies(*pl); len(vs) > 0 {
				wrap("  ", p.c("1", "VERIFY (once the plan is done)"))
				for _, v := range vs {
					wrap("    ", "- "+ReadText(v))
				}
			}
			if pl.Rescan != "" {
				wrap("  ", "Then "+pl.Rescan+": "+rescanExpect(*pl)+".")
			}
		}
	}
	// Findings about hosts outside the host list (none in practice).
	known := map[string]bool{}
	for _, h := range r.Entries() {
		known[h.Host] = true
	}
	for _, f := range roots {
		if !known[f.Host] {
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

// StepText is a plan step on one line: its text and exact command.
func StepText(s checks.PlanStep) string {
	t := s.Text
	if s.Command != "" {
		t += " Run: " + s.Command
	}
	return t
}

// ReadText is a read in words: "`CMD` shows EXPECT", saying where the VM's
// World ID comes from when the command needs it.
func ReadText(v plan.Read) string {
	t := "`" + v.Command + "` shows " + v.Expect
	if v.VM != "" {
		t += " (<worldID>: " + v.VM + "'s World ID in `esxcli vm process list`)"
	}
	if v.On == "guest" {
		t = "in the guest, " + t
	}
	return t
}

// PlanVerifies are a plan's verify reads in step order, each once.
func PlanVerifies(p checks.Plan) []plan.Read {
	var out []plan.Read
	seen := map[string]bool{}
	for _, s := range p.Steps {
		for _, v := range s.Verify {
			k := v.Command + "\x00" + v.VM + "\x00" + v.Expect
			if !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// rescanExpect says what the rescan after a plan shows.
func rescanExpect(p checks.Plan) string {
	if len(p.Unresolved) == 0 {
		return "no critical or warning finding should remain"
	}
	var names []string
	for _, c := range p.Unresolved {
		names = append(names, c.RuleID+" "+c.Subject)
	}
	verb := " stays"
	if len(names) > 1 {
		verb = " stay"
	}
	return "the findings the steps resolve are gone; " + strings.Join(names, "; ") + verb + " until the investigate steps find their cause"
}

// ResolvesText lists the findings a step resolves: "RULE subject, ...".
func ResolvesText(s checks.PlanStep) string {
	var parts []string
	for _, c := range s.Resolves {
		parts = append(parts, c.RuleID+" "+c.Subject)
	}
	return strings.Join(parts, "; ")
}
