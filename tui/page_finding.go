package tui

import (
	"fmt"
	"strings"

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

// move scrolls the evidence output.
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

// findingLayout is the finding page laid out to the screen: the text
// above the evidence pane and the output shown in the pane.
type findingLayout struct {
	top      []string // everything above the output pane
	output   []string // the evidence's output, numbered
	hit      int      // 1-based line of output to highlight (0: none)
	paneRows int
}

// layout shares the height between the text and the evidence pane; ok is
// false when the finding is no longer reported.
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
	top = append(top, " "+sevStyle(f.Severity).Render(sev)+" "+stBold.Render(sanitize(f.RuleID))+"  "+sanitize(title))
	top = append(top, " "+stDim.Render("on "+sanitize(f.Host)+" · "+sanitize(f.Subject)))
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
	}
	var fixLines []string
	switch {
	case f.Fix != "":
		fixLines = labeled("Fix (c copies):", shownFix(f), w, stLabel)
	case f.Status == checks.StatusNotEvaluated:
		fixLines = labeled("Fix:", "none needed yet: this check could not run. Make the missing input collectable and rescan (r).", w, stLabel)
	}

	// The evidence pane.
	var lay findingLayout
	evLabel := []string{" " + stDim.Render("No evidence recorded for this finding.")}
	if n := len(f.Evidence); n > 0 {
		idx := clampInt(p.evidence, 0, n-1)
		e := f.Evidence[idx]
		lay.output, lay.hit = p.evidenceOutput(e)
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
		evLabel = labeled(lbl, where, w, stLabel)
	}

	// Share the height: the fix and the message always show in full, the
	// output pane keeps at least a few lines, "why" gets what is left
	// unless w asked for all of it.
	fixed := len(top) + len(fixLines) + len(evLabel)
	avail := p.s.bodyHeight() - fixed
	minPane := min(8, max(3, avail/2))
	if len(lay.output) < minPane {
		minPane = len(lay.output)
	}
	limit := avail - minPane
	if p.whyAll {
		// w trades the output pane for the full text.
		limit = avail + len(evLabel)
		evLabel, lay.output, lay.hit = nil, nil, 0
	}
	if len(whyLines) > limit {
		whyLines = cutLines(whyLines, limit, w, " … (w: read all)")
	}
	top = append(top, whyLines...)
	top = append(top, fixLines...)
	top = append(top, evLabel...)
	lay.top = top
	lay.paneRows = max(p.s.bodyHeight()-len(top), 1)
	return lay, true
}

// evidenceWindow returns the highlighted output line, the number of output
// lines and the pane height.
func (p *findingPage) evidenceWindow() (hit, total, rows int) {
	lay, ok := p.layout()
	if !ok {
		return 0, 0, 1
	}
	return lay.hit, len(lay.output), lay.paneRows
}

func (p *findingPage) View() []string {
	lay, ok := p.layout()
	if !ok {
		return lay.top
	}
	out := append([]string(nil), lay.top...)
	end := min(p.offset+lay.paneRows, len(lay.output))
	for i := p.offset; i < end; i++ {
		out = append(out, lay.output[i])
	}
	return out
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

// cycleEvidence shows the next or previous evidence of a finding.
func (p *findingPage) cycleEvidence(d int) {
	f, ok := p.finding()
	if !ok || len(f.Evidence) == 0 {
		return
	}
	n := len(f.Evidence)
	p.evidence = ((p.evidence+d)%n + n) % n
	p.centerEvidence()
}

// centerEvidence scrolls the evidence output so the offending line is in
// the middle of its pane.
func (p *findingPage) centerEvidence() {
	line, _, rows := p.evidenceWindow()
	if line > 0 {
		p.offset = line - 1 - rows/2
	} else {
		p.offset = 1 << 30 // no line: show the end, where the marker is
	}
	p.clamp()
}
