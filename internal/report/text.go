package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// TextOptions controls the human-readable report.
type TextOptions struct {
	// Color enables ANSI colours (only on a terminal, and never with NO_COLOR).
	Color bool
	// Width wraps long lines (default 80).
	Width int
	// ShowSuppressed lists suppressed findings too.
	ShowSuppressed bool
	// Details writes everything: each finding with all its evidence and
	// its fix, the consequences under their causes, the whole fix plans,
	// the checks not evaluated. Without it the report is the concise
	// view (WriteText).
	Details bool
}

type painter struct{ on bool }

func (p painter) c(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) sev(s checks.Severity, text string) string {
	switch s {
	case checks.Critical:
		return p.c("1;31", text)
	case checks.Warning:
		return p.c("1;33", text)
	case checks.Info:
		return p.c("1;36", text)
	}
	return text
}

// writeTextReport writes the report for people. By default it is the concise
// view a busy admin reads first (textConcise: the verdict, one line per
// host, one line per collection failure cause, each broken host's root
// causes with one evidence line each and its fix plan, a coverage line);
// with Details, everything: a verdict per host, then for each host its
// root causes with their evidence and fix, their consequences, and its
// whole plan, and the checks that were not evaluated.
func writeTextReport(w io.Writer, r *Report, opt TextOptions) error {
	r = ForHumans(r)
	if opt.Width <= 0 {
		opt.Width = 80
	}
	if !opt.Details {
		return writeConcise(w, r, opt)
	}
	p := painter{opt.Color}
	var b strings.Builder
	wrap := wrapTo(&b, opt.Width)
	wrap("", fmt.Sprintf("%s %s — %s", p.c("1", "pvrdma-doctor"), r.Tool.Version, r.Source))
	b.WriteString("\n")
	wrap("", p.c("1;"+r.VerdictLevel().ansi(), keepCounts(r.Verdict)))
	b.WriteString("\n" + p.c("1", "HOSTS") + "\n")
	nameW := 4
	for _, h := range r.Hosts {
		nameW = max(nameW, len(h.Host))
	}
	for _, h := range r.Hosts {
		code := h.level().ansi()
		// The verdict wraps in the column after the name, so that
		// continuation lines stay within the width too. Names too long to
		// leave a column of 40 cells put the verdict under the name.
		indent := strings.Repeat(" ", nameW+4)
		stacked := opt.Width-len(indent) < 40
		if stacked {
			indent = "      "
			b.WriteString(p.c(code, "  "+h.Host) + "\n")
		}
		for i, l := range strings.Split(unkeep(Wrap(keepCounts(h.Verdict), opt.Width-len(indent))), "\n") {
			if i == 0 && !stacked {
				l = fmt.Sprintf("  %-*s  %s", nameW, h.Host, l)
			} else {
				l = indent + l
			}
			b.WriteString(p.c(code, l) + "\n")
		}
		if h.Status != hostio.StatusNotCollected {
			wrap(indent, p.c("2", strings.Join([]string{keep(orDash(h.Version, "ESXi version unknown", "ESXi ")),
				keep(h.rdmaDevicesText()), keep(h.pvrdmaVMsText())}, nbsp+"· ")))
		}
		for _, st := range h.Stacks {
			wrap(indent, p.c("2", "stack: "+StackText(st)))
		}
		if c := h.coverageText(); c != "" {
			wrap(indent, c)
		}
		for _, n := range h.Notes {
			wrap(indent, "note: "+n)
		}
		for _, a := range h.Adapters {
			wrap(indent, a.Text())
		}
	}
	section(&b, "guests section", textErrLine, func(sb *strings.Builder) { writeTextGuests(sb, p, r, wrapTo(sb, opt.Width)) })
	section(&b, "readiness section", textErrLine, func(sb *strings.Builder) {
		writeTextReadiness(sb, p, r, wrapTo(sb, opt.Width), opt.Width, true)
	})
	section(&b, "findings section", textErrLine, func(sb *strings.Builder) { writeTextRoots(sb, p, r, wrapTo(sb, opt.Width), opt.Width) })
	var ne []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			ne = append(ne, f)
		}
	}
	if len(ne) > 0 {
		fmt.Fprintf(&b, "\n%s\n", p.c("1", fmt.Sprintf("NOT EVALUATED (%d)", len(ne))))
		// Group by host and reason: one unreachable host would otherwise
		// repeat its reason once per rule.
		type group struct {
			host, reason string
			items        []string
		}
		var groups []*group
		idx := map[string]*group{}
		for _, f := range ne {
			reason := strings.TrimPrefix(f.Message, "not evaluated: ")
			k := f.Host + "\x00" + reason
			g := idx[k]
			if g == nil {
				g = &group{host: f.Host, reason: reason}
				idx[k] = g
				groups = append(groups, g)
			}
			item := f.RuleID
			if f.Subject != f.Host {
				item += " (" + f.Subject + ")"
			}
			g.items = append(g.items, item)
		}
		for _, g := range groups {
			wrap("  ", fmt.Sprintf("%s: %s", g.host, strings.Join(g.items, ", ")))
			wrap("    ", p.c("2", "because "+g.reason))
		}
	}
	if len(r.Suppressed) > 0 {
		if opt.ShowSuppressed {
			fmt.Fprintf(&b, "\n%s\n", p.c("1", fmt.Sprintf("SUPPRESSED (%d)", len(r.Suppressed))))
			for _, f := range r.Suppressed {
				wrap("  ", fmt.Sprintf("%s %s %s: %s (reason: %s)", f.RuleID, f.Host, f.Subject, f.Message, f.SuppressReason))
			}
		} else {
			fmt.Fprintf(&b, "\n%d suppressed finding(s) not shown (--show-suppressed lists them).\n", len(r.Suppressed))
		}
	}
	for _, n := range r.Notes {
		b.WriteString("\n")
		wrap("", "note: "+n)
	}
	if r.Summary.Critical+r.Summary.Warning > 0 {
		b.WriteString("\n")
		wrap("", "Details of a rule: pvrdma-doctor rules explain RULE_ID")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapTo returns the text report's line writer into b: s wrapped to
// width after indent, every line indented.
func wrapTo(b *strings.Builder, width int) func(indent, s string) {
	return func(indent, s string) {
		body := unkeep(Wrap(s, width-len(indent)))
		for _, line := range strings.Split(body, "\n") {
			b.WriteString(indent + line + "\n")
		}
	}
}

func writeFinding(b *strings.Builder, p painter, f checks.Finding, wrap func(string, string)) {
	head := fmt.Sprintf("%s  %s  %s  %s", p.sev(f.Severity, strings.ToUpper(string(f.Severity))), p.sev(f.Severity, f.RuleID), p.c("1", f.Host), f.Subject)
	wrap("  ", head)
	wrap("    ", f.Message)
	for _, e := range f.Evidence {
		wrap("    ", p.c("2", evidenceLabel(f.Host, e)+": "+EvidenceLine(e)))
	}
	if f.Fix != "" {
		wrap("    ", p.c("32", "fix: ")+f.Fix)
	}
}

// evidenceLabel is "evidence", or "evidence (HOST)" when the evidence comes
// from another host than the finding's (cross-host rules cite peers).
func evidenceLabel(findingHost string, e checks.Evidence) string {
	if e.Host != "" && e.Host != findingHost {
		return "evidence (" + e.Host + ")"
	}
	return "evidence"
}

// EvidenceLine renders one evidence reference on one line.
func EvidenceLine(e checks.Evidence) string {
	var s string
	switch {
	case e.Line > 0 && e.Property != "":
		// vCenter's JSON line: the property it shows, not the line.
		s = fmt.Sprintf("`%s` line %d: %s", e.Command, e.Line, strings.TrimSpace(e.Property))
	case e.Line > 0:
		s = fmt.Sprintf("`%s` line %d: %s", e.Command, e.Line, strings.TrimSpace(e.Text))
	case e.Command != "":
		s = fmt.Sprintf("`%s`", e.Command)
	}
	if e.Note != "" {
		if s != "" {
			s += " (" + e.Note + ")"
		} else {
			s = e.Note
		}
	}
	return s
}

// nbsp joins the words of a unit ("1 PVRDMA VM") before Wrap, which
// breaks at spaces only; unkeep turns it back into spaces after wrapping.
const nbsp = "\u00a0"

func keep(s string) string { return strings.ReplaceAll(s, " ", nbsp) }

func unkeep(s string) string { return strings.ReplaceAll(s, nbsp, " ") }

// countWord is a count and the word after it: "5 critical", "2 warnings".
var countWord = regexp.MustCompile(`\b(\d+) (\pL)`)

// keepCounts keeps every count with the word that follows it.
func keepCounts(s string) string { return countWord.ReplaceAllString(s, "${1}"+nbsp+"${2}") }

func orDash(v, empty, prefix string) string {
	if v == "" {
		return empty
	}
	return prefix + v
}
