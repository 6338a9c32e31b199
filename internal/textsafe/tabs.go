package textsafe

import "strings"

// ExpandTabs replaces tabs by spaces up to the next 8-column tab stop, as a
// terminal shows them (one column a rune). Text without a tab comes back as is.
func ExpandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
