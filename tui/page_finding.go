package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// findingPage is one finding: what it says, its cause and consequences,
// why it matters, the fix (c copies it), and the output it was read from
// with the evidence line highlighted (tab cycles through the evidence).
type findingPage struct {
	position
	s        *shared
	name     string // the host
	key      string // the finding's Key() and status
	evidence int    // which evidence is shown
	whyAll   bool   // show the full "why it matters"
	xoff     int    // how far the evidence output is scrolled sideways
}

// newFindingPage opens a finding with its evidence line in view.
func newFindingPage(s *shared, host, key string) *findingPage {
	p := &findingPage{s: s, name: host, key: key}
	p.centerEvidence()
	return p
}

// Update cycles the evidence, swaps it for the full "why it matters" and
// copies the fix.
func (p *findingPage) Update(msg tea.Msg) (page, tea.Cmd) {
	k := p.s.keys
	switch {
	case is(msg, k.NextEvidence):
		p.cycleEvidence(1)
	case is(msg, k.PrevEvidence):
		p.cycleEvidence(-1)
	case is(msg, k.Why):
		p.whyAll = !p.whyAll
		p.centerEvidence()
	case is(msg, k.Right):
		p.xoff += sideStep
		p.clampSideways()
	case is(msg, k.Left):
		p.xoff = max(0, p.xoff-sideStep)
	case is(msg, k.Copy):
		return p, p.copyFix()
	}
	return p, nil
}

// copyFix puts the fix, exactly as shown, on the clipboard (OSC 52).
func (p *findingPage) copyFix() tea.Cmd {
	f, ok := p.finding()
	switch {
	case !ok:
		p.s.status = "open a finding to copy its fix"
		return nil
	case f.Fix == "":
		p.s.status = "this finding has no fix to copy"
		return nil
	}
	p.s.status = "fix copied to the clipboard (OSC 52: the terminal must allow it; the fix is also shown above)"
	return tea.SetClipboard(shownFix(f))
}

// move scrolls the page.
func (p *findingPage) move(d int) {
	p.offset += d
	p.clamp()
}

func (p *findingPage) clamp() {
	_, total, rows := p.evidenceWindow()
	p.offset = clampInt(p.offset, 0, total-rows)
}

func (p *findingPage) host() string { return p.name }

func (p *findingPage) crumbs(trail []string) []string {
	id, _, _ := strings.Cut(p.key, "|")
	return append(trail, sanitize(id))
}

func (p *findingPage) hints() []key.Binding {
	k := p.s.keys
	why := hint(k.Why, "why")
	if p.whyAll {
		why = hint(k.Why, "evidence")
	}
	out := []key.Binding{hint(k.Copy, "copy fix"), k.Back, why}
	// tab only where there is another piece of evidence to show.
	if f, ok := p.finding(); ok && len(f.Evidence) >= 2 && !p.whyAll {
		out = append(out, hint(k.NextEvidence, "evidence"))
	}
	return append(out, hint(k.Rescan, "rescan"), hint(k.Bundle, "bundle"), k.Topology, k.arrows("scroll"))
}

// findingLayout is the finding page as one document that scrolls: the
// text above (title, message, causes, why, fix, the evidence's label) and
// the evidence's output below it.
type findingLayout struct {
	top    []string // everything above the output
	output []string // the evidence's output, numbered
	hit    int      // 1-based line of output to highlight (0: none)
	label  int      // the row of the evidence's label in top
}

// lines is the whole document.
func (l findingLayout) lines() []string { return append(append([]string(nil), l.top...), l.output...) }

// hitRow is the document row of the highlighted output line (the end of
// the document when there is none).
func (l findingLayout) hitRow() int {
	if l.hit > 0 {
		return len(l.top) + l.hit - 1
	}
	return len(l.top) + len(l.output) - 1
}

// minEvidence is how many output lines the first screen always shows
// (when the output has them): the evidence is never folded away.
const minEvidence = 4

// layout lays the finding out; ok is false when the finding is no longer
// reported. "Why it matters" is folded to two lines unless w asked for
// all of it; the fix is shown whole, folded only when the first screen
// would otherwise not reach the evidence (w unfolds it, c copies it
// whole). Scrolling reaches every line.
func (p *findingPage) layout() (findingLayout, bool) {
	f, ok := p.finding()
	w := p.s.width
	if !ok {
		return findingLayout{top: []string{"", " " + stBold.Render("This finding is no longer reported."),
			" " + stDim.Render("The last rescan no longer shows it: fixed, or its input changed. esc: back")}}, false
	}
	var top []string
	title := ""
	rule, hasRule := checks.Lookup(f.RuleID)
	if hasRule {
		title = rule.Title
	} else if p.s.rep != nil {
		title = p.s.rep.Rules[f.RuleID].Title
	}
	sev := strings.ToUpper(string(f.Severity))
	if f.Status == checks.StatusNotEvaluated {
		sev = "NOT EVALUATED"
	}
	if head := sev + " " + sanitize(f.RuleID) + "  " + sanitize(title); ansi.StringWidth(head) <= w-2 {
		top = append(top, " "+sevStyle(f.Severity).Render(sev)+" "+stBold.Render(sanitize(f.RuleID))+"  "+sanitize(title))
	} else {
		// Narrow: the title wraps under the rule, never cut.
		top = append(top, " "+sevStyle(f.Severity).Render(sev)+" "+stBold.Render(sanitize(f.RuleID)))
		for _, l := range wrap(sanitize(title), w-4) {
			top = append(top, "   "+l)
		}
	}
	for _, l := range wrap("on "+sanitize(f.Host)+" · "+sanitize(f.Subject), w-2) {
		top = append(top, " "+stDim.Render(l))
	}
	for _, l := range wrap(f.Message, w-2) {
		top = append(top, " "+l)
	}
	top = append(top, p.s.causeLines(f, w)...)
	why := ""
	if hasRule {
		why = rule.Why
	} else if p.s.rep != nil {
		why = p.s.rep.Rules[f.RuleID].Why
	}
	var whyLines []string
	if why != "" {
		whyLines = labeled("Why it matters:", why, w, stLabel)
		if !p.whyAll && len(whyLines) > 2 {
			whyLines = cutLines(whyLines, 2, w, " … (w: all)")
		}
	}
	var fixLines []string
	switch {
	case f.Fix != "":
		fixLines = labeled("Fix (c copies):", shownFix(f), w, stLabel)
	case f.Status == checks.StatusNotEvaluated:
		fixLines = labeled("Fix:", "none needed yet: this check could not run. Make the missing input collectable and rescan (r).", w, stLabel)
	}

	var lay findingLayout
	evLabel := []string{" " + stDim.Render("No evidence recorded for this finding.")}
	if n := len(f.Evidence); n > 0 {
		idx := clampInt(p.evidence, 0, n-1)
		e := f.Evidence[idx]
		lay.output, lay.hit = p.evidenceOutput(e)
		wide := 0
		for _, l := range lay.output {
			wide = max(wide, ansi.StringWidth(l))
		}
		if p.xoff > 0 {
			// Scrolled sideways (< and >): every output line from the same
			// column, as less -S does.
			for i, l := range lay.output {
				lay.output[i] = ansi.Cut(l, p.xoff, wide)
			}
		}
		where := "`" + sanitize(e.Command) + "`"
		if e.Host != "" && e.Host != f.Host {
			where += " on " + sanitize(e.Host)
		}
		if e.Line > 0 {
			where = fmt.Sprintf("line %d of %s", e.Line, where)
		}
		if e.Note != "" {
			where += ": " + sanitize(e.Note)
		}
		lbl := "Evidence:"
		if n > 1 {
			lbl = fmt.Sprintf("Evidence %d of %d (tab: next):", idx+1, n)
		}
		if wide > p.s.width || p.xoff > 0 {
			where += fmt.Sprintf(" (< >: sideways, from column %d of %d)", p.xoff+1, wide)
		}
		evLabel = labeled(lbl, where, w, stLabel)
	}
	// The first screen reaches the evidence: fold the fix when it would
	// not (w unfolds it).
	need := min(minEvidence, len(lay.output))
	if lay.hit > 0 {
		need = min(need, lay.hit+1)
	}
	room := p.s.bodyHeight() - len(top) - len(whyLines) - len(evLabel) - need
	if !p.whyAll && len(fixLines) > max(room, 2) {
		fixLines = cutLines(fixLines, max(room, 2), w, " … (w: all; c copies all)")
	}
	top = append(top, whyLines...)
	top = append(top, fixLines...)
	lay.label = len(top)
	top = append(top, evLabel...)
	lay.top = top
	return lay, true
}

// evidenceWindow returns the document row of the highlighted output line,
// the number of rows and the page height.
func (p *findingPage) evidenceWindow() (hit, total, rows int) {
	lay, ok := p.layout()
	if !ok {
		return 0, len(lay.top), p.s.bodyHeight()
	}
	return lay.hitRow(), len(lay.top) + len(lay.output), p.s.bodyHeight()
}

// View shows the document from the scroll offset; once the evidence's
// label has scrolled away, it stays on the first line (which output this
// is, and tab for the next).
func (p *findingPage) View() []string {
	lay, _ := p.layout()
	rows := p.s.bodyHeight()
	if len(lay.output) > 0 && p.offset > lay.label && rows > 2 {
		return append([]string{lay.top[lay.label]}, p.window(lay.lines(), rows)[1:]...)
	}
	return p.window(lay.lines(), rows)
}

// finding resolves the finding screen's finding in the latest analysis.
func (p *findingPage) finding() (checks.Finding, bool) {
	for _, f := range p.s.byHost[p.name] {
		if f.Key()+"|"+string(f.Status) == p.key {
			return f, true
		}
	}
	return checks.Finding{}, false
}

// sideStep is how many columns < and > scroll the evidence.
const sideStep = 20

// clampSideways keeps the sideways scroll within the widest output line.
func (p *findingPage) clampSideways() {
	f, ok := p.finding()
	if !ok || len(f.Evidence) == 0 {
		p.xoff = 0
		return
	}
	out, _ := p.evidenceOutput(f.Evidence[clampInt(p.evidence, 0, len(f.Evidence)-1)])
	wide := 0
	for _, l := range out {
		wide = max(wide, ansi.StringWidth(l))
	}
	p.xoff = max(0, min(p.xoff, wide-p.s.width/2))
}

// cycleEvidence shows the next or previous evidence of a finding.
func (p *findingPage) cycleEvidence(d int) {
	f, ok := p.finding()
	if !ok || len(f.Evidence) == 0 {
		return
	}
	n := len(f.Evidence)
	p.evidence = ((p.evidence+d)%n + n) % n
	p.xoff = 0
	p.centerEvidence()
}

// centerEvidence scrolls so that the offending line is in view: from the
// top of the page when the first screen shows it, else centred.
func (p *findingPage) centerEvidence() {
	row, _, rows := p.evidenceWindow()
	p.offset = 0
	if row >= rows {
		p.offset = row - rows/2
	}
	p.clamp()
}
