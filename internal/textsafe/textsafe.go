// Package textsafe makes text that came from a host safe to show to a
// person. Anyone allowed to name a VM, a port group or a switch chooses
// bytes that pvrdma-doctor prints; on a terminal, an escape sequence in
// such a name could set the window title, clear the screen, rewrite the
// clipboard (OSC 52) or hide text, and a bidi override could make a line
// read differently from what it is.
//
// Every human-readable sink (text, Markdown and HTML reports, the TUI,
// progress and log lines, error messages, `rules explain`, `parse` text
// output) passes host text through Clean or Line, which show such
// characters visibly escaped instead of emitting them:
//
//   - C0 controls other than newline and tab, DEL, and invalid UTF-8
//     bytes as \xNN (ESC is \x1b);
//   - C1 controls (U+0080-U+009F), Unicode format characters (category
//     Cf: bidi overrides and isolates, zero-width characters, BOM, tags),
//     and the line and paragraph separators U+2028/U+2029 as \uNNNN (or
//     \UNNNNNNNN).
//
// Machine formats (JSON, SARIF, JUnit) and bundles keep the exact value;
// they never go through this package.
//
// A backslash is not escaped: `\x1b` in a report is either an escaped ESC
// or those four characters in the name; the JSON report and the bundle
// have the exact bytes.
package textsafe

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean returns s with every unsafe character escaped; newlines and tabs
// are kept. Safe text is returned unchanged (and not copied).
func Clean(s string) string { return clean(s, false) }

// Line is Clean for a sink that is one line: newline, carriage return
// and tab are escaped too (\n, \r, \t).
func Line(s string) string { return clean(s, true) }

// IsSafe reports whether Clean would return s unchanged.
func IsSafe(s string) bool { return firstUnsafe(s, false) < 0 }

// Unsafe reports whether r is a character Clean escapes (newline and tab
// are safe). utf8.RuneError stands for itself here, not for an invalid
// byte.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f: // C1 controls
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// firstUnsafe is the byte offset of the first character to escape, or -1.
func firstUnsafe(s string, line bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && (line || (c != '\n' && c != '\t'))) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

func clean(s string, line bool) string {
	i := firstUnsafe(s, line)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case line && c == '\n':
				b.WriteString(`\n`)
			case line && c == '\t':
				b.WriteString(`\t`)
			case c == '\r':
				b.WriteString(`\r`)
			case (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case Unsafe(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Strings returns a deep copy of v in which every string reachable through
// exported struct fields, slices, arrays, maps (keys and values), pointers
// and interfaces went through Clean. v itself is not modified. It is the
// one choke point where a whole document (a report) enters a human sink,
// so that a field added later is covered without anyone remembering to.
func Strings[T any](v T) T {
	return Map(v, func(_ reflect.Type, s string) string { return Clean(s) })
}

// Map returns a deep copy of v in which every string reachable as Strings
// describes is replaced by f(its type, its value). Values of types that
// hold no string are shared, not copied. v must not hold a cycle.
func Map[T any](v T, f func(t reflect.Type, s string) string) T {
	rv := reflect.ValueOf(&v).Elem()
	return deepMap(rv, f).Interface().(T)
}

var timeType = reflect.TypeFor[interface{ UnixNano() int64 }]()

func deepMap(v reflect.Value, f func(reflect.Type, string) string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		c := f(v.Type(), s)
		if c == s {
			return v
		}
		return reflect.ValueOf(c).Convert(v.Type())
	case reflect.Struct:
		if v.Type().Implements(timeType) {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		for i := range v.NumField() {
			if fv := n.Field(i); fv.CanSet() {
				fv.Set(deepMap(v.Field(i), f))
			}
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			n.Index(i).Set(deepMap(v.Index(i), f))
		}
		return n
	case reflect.Array:
		n := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			n.Index(i).Set(deepMap(v.Index(i), f))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			n.SetMapIndex(deepMap(it.Key(), f), deepMap(it.Value(), f))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(deepMap(v.Elem(), f))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.Set(deepMap(v.Elem(), f))
		return n
	}
	return v
}

// AllSafe reports whether every string Strings would visit in v is
// IsSafe: then Strings(v) would equal v, and the copy can be skipped.
func AllSafe(v any) bool { return allSafe(reflect.ValueOf(v)) }

func allSafe(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return IsSafe(v.String())
	case reflect.Struct:
		if v.Type().Implements(timeType) {
			return true
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !allSafe(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !allSafe(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if !allSafe(it.Key()) || !allSafe(it.Value()) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return allSafe(v.Elem())
		}
	}
	return true
}
