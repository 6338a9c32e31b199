package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// mdReplacer neutralises Markdown and inline HTML in free text (host and VM
// display names are chosen by whoever created the VM). '[' is escaped, so
// no link or image can open; a lone ']' is harmless and kept. A backslash
// is handled by md.
var mdReplacer = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[",
	"|", "\\|", "#", "\\#", "!", "\\!", "~", "\\~",
	"\r\n", " ", "\n", " ", "\r", " ",
)

// md escapes text for a Markdown paragraph or table cell. A backslash is
// doubled only where Markdown would read it as an escape (before ASCII
// punctuation, or last): the visible escapes of control characters
// (textsafe: "\x1b", "\u202e") stay as they are, in the source as on the
// rendered page.
func md(s string) string {
	if strings.Contains(s, "\\") {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteByte(s[i])
			if s[i] == '\\' && (i+1 == len(s) || isASCIIPunct(s[i+1])) {
				b.WriteByte('\\')
			}
		}
		s = b.String()
	}
	return mdReplacer.Replace(s)
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// mdCode renders s as an inline code span that no backtick in s can close.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		pad = " "
	}
	// A '|' inside a code span still splits a table row: only used outside tables.
	return fence + pad + s + pad + fence
}

// writeMarkdownReport writes the report as GitHub-flavoured Markdown: the
// verdict, a host table, findings by severity with evidence and fix, then
// what was not evaluated.
func writeMarkdownReport(w io.Writer, r *Report) error {
	r = ForHumans(r)
	var b strings.Builder
	fmt.Fprintf(&b, "# pvrdma-doctor report\n\n")
	fmt.Fprintf(&b, "**%s**\n\n", md(r.Verdict))
	fmt.Fprintf(&b, "%s · pvrdma-doctor %s · %s\n\n", md(r.Source), md(r.Tool.Version), r.GeneratedAt.Format("2006-01-02 15:04:05 UTC"))
	s := r.Summary
	b.WriteString("| critical | warning | info | findings | consequences | not evaluated | passed | suppressed |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.Problems.Critical, s.Problems.Warning, s.Problems.Info,
		s.RootCauses.Total(), s.Consequences, s.NotEvaluated, s.Passed, s.Suppressed)

	b.WriteString("## Hosts\n\n| host | verdict | ESXi | RDMA devices | PVRDMA VMs |\n|---|---|---|---:|---:|\n")
	for _, h := range r.Hosts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", md(h.Host), md(h.Verdict), md(orDash(h.Version, "-", "")),
			cellCount(h.RDMADeviceCount()), cellCount(h.PVRDMAVMCount()))
	}
	stacks := false
	for _, h := range r.Hosts {
		for _, st := range h.Stacks {
			if !stacks {
				b.WriteString("\nDriver stacks of the PVRDMA uplinks:\n\n")
				stacks = true
			}
			fmt.Fprintf(&b, "- %s: %s\n", md(h.Host), md(StackText(st)))
		}
	}
	if stacks {
		b.WriteString("\n")
	}
	hostNotes := false
	for _, h := range r.Hosts {
		for _, n := range h.Notes {
			if !hostNotes {
				b.WriteString("\nHost notes:\n\n")
				hostNotes = true
			}
			fmt.Fprintf(&b, "- **%s**: %s\n", md(h.Host), md(n))
		}
	}
	section(&b, "guests section", mdErrLine, func(sb *strings.Builder) { writeMarkdownGuests(sb, r) })
	section(&b, "readiness section", mdErrLine, func(sb *strings.Builder) { writeMarkdownReadiness(sb, r) })
	section(&b, "findings section", mdErrLine, func(sb *strings.Builder) { writeMarkdownRoots(sb, r) })
	section(&b, "fix plans section", mdErrLine, func(sb *strings.Builder) { writeMarkdownPlans(sb, r) })
	var ne []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			ne = append(ne, f)
		}
	}
	if len(ne) > 0 {
		fmt.Fprintf(&b, "\n## Not evaluated (%d)\n\n| host | rule | subject | reason |\n|---|---|---|---|\n", len(ne))
		for _, f := range ne {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", md(f.Host), md(f.RuleID), md(f.Subject), md(strings.TrimPrefix(f.Message, "not evaluated: ")))
		}
	}
	if len(r.Suppressed) > 0 {
		fmt.Fprintf(&b, "\n## Suppressed (%d)\n\n| host | rule | subject | reason |\n|---|---|---|---|\n", len(r.Suppressed))
		for _, f := range r.Suppressed {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", md(f.Host), md(f.RuleID), md(f.Subject), md(f.SuppressReason))
		}
	} else if s.Suppressed > 0 {
		fmt.Fprintf(&b, "\n%d suppressed finding(s) not shown (--show-suppressed lists them).\n", s.Suppressed)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", md(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownFinding(b *strings.Builder, r *Report, f checks.Finding) {
	title := f.RuleID
	if m, ok := r.Rules[f.RuleID]; ok {
		title += ": " + m.Title
	}
	fmt.Fprintf(b, "\n### %s — %s — %s\n\n", md(title), md(f.Host), md(f.Subject))
	fmt.Fprintf(b, "%s\n\n", md(f.Message))
	if len(f.Evidence) > 0 {
		b.WriteString("<details><summary>Evidence</summary>\n\n")
		for _, e := range f.Evidence {
			fmt.Fprintf(b, "- %s\n", markdownEvidence(e))
		}
		b.WriteString("\n</details>\n\n")
	}
	if f.Fix != "" {
		fmt.Fprintf(b, "**Fix:** %s\n\n", md(f.Fix))
	}
	if m, ok := r.Rules[f.RuleID]; ok && len(m.Docs) > 0 {
		var links []string
		for _, d := range m.Docs {
			links = append(links, md(d))
		}
		fmt.Fprintf(b, "Docs: %s\n", strings.Join(links, "; "))
	}
}

func markdownEvidence(e checks.Evidence) string {
	var s string
	switch {
	case e.Line > 0 && e.Property != "":
		// vCenter's JSON line: the property it shows, in bold.
		s = fmt.Sprintf("%s on %s, line %d: **%s**", mdCode(e.Command), md(e.Host), e.Line, md(strings.TrimSpace(e.Property)))
	case e.Line > 0:
		s = fmt.Sprintf("%s on %s, line %d: %s", mdCode(e.Command), md(e.Host), e.Line, mdCode(strings.TrimSpace(e.Text)))
	case e.Command != "":
		s = fmt.Sprintf("%s on %s", mdCode(e.Command), md(e.Host))
	}
	if e.Note != "" {
		if s != "" {
			s += " (" + md(e.Note) + ")"
		} else {
			s = md(e.Note)
		}
	}
	return s
}
