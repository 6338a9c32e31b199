package parse

import (
	"regexp"
	"strings"
	"unicode/utf8"
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
// that does not fit the columns is split on runs of two or more spaces,
// then on single spaces when that gives one cell per column, then by
// placing its words on the columns whose values they look like (IPv4
// addresses, booleans, MAC addresses, numbers). A row that still cannot be
// read is left out and listed in a *PartialError returned with the rows
// that could be read. Empty input or a header without rows is an empty
// table.
func ReadTable(text string) (Table, error) {
	var s skips
	t, err := readTable(dropElisions(clean(text, false), &s), nil, &s)
	if err != nil {
		return t, err
	}
	return result(t, len(t.Rows), s)
}

var (
	reDashLine = regexp.MustCompile(`^[ \t]*-[- \t]*$`)
	reMultiSp  = regexp.MustCompile(`\s{2,}`)
)

// column is a column's name and its first rune offset.
type column struct {
	name  string
	start int
	kind  cellKind
}

// maxWrappedHeader bounds the lines a wrapped table header (or its dash
// line) spans: 32 lines of a 79-column terminal hold a 2,500-column header.
const maxWrappedHeader = 32

// readTable reads a table from cleaned lines. known, when not nil, lists
// the column names to locate in a header that has no dash line under it
// (esxcfg-* style); without it a missing dash line is an error.
func readTable(ls []line, known []string, s *skips) (Table, error) {
	var t Table
	if len(ls) == 0 {
		return t, nil
	}
	hdr := ls[0]
	t.HeaderRef = hdr.ref()
	hr := []rune(expandTabs(hdr.text))
	var cols []column
	rows := ls[1:]
	dashes := ""
	if len(ls) > 1 && reDashLine.MatchString(ls[1].text) {
		dashes = ls[1].text
	}
	width := 0 // the terminal width when it wrapped the header
	var firsts map[int]string
	if w := utf8.RuneCountInString(hdr.text); dashes == "" && w >= 79 {
		// A terminal narrower than the table wraps the header, the dash
		// line and every longer row at the same column.
		// A header wraps onto a few lines, not thousands: lines of the
		// same width further down are rows (a flood of long lines cost
		// time in the square of its length here).
		var head strings.Builder
		head.WriteString(hdr.text)
		i := 1
		for i < len(ls) && i <= maxWrappedHeader && utf8.RuneCountInString(ls[i-1].text) >= w && !isBlank(ls[i].text) && !reDashLine.MatchString(ls[i].text) {
			head.WriteString(ls[i].text)
			i++
		}
		if i < len(ls) && reDashLine.MatchString(ls[i].text) {
			width, hr = w, []rune(expandTabs(head.String()))
			var dash strings.Builder
			dash.WriteString(ls[i].text)
			first := i
			for i++; i < len(ls) && i-first <= maxWrappedHeader && utf8.RuneCountInString(ls[i-1].text) >= w && reDashLine.MatchString(ls[i].text) && strings.Contains(ls[i].text, "-"); i++ {
				dash.WriteString(ls[i].text)
			}
			dashes = dash.String()
			rows, firsts = unwrapRows(ls[i:], width)
		}
	}
	switch {
	case dashes != "":
		runs := dashRuns([]rune(expandTabs(dashes)))
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
			cols = append(cols, column{name: name, start: r[0]})
		}
		if width == 0 {
			rows = ls[2:]
		}
	case known != nil:
		pos := 0
		for _, k := range known {
			at := indexWord(hr, []rune(k), pos)
			if at < 0 {
				return t, errorf(hdr.no, "expected column %q in the table header %q", k, strings.TrimSpace(hdr.text))
			}
			cols = append(cols, column{name: k, start: at})
			pos = at + len([]rune(k))
		}
		cols = withUnknownColumns(hr, cols)
	default:
		return t, errorf(hdr.no+1, "expected a line of dashes under the table header %q", strings.TrimSpace(hdr.text))
	}
	for i, c := range cols {
		t.Header = append(t.Header, c.name)
		cols[i].kind = kindOfColumn(c.name)
	}
	for _, l := range rows {
		if isBlank(l.text) {
			continue
		}
		raw := l.text
		if f, ok := firsts[l.no]; ok {
			raw = f // a row unwrapped by unwrapRows: the evidence is its first line
		}
		cells, err := splitRow(l, cols)
		if err != nil {
			if n := len(t.Rows); n > 0 && t.Rows[n-1].Line == l.no-1 && cols[len(cols)-1].kind == cellText && utf8.RuneCountInString(t.Rows[n-1].Text) >= 79 && !reMultiSp.MatchString(strings.TrimSpace(l.text)) {
				// The rest of the previous row's last cell, hard-wrapped by
				// an 80-column (or wider) terminal.
				last := cols[len(cols)-1].name
				t.Rows[n-1].Cells[last] = strings.TrimSpace(t.Rows[n-1].Cells[last] + wrapJoin(t.Rows[n-1].Text, l.text))
				continue
			}
			s.add(l.ref(), err, "table row skipped")
			continue
		}
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			m[c.name] = cells[i]
		}
		t.Rows = append(t.Rows, Row{Cells: m, Line: l.no, Text: raw})
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

// splitRow cuts a row at the column offsets. When a value crosses a
// column boundary, or a typed column holds a value of the wrong kind, it
// splits on runs of two or more spaces, then on single spaces (when that
// gives exactly one cell per column), then places the words by their kind.
func splitRow(l line, cols []column) ([]string, error) {
	text := expandTabs(l.text)
	// Column starts are rune offsets; in an ASCII row (almost every row)
	// they are byte offsets too, and the cells are slices of the row.
	cut := func(i, j int) string { return text[i:j] }
	at := func(i int) byte { return text[i] }
	n := len(text)
	if !isASCII(text) {
		r := []rune(text)
		cut = func(i, j int) string { return string(r[i:j]) }
		at = func(i int) byte {
			if r[i] < utf8.RuneSelf {
				return byte(r[i])
			}
			return 0
		}
		n = len(r)
	}
	fits := true
	for _, c := range cols[1:] {
		if c.start-1 < n && c.start > 0 && at(c.start-1) != ' ' && at(c.start-1) != '\t' {
			fits = false
			break
		}
	}
	cells := make([]string, len(cols))
	if fits {
		for i, c := range cols {
			if c.start >= n {
				continue
			}
			end := n
			if i+1 < len(cols) {
				end = min(cols[i+1].start, n)
			}
			cells[i] = strings.TrimSpace(cut(c.start, end))
		}
		if typedOK(cells, cols) {
			return cells, nil
		}
	}
	trimmed := strings.TrimSpace(text)
	locs := reMultiSp.FindAllStringIndex(trimmed, -1)
	if len(locs)+1 >= len(cols) {
		start := 0
		for i := range cols {
			if i == len(cols)-1 {
				cells[i] = strings.TrimSpace(trimmed[start:])
				break
			}
			cells[i] = trimmed[start:locs[i][0]]
			start = locs[i][1]
		}
		if typedOK(cells, cols) {
			return cells, nil
		}
	}
	words := strings.Fields(trimmed)
	if len(words) == len(cols) && typedOK(words, cols) {
		return words, nil
	}
	if placed, ok := placeWords(words, cols); ok {
		return placed, nil
	}
	return nil, errorf(l.no, "row does not fit the %d table columns (%s): found %d cells", len(cols), colNames(cols), len(locs)+1)
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
	rec := Record{Ref: r.Ref(), fields: make([]recField, 0, len(header))}
	for _, h := range header {
		rec.Set(h, Field{Value: r.Cells[h], Ref: r.Ref()})
	}
	return rec
}

// cellKind is what the values of a column look like, known from its name.
type cellKind int

const (
	cellText cellKind = iota
	cellIPv4
	cellBool
	cellMAC
	cellNumber
	cellPCI
)

// columnKinds maps words of column names to the kind of their values.
var columnKinds = []struct {
	word string
	kind cellKind
}{
	{"IPv4", cellIPv4}, {"Netmask", cellIPv4}, {"Broadcast", cellIPv4}, {"Gateway", cellIPv4},
	{"IP Addresses", cellText}, // a list (allowedip list), before "IP Address"
	{"IP Address", cellIPv4},
	{"MAC", cellMAC},
	{"Enabled", cellBool}, {"DHCP DNS", cellBool}, {"RoCE v1", cellBool}, {"RoCE v2", cellBool}, {"iWARP", cellBool}, {"configurable", cellBool},
	{"MTU", cellNumber}, {"Port Begin", cellNumber}, {"Port End", cellNumber}, {"Active Clients", cellNumber}, {"VLAN ID", cellNumber},
	{"Used Ports", cellNumber}, {"Configured Ports", cellNumber}, {"Num Ports", cellNumber}, {"TSO MSS", cellNumber},
	{"PCI", cellPCI},
}

func kindOfColumn(name string) cellKind {
	for _, c := range columnKinds {
		if strings.Contains(name, c.word) {
			return c.kind
		}
	}
	return cellText
}

var (
	reCellIPv4 = regexp.MustCompile(`^(?:[0-9]{1,3}\.){3}[0-9]{1,3}$`)
	reCellMAC  = regexp.MustCompile(`^(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$`)
	reCellNum  = regexp.MustCompile(`^-?[0-9]+$`)
	reCellPCI  = regexp.MustCompile(`^(?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}[.:][0-9A-Fa-f]$`)
)

// matches reports whether v is a value of kind k ("N/A" fits every kind).
func (k cellKind) matches(v string) bool {
	if strings.EqualFold(v, "N/A") {
		return true
	}
	switch k {
	case cellIPv4:
		// IPv6 addresses and prefix lengths share the column in esxcfg-vmknic -l.
		return reCellIPv4.MatchString(v) || strings.Contains(v, "::") || (len(v) <= 3 && reCellNum.MatchString(v))
	case cellMAC:
		return reCellMAC.MatchString(v)
	case cellNumber:
		return reCellNum.MatchString(v)
	case cellPCI:
		return reCellPCI.MatchString(v)
	case cellBool:
		switch strings.ToLower(v) {
		case "true", "false", "yes", "no":
			return true
		}
		return false
	}
	return true
}

// typedOK reports whether every non-empty cell of a typed column holds a
// value of its kind.
func typedOK(cells []string, cols []column) bool {
	for i, c := range cols {
		if c.kind != cellText && cells[i] != "" && !c.kind.matches(cells[i]) {
			return false
		}
	}
	return true
}

// placeWords assigns the words of a row to the columns, each column taking
// a run of words (typed columns one word of their kind, or none), choosing
// the assignment that fills the most columns with words of their kind. An
// ambiguous row (two best assignments) is not placed.
func placeWords(words []string, cols []column) ([]string, bool) {
	n, m := len(words), len(cols)
	if n == 0 || n > 64 || m > 32 {
		return nil, false
	}
	const none = -1 << 30
	type cell struct{ score, ways, take int }
	// best[i][j]: best score placing words[j:] on cols[i:].
	best := make([][]cell, m+1)
	for i := range best {
		best[i] = make([]cell, n+1)
		for j := range best[i] {
			best[i][j] = cell{score: none}
		}
	}
	best[m][n] = cell{score: 0, ways: 1}
	for i := m - 1; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			b := cell{score: none}
			maxTake := n - j
			if cols[i].kind != cellText {
				maxTake = min(maxTake, 1)
			}
			for k := 0; k <= maxTake; k++ {
				next := best[i+1][j+k]
				if next.score == none {
					continue
				}
				var sc int
				switch {
				case k == 0 && cols[i].kind != cellText:
					continue // a typed cell is never left empty by guessing
				case k == 0:
					sc = -3
				case cols[i].kind != cellText:
					if !cols[i].kind.matches(words[j]) {
						continue
					}
					sc = 4
				case i == m-1:
					sc = 2 // the last column is the rest of the line
				default:
					sc = 3 - k
				}
				switch total := sc + next.score; {
				case total > b.score:
					b = cell{score: total, ways: next.ways, take: k}
				case total == b.score:
					b.ways += next.ways
				}
			}
			best[i][j] = b
		}
	}
	if best[0][0].score == none || best[0][0].ways != 1 {
		return nil, false
	}
	out := make([]string, m)
	j := 0
	for i := range cols {
		k := best[i][j].take
		out[i] = strings.Join(words[j:j+k], " ")
		j += k
	}
	return out, true
}

// unwrapRows joins each row line that filled the terminal (width columns)
// with the line after it, the rest of that row. firsts holds the first
// line of each joined row by line number, for its evidence.
func unwrapRows(rows []line, width int) (out []line, firsts map[int]string) {
	out = make([]line, 0, len(rows))
	firsts = map[int]string{}
	for i := 0; i < len(rows); i++ {
		l := rows[i]
		for utf8.RuneCountInString(rows[i].text) >= width && i+1 < len(rows) && !isBlank(rows[i+1].text) {
			if _, ok := firsts[l.no]; !ok {
				firsts[l.no] = l.text
			}
			i++
			l.text += rows[i].text
		}
		out = append(out, l)
	}
	return out, firsts
}

// withUnknownColumns adds, between the known columns of a header without
// a dash line, every other column the header names (a name set off by
// two or more spaces, as a newer release's `esxcfg-nics -e` prints `INTR
// Capable` and `INTR Enabled` between `ENS Driven` and `MAC Address`):
// its cells then go to it, out of the known columns' way. The text after
// the last known column is that column's (Description holds spaces).
func withUnknownColumns(hr []rune, known []column) []column {
	out := make([]column, 0, len(known))
	for i, c := range known {
		out = append(out, c)
		if i+1 == len(known) {
			break
		}
		end := known[i+1].start
		at := c.start + len([]rune(c.name))
		for at < end {
			// The next name: after a gap of two or more spaces.
			gap := at
			for gap < end && hr[gap] == ' ' {
				gap++
			}
			if gap >= end {
				break
			}
			if gap-at < 2 {
				// Still the known name's words or a one-space join: not a
				// new column.
				for gap < end && hr[gap] != ' ' {
					gap++
				}
				at = gap
				continue
			}
			stop := gap
			for stop < end && !(hr[stop] == ' ' && stop+1 < end && hr[stop+1] == ' ') && !(hr[stop] == ' ' && stop+1 == end) {
				stop++
			}
			out = append(out, column{name: strings.TrimSpace(string(hr[gap:stop])), start: gap})
			at = stop
		}
	}
	return out
}

// isASCII reports whether s is all ASCII (rune offsets are byte offsets).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
