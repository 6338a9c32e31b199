package parse

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A record's fields keep their order; a key set again keeps its place;
// every field's Ref names the record's command.
func TestRecordFields(t *testing.T) {
	r := NewRecord(Ref{Command: "esxcli x", Line: 1, Text: "t"},
		KeyField{"B", Field{Value: "2", Ref: Ref{Line: 2, Text: "  B: 2"}}},
		KeyField{"A", Field{Value: "1", Ref: Ref{Line: 3, Text: "  A: 1"}}})
	r.Set("B", Field{Value: "3", Ref: Ref{Line: 4}})
	if got := strings.Join(r.Keys(), ","); got != "B,A" || r.Get("B") != "3" || r.Len() != 2 {
		t.Fatalf("keys %s, B=%q", got, r.Get("B"))
	}
	if f := r.Lookup("A"); f.Command != "esxcli x" || f.Line != 3 || f.Text != "  A: 1" {
		t.Errorf("A: %+v", f)
	}
	if _, ok := r.Field("C"); ok || r.Has("C") || r.Get("C") != "" || r.RefOf("C") != r.Ref || r.Lookup("C") != (Field{}) {
		t.Error("a missing key")
	}
	r.rename("A", "AA")
	r.Delete("B")
	if got := strings.Join(r.Keys(), ","); got != "AA" {
		t.Errorf("after rename and delete: %s", got)
	}
}

func randString(r *rand.Rand) string {
	alphabet := []string{"a", "Z", " ", "<", ">", "&", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "/"}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// Strings are escaped as encoding/json escapes them.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		s := randString(r)
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s (valid %v)", s, got, want, utf8.ValidString(s))
		}
	}
}

// A record's JSON is what the map it replaced gave (fields by key, keys
// in order), without a command per field; it reads back the same, also
// from the older form.
func TestRecordJSON(t *testing.T) {
	r := NewRecord(Ref{Command: "esxcli <x>", Line: 1, Text: "Title"},
		KeyField{"Zeta", Field{Value: "z", Ref: Ref{Line: 2, Text: "  Zeta: z"}}},
		KeyField{"Alpha", Field{Value: "a&b", Ref: Ref{Line: 3, Text: "  Alpha: a&b"}}},
		KeyField{"Empty", Field{}})
	r.Title = "t"
	r.Nested = map[string][]Record{"N": {NewRecord(Ref{Line: 5}, KeyField{"K", Field{Value: "v", Ref: Ref{Line: 6}}})}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	type oldField struct {
		Value string `json:"value"`
		Line  int    `json:"line,omitempty"`
		Text  string `json:"text,omitempty"`
	}
	type oldRecord struct {
		Title  string              `json:"title,omitempty"`
		Fields map[string]oldField `json:"fields"`
		Keys   []string            `json:"keys"`
		Nested map[string][]Record `json:"nested,omitempty"`
		Ref
	}
	want, _ := json.Marshal(oldRecord{Title: "t", Keys: []string{"Zeta", "Alpha", "Empty"}, Nested: r.Nested, Ref: r.Ref,
		Fields: map[string]oldField{"Zeta": {"z", 2, "  Zeta: z"}, "Alpha": {"a&b", 3, "  Alpha: a&b"}, "Empty": {}}})
	if string(b) != string(want) {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("read back %+v (%v), want %+v", back, err, r)
	}
	older := `{"fields":{"B":{"value":"2","command":"c","line":2},"A":{"value":"1","command":"c","line":3}},"keys":["A"],"command":"c"}`
	if err := json.Unmarshal([]byte(older), &back); err != nil || strings.Join(back.Keys(), ",") != "A,B" || back.RefOf("B").Line != 2 {
		t.Errorf("older form: %+v %v", back, err)
	}
}

// A field read from vCenter keeps its property path through every
// accessor, a rename and the JSON form; the others have none.
func TestRecordProperty(t *testing.T) {
	r := NewRecord(Ref{Command: "vcenter host config"},
		KeyField{"reservation", Field{Value: "0", Ref: Ref{Line: 3, Property: "config.memoryAllocation.reservation = 0"}}},
		KeyField{"name", Field{Value: "vm1", Ref: Ref{Line: 3}}})
	if f := r.Lookup("reservation"); f.Property != "config.memoryAllocation.reservation = 0" || f.Line != 3 {
		t.Errorf("Lookup: %+v", f)
	}
	if f := r.Lookup("name"); f.Property != "" {
		t.Errorf("name has property %q", f.Property)
	}
	r.rename("reservation", "memory")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for k, f := range back.All() {
		if want := map[string]string{"memory": "config.memoryAllocation.reservation = 0"}[k]; f.Property != want {
			t.Errorf("%s: property %q, want %q (%s)", k, f.Property, want, b)
		}
	}
	back.Set("memory", Field{Value: "1024", Ref: Ref{Line: 4}})
	back.Delete("name")
	if f := back.Lookup("memory"); f.Property != "" || back.props["name"] != "" {
		t.Errorf("after Set without a property: %+v %v", f, back.props)
	}
}
