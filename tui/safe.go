package tui

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/textsafe"
)

// shownFix is a finding's fix as the finding view shows it and as "copy
// fix" (OSC 52) puts it on the clipboard: the same text, so that what is
// pasted is exactly what was read, never a control sequence hidden in a
// host-supplied name.
func shownFix(f checks.Finding) string { return textsafe.Clean(f.Fix) }
