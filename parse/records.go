package parse

import (
	"strings"
)

// ReadRecords reads an esxcli list of structures: for each, a title line at
// column 0, then its indented "Key: Value" lines (nested structures
// indented further), then an empty line. Empty input is no records.
func ReadRecords(text string) ([]Record, error) {
	return readRecords(clean(text, true))
}

// ReadStructure reads the output of an esxcli get command: indented
// "Key: Value" lines with no title.
func ReadStructure(text string) (Record, error) {
	return readStructure(clean(text, false))
}

func newRecord(ref Ref) Record {
	return Record{Fields: map[string]Field{}, Ref: ref}
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

func (r *Record) set(key string, f Field) {
	if r.Fields == nil {
		r.Fields = map[string]Field{}
	}
	if _, dup := r.Fields[key]; !dup {
		r.Keys = append(r.Keys, key)
	}
	r.Fields[key] = f
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
// items of a nested list.
func readFields(ls []line, i, ind int, rec *Record, items bool) (int, error) {
	for i < len(ls) {
		l := ls[i]
		if isBlank(l.text) {
			j := nextNonBlank(ls, i)
			if j == len(ls) || indent(ls[j].text) < ind || items {
				return i, nil
			}
			i = j
			continue
		}
		in := indent(l.text)
		if in < ind {
			return i, nil
		}
		if in > ind {
			return i, errorf(l.no, "unexpected indentation (%d spaces, expected %d)", in, ind)
		}
		key, val, ok := keyValue(l.text)
		if !ok {
			return i, errorf(l.no, "expected \"Key: Value\", got %q", strings.TrimSpace(l.text))
		}
		rec.set(key, Field{Value: val, Ref: l.ref()})
		i++
		if val != "" || i >= len(ls) || isBlank(ls[i].text) || indent(ls[i].text) <= ind {
			continue
		}
		// Nested structure(s): children indented further, items separated
		// by lines holding only spaces.
		child := indent(ls[i].text)
		if rec.Nested == nil {
			rec.Nested = map[string][]Record{}
		}
		for {
			item := newRecord(ls[i].ref())
			var err error
			if i, err = readFields(ls, i, child, &item, true); err != nil {
				return i, err
			}
			rec.Nested[key] = append(rec.Nested[key], item)
			j := nextNonBlank(ls, i)
			if i < len(ls) && isBlank(ls[i].text) && j < len(ls) && indent(ls[j].text) == child {
				i = j
				continue
			}
			break
		}
	}
	return i, nil
}

// readRecords reads a list of titled structures from cleaned lines.
func readRecords(ls []line) ([]Record, error) {
	if len(ls) == 0 {
		return nil, nil
	}
	if flat(ls) {
		return readFlatRecords(ls)
	}
	var recs []Record
	i := 0
	for i < len(ls) {
		i = nextNonBlank(ls, i)
		if i == len(ls) {
			break
		}
		l := ls[i]
		if indent(l.text) != 0 {
			return recs, errorf(l.no, "expected a title line at column 0, got an indented line %q", strings.TrimSpace(l.text))
		}
		rec := newRecord(l.ref())
		rec.Title = strings.TrimSpace(l.text)
		i++
		if i >= len(ls) || indent(ls[i].text) == 0 {
			return recs, errorf(l.no, "record %q has no indented \"Key: Value\" lines", rec.Title)
		}
		var err error
		if i, err = readFields(ls, i, indent(ls[i].text), &rec, false); err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
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
func readFlatRecords(ls []line) ([]Record, error) {
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
			return nil, errorf(l.no, "expected a title line before %q", strings.TrimSpace(l.text))
		}
		recs[len(recs)-1].set(key, Field{Value: val, Ref: l.ref()})
	}
	for _, r := range recs {
		if len(r.Keys) == 0 {
			return nil, errorf(r.Line, "record %q has no \"Key: Value\" lines", r.Title)
		}
	}
	return recs, nil
}

// readStructure reads a single untitled structure from cleaned lines.
func readStructure(ls []line) (Record, error) {
	if len(ls) == 0 {
		return Record{}, &Error{Msg: "empty output: expected \"Key: Value\" lines"}
	}
	rec := newRecord(ls[0].ref())
	ind := indent(ls[0].text)
	i, err := readFields(ls, 0, ind, &rec, false)
	if err != nil {
		return rec, err
	}
	if i < len(ls) {
		return rec, errorf(ls[i].no, "unexpected line %q after the structure", strings.TrimSpace(ls[i].text))
	}
	return rec, nil
}
