package collect_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// refusedCategories are the Unicode categories no character of which may
// stand in a .vmx path the doctor sends (issue 24.4): controls, formats,
// private use, surrogates, separators other than the ASCII space.
var refusedCategories = []string{"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp", "Zs"}

// vmxLine is the line reading the .vmx of a VM whose name holds r.
func vmxPath(r string) string { return "/vmfs/volumes/datastore1/vm" + r + "x/vm" + r + "x.vmx" }

// refused checks that a path is refused by the constructor and, as a line,
// by the allowlist every transport applies.
func refused(path string) (byConstructor, byAllowlist bool) {
	_, err := catalog.VMXCommand(path)
	return err != nil, collect.CheckAllowed("cat '"+path+"'") != nil
}

// A property over the Unicode categories: every character of a refused
// category (and every default-ignorable or noncharacter code point) makes a .vmx path refused, by the command constructor and by the
// allowlist; every letter, mark, digit, punctuation and symbol but ' and
// \ is accepted. Each category is walked whole, except the largest: other
// letters and private use (every 7th code point), unassigned (every 31st).
func TestVMXPathRefusesEveryInvisibleCharacter(t *testing.T) {
	check := func(r rune, cat string, wantRefused bool) {
		t.Helper()
		c, a := refused(vmxPath(string(r)))
		if c != wantRefused || a != wantRefused {
			t.Errorf("%U (%s): refused by the constructor %v, by the allowlist %v; want %v", r, cat, c, a, wantRefused)
		}
	}
	cats := make([]string, 0, len(unicode.Categories))
	for name := range unicode.Categories {
		if len(name) == 2 {
			cats = append(cats, name)
		}
	}
	sort.Strings(cats)
	assigned := map[rune]bool{}
	tried := 0
	for _, name := range cats {
		refuse := false
		for _, c := range refusedCategories {
			refuse = refuse || c == name
		}
		step := 1
		switch name {
		case "Lo", "Co":
			step = 7
		case "Cn":
			step = 31
		}
		n := 0
		walk(unicode.Categories[name], func(r rune) {
			assigned[r] = true
			if n++; n%step != 0 || r == '\'' || r == '\\' || r == '/' || r == '.' {
				return
			}
			want := refuse || unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Noncharacter_Code_Point) ||
				r == utf8.RuneError
			if r == ' ' {
				want = false
			}
			if name == "Cs" {
				return // not encodable: the invalid bytes below stand for them
			}
			check(r, name, want)
			tried++
		})
	}
	// Code points in no category table: none expected (Cn is one), every
	// 31st tried in case.
	for r := rune(0); r <= unicode.MaxRune; r += 31 {
		if !assigned[r] && !(r >= 0xD800 && r <= 0xDFFF) {
			check(r, "none", true)
			tried++
		}
	}
	// The four, named.
	for _, r := range []rune{0x061C, 0x00AD, 0xE0041, 0x9B} {
		check(r, "issue 24", true)
	}
	// Raw bytes that are not UTF-8: a lone C1 byte (0x9B, the one-byte CSI),
	// continuation bytes, a surrogate's encoding, overlong forms.
	for _, b := range []string{"\x9b", "\x80", "\xbf", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff"} {
		if c, a := refused(vmxPath(b)); !c || !a {
			t.Errorf("raw bytes %q: refused by the constructor %v, by the allowlist %v", b, c, a)
		}
	}
	t.Logf("%d code points tried", tried)
	// Plain names still pass: spaces, parentheses, quotes, accents, CJK.
	for _, ok := range []string{"/vmfs/volumes/ds1/hpc node01 (gpu)/hpc node01 (gpu).vmx", "/vmfs/volumes/ds/ünï-vm \"x\" $(halt)/a.vmx", "/vmfs/volumes/ds/計算ノード/計算ノード.vmx"} {
		if c, a := refused(ok); c || a {
			t.Errorf("%q refused (constructor %v, allowlist %v)", ok, c, a)
		}
	}
}

// walk calls f for every code point of a range table.
func walk(t *unicode.RangeTable, f func(rune)) {
	for _, r := range t.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			f(c)
		}
	}
	for _, r := range t.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			f(c)
		}
	}
}

// Over real SSH, a hostile host lists PVRDMA VMs whose Config File holds
// invisible characters (the U+061C, U+00AD, U+E0041 and a raw
// 0x9B byte): only the clean VM's .vmx is asked for, the others are named
// in the host's notes with the reason.
func TestVMXPathsWithInvisibleCharactersNeverSent(t *testing.T) {
	sc := loadScenario(t, "healthy")
	names := []string{"clean-node", "alm\u061Cnode", "soft\u00ADnode", "tag\U000E0041node", "csi\x9bnode"}
	var list, ls strings.Builder
	for i, n := range names {
		fmt.Fprintf(&list, "%s\n   World ID: %d\n   Process ID: 0\n   VMX Cartel ID: %d\n   Display Name: %s\n   Config File: /vmfs/volumes/datastore1/%s/%s.vmx\n\n",
			n, 2100000+i, 2099000+i, n, n, n)
		fmt.Fprintf(&ls, "%d_0/\n", 2100000+i)
	}
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{Streams: []lab.Stream{
		{Prefix: "esxcli vm process list", Text: list.String()},
		{Prefix: "vsish -e ls " + collect.PVRDMADevicesDir, Text: ls.String()},
	}}}}})
	r := labRunner(t, l)
	res := scan(t, r, l.Targets(), collect.Options{Probes: false})
	var cats []string
	for _, c := range l.Stats("esx01").Commands {
		if strings.HasPrefix(c, "cat ") {
			cats = append(cats, c)
		}
	}
	if len(cats) != 1 || !strings.Contains(cats[0], "/clean-node/clean-node.vmx") {
		t.Errorf(".vmx reads sent: %q; want the clean VM's only", cats)
	}
	notes := strings.Join(res["esx01"].Notes, "\n")
	if n := strings.Count(notes, "refusing .vmx path"); n != 4 {
		t.Errorf("%d refusals in the notes, want 4: %s", n, notes)
	}
}
