package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// shownFix is a finding's fix as the finding view shows it and as "copy
// fix" (OSC 52) puts it on the clipboard: the same text, so that what is
// pasted is exactly what was read, never a control sequence hidden in a
// host-supplied name.
func shownFix(f checks.Finding) string {
	paras := strings.Split(f.Fix, "\n")
	for i, p := range paras {
		paras[i] = capText(p)
	}
	return textsafe.Clean(strings.Join(paras, "\n"))
}

// maxShown bounds the bytes of one host-supplied line the TUI lays out:
// real names and output lines are far shorter, and wrapping a single
// 70 kB "word" on every frame made the UI unusable (1.3 s a frame).
const maxShown = 1024

// capText cuts s after maxShown bytes (at a character boundary) and says
// how much was left out; the JSON report and the bundle keep all of it.
func capText(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > maxShown-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes not shown)", s[:cut], len(s)-cut)
}
