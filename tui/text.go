package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// Text helpers: host text made safe for a cell row, fitted to a width,
// wrapped without losing a word.

// sanitize makes text that came from a host safe and flat for one terminal
// cell row: tabs become spaces, and control and format characters (escape
// sequences included), newlines and invalid UTF-8 are shown escaped
// (textsafe.Line), never emitted. Text longer than maxShown is cut
// (capText), so that a hostile 100 kB name cannot stall every frame.
func sanitize(s string) string {
	return textsafe.Line(textsafe.ExpandTabs(capText(s)))
}

// fit truncates a (styled) string to w cells and pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// fitRight right-aligns s in w cells.
func fitRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return fit(s, w)
}

// wrap word-wraps plain text to w cells: lines break at spaces and keep
// every word; only a word longer than the width is broken.
func wrap(s string, w int) []string { return wrapHanging(s, w, w) }

// wrapHanging wraps plain text with a first line of first cells and the
// others of rest cells. Newlines in s start a new line.
func wrapHanging(s string, first, rest int) []string {
	first, rest = max(first, 8), max(rest, 8)
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = appendWrapped(lines, strings.Fields(sanitize(para)), first, rest)
	}
	return lines
}

// appendWrapped lays words out greedily; lines[0] of the whole text gets
// first cells, every other line rest.
func appendWrapped(lines []string, words []string, first, rest int) []string {
	limit := func() int {
		if len(lines) == 0 {
			return first
		}
		return rest
	}
	var cur strings.Builder
	curW, started := 0, false
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW, started = 0, false
	}
	for _, word := range words {
		ww := ansi.StringWidth(word)
		if started && curW+1+ww <= limit() {
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		}
		if started {
			flush()
		}
		// A word longer than a whole line is broken where the line ends.
		for ww > limit() {
			head, tail := splitWidth(word, limit())
			cur.WriteString(head)
			flush()
			word, ww = tail, ansi.StringWidth(tail)
		}
		cur.WriteString(word)
		curW, started = ww, true
	}
	if started || len(words) == 0 {
		flush()
	}
	return lines
}

// splitWidth splits s after at most w cells (at least one rune).
func splitWidth(s string, w int) (string, string) {
	n := 0
	for i, r := range s {
		rw := ansi.StringWidth(string(r))
		if n+rw > w && i > 0 {
			return s[:i], s[i:]
		}
		n += rw
	}
	return s, ""
}

// labeled wraps "label text" to w cells, with a one-cell margin and a
// hanging indent of two more: the lines are ready to show as they are.
func labeled(label, text string, w int, st lipgloss.Style) []string {
	lines := wrapHanging(label+" "+text, w-1, w-3)
	for i := range lines {
		if i == 0 {
			if rest, ok := strings.CutPrefix(lines[0], label); ok {
				lines[0] = " " + st.Render(label) + rest
			} else {
				lines[0] = " " + lines[0]
			}
			continue
		}
		lines[i] = "   " + lines[i]
	}
	return lines
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// joinMax lists at most n names, then says how many more.
func joinMax(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// cutLines keeps the first n (at least one) of labeled lines and ends the
// last with more (a dim hint that the text goes on), making room for it
// within w cells by dropping whole words, never letters.
func cutLines(lines []string, n, w int, more string) []string {
	n = max(n, 1)
	cut := lines[:n]
	last := cut[n-1]
	for ansi.StringWidth(last)+len([]rune(more)) > w {
		i := strings.LastIndexByte(last, ' ')
		if i <= 3 {
			break
		}
		last = strings.TrimRight(last[:i], " ")
	}
	cut[n-1] = last + stDim.Render(more)
	return cut
}
