package parse

import (
	"fmt"
	"strings"
)

// ReadRecords reads an esxcli list of structures: for each, a title line at
// column 0, then its indented "Key: Value" lines (nested structures
// indented further), then an empty line. Empty input is no records. Lines
// that cannot be read are left out and listed in a *PartialError returned
// with the records that could be read.
func ReadRecords(text string) ([]Record, error) {
	var s skips
	ls := dropElisions(clean(text, true), &s)
	recs := readRecords(ls, &s)
	return result(recs, len(recs), s)
}

// ReadStructure reads the output of an esxcli get command: indented
// "Key: Value" lines with no title.
func ReadStructure(text string) (Record, error) {
	var s skips
	ls := dropElisions(clean(text, false), &s)
	rec, err := readStructure(ls, &s)
	if err != nil {
		return rec, err
	}
	return result(rec, rec.Len(), s)
}

func newRecord(ref Ref) Record {
	return Record{Ref: ref}
}

// keyValue splits "Key: Value" (or "Key:" with an empty value).
func keyValue(s string) (key, value string, ok bool) {
	t := strings.TrimSpace(s)
	if i := strings.Index(t, ": "); i > 0 {
		return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+2:]), true
	}
	if strings.HasSuffix(t, ":") && len(t) > 1 {
		return strings.TrimSpace(t[:len(t)-1]), "", true
	}
	return "", "", false
}

// maxWrappedValue caps what continuation lines may add to one value: no
// esxcli value is near it, and a value grown past it (an output padded
// with continuation lines) would only cost memory.
const maxWrappedValue = 64 << 10

// wrapped joins continuation lines (the rest of a value wrapped onto the
// next lines) to one field of a record: the parts go into one buffer, so
// a value wrapped over n lines costs time linear in its length, and the
// field is set once, when the value ends (flush). A wrap at column 0 is a
// terminal's hard wrap and joins without a space, as does the rest of a
// path; other wraps were made at a space.
type wrapped struct {
	rec          *Record
	key          string
	buf          []byte
	space, slash bool // the value so far holds a space, a slash
	capped       bool
}

// add joins line l (prev is the line before it) to the value of key in
// rec. A value that would grow past maxWrappedValue keeps its first
// maxWrappedValue bytes; the rest is recorded in s once.
func (w *wrapped) add(rec *Record, key string, l line, prev string, s *skips) {
	if w.rec != rec || w.key != key {
		w.flush()
		v := rec.Get(key)
		w.rec, w.key, w.capped = rec, key, false
		w.buf = append(w.buf[:0], v...)
		w.space, w.slash = strings.Contains(v, " "), strings.Contains(v, "/")
	}
	part := strings.TrimSpace(l.text)
	var sep, add string
	switch {
	case len(w.buf) == 0:
		add = part
	case indent(l.text) == 0:
		add = wrapJoin(prev, l.text)
	case !w.space && (w.slash || strings.Contains(part, "/")):
		add = part
	default:
		sep, add = " ", part
	}
	if w.capped {
		return
	}
	if len(w.buf)+len(sep)+len(add) > maxWrappedValue {
		w.capped = true
		s.add(l.ref(), nil, fmt.Sprintf("a value continued past %d KiB: the rest left out", maxWrappedValue>>10))
		return
	}
	w.buf = append(append(w.buf, sep...), add...)
	w.space = w.space || sep != "" || strings.Contains(add, " ")
	w.slash = w.slash || strings.Contains(add, "/")
}

// empty reports whether key's value in rec is empty so far.
func (w *wrapped) empty(rec *Record, key string) bool {
	if w.rec == rec && w.key == key {
		return len(w.buf) == 0
	}
	return rec.Get(key) == ""
}

// flush sets the value being joined on its field.
func (w *wrapped) flush() {
	if w.rec != nil {
		w.rec.setValue(w.key, string(w.buf))
		w.rec = nil
	}
}

// wrapJoin is the rest of a value hard-wrapped onto line next: joined
// without a space, unless the wrap fell on one (the line before ends with
// a space, or next starts with one).
func wrapJoin(prev, next string) string {
	part := strings.TrimRight(next, " \t")
	if strings.HasSuffix(prev, " ") && !strings.HasPrefix(part, " ") {
		return " " + strings.TrimSpace(part)
	}
	if strings.HasPrefix(part, " ") {
		return " " + strings.TrimSpace(part)
	}
	return part
}

// nextNonBlank returns the index of the first non-blank line at or after i.
func nextNonBlank(ls []line, i int) int {
	for i < len(ls) && isBlank(ls[i].text) {
		i++
	}
	return i
}

// readFields reads the key lines at indentation ind from ls[i:] into rec
// and returns the index of the first line not consumed: a line indented
// less than ind, or (when items is set) a blank line that separates two
// items of a nested list. A line that is not "Key: Value" right after a
// key with a value is that value's continuation, as is a column-0 line
// right after it (a terminal's hard wrap) unless, in a list of titled
// records, key lines follow it (then it is the next record's title); any
// other line that cannot be read is recorded in s and skipped.
func readFields(ls []line, i, ind int, rec *Record, items, titled bool, s *skips) int {
	var w wrapped
	defer w.flush()
	last := ""
	for i < len(ls) {
		l := ls[i]
		if isBlank(l.text) {
			j := nextNonBlank(ls, i)
			if j == len(ls) || indent(ls[j].text) < ind || items {
				return i
			}
			i = j
			last = ""
			continue
		}
		in := indent(l.text)
		key, val, ok := keyValue(l.text)
		if in < ind {
			if in <= 1 && !ok && last != "" && i > 0 && ls[i-1].no == l.no-1 && !(titled && titleAt(ls, i)) {
				// A terminal's hard wrap of the value before (column 0,
				// or column 1 when the wrap fell on a space: " Server
				// Appliance/..." after "Config File: .../VMware vCenter").
				w.add(rec, last, l, ls[i-1].text, s)
				i++
				continue
			}
			return i
		}
		if !ok || in > ind {
			if last != "" && (!ok || !w.empty(rec, last)) {
				w.add(rec, last, l, ls[i-1].text, s)
				i++
				continue
			}
			if !ok {
				s.add(l.ref(), nil, "not a \"Key: Value\" line: skipped")
			} else {
				s.add(l.ref(), nil, "unexpected indentation: skipped")
			}
			i++
			continue
		}
		w.flush()
		if f, dup := rec.Field(key); dup && f.Value != val {
			// esxcli never repeats a key in one record: a second, different
			// value is a stray line (a paste's, an edit's); the first stands.
			s.add(l.ref(), nil, fmt.Sprintf("%q repeated with another value: skipped", key))
			last = ""
			i++
			continue
		}
		rec.Set(key, Field{Value: val, Ref: l.ref()})
		last = key
		i++
		if val != "" || i >= len(ls) || isBlank(ls[i].text) || indent(ls[i].text) <= ind {
			continue
		}
		if _, _, isKey := keyValue(ls[i].text); !isKey {
			continue // an empty value continued on the next line
		}
		// Nested structure(s): children indented further, items separated
		// by lines holding only spaces.
		last = ""
		child := indent(ls[i].text)
		if rec.Nested == nil {
			rec.Nested = map[string][]Record{}
		}
		for {
			item := newRecord(ls[i].ref())
			i = readFields(ls, i, child, &item, true, titled, s)
			rec.Nested[key] = append(rec.Nested[key], item)
			j := nextNonBlank(ls, i)
			if i < len(ls) && isBlank(ls[i].text) && j < len(ls) && indent(ls[j].text) == child {
				i = j
				continue
			}
			break
		}
	}
	return i
}

// readRecords reads a list of titled structures from cleaned lines.
// A column-0 line right after a record's last line that is not followed by
// key lines is the terminal-wrapped rest of that record's last value.
func readRecords(ls []line, s *skips) []Record {
	if len(ls) == 0 {
		return nil
	}
	if flat(ls) {
		return readFlatRecords(ls, s)
	}
	var recs []Record
	var w wrapped
	i := 0
	for i < len(ls) {
		start := i
		i = nextNonBlank(ls, i)
		if i == len(ls) {
			break
		}
		l := ls[i]
		if indent(l.text) != 0 {
			s.add(l.ref(), nil, "indented line outside any record: skipped")
			i++
			continue
		}
		hasKeys := i+1 < len(ls) && !isBlank(ls[i+1].text) && indent(ls[i+1].text) > 0
		if !hasKeys {
			if n := len(recs); n > 0 && i == start && recs[n-1].Len() > 0 {
				// Directly after the previous record (no blank line).
				r := &recs[n-1]
				w.add(r, r.fields[len(r.fields)-1].key, l, ls[i-1].text, s)
				i++
				continue
			}
			s.add(l.ref(), nil, "record \""+strings.TrimSpace(l.text)+"\" has no indented \"Key: Value\" lines: skipped")
			i++
			continue
		}
		w.flush() // before recs grows
		rec := newRecord(l.ref())
		rec.Title = strings.TrimSpace(l.text)
		i = readFields(ls, i+1, indent(ls[i+1].text), &rec, false, true, s)
		recs = append(recs, rec)
	}
	w.flush()
	return recs
}

// flat reports whether no line is indented: a copy that lost its
// indentation (pasted through a document).
func flat(ls []line) bool {
	for _, l := range ls {
		if !isBlank(l.text) && indent(l.text) > 0 {
			return false
		}
	}
	return true
}

// readFlatRecords reads a record list that lost its indentation: a line
// that is not "Key: Value" starts a new record.
func readFlatRecords(ls []line, s *skips) []Record {
	var recs []Record
	for _, l := range ls {
		if isBlank(l.text) {
			continue
		}
		key, val, ok := keyValue(l.text)
		if !ok {
			rec := newRecord(l.ref())
			rec.Title = strings.TrimSpace(l.text)
			recs = append(recs, rec)
			continue
		}
		if len(recs) == 0 {
			s.add(l.ref(), nil, "key line before any record title: skipped")
			continue
		}
		recs[len(recs)-1].Set(key, Field{Value: val, Ref: l.ref()})
	}
	out := recs[:0]
	for _, r := range recs {
		if r.Len() == 0 {
			s.add(r.Ref, nil, "record \""+r.Title+"\" has no \"Key: Value\" lines: skipped")
			continue
		}
		out = append(out, r)
	}
	return out
}

// readStructure reads a single untitled structure from cleaned lines.
// Lines after the structure that cannot be part of it are skipped.
func readStructure(ls []line, s *skips) (Record, error) {
	i := nextNonBlank(ls, 0)
	if i == len(ls) {
		return Record{}, &Error{Msg: "empty output: expected \"Key: Value\" lines"}
	}
	rec := newRecord(ls[i].ref())
	ind := indent(ls[i].text)
	for i < len(ls) {
		i = nextNonBlank(ls, readFields(ls, i, ind, &rec, false, false, s))
		if i < len(ls) {
			// A line indented less than the structure: read on at its indentation
			// when it is a key line (a copy that lost some indentation).
			if _, _, ok := keyValue(ls[i].text); ok {
				ind = indent(ls[i].text)
				continue
			}
			s.add(ls[i].ref(), nil, "unexpected line after the structure: skipped")
			i++
		}
	}
	return rec, nil
}

// titleAt reports whether line i is followed by an indented key line: the
// title of a record, not the wrapped rest of a value.
func titleAt(ls []line, i int) bool {
	if i+1 >= len(ls) || isBlank(ls[i+1].text) || indent(ls[i+1].text) == 0 {
		return false
	}
	_, _, ok := keyValue(ls[i+1].text)
	return ok
}
