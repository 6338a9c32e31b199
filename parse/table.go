package parse

import (
	"regexp"
	"strings"
)

// Table is an esxcli table: a header line, a line of dash runs, then rows.
type Table struct {
	// Header holds the column names in order.
	Header []string `json:"header"`
	// HeaderRef points at the header line.
	HeaderRef Ref   `json:"header_ref"`
	Rows      []Row `json:"rows"`
}

// Row is one table row: its cells by column name, the 1-based line number
// in the original text and the raw text of that line.
type Row struct {
	Cells map[string]string `json:"cells"`
	Line  int               `json:"line"`
	Text  string            `json:"text"`
}

// Ref returns the evidence pointer of the row.
func (r Row) Ref() Ref { return Ref{Line: r.Line, Text: r.Text} }

// ReadTable reads an esxcli table. Column boundaries come from the dash
// runs under the header; the last column is the rest of the line. A row
// that does not fit the columns is split on runs of two or more spaces
// instead. Empty input or a header without rows is an empty table.
func ReadTable(text string) (Table, error) {
	return readTable(clean(text, false), nil)
}

var (
	reDashLine = regexp.MustCompile(`^[ \t]*-[- \t]*$`)
	reMultiSp  = regexp.MustCompile(`\s{2,}`)
)

// column is a column's name and its first rune offset.
type column struct {
	name  string
	start int
}

// readTable reads a table from cleaned lines. known, when not nil, lists
// the column names to locate in a header that has no dash line under it
// (esxcfg-* style); without it a missing dash line is an error.
func readTable(ls []line, known []string) (Table, error) {
	var t Table
	if len(ls) == 0 {
		return t, nil
	}
	hdr := ls[0]
	t.HeaderRef = hdr.ref()
	hr := []rune(hdr.text)
	var cols []column
	rows := ls[1:]
	switch {
	case len(ls) > 1 && reDashLine.MatchString(ls[1].text):
		runs := dashRuns([]rune(ls[1].text))
		for i, r := range runs {
			end := len(hr)
			if i+1 < len(runs) {
				end = min(runs[i+1][0], len(hr))
			}
			name := ""
			if r[0] < len(hr) {
				name = strings.TrimSpace(string(hr[min(r[0], end):end]))
			}
			if name == "" {
				return t, errorf(hdr.no, "table header has no name above the dash run at column %d", r[0]+1)
			}
			cols = append(cols, column{name, r[0]})
		}
		rows = ls[2:]
	case known != nil:
		pos := 0
		for _, k := range known {
			at := indexWord(hr, []rune(k), pos)
			if at < 0 {
				return t, errorf(hdr.no, "expected column %q in the table header %q", k, strings.TrimSpace(hdr.text))
			}
			cols = append(cols, column{k, at})
			pos = at + len([]rune(k))
		}
	default:
		return t, errorf(hdr.no+1, "expected a line of dashes under the table header %q", strings.TrimSpace(hdr.text))
	}
	for _, c := range cols {
		t.Header = append(t.Header, c.name)
	}
	for _, l := range rows {
		if isBlank(l.text) {
			continue
		}
		cells, err := splitRow(l, cols)
		if err != nil {
			return t, err
		}
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			m[c.name] = cells[i]
		}
		t.Rows = append(t.Rows, Row{Cells: m, Line: l.no, Text: l.text})
	}
	return t, nil
}

// dashRuns returns the [start,end) rune offsets of each run of dashes.
func dashRuns(r []rune) [][2]int {
	var runs [][2]int
	for i := 0; i < len(r); {
		if r[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(r) && r[j] == '-' {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}

// indexWord finds word in r at or after from, starting and ending at a
// word boundary.
func indexWord(r, word []rune, from int) int {
	for i := from; i+len(word) <= len(r); i++ {
		if string(r[i:i+len(word)]) != string(word) {
			continue
		}
		if i > 0 && r[i-1] != ' ' {
			continue
		}
		if e := i + len(word); e < len(r) && r[e] != ' ' {
			continue
		}
		return i
	}
	return -1
}

// splitRow cuts a row at the column offsets, or, when a value crosses a
// column boundary, on runs of two or more spaces.
func splitRow(l line, cols []column) ([]string, error) {
	r := []rune(l.text)
	fits := true
	for _, c := range cols[1:] {
		if c.start-1 < len(r) && c.start > 0 && r[c.start-1] != ' ' && r[c.start-1] != '\t' {
			fits = false
			break
		}
	}
	cells := make([]string, len(cols))
	if fits {
		for i, c := range cols {
			if c.start >= len(r) {
				continue
			}
			end := len(r)
			if i+1 < len(cols) {
				end = min(cols[i+1].start, len(r))
			}
			cells[i] = strings.TrimSpace(string(r[c.start:end]))
		}
		return cells, nil
	}
	trimmed := strings.TrimSpace(l.text)
	locs := reMultiSp.FindAllStringIndex(trimmed, -1)
	if len(locs)+1 < len(cols) {
		return nil, errorf(l.no, "row does not fit the %d table columns (%s): found %d cells", len(cols), colNames(cols), len(locs)+1)
	}
	start := 0
	for i := range cols {
		if i == len(cols)-1 {
			cells[i] = strings.TrimSpace(trimmed[start:])
			break
		}
		cells[i] = trimmed[start:locs[i][0]]
		start = locs[i][1]
	}
	return cells, nil
}

func colNames(cols []column) string {
	var s []string
	for _, c := range cols {
		s = append(s, c.name)
	}
	return strings.Join(s, ", ")
}

// record turns a row into a Record whose every field points at the row.
func (r Row) record(header []string) Record {
	rec := Record{Fields: make(map[string]Field, len(header)), Ref: r.Ref()}
	for _, h := range header {
		rec.Fields[h] = Field{Value: r.Cells[h], Ref: r.Ref()}
		rec.Keys = append(rec.Keys, h)
	}
	return rec
}
