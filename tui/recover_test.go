package tui

import (
	"strings"
	"testing"
)

// A page that panics while drawing shows its error instead of taking the
// UI down; esc leaves it, and the other pages draw as before. A page that
// panics on a key keeps its place and says so on the status line.
func TestBrokenPageShowsItsError(t *testing.T) {
	m := newTestModel(t, 80, 24, nil)
	overview := screen(m)
	pageHook = func(p page) {
		if _, ok := p.(*hostPage); ok {
			panic("injected page failure")
		}
	}
	t.Cleanup(func() { pageHook = nil })
	press(t, m, "enter")
	got := screen(m)
	if !strings.Contains(got, "the host screen could not be shown: internal error (injected page failure") {
		t.Fatalf("the error is not shown:\n%s", got)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 24 {
		t.Errorf("%d lines, want 24", len(lines))
	}
	press(t, m, "enter") // a key the host page handles itself: it panics again
	if n := strings.Count(screen(m), "internal error"); n < 2 {
		t.Errorf("the failing key is not reported on the status line:\n%s", screen(m))
	}
	press(t, m, "esc")
	if got := screen(m); got != overview {
		t.Errorf("back on the overview, it differs:\n%s\nwant:\n%s", got, overview)
	}
}
