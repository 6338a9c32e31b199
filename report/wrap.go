package report

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap wraps text at spaces only, to at most width terminal cells per line
// where words allow (a longer word stays whole on its own line). Unlike
// ansi.Wordwrap it never breaks at a hyphen, so a command such as
// `esxcli rdma device stats get -d vmrdma0` is never split inside an option.
// ANSI escape codes are kept and not counted.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var out strings.Builder
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			out.WriteByte('\n')
		}
		lineW := 0
		for j, word := range strings.Split(para, " ") {
			w := ansi.StringWidth(word)
			switch {
			case j == 0:
			case lineW+1+w > width && lineW > 0:
				out.WriteByte('\n')
				lineW = 0
			default:
				out.WriteByte(' ')
				lineW++
			}
			out.WriteString(word)
			lineW += w
		}
	}
	return out.String()
}
