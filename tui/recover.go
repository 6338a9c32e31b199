package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// A page that panics never takes the UI down: its body is replaced by
// its error (drawing) or the key is dropped with the error on the status
// line (a key); the other pages, esc and quit keep working.

// pageHook, when set (tests only), runs before a page draws or handles a
// message: a test makes one page panic.
var pageHook func(p page)

// pageName names a page for its error: "host", "finding", ...
func pageName(p page) string {
	n := strings.TrimPrefix(fmt.Sprintf("%T", p), "*tui.")
	return strings.TrimSuffix(n, "Page")
}

// pageFailed is what a failed page says.
func pageFailed(p page, v any) string {
	return textsafe.Clean(fmt.Sprintf("the %s screen could not be shown: internal error (%v; please report it, with `pvrdma-doctor bundle`); esc goes back",
		pageName(p), v))
}

// pageView draws p's body, or its error (wrapped to width) when drawing
// panics.
func pageView(p page, width int) (lines []string) {
	defer func() {
		if v := recover(); v != nil {
			lines = []string{""}
			for _, l := range wrap(pageFailed(p, v), max(width-2, 20)) {
				lines = append(lines, " "+l)
			}
		}
	}()
	if pageHook != nil {
		pageHook(p)
	}
	return p.View()
}

// pageUpdate passes msg to p; when p panics, p stays as it was and the
// error is returned for the status line.
func pageUpdate(p page, msg tea.Msg) (next page, cmd tea.Cmd, failed string) {
	defer func() {
		if v := recover(); v != nil {
			next, cmd, failed = p, nil, pageFailed(p, v)
		}
	}()
	if pageHook != nil {
		pageHook(p)
	}
	next, cmd = p.Update(msg)
	return next, cmd, ""
}
