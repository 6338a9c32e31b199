package parse

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// format is how an esxcli output is printed.
type format int

const (
	formatHuman format = iota
	formatXML
	formatKeyValue
	formatCSV
	formatJSON
)

// reCSVHeader is the header of `esxcli --formatter=csv`: field names
// without spaces, comma-separated, often with a trailing comma.
var reCSVHeader = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:,[A-Za-z][A-Za-z0-9]*)+,?$`)

var reKeyValue = regexp.MustCompile(`^(?:structure\[\d+\]\.)?[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.\[\]]+\.(?:string|integer|boolean|long|double|float)(?:\[\d+\])?=`)

// detect tells the format of cleaned output from its first line.
func detect(ls []line) format {
	if len(ls) == 0 {
		return formatHuman
	}
	first := strings.TrimSpace(ls[0].text)
	switch {
	case strings.HasPrefix(first, "<?xml"), strings.HasPrefix(first, "<output") && strings.Contains(first, "esxcli"):
		return formatXML
	case reKeyValue.MatchString(first):
		return formatKeyValue
	case reCSVHeader.MatchString(first) && len(ls) > 1:
		return formatCSV
	case strings.HasPrefix(first, "[{") || strings.HasPrefix(first, "{\"") || first == "[" || first == "{":
		return formatJSON
	}
	return formatHuman
}

// xnode is one element of an esxcli XML document.
type xnode struct {
	name     string
	attrs    map[string]string
	text     strings.Builder
	children []*xnode
	line     int
	closed   bool
}

// readXML reads `esxcli --formatter=xml` output into records: one per
// structure of a list, or one for a single structure. Field names are the
// display keys without spaces. single reports a lone structure.
// Broken XML (a copy cut short, a line lost) keeps the structures that
// were complete before the damage and records the rest as skipped.
func readXML(ls []line, s *skips) (recs []Record, single bool, err error) {
	if len(ls) == 0 {
		return nil, false, nil
	}
	root, broken := xmlTree(unwrapXMLLines(ls), ls[0].no)
	return xmlRecords(root, broken, ls, s)
}

// unwrapXMLLines joins what a terminal hard-wrapped: a line that filled an
// 80-column (or wider) terminal and stops short of a tag's end continues
// on the next, even inside a tag. The pieces of a line are joined in one
// buffer (linear in the line).
func unwrapXMLLines(ls []line) []line {
	var logical []line
	var joined []byte
	joining := false
	for i, l := range ls {
		if i > 0 && len(logical) > 0 && utf8.RuneCountInString(ls[i-1].text) >= 79 && !strings.HasSuffix(ls[i-1].text, ">") {
			if !joining {
				joined, joining = append(joined[:0], logical[len(logical)-1].text...), true
			}
			joined = append(joined, l.text...)
			continue
		}
		if joining {
			logical[len(logical)-1].text, joining = string(joined), false
		}
		logical = append(logical, l)
	}
	if joining {
		logical[len(logical)-1].text = string(joined)
	}
	return logical
}

// xmlTree decodes the logical lines into a tree of elements, each with
// its line in the original output (first is the first line's number).
// Broken XML gives the tree read before the damage and the error there.
func xmlTree(logical []line, first int) (root *xnode, broken *Error) {
	texts := make([]string, len(logical))
	for i, l := range logical {
		texts[i] = l.text
	}
	lineOf := func(n int) int {
		if n-1 >= 0 && n-1 < len(logical) {
			return logical[n-1].no
		}
		return first + n - 1
	}
	dec := xml.NewDecoder(strings.NewReader(strings.Join(texts, "\n")))
	var stack []*xnode
	for {
		tok, terr := dec.Token()
		if terr == io.EOF {
			return root, broken
		}
		if terr != nil {
			ln, _ := dec.InputPos()
			var se *xml.SyntaxError
			if errors.As(terr, &se) {
				ln = se.Line
			}
			return root, errorf(lineOf(ln), "invalid esxcli XML: %v", terr)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			ln, _ := dec.InputPos()
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}, line: lineOf(ln)}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 0 {
				stack[len(stack)-1].closed = true
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
}

// xmlRecords reads the tree's <output><root>: a single <structure>, or
// a <list> of them. Broken XML keeps the structures complete before the
// damage and records the rest as skipped.
func xmlRecords(root *xnode, broken *Error, ls []line, s *skips) (recs []Record, single bool, err error) {
	fail := func(e *Error) ([]Record, bool, error) {
		if broken != nil {
			return nil, false, broken
		}
		return nil, false, e
	}
	if root == nil || root.name != "output" {
		return fail(errorf(ls[0].no, "expected an esxcli <output> element"))
	}
	if len(root.children) == 0 || root.children[0].name != "root" || (len(root.children) != 1 && broken == nil) {
		return fail(errorf(root.line, "expected a single <root> element in <output>"))
	}
	r := root.children[0]
	if len(r.children) == 0 {
		if broken != nil {
			return nil, false, broken
		}
		return nil, false, nil
	}
	top := r.children[0]
	switch top.name {
	case "structure":
		if !top.closed {
			return nil, true, broken
		}
		rec, err := xmlStructure(top, ls)
		if err != nil {
			return nil, true, err
		}
		if broken != nil {
			s.add(Ref{Line: broken.Line, Text: lineText(ls, broken.Line)}, broken, "the XML after the structure is broken: skipped")
		}
		return []Record{rec}, true, nil
	case "list":
		recs = xmlList(top, ls, s)
		if broken != nil {
			if len(recs) == 0 {
				return nil, false, broken
			}
			s.add(Ref{Line: broken.Line, Text: lineText(ls, broken.Line)}, broken, "the XML is broken from here: the rest is skipped")
		}
		return recs, false, nil
	}
	return fail(errorf(top.line, "unsupported esxcli XML content <%s>", top.name))
}

// xmlList reads the structures of a <list> complete before any damage;
// another element, or a structure that cannot be read, is skipped.
func xmlList(list *xnode, ls []line, s *skips) []Record {
	var recs []Record
	for _, c := range list.children {
		if !c.closed {
			break // cut off by the damage
		}
		if c.name != "structure" {
			s.add(Ref{Line: c.line, Text: lineText(ls, c.line)}, nil, fmt.Sprintf("expected <structure> in <list>, got <%s>: skipped", c.name))
			continue
		}
		rec, err := xmlStructure(c, ls)
		if err != nil {
			s.add(rec.Ref, err, "XML structure skipped")
			continue
		}
		recs = append(recs, rec)
	}
	return recs
}

// lineText returns the original text of line no.
func lineText(ls []line, no int) string {
	if len(ls) > 0 {
		if i := no - ls[0].no; i >= 0 && i < len(ls) {
			return ls[i].text
		}
	}
	return ""
}

func xmlStructure(s *xnode, ls []line) (Record, error) {
	rec := newRecord(Ref{Line: s.line, Text: lineText(ls, s.line)})
	for _, f := range s.children {
		if f.name != "field" {
			return rec, errorf(f.line, "expected <field> in <structure>, got <%s>", f.name)
		}
		name := f.attrs["name"]
		ref := Ref{Line: f.line, Text: lineText(ls, f.line)}
		if len(f.children) == 0 {
			rec.Set(name, Field{Value: strings.TrimSpace(f.text.String()), Ref: ref})
			continue
		}
		v := f.children[0]
		switch v.name {
		case "structure":
			n, err := xmlStructure(v, ls)
			if err != nil {
				return rec, err
			}
			rec.Set(name, Field{Ref: ref})
			if rec.Nested == nil {
				rec.Nested = map[string][]Record{}
			}
			rec.Nested[name] = append(rec.Nested[name], n)
		case "list":
			var vals []string
			for _, item := range v.children {
				if item.name == "structure" {
					n, err := xmlStructure(item, ls)
					if err != nil {
						return rec, err
					}
					if rec.Nested == nil {
						rec.Nested = map[string][]Record{}
					}
					rec.Nested[name] = append(rec.Nested[name], n)
					continue
				}
				vals = append(vals, strings.TrimSpace(item.text.String()))
			}
			rec.Set(name, Field{Value: strings.Join(vals, ", "), Ref: ref})
		default:
			rec.Set(name, Field{Value: strings.TrimSpace(v.text.String()), Ref: ref})
		}
	}
	return rec, nil
}

// readKeyValue reads `esxcli --formatter=keyvalue` output:
// structure[i].TypeName.FieldName.type=value lines (without the
// structure[i]. prefix for a single structure).
// A line that is not of that form is skipped.
func readKeyValue(ls []line, s *skips) (recs []Record, single bool, err error) {
	index := map[int]int{}
	type lastField struct {
		rec *Record
		key string
		at  int
	}
	var last *lastField
	// pend is the value of last being built from several lines (the rest
	// of a wrapped value, the items of a list) in one buffer, set on its
	// field when another field starts: linear in the value's length.
	var pend struct {
		rec    *Record
		key    string
		buf    []byte
		capped bool
	}
	flush := func() {
		if pend.rec != nil {
			pend.rec.setValue(pend.key, string(pend.buf))
			pend.rec = nil
		}
	}
	grow := func(rec *Record, key string, l line, parts ...string) {
		if pend.rec != rec || pend.key != key {
			flush()
			pend.rec, pend.key, pend.capped = rec, key, false
			pend.buf = append(pend.buf[:0], rec.Get(key)...)
		}
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		switch {
		case pend.capped:
		case len(pend.buf)+n > maxWrappedValue:
			pend.capped = true
			s.add(l.ref(), nil, fmt.Sprintf("a value continued past %d KiB: the rest left out", maxWrappedValue>>10))
		default:
			for _, p := range parts {
				pend.buf = append(pend.buf, p...)
			}
		}
	}
	for i, l := range ls {
		if isBlank(l.text) {
			continue
		}
		t := strings.TrimSpace(l.text)
		eq := strings.IndexByte(t, '=')
		if eq < 0 || !reKeyValue.MatchString(t) {
			if last != nil && last.at == i-1 {
				// The rest of the value before, wrapped by the terminal.
				grow(last.rec, last.key, l, wrapJoin(ls[i-1].text, l.text))
				last.at = i
				continue
			}
			s.add(l.ref(), nil, "not a keyvalue line \"structure[i].Type.Field.type=value\": skipped")
			continue
		}
		left, val := t[:eq], strings.TrimSpace(t[eq+1:])
		idx := 0
		if rest, ok := strings.CutPrefix(left, "structure["); ok {
			end := strings.IndexByte(rest, ']')
			n, cerr := strconv.Atoi(rest[:end])
			if cerr != nil {
				s.add(l.ref(), nil, "bad structure index: skipped")
				continue
			}
			idx, left = n, rest[end+2:]
		} else {
			single = true
		}
		parts := strings.Split(left, ".")
		// parts: TypeName, Field[, NestedType, NestedField...], type
		path := parts[1 : len(parts)-1]
		pos, ok := index[idx]
		if !ok {
			flush() // before recs grows
			pos = len(recs)
			index[idx] = pos
			recs = append(recs, newRecord(l.ref()))
		}
		rec := &recs[pos]
		field := Field{Value: val, Ref: l.ref()}
		list := strings.Contains(parts[len(parts)-1], "[")
		if len(path) >= 3 {
			if rec.Nested == nil {
				rec.Nested = map[string][]Record{}
			}
			if !rec.Has(path[0]) {
				rec.Set(path[0], Field{Ref: l.ref()})
			}
			if len(rec.Nested[path[0]]) == 0 {
				rec.Nested[path[0]] = []Record{newRecord(l.ref())}
			}
			rec = &rec.Nested[path[0]][0]
			path = path[len(path)-1:]
		}
		key := strings.Join(path, ".")
		if pend.rec != rec || pend.key != key {
			flush()
		}
		if list && rec.Has(key) {
			// Another item of a list: "a, b, c".
			grow(rec, key, l, ", ", val)
		} else {
			flush()
			rec.Set(key, field)
		}
		last = &lastField{rec, key, i}
	}
	flush()
	return recs, single, nil
}

// canon renames machine-format keys (display keys without spaces) to the
// display keys a parser knows, in fields and nested structures, so that
// Record.Get works the same for every format.
func canon(rec *Record, keys ...string) {
	for _, k := range keys {
		nk := strings.ReplaceAll(k, " ", "")
		if nk == k {
			continue
		}
		if rec.Has(nk) && !rec.Has(k) {
			rec.rename(nk, k)
		}
		if n, ok := rec.Nested[nk]; ok {
			if _, exists := rec.Nested[k]; !exists {
				delete(rec.Nested, nk)
				rec.Nested[k] = n
			}
		}
	}
	for name, items := range rec.Nested {
		for i := range items {
			canon(&items[i], keys...)
		}
		rec.Nested[name] = items
	}
}

// readCSV reads `esxcli --formatter=csv` output: a header of field names
// (display keys without spaces), then one line per structure. A line that
// is not valid CSV or has more cells than the header is skipped.
func readCSV(ls []line, s *skips) ([]Record, error) {
	header := strings.Split(strings.TrimSuffix(strings.TrimSpace(ls[0].text), ","), ",")
	var recs []Record
	for _, l := range ls[1:] {
		if isBlank(l.text) {
			continue
		}
		r := csv.NewReader(strings.NewReader(strings.TrimSpace(l.text)))
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		cells, err := r.Read()
		if err != nil {
			s.add(l.ref(), err, "CSV line skipped")
			continue
		}
		if len(cells) == len(header)+1 && cells[len(cells)-1] == "" {
			cells = cells[:len(header)]
		}
		if len(cells) != len(header) {
			s.add(l.ref(), nil, fmt.Sprintf("CSV line has %d cells for %d columns: skipped", len(cells), len(header)))
			continue
		}
		rec := newRecord(l.ref())
		for i, h := range header {
			rec.Set(h, Field{Value: strings.TrimSpace(cells[i]), Ref: l.ref()})
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// readJSON reads `esxcli --formatter=json` output (ESXi 8): a list of
// objects, or one object, whose keys are the display keys without spaces;
// nested objects are nested structures, arrays of strings are lists. An
// object that is not valid JSON ends the reading there (the rest is
// recorded as skipped).
func readJSON(ls []line, s *skips) ([]Record, error) {
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.text
	}
	joined := strings.Join(texts, "\n")
	lineAt := func(off int64) line {
		n := bytes.Count([]byte(joined[:min(int(off), len(joined))]), []byte("\n"))
		return ls[min(n, len(ls)-1)]
	}
	dec := json.NewDecoder(strings.NewReader(joined))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, errorf(ls[0].no, "invalid esxcli JSON: %v", err)
	}
	var recs []Record
	obj := func(start int64) bool {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			l := lineAt(start)
			s.add(l.ref(), err, "the JSON is broken from here: the rest is skipped")
			return false
		}
		l := lineAt(start)
		recs = append(recs, jsonRecord(m, l))
		return true
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if !obj(dec.InputOffset()) {
				break
			}
		}
	case json.Delim('{'):
		// One structure: decode it again as a whole.
		dec = json.NewDecoder(strings.NewReader(joined))
		dec.UseNumber()
		obj(0)
	default:
		return nil, errorf(ls[0].no, "expected an esxcli JSON list or object")
	}
	return recs, nil
}

// jsonRecord turns a decoded JSON object into a record; every field points
// at the line where its object starts.
func jsonRecord(m map[string]any, l line) Record {
	rec := newRecord(l.ref())
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]any:
			rec.Set(k, Field{Ref: l.ref()})
			if rec.Nested == nil {
				rec.Nested = map[string][]Record{}
			}
			rec.Nested[k] = append(rec.Nested[k], jsonRecord(v, l))
		case []any:
			var vals []string
			for _, x := range v {
				if sub, ok := x.(map[string]any); ok {
					if rec.Nested == nil {
						rec.Nested = map[string][]Record{}
					}
					rec.Nested[k] = append(rec.Nested[k], jsonRecord(sub, l))
					continue
				}
				vals = append(vals, fmt.Sprint(x))
			}
			rec.Set(k, Field{Value: strings.Join(vals, ", "), Ref: l.ref()})
		case nil:
			rec.Set(k, Field{Ref: l.ref()})
		default:
			rec.Set(k, Field{Value: strings.TrimSpace(fmt.Sprint(v)), Ref: l.ref()})
		}
	}
	return rec
}
