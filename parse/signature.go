package parse

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var (
	refType    = reflect.TypeOf(Ref{})
	recordType = reflect.TypeOf(Record{})
)

// Signature renders the facts of a parsed value without where they were
// read: evidence pointers (Ref) and the raw records kept for evidence are
// left out, so two outputs that say the same thing (text and XML, a wrapped
// copy, CRLF line ends) have the same signature.
func Signature(v any) string {
	var b strings.Builder
	signature(&b, reflect.ValueOf(v))
	return b.String()
}

func signature(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		signature(b, v.Elem())
	case reflect.Struct:
		t := v.Type()
		b.WriteString("{")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Type == refType || f.Type == recordType || f.Tag.Get("json") == "-" {
				continue // where a fact was read, not the fact
			}
			fmt.Fprintf(b, "%s:", f.Name)
			signature(b, v.Field(i))
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			signature(b, v.Index(i))
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteString("map[")
		for _, k := range keys {
			fmt.Fprintf(b, "%v=", k)
			signature(b, v.MapIndex(k))
			b.WriteString(",")
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(b, "%q", fmt.Sprint(v.Interface()))
	}
}
