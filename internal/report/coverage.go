package report

import (
	"fmt"
	"strings"
)

// NotInInput lists the commands of a host that its offline input (a
// pasted transcript, a folder of saved outputs) does not hold: coverage,
// which makes the host incomplete, never a finding about it.
func (h Host) NotInInput() []string {
	var out []string
	for _, c := range h.Commands {
		if c.Cause.NotInInput() {
			out = append(out, c.Command)
		}
	}
	return out
}

// coverageText is the host's coverage line in the text report: "not
// collected: not in the input: `a`, `b`, `c` and 7 more" ("" when the
// input holds every command).
func (h Host) coverageText() string {
	cmds := h.NotInInput()
	if len(cmds) == 0 {
		return ""
	}
	var shown []string
	for i, c := range cmds {
		if i == 3 {
			shown = append(shown, fmt.Sprintf("and %d more", len(cmds)-3))
			break
		}
		shown = append(shown, "`"+c+"`")
	}
	return "not collected: not in the input: " + strings.Join(shown, ", ")
}
