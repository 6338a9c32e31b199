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
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		var cur strings.Builder
		lineW := 0
		for j, word := range strings.Split(para, " ") {
			w := ansi.StringWidth(word)
			switch {
			case j == 0:
			case lineW+1+w > width && strings.TrimSpace(cur.String()) != "" && w > 0:
				lines = append(lines, strings.TrimRight(cur.String(), " "))
				cur.Reset()
				lineW = 0
			default:
				cur.WriteByte(' ')
				lineW++
			}
			cur.WriteString(word)
			lineW += w
		}
		lines = append(lines, strings.TrimRight(cur.String(), " "))
	}
	return strings.Join(lines, "\n")
}
