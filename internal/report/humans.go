package report

import "github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"

// ForHumans returns a copy of r for a human-readable sink (text, Markdown,
// HTML): every string in it, whatever field it is in, has its control,
// format and invalid bytes shown escaped (textsafe.Clean), so a VM named
// "vm\x1b]0;PWNED\x07" prints as those characters instead of retitling the
// reader's terminal. Machine formats (JSON, SARIF, JUnit) render r itself:
// they keep the exact values. r is not modified; when nothing in it needs
// escaping (the usual case), r itself is returned.
func ForHumans(r *Report) *Report {
	if r == nil || textsafe.AllSafe(r) {
		return r
	}
	return textsafe.Strings(r)
}
