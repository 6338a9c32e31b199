package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// layout is how the human (default) form of a command is printed.
type layout int

const (
	layoutTable layout = iota
	layoutRecords
	layoutStructure
)

// readItems reads the output of an esxcli command in any format (human
// text in the given layout, --formatter=xml, keyvalue or csv) into records
// whose keys are the display keys. keys lists the display keys the caller
// reads (machine formats print them without spaces); required keys must
// be present in every record (for a table: in the header). A record or row
// that cannot be read, or lacks a required key, is left out and recorded
// in the returned skips; the error is for output that cannot be read at
// all (no table header, broken XML before the first structure).
func readItems(text string, lay layout, keys, required []string) ([]Record, skips, error) {
	titled := lay == layoutRecords
	var s skips
	ls := dropElisions(clean(text, titled), &s)
	var recs []Record
	var err error
	switch detect(ls) {
	case formatXML:
		recs, _, err = readXML(ls, &s)
	case formatKeyValue:
		recs, _, err = readKeyValue(ls, &s)
	case formatCSV:
		recs, err = readCSV(ls, &s)
	case formatJSON:
		recs, err = readJSON(ls, &s)
	default:
		switch lay {
		case layoutTable:
			if len(ls) == 0 {
				return nil, s, nil
			}
			var t Table
			if t, err = readTable(ls, nil, &s); err != nil {
				return nil, s, err
			}
			for _, k := range required {
				if !contains(t.Header, k) {
					return nil, s, errorf(t.HeaderRef.Line, "expected column %q in the table header %q", k, strings.TrimSpace(t.HeaderRef.Text))
				}
			}
			for _, r := range t.Rows {
				rec := r.record(t.Header)
				if len(required) > 0 && strings.TrimSpace(rec.Get(required[0])) == "" {
					// A stray line (a colour code, a wrapped fragment) that
					// fills no item's name is no item (issue 23).
					s.add(rec.Ref, nil, fmt.Sprintf("row without a %s: skipped", required[0]))
					continue
				}
				recs = append(recs, rec)
			}
			return recs, s, nil
		case layoutRecords:
			recs = readRecords(ls, &s)
		case layoutStructure:
			var rec Record
			if rec, err = readStructure(ls, &s); err == nil {
				recs = []Record{rec}
			}
		}
	}
	if err != nil {
		return nil, s, err
	}
	out := recs[:0]
	for i := range recs {
		canon(&recs[i], keys...)
		if k, ok := missingKey(recs[i], required); !ok {
			name := recs[i].Title
			if name == "" {
				name = "the structure"
			} else {
				name = strconv.Quote(name)
			}
			s.add(recs[i].Ref, nil, fmt.Sprintf("%s has no %q key: skipped", name, k))
			continue
		}
		out = append(out, recs[i])
	}
	return out, s, nil
}

// readList reads the output of a list command (readItems) and converts
// each record to a fact with conv (see recordsTo).
func readList[T any](text string, lay layout, keys, required []string, skipped string, conv func(Record, *errs) T) ([]T, error) {
	recs, sk, err := readItems(text, lay, keys, required)
	if err != nil {
		return nil, err
	}
	return recordsTo(recs, sk, skipped, conv)
}

// recordsTo converts records to facts with conv, whose field conversions
// (e.int, e.bool) note the first bad value in e: a record with one is left
// out and added to sk with the reason skipped ("vmknic skipped"). The
// facts come back through result.
func recordsTo[T any](recs []Record, sk skips, skipped string, conv func(Record, *errs) T) ([]T, error) {
	out := make([]T, 0, len(recs))
	var e errs // one for all records (conv takes its address)
	for _, r := range recs {
		e = errs{}
		v := conv(r, &e)
		if e.err != nil {
			sk.add(r.Ref, e.err, skipped)
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		out = nil // no facts: nil, as every list parser returns it
	}
	return result(out, len(out), sk)
}

// missingKey returns the first required key rec lacks.
func missingKey(rec Record, required []string) (string, bool) {
	for _, k := range required {
		if !rec.Has(k) {
			return k, false
		}
	}
	return "", true
}

// readOne reads a single structure (a get command) in any format. Lines
// left out of it come back as a *PartialError with the record.
func readOne(text string, keys, required []string) (Record, error) {
	r, s, err := readOneSkips(text, keys, required)
	if err != nil {
		return r, err
	}
	return result(r, r.Len(), s)
}

// readOneSkips is readOne returning the skipped lines for the caller to
// add to (bad values) before building its result.
func readOneSkips(text string, keys, required []string) (Record, skips, error) {
	recs, s, err := readItems(text, layoutStructure, keys, required)
	if err != nil {
		return Record{}, s, err
	}
	if len(recs) != 1 {
		if len(s) > 0 {
			return Record{}, s, &Error{Line: s[0].Line, Msg: "nothing could be read: " + s[0].Reason}
		}
		return Record{}, s, &Error{Msg: "expected one structure, found " + strconv.Itoa(len(recs))}
	}
	return recs[0], s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// intField reads an integer field; empty and "N/A" read as 0.
func intField(rec Record, key string) (int, error) {
	f, _ := rec.Field(key)
	v := strings.TrimSpace(f.Value)
	if v == "" || strings.EqualFold(v, "N/A") {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errorf(f.Line, "%s: expected an integer, got %q", key, v)
	}
	return n, nil
}

// boolField reads a boolean field (true/false in any case, 1/0); empty
// reads as false.
func boolField(rec Record, key string) (bool, error) {
	f, _ := rec.Field(key)
	b, ok := parseBool(f.Value)
	if !ok {
		return false, errorf(f.Line, "%s: expected true or false, got %q", key, f.Value)
	}
	return b, nil
}

func parseBool(v string) (b, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on", "enabled":
		return true, true
	case "false", "0", "no", "off", "disabled", "":
		return false, true
	}
	return false, false
}

// splitList splits a ", "-joined list value; empty gives nil.
func splitList(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// errs collects the first error of a sequence of field conversions. With
// s set (a single structure), every bad field is recorded there instead,
// so that one bad line costs only its own value.
type errs struct {
	err error
	s   *skips
}

func (e *errs) note(rec Record, key string, err error) {
	if err == nil {
		return
	}
	if e.s != nil {
		e.s.add(rec.RefOf(key), err, "value skipped")
		return
	}
	if e.err == nil {
		e.err = err
	}
}

func (e *errs) int(rec Record, key string) int {
	n, err := intField(rec, key)
	e.note(rec, key, err)
	return n
}

func (e *errs) bool(rec Record, key string) bool {
	b, err := boolField(rec, key)
	e.note(rec, key, err)
	return b
}
