package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The concise text report: what a busy admin reads first, and all of it
// fits on a few screens. The verdict; one line per host (hosts with the
// same line merged); one line per cause of what could not be collected;
// then per broken host (hosts with the same problems and plan merged) its
// root causes, each a headline with its subjects, its message (at most
// conciseMessageLines lines) and one evidence line, and its fix plan's
// actions (the verification steps counted). --details (TextOptions.Details)
// has everything else; JSON and HTML always do.

const (
	conciseMessageLines = 2
	// mergeHosts is how many hosts with the same line it takes to write
	// them as one line, in a list of more than mergeList entries.
	mergeHosts = 3
	mergeList  = 12
)

func writeConcise(w io.Writer, r *Report, opt TextOptions) error {
	p := painter{opt.Color}
	var b strings.Builder
	out := &b // where wrap and cut write: b, or a guarded section's own builder
	width := opt.Width
	wrap := func(indent, s string) {
		for _, line := range strings.Split(unkeep(Wrap(s, width-len(indent))), "\n") {
			out.WriteString(indent + line + "\n")
		}
	}
	// cut wraps s and keeps at most n lines, the last ending in "…".
	cut := func(indent, s string, n int) {
		lines := strings.Split(unkeep(Wrap(s, width-len(indent))), "\n")
		if len(lines) > n {
			lines = lines[:n]
			last := strings.TrimRight(lines[n-1], " ")
			if len(last)+2 > width-len(indent) {
				if i := strings.LastIndex(last, " "); i > 0 {
					last = last[:i]
				}
			}
			lines[n-1] = last + " …"
		}
		for _, l := range lines {
			out.WriteString(indent + l + "\n")
		}
	}
	// guarded renders one section through section (recover.go): wrap and
	// cut write into its builder while it runs.
	guarded := func(name string, render func(sb *strings.Builder)) {
		section(&b, name, textErrLine, func(sb *strings.Builder) {
			out = sb
			defer func() { out = &b }()
			render(sb)
		})
	}
	source := r.Source
	if len(source)+len(r.Tool.Version)+16 > width {
		// The demo's source carries the scenario's description: --details.
		if i := strings.Index(source, " ("); i > 0 {
			source = source[:i]
		}
	}
	wrap("", fmt.Sprintf("%s %s — %s", p.c("1", "pvrdma-doctor"), r.Tool.Version, source))
	b.WriteString("\n")
	wrap("", p.c("1;"+r.VerdictLevel().ansi(), keepCounts(r.Verdict)))
	if why := vcenterNotRead(r); why != "" {
		// The scan was given a vCenter and goes on without it: say so
		// where the verdict is read.
		wrap("", p.c("1;33", "vCenter was NOT read: "+why+"; its data (VM configuration, hosts without SSH) is missing"))
	}

	writeConciseEntries(&b, p, "HOSTS", "hosts", r.Hosts, wrap, width)
	guarded("guests section", func(sb *strings.Builder) { writeConciseEntries(sb, p, "GUESTS", "guests", r.Guests, wrap, width) })
	guarded("readiness section", func(sb *strings.Builder) { writeTextReadiness(sb, p, r, wrap, width, false) })

	if len(r.CollectionFailures) > 0 {
		b.WriteString("\n" + p.c("1", "NOT COLLECTED") + "\n")
		for _, c := range r.CollectionFailures {
			// One cause, one entry: continuation lines hang under it.
			for i, l := range strings.Split(unkeep(Wrap(c.Line(), width-4)), "\n") {
				if i == 0 {
					b.WriteString("  " + l + "\n")
				} else {
					b.WriteString("    " + l + "\n")
				}
			}
		}
	}

	guarded("findings section", func(sb *strings.Builder) {
		secs := conciseSections(r)
		shared := sharedFixesOf(secs)
		for _, sec := range secs {
			writeConciseSection(sb, p, r, sec, wrap, cut, width, shared)
		}
	})

	s := r.Summary
	b.WriteString("\n")
	cov := []string{plural(s.Passed, "check passed", "checks passed")}
	if s.NotEvaluated > 0 {
		var on []string
		for _, h := range r.Entries() {
			if h.NotEvaluated > 0 {
				on = append(on, h.Host)
			}
		}
		cov = append(cov, fmt.Sprintf("%d not evaluated (%s)", s.NotEvaluated, nameList(on, 3)))
	}
	if s.Suppressed > 0 {
		cov = append(cov, fmt.Sprintf("%d suppressed", s.Suppressed))
	}
	wrap("", p.c("1", "COVERAGE")+" "+strings.Join(cov, ", ")+".")
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "PARTIAL INPUT") || strings.Contains(n, "NOT verified") || strings.Contains(n, "--insecure") {
			// Notes that change how far the report can be trusted stay.
			wrap("", "note: "+n)
		}
	}
	more := "More: --details (all evidence and checks); pvrdma-doctor rules explain ID"
	if len(r.Plans) > 0 {
		more = "More: --details (all evidence, checks and plan steps); a runbook: pvrdma-doctor plan --only HOST; pvrdma-doctor rules explain ID"
	}
	wrap("", p.c("2", more))
	_, err := io.WriteString(w, b.String())
	return err
}

// Line is a host's (or guest's) line in a host list (the concise text,
// HTML, the TUI's overview): its verdict, with what could not be collected
// in a few words ("NOT CHECKED: unknown host key ssh-ed25519 SHA256:...").
func (h Host) Line() string { return entryLine(h) }

func entryLine(h Host) string {
	switch {
	case h.Status == hostio.StatusNotCollected:
		return "NOT CHECKED: " + orDash(h.CollectionDetail, plainReason(h.Reason), "")
	case h.CollectionDetail != "" && strings.HasPrefix(h.Verdict, "INCOMPLETE"):
		return "INCOMPLETE: " + h.CollectionDetail
	case h.CollectionDetail != "":
		return h.Verdict + " (" + h.CollectionDetail + ")"
	}
	return h.Verdict
}

// writeConciseEntries writes one line per host; mergeHosts or more hosts
// with the same line are one line.
func writeConciseEntries(b *strings.Builder, p painter, title, noun string, hs []Host, wrap func(string, string), width int) {
	if len(hs) == 0 {
		return
	}
	b.WriteString("\n" + p.c("1", title) + "\n")
	type row struct {
		names []string
		line  string
		level Level
	}
	var rows []*row
	byLine := map[string]*row{}
	for _, h := range hs {
		l := entryLine(h)
		if x := byLine[l]; x != nil {
			x.names = append(x.names, h.Host)
			continue
		}
		x := &row{names: []string{h.Host}, line: l, level: h.level()}
		byLine[l] = x
		rows = append(rows, x)
	}
	// Short lists are never merged, nor lines shared by too few hosts.
	var out []*row
	if len(hs) <= mergeList {
		for _, h := range hs {
			out = append(out, &row{names: []string{h.Host}, line: entryLine(h), level: h.level()})
		}
	} else {
		for _, x := range rows {
			if len(x.names) >= mergeHosts {
				out = append(out, x)
				continue
			}
			for _, n := range x.names {
				out = append(out, &row{names: []string{n}, line: x.line, level: x.level})
			}
		}
	}
	// Keep the input order of the first host of each row.
	nameW := 4
	for _, x := range out {
		if len(x.names) == 1 {
			nameW = max(nameW, len(x.names[0]))
		}
	}
	nameW = min(nameW, 24)
	for _, x := range out {
		if len(x.names) > 1 {
			wrap("  ", p.c(x.level.ansi(), fmt.Sprintf("%d %s: %s", len(x.names), noun, nameList(x.names, 3))))
			wrap("      ", p.c(x.level.ansi(), keepCounts(x.line)))
			continue
		}
		name := x.names[0]
		indent := strings.Repeat(" ", nameW+4)
		if len(name) > nameW {
			indent = "      "
			wrap("  ", p.c(x.level.ansi(), name))
			wrap(indent, p.c(x.level.ansi(), keepCounts(x.line)))
			writeTrustNotes(hs, name, indent, wrap)
			continue
		}
		lines := strings.Split(unkeep(Wrap(keepCounts(x.line), width-len(indent))), "\n")
		for i, l := range lines {
			if i == 0 {
				l = fmt.Sprintf("  %-*s  %s", nameW, name, l)
			} else {
				l = indent + l
			}
			b.WriteString(p.c(x.level.ansi(), l) + "\n")
		}
		writeTrustNotes(hs, name, indent, wrap)
	}
}

// writeTrustNotes writes the notes of a host that change how far its
// findings can be trusted (a host key not verified).
func writeTrustNotes(hs []Host, name, indent string, wrap func(string, string)) {
	for _, h := range hs {
		if h.Host != name {
			continue
		}
		for _, n := range h.Notes {
			if strings.Contains(n, "NOT verified") {
				wrap(indent, "note: "+n)
			}
		}
	}
}

// hostSection is one or more hosts with the same problems and the same plan.
type hostSection struct {
	hosts []Host
	roots []checks.Finding // the first host's
	plan  *checks.Plan     // the first host's
}

// conciseSections are the broken hosts and guests, those with the same
// problems and the same plan (names aside) merged.
func conciseSections(r *Report) []hostSection {
	n := newNamer(r, r.Findings)
	roots := problemRoots(r)
	var out []hostSection
	idx := map[string]int{}
	for _, h := range r.Entries() {
		var mine []checks.Finding
		var ids []string
		for _, f := range roots {
			if f.Host == h.Host {
				mine = append(mine, f)
				if g := r.GroupOf(f); g != nil && !contains(ids, g.ID) {
					ids = append(ids, g.ID)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		pl := checks.PlanFor(r.Plans, h.Host)
		sig := strings.Join(ids, ",") + "|"
		if pl != nil {
			for _, s := range pl.Steps {
				sig += n.norm(s.Text+s.Command) + "\n"
			}
		}
		if i, ok := idx[sig]; ok {
			out[i].hosts = append(out[i].hosts, h)
			out[i].roots = append(out[i].roots, mine...)
			continue
		}
		idx[sig] = len(out)
		out = append(out, hostSection{hosts: []Host{h}, roots: mine, plan: pl})
	}
	return out
}

func writeConciseSection(b *strings.Builder, p painter, r *Report, sec hostSection, wrap func(string, string), cut func(string, string, int), width int, shared *sharedFixes) {
	h := sec.hosts[0]
	code := "1;33"
	if h.Critical > 0 {
		code = "1;31"
	}
	b.WriteString("\n")
	if len(sec.hosts) == 1 {
		wrap("", p.c(code, keepCounts(h.Host+" — "+h.Verdict)))
	} else {
		var names []string
		for _, x := range sec.hosts {
			names = append(names, x.Host)
		}
		noun := "hosts"
		if h.Role == hostio.RoleGuest {
			noun = "guests"
		}
		wrap("", p.c(code, keepCounts(fmt.Sprintf("%d %s with the same problems and plan: %s — each %s", len(names), noun, nameList(names, 3), h.Verdict))))
	}
	// The root causes, grouped: the same problem on 50 VMs is one entry.
	type entry struct {
		fs []checks.Finding
	}
	var entries []*entry
	byGroup := map[string]*entry{}
	for _, f := range sec.roots {
		id := f.Key()
		if g := r.GroupOf(f); g != nil {
			id = g.ID
		}
		if e := byGroup[id]; e != nil {
			e.fs = append(e.fs, f)
			continue
		}
		e := &entry{fs: []checks.Finding{f}}
		byGroup[id] = e
		entries = append(entries, e)
	}
	// Information asks nothing of the admin: one line names it, its
	// message and evidence are in --details.
	var infos []string
	for _, e := range entries {
		if f := e.fs[0]; f.Severity == checks.Info {
			infos = append(infos, f.RuleID+"  "+f.Subject)
		}
	}
	shown := map[string]bool{} // the fixes written in this section
	for _, e := range entries {
		f := e.fs[0]
		if f.Severity == checks.Info {
			continue
		}
		var subjects, hosts []string
		for _, x := range e.fs {
			if !contains(subjects, x.Subject) {
				subjects = append(subjects, x.Subject)
			}
			if !contains(hosts, x.Host) {
				hosts = append(hosts, x.Host)
			}
		}
		list := nameList(subjects, 3)
		if len(hosts) > 1 {
			list += " on " + hostsNoun(f.RuleID, len(hosts))
		}
		// The host's verdict above counts the consequences; --details
		// lists them under this cause.
		head := fmt.Sprintf("%s  %s  %s", p.sev(f.Severity, strings.ToUpper(string(f.Severity))), p.sev(f.Severity, f.RuleID), list)
		wrap("  ", head)
		// What proves it: its first evidence line, the value first, whole.
		if len(f.Evidence) > 0 {
			more := ""
			if n := len(f.Evidence) - 1; n > 0 {
				more = fmt.Sprintf(" (+%d)", n)
			}
			ev := evidenceLabel(f.Host, f.Evidence[0]) + more + ": " + evidenceFirst(f.Evidence[0])
			if strings.Count(Wrap(ev, width-4), "\n") >= 2 && f.Evidence[0].Line > 0 {
				// A long line (a whole `ip -o link` record) is quoted whole
				// in --details; here, where it is.
				ev = fmt.Sprintf("%s%s: line %d of `%s` (--details)", evidenceLabel(f.Host, f.Evidence[0]), more, f.Evidence[0].Line, f.Evidence[0].Command)
			}
			wrap("    ", p.c("2", ev))
		} else if title := r.Rules[f.RuleID].Title; title != "" {
			wrap("    ", title)
		}
		writeFixLines(b, p, sec, e.fs, width, shown, shared)
	}
	if len(infos) > 0 {
		wrap("  ", p.sev(checks.Info, "INFO")+"  "+strings.Join(infos, ", ")+p.c("2", " (--details)"))
	}
	if sec.plan == nil || len(sec.plan.Steps) == 0 {
		return
	}
	// The plan in one line: how many steps, and what it takes (VMs off,
	// maintenance mode, a reboot); every step, its warnings and verify
	// reads are in --details and in the runbook.
	var takes []string
	seen := map[string]bool{}
	for _, s := range sec.plan.Steps {
		var what string
		switch s.Action {
		case plan.KindPowerOffVMs:
			what = "VMs off"
		case plan.KindEnterMaintenance:
			what = "maintenance mode"
		case plan.KindReboot:
			what = "a reboot"
		}
		if what != "" && !seen[what] {
			seen[what] = true
			takes = append(takes, what)
		}
	}
	line := p.c("1", "FIX PLAN") + " " + plural(len(sec.plan.Steps), "step", "steps")
	if len(takes) > 0 {
		line += " (" + strings.Join(takes, ", ") + ")"
	}
	if len(sec.hosts) > 1 {
		line += ", the same on each"
	}
	wrap("  ", line+p.c("2", ": --details"))
}

// fixesOf are the fix of root causes: the exact commands of the plan
// steps that resolve them, else the text of the first such step.
func fixesOf(plan *checks.Plan, fs []checks.Finding) (cmds []string, text string) {
	if plan == nil {
		return nil, ""
	}
	keys := map[string]bool{}
	for _, f := range fs {
		keys[f.Key()] = true
	}
	var texts []string
	for _, s := range plan.Steps {
		hit := false
		for _, c := range s.Resolves {
			hit = hit || keys[c.Key()]
		}
		if !hit || s.Optional {
			continue
		}
		if s.Command != "" && !contains(cmds, s.Command) {
			cmds = append(cmds, s.Command)
		} else if s.Command == "" && !contains(texts, s.Text) {
			texts = append(texts, s.Text)
		}
	}
	if len(texts) > 0 {
		text = strings.Join(strings.Fields(texts[0]), " ")
	}
	return cmds, text
}

// sharedFixes are the fix commands that several sections need (the same
// firewall command on two hosts, the same module reload in three guests):
// written once, under the first, with the others named there; the others
// point back to it.
type sharedFixes struct {
	first map[string]string   // command -> the section that writes it
	on    map[string][]string // command -> every section that needs it, in order
}

// sharedFixesOf finds them, in one pass over the sections' root causes.
func sharedFixesOf(secs []hostSection) *sharedFixes {
	sf := &sharedFixes{first: map[string]string{}, on: map[string][]string{}}
	for _, sec := range secs {
		var roots []checks.Finding
		for _, f := range sec.roots {
			if f.Severity != checks.Info {
				roots = append(roots, f)
			}
		}
		cmds, _ := fixesOf(sec.plan, roots)
		name := sec.name()
		for _, c := range cmds {
			if _, ok := sf.first[c]; !ok {
				sf.first[c] = name
			}
			if on := sf.on[c]; len(on) == 0 || on[len(on)-1] != name {
				sf.on[c] = append(on, name)
			}
		}
	}
	return sf
}

// name is how the report names a section: its host, or its hosts.
func (sec hostSection) name() string {
	var names []string
	for _, h := range sec.hosts {
		names = append(names, h.Host)
	}
	return nameList(names, 3)
}

// writeFixLines writes the fix of a root cause: the exact commands of the
// plan steps that resolve it, each whole (wrapped at spaces, continuation
// lines indented further, never cut), else what the first such step says.
// A command several sections need is written under the first, naming the
// others, and the others point back to it.
func writeFixLines(b *strings.Builder, p painter, sec hostSection, fs []checks.Finding, width int, shown map[string]bool, shared *sharedFixes) {
	cmds, text := fixesOf(sec.plan, fs)
	me := sec.name()
	write := func(label, s string) {
		if shown[s] {
			b.WriteString("    " + p.c("2", label+"(the same as above)") + "\n")
			return
		}
		shown[s] = true
		if first, ok := shared.first[s]; ok && first != me {
			b.WriteString("    " + p.c("2", label+"(the same command as under "+first+", above)") + "\n")
			return
		}
		for i, l := range strings.Split(Wrap(s, width-8), "\n") {
			if i == 0 {
				b.WriteString("    " + p.c("2", label) + l + "\n")
			} else {
				b.WriteString("        " + l + "\n")
			}
		}
		if on := shared.on[s]; len(on) > 1 {
			for _, l := range strings.Split(Wrap("(the same fix also under "+strings.Join(on[1:], ", ")+")", width-8), "\n") {
				b.WriteString("        " + p.c("2", l) + "\n")
			}
		}
	}
	if len(cmds) > 0 {
		// The same fix on many subjects (one command per VM): the first
		// two, and how many more --details lists.
		for i, c := range cmds {
			if i == 2 && len(cmds) > 3 {
				b.WriteString("    " + p.c("2", fmt.Sprintf("(and %d more like them: --details)", len(cmds)-2)) + "\n")
				break
			}
			write("$ ", c)
		}
		return
	}
	if text != "" {
		write("fix: ", text)
	}
}

// knownNames are the names of the report's hosts, guests and subjects
// (and the VMs in them), for collapseNames.
func knownNames(r *Report) map[string]bool {
	out := map[string]bool{}
	for _, h := range r.Entries() {
		out[h.Host] = true
	}
	for _, f := range r.Findings {
		out[f.Subject] = true
		if vm, _, ok := strings.Cut(f.Subject, " ("); ok {
			out[vm] = true
		}
	}
	return out
}

var andMore = regexp.MustCompile(`^(\S+) and (\d+) more(.*)$`)

// collapseNames shortens every run of more than four known names in a
// comma-separated list to the first three and a count: "Power off the
// PVRDMA VMs on esx01: vm-0001, vm-0002, vm-0003 and 47 more (...)".
func collapseNames(text string, names map[string]bool) string {
	parts := strings.Split(text, ", ")
	if len(parts) <= 4 {
		return text
	}
	isName := func(i int) bool {
		s := parts[i]
		if i == 0 {
			// "...: name" — the name is the last word.
			if j := strings.LastIndex(s, " "); j >= 0 {
				s = s[j+1:]
			}
		}
		if names[s] {
			return true
		}
		// The last of a run may carry the rest of the sentence.
		if j := strings.Index(s, " "); j > 0 && names[s[:j]] {
			return true
		}
		return false
	}
	var out []string
	for i := 0; i < len(parts); {
		j := i
		for j < len(parts) && isName(j) {
			j++
		}
		if j-i > 4 {
			last := parts[j-1]
			rest, more := "", 0
			if m := andMore.FindStringSubmatch(last); m != nil && names[m[1]] {
				// The list was already cut: "x and 42 more: ...".
				fmt.Sscan(m[2], &more)
				rest = m[3]
			} else if k := strings.Index(last, " "); k > 0 && !names[last] {
				rest = last[k:]
			}
			out = append(out, parts[i], parts[i+1], fmt.Sprintf("%s and %d more%s", parts[i+2], j-i-3+more, rest))
			i = j
			continue
		}
		if j == i {
			j = i + 1
		}
		out = append(out, parts[i:j]...)
		i = j
	}
	return strings.Join(out, ", ")
}

// evidenceFirst is an evidence line with what it shows first: "Physical
// HCA available:0 (line 5 of `vsish -e cat ...`)", so that the one line
// the concise view keeps shows the value.
func evidenceFirst(e checks.Evidence) string {
	if e.Line > 0 && e.Property != "" {
		return fmt.Sprintf("%s (line %d of `%s`)", e.Property, e.Line, e.Command)
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d of `%s`)", strings.Join(strings.Fields(e.Text), " "), e.Line, e.Command)
	}
	return EvidenceLine(e)
}

// mergeSteps merges the consecutive steps of a plan that say the same
// thing to different VMs ("On vm-0001: reserve all guest memory", fifty
// times) into one step naming the first VMs and a count.
func mergeSteps(steps []checks.PlanStep, names map[string]bool, n namer) []checks.PlanStep {
	var out []checks.PlanStep
	for i := 0; i < len(steps); {
		j := i + 1
		key := n.norm(steps[i].Text + "\x01" + steps[i].Command)
		for j < len(steps) && steps[j].Action == steps[i].Action && n.norm(steps[j].Text+"\x01"+steps[j].Command) == key {
			j++
		}
		if j-i < 3 {
			out = append(out, steps[i:j]...)
			i = j
			continue
		}
		first := steps[i]
		own := func(s checks.PlanStep, other checks.PlanStep) string {
			for _, w := range strings.FieldsFunc(s.Text, func(r rune) bool { return r == ' ' || r == ':' || r == ',' || r == '(' || r == ')' }) {
				w = strings.TrimSuffix(w, "'s")
				if names[w] && !strings.Contains(other.Text, w) {
					return w
				}
			}
			return ""
		}
		name := own(first, steps[i+1])
		var list []string
		for k := i; k < j; k++ {
			if w := own(steps[k], first); k == i {
				list = append(list, name)
			} else if w != "" {
				list = append(list, w)
			}
		}
		if name == "" || len(list) != j-i {
			out = append(out, steps[i:j]...)
			i = j
			continue
		}
		m := first
		m.Text = strings.ReplaceAll(first.Text, name, fmt.Sprintf("each of %s (%d VMs)", nameList(list, 3), len(list)))
		out = append(out, m)
		i = j
	}
	return out
}
