package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// The evidence pane of the finding page: the raw output the finding was
// read from, numbered, with the evidence line highlighted.

// evidenceOutput returns the capture's output, numbered, and which line
// is the evidence.
func (p *findingPage) evidenceOutput(e checks.Evidence) ([]string, int) {
	capt, found := p.s.capture(e.Host, e.Command)
	if !found {
		out := []string{stDim.Render("(the output of this command is not available: it was not collected)")}
		if e.Line > 0 && e.Text != "" {
			out = append(out, fmt.Sprintf("line %d: %s", e.Line, sanitize(e.Text)))
		}
		return out, 0
	}
	text := strings.TrimRight(capt.Stdout, "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	nw := len(strconv.Itoa(max(len(lines), 1)))
	out := make([]string, 0, len(lines)+3)
	head := 0
	if e.Property != "" && e.Line > 0 {
		// vCenter's documents hold an object a line: the property the
		// evidence is, highlighted above the document.
		out = append(out, stHit.Render("▶ "+sanitize(e.Property)), stDim.Render(fmt.Sprintf("  (the vSphere property on line %d of `%s` below)", e.Line, sanitize(e.Command))))
		head = len(out)
	}
	for i, l := range lines {
		num := fmt.Sprintf("%*d │ ", nw, i+1)
		l = strings.TrimRight(sanitize(l), "\r ")
		if i+1 == e.Line {
			out = append(out, stHit.Render("▶ "+num+l))
			continue
		}
		out = append(out, "  "+stDim.Render(num)+l)
	}
	if len(lines) == 0 {
		out = append(out, stDim.Render("  (the command printed nothing)"))
	}
	if e.Line == 0 || e.Line > len(lines) {
		note := e.Note
		if note == "" {
			note = "the evidence is the output as a whole"
		}
		out = append(out, stHit.Render("▶ "+strings.Repeat(" ", nw)+" └ "+sanitize(note)))
		return out, len(out)
	}
	if head > 0 {
		return out, 1
	}
	return out, e.Line
}
