package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A value continued over many lines keeps its first maxWrappedValue
// bytes, joined as before, and says the rest was left out; the keys
// after it are read.
func TestWrappedValueCapped(t *testing.T) {
	text := "   Name: start" + strings.Repeat("\n      more words", 20000) + "\n   Driver: nmlx5_core\n"
	rec, err := ReadStructure(text)
	var pe *PartialError
	if !errors.As(err, &pe) || len(pe.Skipped) != 1 || !strings.Contains(pe.Skipped[0].Reason, "continued past 64 KiB") {
		t.Fatalf("err = %v", err)
	}
	v := rec.Get("Name")
	if len(v) > maxWrappedValue || len(v) < maxWrappedValue-len(" more words") || !strings.HasPrefix(v, "start more words more words") {
		t.Errorf("Name is %d bytes: %.40q", len(v), v)
	}
	if rec.Get("Driver") != "nmlx5_core" {
		t.Errorf("Driver = %q", rec.Get("Driver"))
	}
}

// A record of many keys finds each by its index, also after a key is
// deleted or renamed, and after another key is added to a copy.
func TestRecordManyKeys(t *testing.T) {
	var r Record
	for i := range 1000 {
		r.Set(fmt.Sprintf("k%d", i), Field{Value: fmt.Sprint(i)})
	}
	if r.Get("k999") != "999" || r.Get("k0") != "0" || r.Has("k1000") {
		t.Fatal("lookup by index")
	}
	cp := r
	cp.Set("extra", Field{Value: "x"})
	if r.Has("extra") || !cp.Has("extra") {
		t.Error("a key added to a copy shows in the original, or not in the copy")
	}
	r.Delete("k500")
	if r.Has("k500") || r.Get("k501") != "501" || r.Len() != 999 {
		t.Error("after Delete")
	}
	r.rename("k7", "seven")
	if r.Has("k7") || r.Get("seven") != "7" {
		t.Error("after rename")
	}
	r.Set("k1000", Field{Value: "1000"})
	if r.Get("k1000") != "1000" || r.Get("k999") != "999" || r.Keys()[len(r.Keys())-1] != "k1000" {
		t.Error("after Set rebuilt the index")
	}
}
