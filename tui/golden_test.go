package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// TestScreens snapshots the main screens (with colours) at the smallest
// supported terminal and a large one. Regenerate with make generate (go generate ./...).
func TestScreens(t *testing.T) {
	walks := []struct {
		name string
		keys []string
	}{
		{"overview", nil},
		{"host", []string{"j", "enter"}},
		{"finding", []string{"j", "enter", "enter"}},
		{"evidence_scrolled", []string{"enter", "enter"}},
		{"topology", []string{"t"}},
		{"topology_broken", []string{"j", "t"}},
		{"plan", []string{"j", "f"}},
		{"help", []string{"?"}},
		{"readiness", []string{"s"}},
		{"filter", []string{"/", "e", "s", "x", "0", "2"}},
	}
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, w := range walks {
			t.Run(fmt.Sprintf("%s_%dx%d", w.name, size[0], size[1]), func(t *testing.T) {
				m := newTestModel(t, size[0], size[1], nil)
				press(t, m, w.keys...)
				testutil.RequireGolden(t, m.View().Content, golden.RequireEqual)
			})
		}
	}
}
