package tui

import "strings"

// Tables: columns that share the width, cells fitted to them.

type column struct {
	title string
	width int
	right bool
	prio  int // lower is dropped first on narrow screens; 0 = flexible
}

// layoutColumns gives the flexible column the space left, dropping
// low-priority columns until it gets at least minFlex cells.
func layoutColumns(cols []column, width, minFlex int) []column {
	for {
		fixed, flex := 2, -1 // 2: the selection gutter
		for i, c := range cols {
			if c.prio == 0 {
				flex = i
				continue
			}
			fixed += c.width + 1
		}
		if flex >= 0 && width-fixed >= minFlex || len(cols) <= 2 {
			if flex >= 0 {
				cols[flex].width = max(width-fixed, 1)
			}
			return cols
		}
		low := -1
		for i, c := range cols {
			if c.prio > 1 && (low < 0 || c.prio < cols[low].prio) {
				low = i
			}
		}
		if low < 0 {
			if flex >= 0 {
				cols[flex].width = max(width-fixed, 1)
			}
			return cols
		}
		cols = append(cols[:low:low], cols[low+1:]...)
	}
}

func renderCells(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.right {
			b.WriteString(fitRight(cells[i], c.width))
		} else {
			b.WriteString(fit(cells[i], c.width))
		}
	}
	return b.String()
}
