package parse

import (
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
// text in the given layout, --formatter=xml, --formatter=keyvalue) into
// records whose keys are the display keys. keys lists the display keys
// the caller reads (machine formats print them without spaces); required
// keys must be present in every record (for a table: in the header).
func readItems(text string, lay layout, keys, required []string) ([]Record, error) {
	titled := lay == layoutRecords
	ls := clean(text, titled)
	var recs []Record
	var err error
	switch detect(ls) {
	case formatXML:
		recs, _, err = readXML(ls)
	case formatKeyValue:
		recs, _, err = readKeyValue(ls)
	default:
		switch lay {
		case layoutTable:
			if len(ls) == 0 {
				return nil, nil
			}
			var t Table
			if t, err = readTable(ls, nil); err != nil {
				return nil, err
			}
			for _, k := range required {
				if !contains(t.Header, k) {
					return nil, errorf(t.HeaderRef.Line, "expected column %q in the table header %q", k, strings.TrimSpace(t.HeaderRef.Text))
				}
			}
			for _, r := range t.Rows {
				recs = append(recs, r.record(t.Header))
			}
			return recs, nil
		case layoutRecords:
			recs, err = readRecords(ls)
		case layoutStructure:
			var rec Record
			if rec, err = readStructure(ls); err == nil {
				recs = []Record{rec}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	for i := range recs {
		canon(&recs[i], keys...)
		for _, k := range required {
			if _, ok := recs[i].Fields[k]; !ok {
				name := recs[i].Title
				if name == "" {
					name = "the structure"
				} else {
					name = strconv.Quote(name)
				}
				return nil, errorf(recs[i].Line, "%s has no %q key", name, k)
			}
		}
	}
	return recs, nil
}

// readOne reads a single structure (a get command) in any format.
func readOne(text string, keys, required []string) (Record, error) {
	recs, err := readItems(text, layoutStructure, keys, required)
	if err != nil {
		return Record{}, err
	}
	if len(recs) != 1 {
		return Record{}, &Error{Msg: "expected one structure, found " + strconv.Itoa(len(recs))}
	}
	return recs[0], nil
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
	f := rec.Fields[key]
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
	f := rec.Fields[key]
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

// errs collects the first error of a sequence of field conversions.
type errs struct{ err error }

func (e *errs) int(rec Record, key string) int {
	n, err := intField(rec, key)
	if e.err == nil {
		e.err = err
	}
	return n
}

func (e *errs) bool(rec Record, key string) bool {
	b, err := boolField(rec, key)
	if e.err == nil {
		e.err = err
	}
	return b
}
