package parse

import (
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"unicode/utf8"
)

// recField is one field of a Record: its key and value, and the line it
// was read from (the command is the record's).
type recField struct {
	key, value, text string
	line             int
}

func (f recField) field(cmd string) Field {
	return Field{Value: f.value, Ref: Ref{Command: cmd, Line: f.line, Text: f.text}}
}

// NewRecord returns a record read at ref with the given fields, in order.
func NewRecord(ref Ref, fields ...KeyField) Record {
	r := Record{Ref: ref}
	if len(fields) > 0 {
		r.fields = make([]recField, 0, len(fields))
	}
	for _, f := range fields {
		r.Set(f.Key, f.Field)
	}
	return r
}

// KeyField is a field with its key (NewRecord).
type KeyField struct {
	Key string
	Field
}

// indexed is the number of fields from which a record indexes them by
// key: a record read from a padded output may hold thousands, and looking
// each key up among all the others would make reading it quadratic.
const indexed = 32

func (r Record) index(key string) int {
	if r.at != nil {
		// A copy of the record may have added keys to the shared index:
		// an entry holds only if it names a field of this record.
		if i, ok := r.at[key]; ok && i < len(r.fields) && r.fields[i].key == key {
			return i
		}
		return -1
	}
	for i := range r.fields {
		if r.fields[i].key == key {
			return i
		}
	}
	return -1
}

// Field returns a field and where it was read, and whether the record has
// it.
func (r Record) Field(key string) (Field, bool) {
	if i := r.index(key); i >= 0 {
		f := r.fields[i].field(r.Command)
		f.Property = r.props[key]
		return f, true
	}
	return Field{}, false
}

// Lookup returns a field and where it was read (the zero Field when the
// record has none).
func (r Record) Lookup(key string) Field {
	f, _ := r.Field(key)
	return f
}

// Has reports whether the record has a field.
func (r Record) Has(key string) bool { return r.index(key) >= 0 }

// Get returns a field's trimmed value ("" when absent).
func (r Record) Get(key string) string {
	if i := r.index(key); i >= 0 {
		return r.fields[i].value
	}
	return ""
}

// RefOf returns where a key was read (the record's own Ref when absent).
func (r Record) RefOf(key string) Ref {
	if f, ok := r.Field(key); ok {
		return f.Ref
	}
	return r.Ref
}

// Len is the number of fields.
func (r Record) Len() int { return len(r.fields) }

// Keys returns the keys in the order they were read.
func (r Record) Keys() []string {
	out := make([]string, len(r.fields))
	for i, f := range r.fields {
		out[i] = f.key
	}
	return out
}

// All yields the fields in the order they were read.
func (r Record) All() iter.Seq2[string, Field] {
	return func(yield func(string, Field) bool) {
		for _, f := range r.fields {
			ff := f.field(r.Command)
			ff.Property = r.props[f.key]
			if !yield(f.key, ff) {
				return
			}
		}
	}
}

// Set sets a field: a new key goes last, a key read again keeps its place
// and takes the new value. Its command is the record's.
func (r *Record) Set(key string, f Field) {
	rf := recField{key: key, value: f.Value, text: f.Text, line: f.Line}
	switch {
	case f.Property != "":
		if r.props == nil {
			r.props = map[string]string{}
		}
		r.props[key] = f.Property
	case r.props != nil:
		delete(r.props, key)
	}
	if i := r.index(key); i >= 0 {
		r.fields[i] = rf
		return
	}
	r.fields = append(r.fields, rf)
	switch {
	case r.at != nil:
		r.at[key] = len(r.fields) - 1
	case len(r.fields) >= indexed:
		r.at = make(map[string]int, 2*len(r.fields))
		for i, f := range r.fields {
			r.at[f.key] = i
		}
	}
}

// Delete removes a field.
func (r *Record) Delete(key string) {
	if i := r.index(key); i >= 0 {
		r.fields = slices.Delete(r.fields, i, i+1)
		delete(r.props, key)
		r.at = nil // lookups scan until a Set rebuilds it
	}
}

// rename gives a field another key, in its place.
func (r *Record) rename(from, to string) {
	if i := r.index(from); i >= 0 {
		r.fields[i].key = to
		r.at = nil // lookups scan until a Set rebuilds it
		if p, ok := r.props[from]; ok {
			delete(r.props, from)
			r.props[to] = p
		}
	}
}

// setValue changes a field's value, keeping where it was read.
func (r *Record) setValue(key, value string) {
	if i := r.index(key); i >= 0 {
		r.fields[i].value = value
	}
}

// Compact gives the record's slices their exact size (a parser that
// keeps a record calls it once the record is complete).
func (r *Record) Compact() {
	r.fields = slices.Clip(r.fields)
}

// MarshalJSON writes a record as it always was: its title, its fields
// by key (each with value, line and text: the command is the record's),
// its keys in order, the nested records and its own Ref.
func (r Record) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64+96*len(r.fields))
	b = append(b, '{')
	if r.Title != "" {
		b = append(b, `"title":`...)
		b = appendString(b, r.Title)
		b = append(b, ',')
	}
	b = append(b, `"fields":{`...)
	order := make([]int, len(r.fields))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		switch a, c := r.fields[x].key, r.fields[y].key; {
		case a < c:
			return -1
		case a > c:
			return 1
		}
		return 0
	})
	for n, i := range order {
		f := r.fields[i]
		if n > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.key)
		b = append(b, `:{"value":`...)
		b = appendString(b, f.value)
		if f.line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(f.line), 10)
		}
		if f.text != "" {
			b = append(b, `,"text":`...)
			b = appendString(b, f.text)
		}
		if p := r.props[f.key]; p != "" {
			b = append(b, `,"property":`...)
			b = appendString(b, p)
		}
		b = append(b, '}')
	}
	b = append(b, `},"keys":`...)
	if r.fields == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range r.fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.key)
		}
		b = append(b, ']')
	}
	if len(r.Nested) > 0 {
		nested, err := json.Marshal(r.Nested)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"nested":`...)
		b = append(b, nested...)
	}
	if r.Command != "" {
		b = append(b, `,"command":`...)
		b = appendString(b, r.Command)
	}
	if r.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
	}
	if r.Text != "" {
		b = append(b, `,"text":`...)
		b = appendString(b, r.Text)
	}
	return append(b, '}'), nil
}

// recordJSON is the JSON form of a Record.
type recordJSON struct {
	Title  string              `json:"title"`
	Fields map[string]Field    `json:"fields"`
	Keys   []string            `json:"keys"`
	Nested map[string][]Record `json:"nested"`
	Ref
}

// UnmarshalJSON reads what MarshalJSON wrote (and the older form, whose
// fields each named their command).
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{Title: j.Title, Nested: j.Nested, Ref: j.Ref}
	seen := map[string]bool{}
	for _, k := range j.Keys {
		if f, ok := j.Fields[k]; ok && !seen[k] {
			seen[k] = true
			r.Set(k, f)
		}
	}
	var rest []string
	for k := range j.Fields {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		r.Set(k, j.Fields[k])
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it (HTML characters, U+2028 and U+2029 too; invalid UTF-8 as
// U+FFFD).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
