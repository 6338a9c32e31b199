package parse

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The property test of real-world input: every sample, changed the way
// copies and terminals change text (CRLF line ends, tabs for spaces,
// trailing spaces, terminal-wrapped long lines, rows shifted off their
// dash columns, elided blocks, the XML/keyvalue/CSV/JSON formatter forms of the
// same facts), must give the same facts (Signature), or, where a block was
// elided, the same facts without that block and a *PartialError naming it.

// variant is one derived text and the facts it must give.
type variant struct {
	name string
	text string
	// drop is the index of the list item the variant removes (-1: none).
	drop int
	// machine is set for the formatter forms, which have no title lines.
	machine bool
	// partial is set when the variant must report skipped parts.
	partial bool
}

// layoutOf says how a sample's parser reads text (for the machine forms
// and the elision variants); "" for outputs without esxcli layouts.
func layoutOf(command string) string {
	switch {
	case strings.Contains(command, "formatter"), strings.HasPrefix(command, "esxcfg"), strings.Contains(command, "| grep"):
		return ""
	case strings.HasSuffix(command, " list") && (strings.Contains(command, "vm process") || strings.Contains(command, "ip interface list") || strings.Contains(command, "vswitch standard list") || strings.Contains(command, "pci list")):
		return "records"
	case strings.Contains(command, "nic get"), strings.Contains(command, "advanced list"), strings.Contains(command, "version get"):
		return "structure"
	case strings.HasPrefix(command, "esxcli"):
		return "table"
	}
	return ""
}

// bodyOf removes a leading prompt or echoed command and blank lines, so
// that derived forms can be built from the output alone.
func bodyOf(text string) string {
	ls := clean(text, true)
	var b strings.Builder
	if len(ls) == 0 {
		return ""
	}
	for _, l := range splitLines(text)[ls[0].no-1:] {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

func mapLines(text string, f func(string) string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// unexpand turns runs of spaces that end on a tab stop into tabs (unexpand -a).
func unexpand(l string) string {
	var b strings.Builder
	col, spaces := 0, 0
	for _, r := range l {
		if r == ' ' {
			spaces++
			col++
			if col%8 == 0 {
				if spaces > 1 {
					b.WriteByte('\t')
				} else {
					b.WriteByte(' ')
				}
				spaces = 0
			}
			continue
		}
		b.WriteString(strings.Repeat(" ", spaces))
		spaces = 0
		b.WriteRune(r)
		col++
	}
	b.WriteString(strings.Repeat(" ", spaces))
	return b.String()
}

// wrap hard-wraps lines longer than width as a terminal does (the rest at
// column 0), leaving prompt lines alone.
func wrap(text string, width int) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		r := []rune(l)
		if isPrompt(l) || len(r) <= width {
			out = append(out, l)
			continue
		}
		for len(r) > width {
			out = append(out, string(r[:width]))
			r = r[width:]
		}
		out = append(out, string(r))
	}
	return strings.Join(out, "\n") + "\n"
}

var reRowWords = regexp.MustCompile(`\S+`)

// shiftRows respaces data rows: single spaces between cells when no cell
// is empty or holds a space (as in VMware's vSAN document), or the whole
// row shifted right by n spaces.
func shiftRows(body string, t Table, n int) (string, bool) {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	first := t.HeaderRef.Line
	changed := false
	for _, r := range t.Rows {
		i := r.Line - first
		if i < 0 || i >= len(lines) {
			continue
		}
		if n > 0 {
			lines[i] = strings.Repeat(" ", n) + lines[i]
			changed = true
			continue
		}
		ok := true
		for _, h := range t.Header {
			if c := r.Cells[h]; c == "" || strings.Contains(c, " ") {
				ok = false
			}
		}
		if ok && len(reRowWords.FindAllString(lines[i], -1)) == len(t.Header) {
			lines[i] = strings.Join(strings.Fields(lines[i]), " ")
			changed = true
		}
	}
	return strings.Join(lines, "\n") + "\n", changed
}

// machineRecords reads a sample's records for the formatter forms.
func machineRecords(body, lay string) ([]Record, bool) {
	switch lay {
	case "table":
		t, err := ReadTable(body)
		if err != nil {
			return nil, false
		}
		var recs []Record
		for _, r := range t.Rows {
			recs = append(recs, r.record(t.Header))
		}
		return recs, true
	case "records":
		recs, err := ReadRecords(body)
		return recs, err == nil
	case "structure":
		r, err := ReadStructure(body)
		return []Record{r}, err == nil
	}
	return nil, false
}

func noSpaces(k string) string { return strings.ReplaceAll(k, " ", "") }

func xmlEscape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// toXML prints records as `esxcli --formatter=xml` does.
func toXML(recs []Record, single bool) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<output xmlns=\"http://www.vmware.com/Products/ESX/5.0/esxcli\">\n<root>\n")
	var structure func(r Record, ind string)
	structure = func(r Record, ind string) {
		fmt.Fprintf(&b, "%s<structure typeName=\"T\">\n", ind)
		for _, k := range r.Keys() {
			fmt.Fprintf(&b, "%s   <field name=\"%s\">\n", ind, noSpaces(k))
			if n := r.Nested[k]; len(n) > 0 {
				structure(n[0], ind+"      ")
			} else {
				fmt.Fprintf(&b, "%s      <string>%s</string>\n", ind, xmlEscape(r.Get(k)))
			}
			fmt.Fprintf(&b, "%s   </field>\n", ind)
		}
		fmt.Fprintf(&b, "%s</structure>\n", ind)
	}
	if single {
		structure(recs[0], "   ")
	} else {
		b.WriteString("   <list type=\"structure\">\n")
		for _, r := range recs {
			structure(r, "      ")
		}
		b.WriteString("   </list>\n")
	}
	b.WriteString("</root>\n</output>\n")
	return b.String()
}

// toKeyValue prints records as `esxcli --formatter=keyvalue` does.
func toKeyValue(recs []Record, single bool) string {
	var b strings.Builder
	for i, r := range recs {
		prefix := fmt.Sprintf("structure[%d].", i)
		if single {
			prefix = ""
		}
		for _, k := range r.Keys() {
			if n := r.Nested[k]; len(n) > 0 {
				for _, nk := range n[0].Keys() {
					fmt.Fprintf(&b, "%sT.%s.N.%s.string=%s\n", prefix, noSpaces(k), noSpaces(nk), n[0].Get(nk))
				}
				continue
			}
			fmt.Fprintf(&b, "%sT.%s.string=%s\n", prefix, noSpaces(k), r.Get(k))
		}
	}
	return b.String()
}

// toJSON prints records as `esxcli --formatter=json` does (ESXi 8).
func toJSON(recs []Record, single bool) string {
	obj := func(r Record) map[string]any {
		m := map[string]any{}
		for _, k := range r.Keys() {
			if n := r.Nested[k]; len(n) > 0 {
				sub := map[string]any{}
				for _, nk := range n[0].Keys() {
					sub[noSpaces(nk)] = n[0].Get(nk)
				}
				m[noSpaces(k)] = sub
				continue
			}
			m[noSpaces(k)] = r.Get(k)
		}
		return m
	}
	var v any
	if single {
		v = obj(recs[0])
	} else {
		var list []any
		for _, r := range recs {
			list = append(list, obj(r))
		}
		v = list
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b) + "\n"
}

// toCSV prints records as `esxcli --formatter=csv` does (no nested ones).
func toCSV(recs []Record) (string, bool) {
	var b strings.Builder
	for _, k := range recs[0].Keys() {
		b.WriteString(noSpaces(k) + ",")
	}
	b.WriteByte('\n')
	for _, r := range recs {
		if len(r.Nested) > 0 || r.Len() != recs[0].Len() {
			return "", false
		}
		for _, k := range recs[0].Keys() {
			v := r.Get(k)
			if strings.ContainsAny(v, ",\"") {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v + ",")
		}
		b.WriteByte('\n')
	}
	return b.String(), true
}

// elide replaces the last record (or row) of a list with an elision
// marker; for records, it also inserts one between the first two.
func elide(body string, recs []Record, lay string, marker string) (string, bool) {
	if len(recs) < 2 || lay == "structure" {
		return "", false
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	last := recs[len(recs)-1].Line - 1
	end := len(lines)
	if lay == "table" {
		end = last + 1
	}
	out := append(append(append([]string(nil), lines[:last]...), marker), lines[end:]...)
	return strings.Join(out, "\n") + "\n", true
}

func variants(c sampleCase, text string, rng *rand.Rand) []variant {
	lay := layoutOf(c.command)
	body := bodyOf(text)
	vs := []variant{
		{name: "crlf", text: strings.ReplaceAll(text, "\n", "\r\n"), drop: -1},
		{name: "tabs", text: mapLines(text, unexpand), drop: -1},
		{name: "trailing spaces", text: mapLines(text, func(l string) string { return l + strings.Repeat(" ", 1+rng.IntN(3)) }), drop: -1},
		{name: "no-break spaces", text: mapLines(text, func(l string) string {
			t := strings.TrimLeft(l, " ")
			return strings.Repeat("\u00a0", len(l)-len(t)) + t
		}), drop: -1},
		{name: "terminal colours", text: mapLines(text, func(l string) string {
			if isPrompt(l) {
				return "\x1b[1;32m" + l + "\x1b[0m"
			}
			return l
		}), drop: -1},
		{name: "in a markdown fence", text: "```console\n" + text + "```\n", drop: -1},
		{name: "crlf+tabs+trailing", text: strings.ReplaceAll(mapLines(text, func(l string) string { return unexpand(l) + " " }), "\n", "\r\n"), drop: -1},
	}
	for _, w := range []int{80, 100, 64} {
		if lay == "" && !strings.HasPrefix(c.command, "esxcli --formatter=keyvalue") {
			continue // vmkping, vsish, .vmx, esxcfg: no long values to wrap
		}
		if lay == "table" && w < 79 {
			continue // a wrapped table header is recognized from 80 columns on
		}
		vs = append(vs, variant{name: fmt.Sprintf("wrapped at %d", w), text: wrap(text, w), drop: -1})
	}
	if lay == "table" {
		if t, err := ReadTable(body); err == nil {
			for _, n := range []int{0, 2, 3} {
				if s, ok := shiftRows(body, t, n); ok {
					vs = append(vs, variant{name: fmt.Sprintf("rows shifted %d", n), text: s, drop: -1})
				}
			}
		}
	}
	if recs, ok := machineRecords(body, lay); ok && len(recs) > 0 {
		single := lay == "structure"
		vs = append(vs,
			variant{name: "xml", text: toXML(recs, single), drop: -1, machine: true},
			variant{name: "xml without declaration, wrapped", text: wrap(strings.SplitN(toXML(recs, single), "\n", 2)[1], 80), drop: -1, machine: true},
			variant{name: "keyvalue", text: toKeyValue(recs, single), drop: -1, machine: true},
			variant{name: "keyvalue wrapped", text: wrap(toKeyValue(recs, single), 80), drop: -1, machine: true},
			variant{name: "json", text: toJSON(recs, single), drop: -1, machine: true},
		)
		if s, ok := toCSV(recs); ok {
			vs = append(vs, variant{name: "csv", text: s, drop: -1, machine: true})
		}
		for _, m := range []string{"...", "<<truncated>>", "[...]"} {
			if s, ok := elide(body, recs, lay, m); ok {
				vs = append(vs, variant{name: "elided " + m, text: s, drop: len(recs) - 1, partial: true})
			}
		}
		if lay == "records" && len(recs) >= 2 {
			lines := strings.Split(body, "\n")
			at := recs[1].Line - 1
			ins := append(append(append([]string(nil), lines[:at]...), "...", ""), lines[at:]...)
			vs = append(vs, variant{name: "elision between records", text: strings.Join(ins, "\n"), drop: -1, partial: true})
		}
	}
	return vs
}

// withoutItem returns the signature of a list value without item i.
func withoutItem(v any, i int) string {
	rv := reflect.ValueOf(v)
	out := reflect.MakeSlice(rv.Type(), 0, rv.Len())
	for j := 0; j < rv.Len(); j++ {
		if j != i {
			out = reflect.Append(out, rv.Index(j))
		}
	}
	return Signature(out.Interface())
}

var reTitle = regexp.MustCompile(`Title:"[^"]*" `)

func TestSampleVariantsKeepFacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for _, c := range sampleCases {
		text := sample(t, c.file)
		v0, err := c.parse(text)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for _, vr := range variants(c, text, rng) {
			t.Run(c.file+"/"+vr.name, func(t *testing.T) {
				v, err := c.parse(vr.text)
				_, partial := Skipped(err)
				if err != nil && !partial {
					t.Fatalf("%v\n--- text:\n%s", err, vr.text)
				}
				if partial != vr.partial {
					t.Fatalf("partial = %v (%v), want %v\n--- text:\n%s", partial, err, vr.partial, vr.text)
				}
				want := Signature(v0)
				if vr.drop >= 0 {
					want = withoutItem(v0, vr.drop)
				}
				got := Signature(v)
				if vr.machine {
					want, got = reTitle.ReplaceAllString(want, ""), reTitle.ReplaceAllString(got, "")
				}
				if got != want {
					t.Fatalf("facts changed\n got %s\nwant %s\n--- text:\n%s", got, want, vr.text)
				}
			})
		}
	}
}
