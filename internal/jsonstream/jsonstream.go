// Package jsonstream writes a large value as indented JSON a piece at a
// time: the fields of its structs and the elements of its slices, down to
// a depth, each marshalled on its own and written out, so the whole
// document is never held in memory (encoding/json's Encoder marshals the
// whole value into one buffer, then indents it into another). The bytes
// are those of json.MarshalIndent(v, "", indent) plus a newline, as
// json.Encoder with SetIndent writes them.
package jsonstream

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Depth is how deep Write takes structs and slices apart: the members of
// the top value and the elements of its lists; deeper values (a host, a
// finding) are marshalled whole, each at once.
const Depth = 2

// Write writes v as indented JSON followed by a newline; with indent ""
// compact, as json.Marshal (plus the newline).
func Write(w io.Writer, v any, indent string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &encoder{w: bw, indent: indent, compact: indent == ""}
	e.enc = json.NewEncoder(&e.buf)
	e.value(reflect.ValueOf(v), "", 0)
	if e.err == nil {
		e.write("\n")
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

type encoder struct {
	w       *bufio.Writer
	indent  string
	compact bool
	err     error
	// enc marshals each piece into buf: one encoder for the document
	// reuses its indentation buffer, where json.MarshalIndent makes a new
	// one for every piece (an eighth of what a 1,000-host analysis
	// allocated).
	enc *json.Encoder
	buf bytes.Buffer
}

// nl is what goes before a member or an element: a new line at its
// indentation, nothing when compact.
func (e *encoder) nl(prefix string) string {
	if e.compact {
		return ""
	}
	return "\n" + prefix
}

func (e *encoder) write(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// custom reports whether t (or *t) marshals itself: such values are
// always marshalled whole.
func custom(t reflect.Type) bool {
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

func (e *encoder) value(v reflect.Value, prefix string, depth int) {
	if e.err != nil {
		return
	}
	if depth < Depth && v.IsValid() && !custom(v.Type()) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				e.value(v.Elem(), prefix, depth)
				return
			}
		case reflect.Struct:
			if fields, ok := cachedFields(v.Type()); ok {
				e.object(v, fields, prefix, depth)
				return
			}
		case reflect.Slice:
			if !v.IsNil() && v.Len() > 0 && v.Type().Elem().Kind() != reflect.Uint8 {
				e.array(v, prefix, depth)
				return
			}
		}
	}
	var b []byte
	var err error
	if v.IsValid() {
		x := v.Interface()
		if v.CanAddr() && v.Kind() != reflect.Pointer {
			x = v.Addr().Interface() // as encoding/json: a method on *T is used
		}
		b, err = e.marshal(x, prefix)
	} else {
		b = []byte("null")
	}
	if err != nil {
		e.err = err
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) object(v reflect.Value, fields []field, prefix string, depth int) {
	inner := prefix + e.indent
	n := 0
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.omitEmpty && empty(fv) || f.omitZero && zero(fv, f.isZero) {
			continue
		}
		if n == 0 {
			e.write("{")
		} else {
			e.write(",")
		}
		n++
		e.write(e.nl(inner))
		e.write(f.quoted)
		if e.compact {
			e.write(":")
		} else {
			e.write(": ")
		}
		e.value(fv, inner, depth+1)
	}
	if n == 0 {
		e.write("{}")
		return
	}
	e.write(e.nl(prefix) + "}")
}

func (e *encoder) array(v reflect.Value, prefix string, depth int) {
	inner := prefix + e.indent
	e.write("[")
	for i := range v.Len() {
		if i > 0 {
			e.write(",")
		}
		e.write(e.nl(inner))
		e.value(v.Index(i), inner, depth+1)
	}
	e.write(e.nl(prefix) + "]")
}

// field is one JSON member of a struct.
type field struct {
	index               int
	quoted              string // the member's name, as JSON
	omitEmpty, omitZero bool
	isZero              bool // its type has an IsZero method
}

type fieldList struct {
	fields []field
	ok     bool
}

var fieldCache sync.Map // reflect.Type -> fieldList

func cachedFields(t reflect.Type) ([]field, bool) {
	if l, ok := fieldCache.Load(t); ok {
		return l.(fieldList).fields, l.(fieldList).ok
	}
	fs, ok := structFields(t)
	fieldCache.Store(t, fieldList{fs, ok})
	return fs, ok
}

var isZeroerType = reflect.TypeFor[interface{ IsZero() bool }]()

// structFields lists t's members as encoding/json does, or reports false
// when t is one this package leaves to encoding/json whole (embedded
// fields, string-encoded numbers).
func structFields(t reflect.Type) ([]field, bool) {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := field{index: i, isZero: sf.Type.Implements(isZeroerType)}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				return nil, false
			}
		}
		q, err := json.Marshal(name)
		if err != nil {
			return nil, false
		}
		f.quoted = string(q)
		out = append(out, f)
	}
	return out, true
}

// empty is encoding/json's omitempty test.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// zero is encoding/json's omitzero test: an IsZero method, else the zero
// value.
func zero(v reflect.Value, method bool) bool {
	if !method {
		return v.IsZero()
	}
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return true
	}
	return v.Interface().(interface{ IsZero() bool }).IsZero()
}

// marshal is json.Marshal(x), or json.MarshalIndent(x, prefix, e.indent)
// unless compact: the same bytes, in e.buf (valid until the next call).
func (e *encoder) marshal(x any, prefix string) ([]byte, error) {
	e.buf.Reset()
	if e.compact {
		e.enc.SetIndent("", "")
	} else {
		e.enc.SetIndent(prefix, e.indent)
	}
	if err := e.enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), nil
}
