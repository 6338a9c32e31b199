package parse

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// insertColumn inserts an unknown column (header "Extra Col", cells "x
// y") before the at-th column (0-based) of the first table of text: a
// header followed by a dash line, or a header without one (esxcfg-*
// style, the columns set off by two or more spaces). The rows are the
// lines after the header up to the first blank line. ok is false when
// text holds no such table.
func insertColumn(text string, at int) (string, bool) {
	lines := strings.Split(text, "\n")
	reDash := regexp.MustCompile(`^[-\s]*-[-\s]*$`)
	reStart := regexp.MustCompile(`(^|\s{2,})\S`)
	for h := 0; h+1 < len(lines); h++ {
		hdr := lines[h]
		if strings.TrimSpace(hdr) == "" || strings.HasPrefix(strings.TrimSpace(hdr), "[") || strings.Contains(hdr, "\t") {
			continue
		}
		var starts []int
		if reDash.MatchString(lines[h+1]) && strings.Contains(lines[h+1], "-") {
			for i, r := range lines[h+1] {
				if r == '-' && (i == 0 || lines[h+1][i-1] == ' ') {
					starts = append(starts, i)
				}
			}
		} else {
			for _, m := range reStart.FindAllStringIndex(hdr, -1) {
				starts = append(starts, m[1]-1)
			}
		}
		if len(starts) <= at || len(starts) < 3 {
			continue
		}
		p := starts[at]
		const head, dash, cell = "Extra Col  ", "---------  ", "x y        "
		out := append([]string{}, lines[:h]...)
		out = append(out, hdr[:p]+head+hdr[p:])
		i := h + 1
		if reDash.MatchString(lines[i]) && strings.Contains(lines[i], "-") {
			out = append(out, lines[i][:min(p, len(lines[i]))]+dash+lines[i][min(p, len(lines[i])):])
			i++
		}
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			l := lines[i]
			if len(l) < p || (p > 0 && l[p-1] != ' ') {
				return "", false // not a table this insertion fits
			}
			out = append(out, l[:p]+cell+l[p:])
		}
		out = append(out, lines[i:]...)
		return strings.Join(out, "\n"), true
	}
	return "", false
}

// plainFacts is a parser's facts without the evidence text and the raw
// records (which show the inserted column), for comparing.
func plainFacts(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(x any) {
		switch y := x.(type) {
		case map[string]any:
			delete(y, "text")
			delete(y, "record")
			for _, v := range y {
				strip(v)
			}
		case []any:
			for _, v := range y {
				strip(v)
			}
		}
	}
	strip(x)
	return x
}

// Tables are read by their header, not by position: a column a newer
// release adds (as `esxcfg-nics -e` on ESXi 7.0+ prints INTR Capable and
// INTR Enabled between ENS Driven and MAC Address) is kept out of the
// way, and every table sample gives the same facts with an unknown column
// inserted before its second, third or last column.
func TestUnknownColumnKeepsTheFacts(t *testing.T) {
	tried := 0
	for _, c := range sampleCases {
		text := sample(t, c.file)
		want, err := c.parse(text)
		if err != nil {
			if _, partial := Skipped(err); !partial {
				continue
			}
		}
		for _, at := range []int{1, 2, 3} {
			mod, ok := insertColumn(text, at)
			if !ok {
				continue
			}
			tried++
			got, err := c.parse(mod)
			if err != nil {
				if _, partial := Skipped(err); !partial {
					t.Errorf("%s, unknown column before column %d: %v", c.file, at+1, err)
					continue
				}
			}
			if !reflect.DeepEqual(plainFacts(t, got), plainFacts(t, want)) {
				t.Errorf("%s, unknown column before column %d: the facts changed\n got %+v\nwant %+v", c.file, at+1, got, want)
			}
		}
	}
	t.Logf("%d table samples read with an unknown column", tried)
	if tried < 10 {
		t.Errorf("only %d table samples took the inserted column", tried)
	}
}

// The ESXi 7.0+ layout of `esxcfg-nics -e` with ENS interrupt mode.
func TestENSListWithInterruptColumns(t *testing.T) {
	in := "Name    Driver      ENS Capable  ENS Driven  INTR Capable  INTR Enabled  MAC Address        Description\n" +
		"vmnic0  icen        True         True        True          False         b4:96:91:a8:00:40  Intel(R) Ethernet Controller E810-XXV for SFP\n" +
		"vmnic4  nmlx5_core  True         False       False         False         0c:42:a1:5e:00:70  Mellanox Technologies MT27800 Family [ConnectX-5]\n"
	got, err := ENSList(in)
	if err != nil || len(got) != 2 || !got[0].Driven || !got[0].Capable || got[1].Driven || !got[1].Capable || got[1].Driver != "nmlx5_core" {
		t.Errorf("%+v %v", got, err)
	}
}
