package textsafe

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"vm\x1b]0;PWNED\x07\x1b[2J", `vm\x1b]0;PWNED\x07\x1b[2J`},
		{"a\nb\tc", "a\nb\tc"},
		{"cr\r\n", "cr\\r\n"},
		{"del\x7f", `del\x7f`},
		{"nul\x00", `nul\x00`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"rlo \u202eexe.txt", `rlo \u202eexe.txt`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"zw\u200bsp\u200d\ufeff", `zw\u200bsp\u200d\ufeff`},
		{"tag \U000e0041", `tag \U000e0041`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bad \xff\xfe utf8 \xc3", `bad \xff\xfe utf8 \xc3`},
		{"ok ünïcödé · — ✓ 日本", "ok ünïcödé · — ✓ 日本"},
		{"nbsp\u00a0kept", "nbsp\u00a0kept"},
		{"replacement \ufffd itself", "replacement \ufffd itself"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Line("a\nb\tc\rd"); got != `a\nb\tc\rd` {
		t.Errorf("Line = %q", got)
	}
	if !IsSafe("x\ny") || IsSafe("x\x1by") {
		t.Error("IsSafe wrong")
	}
}

// Every code point below U+0100, every format character and every invalid
// lead byte: what Clean returns has no byte a terminal would act on.
func TestCleanEveryControl(t *testing.T) {
	var in []string
	for r := rune(0); r < 0x100; r++ {
		in = append(in, string(r))
	}
	for r := rune(0x2000); r < 0x2070; r++ {
		in = append(in, string(r))
	}
	for b := 0x80; b < 0x100; b++ {
		in = append(in, string([]byte{byte(b)}))
	}
	for _, s := range in {
		out := Clean("x" + s + "y")
		assertSafe(t, s, out)
		if Clean(out) != out {
			t.Errorf("Clean not idempotent on %q", s)
		}
	}
}

func assertSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("Clean(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if Unsafe(r) {
			t.Errorf("Clean(%q) = %q: keeps %U", in, out, r)
		}
	}
}

func TestStrings(t *testing.T) {
	type kind string
	type inner struct {
		Name  string
		Kind  kind
		Tags  []string
		Ptr   *string
		Any   any
		n     string
		Count *int
	}
	type doc struct {
		At    time.Time
		Items []inner
		ByKey map[string]inner
		Arr   [2]string
		Nil   []string
	}
	bad := "vm\x1b[2J"
	n := 3
	orig := doc{At: time.Unix(100, 0), Items: []inner{{Name: bad, Kind: kind(bad), Tags: []string{bad}, Ptr: &bad, Any: bad, n: bad, Count: &n}},
		ByKey: map[string]inner{bad: {Name: bad}}, Arr: [2]string{bad, "ok"}}
	got := Strings(orig)
	want := `vm\x1b[2J`
	it := got.Items[0]
	if it.Name != want || string(it.Kind) != want || it.Tags[0] != want || *it.Ptr != want || it.Any.(string) != want ||
		got.ByKey[want].Name != want || got.Arr[0] != want || got.Arr[1] != "ok" || *it.Count != 3 || !got.At.Equal(orig.At) {
		t.Fatalf("Strings: %+v", got)
	}
	if it.n != bad {
		t.Error("unexported fields are copied as they are")
	}
	if orig.Items[0].Name != bad || orig.Items[0].Tags[0] != bad || *orig.Items[0].Ptr != bad || orig.Arr[0] != bad {
		t.Fatal("Strings modified its argument")
	}
	if AllSafe(orig) || !AllSafe(got) || !AllSafe(doc{Items: []inner{{Name: "ok"}}}) || !AllSafe(nil) {
		t.Error("AllSafe wrong")
	}
	if got.Nil != nil {
		t.Error("a nil slice stays nil")
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "vm\x1b]0;PWNED\x07", "\u202e\xff", strings.Repeat("\x9b", 3)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		assertSafe(t, s, out)
		if Clean(out) != out {
			t.Errorf("not idempotent: %q", s)
		}
		if IsSafe(s) != (out == s) {
			t.Errorf("IsSafe(%q) disagrees with Clean", s)
		}
		l := Line(s)
		assertSafe(t, s, l)
		if strings.ContainsAny(l, "\n\t") {
			t.Errorf("Line(%q) = %q", s, l)
		}
	})
}
