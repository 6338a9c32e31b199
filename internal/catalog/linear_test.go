package catalog_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

var atCap = flag.Bool("linear.cap", false, "TestEveryParserIsLinear: 4 MiB (the output cap) against 1 MiB")

// A parser's sample: a real output of its command.
type parserSample struct {
	name string // the spec's line and the sample's origin
	spec *catalog.Spec
	text string
}

// parserSamples lists, for every parser of the catalogue (the host's, the
// guest's and the outputs only `parse` reads), the first lab output of its
// command (scenarios in order, hosts and guests) and every sample of its
// command in parse/testdata and parse/testdata/guest (other formatters,
// other releases, other distributions). A spec without any sample fails
// the test: a new parser is covered without being listed.
func parserSamples(t testing.TB) []parserSample {
	var lab []*fixtures.Host
	for _, name := range fixtures.Names() {
		sc := fixtures.MustLoad(t, name)
		lab = append(append(lab, sc.Hosts...), sc.Guests...)
	}
	type file struct{ norm, path string }
	var testdata []file
	for _, dir := range []string{"testdata", filepath.Join("testdata", "guest")} {
		dir = filepath.Join("..", "..", "parse", dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if name, _, ok := strings.Cut(e.Name(), "__"); ok && !e.IsDir() {
				name = strings.Replace(name, "formatter_xml_", "", 1)
				name = strings.Replace(name, "formatter_keyvalue_", "", 1)
				testdata = append(testdata, file{alnum(name), filepath.Join(dir, e.Name())})
			}
		}
	}
	var out []parserSample
	for _, list := range [][]*catalog.Spec{catalog.Specs(), catalog.GuestSpecs(), catalog.ParseOnly()} {
		for _, s := range list {
			n := len(out)
		hosts:
			for _, h := range lab {
				for _, name := range h.Files() {
					if l, ok := collect.CommandForFile(name); ok && s.Kind != "" && catalog.KindOf(l) == s.Kind {
						if r := h.Respond(l); strings.TrimSpace(r.Stdout) != "" && r.Exit == 0 {
							out = append(out, parserSample{s.TemplateLine() + " (lab " + h.Name + "/" + name + ")", s, r.Stdout})
							break hosts
						}
					}
				}
			}
			norm := alnum(strings.TrimSuffix(catalog.FileName(s.TemplateLine()), ".txt"))
			for _, f := range testdata {
				// The lab's output is in esxcli's default format: other
				// formatters, and the samples of a command the lab has no
				// output for.
				if f.norm != norm || (len(out) > n && !strings.Contains(f.path, "formatter_")) {
					continue
				}
				b, err := os.ReadFile(f.path)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, parserSample{s.TemplateLine() + " (" + filepath.Base(f.path) + ")", s, transcriptOutput(string(b))})
			}
			if len(out) == n {
				t.Errorf("%s: no sample of its output in the lab or parse/testdata", s.TemplateLine())
			}
		}
	}
	return out
}

// alnum keeps the letters and digits of a file name, lower case.
func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

// transcriptOutput is a parse/testdata sample without its "#@" header
// and the prompt line of the command.
func transcriptOutput(s string) string {
	if i := strings.Index(s, "#@ ---\n"); i >= 0 {
		s = s[i+len("#@ ---\n"):]
	}
	if first, rest, ok := strings.Cut(s, "\n"); ok && (strings.HasPrefix(first, "[") || strings.HasPrefix(first, "$ ") || strings.HasPrefix(first, "# ")) {
		s = rest
	}
	return s
}

// A filler grows a sample to about size bytes in one of the ways a real
// output grows (or a hostile one is padded).
type filler struct {
	name string
	grow func(sample string, size int) string
}

var fillers = []filler{
	// blocks: the whole output again and again (records, structures,
	// tables with their headers).
	{"blocks", func(s string, size int) string {
		return repeatTo(strings.TrimRight(s, "\n")+"\n\n", size, "", "")
	}},
	// rows: its last line again and again (rows of a table, one key).
	{"rows", func(s string, size int) string {
		body, last := lastLine(s)
		return repeatTo(last+"\n", size, body, "")
	}},
	// keys: its last line again and again, each time under another name
	// (a structure with more and more keys, a table's first column).
	{"keys", func(s string, size int) string {
		body, last := lastLine(s)
		ind := len(last) - len(strings.TrimLeft(last, " \t"))
		var b strings.Builder
		b.WriteString(body)
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "%sk%d%s\n", last[:ind], i, last[ind:])
		}
		return b.String()
	}},
	// continuation: lines continuing the first value, indented further
	// (a value wrapped at a space).
	{"continuation", func(s string, size int) string {
		head, rest := firstValue(s)
		return repeatTo("            rest of a wrapped value\n", size, head, rest)
	}},
	// hard wrap: lines at column 0 right after the first value (a
	// terminal's hard wrap: no space, no key).
	{"hard wrap", func(s string, size int) string {
		head, rest := firstValue(s)
		return repeatTo(strings.Repeat("x", 100)+"\n", size, head, rest)
	}},
	// wide: one line that goes on and on.
	{"wide", func(s string, size int) string {
		body, last := lastLine(s)
		return body + last + strings.Repeat(" wide", (size-len(s))/5+1) + "\n"
	}},
}

// repeatTo is head, unit repeated until the whole is size bytes, then tail.
func repeatTo(unit string, size int, head, tail string) string {
	var b strings.Builder
	b.Grow(size + len(unit) + len(tail))
	b.WriteString(head)
	for b.Len()+len(tail) < size {
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return b.String()
}

// lastLine splits s before its last non-blank line.
func lastLine(s string) (body, last string) {
	s = strings.TrimRight(s, "\n \t")
	i := strings.LastIndexByte(s, '\n')
	return s[:i+1], s[i+1:]
}

// firstValue splits s after the first line that holds a value ("Key:
// Value", "key = value", a row), else after its first line.
func firstValue(s string) (head, rest string) {
	lines := strings.SplitAfter(s, "\n")
	at := 0
	for i, l := range lines {
		if strings.Contains(l, ": ") || strings.Contains(l, " = ") {
			at = i
			break
		}
	}
	return strings.Join(lines[:at+1], ""), strings.Join(lines[at+1:], "")
}

// allocated is the bytes allocated parsing text.
func allocated(p catalog.Parser, text string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _ = p.Parse(text)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Every parser of the catalogue is linear in its input: for each of its
// samples and each filler, the bytes it allocates parsing 4 MiB (the
// output cap) are at most 6 times those for 1 MiB (a quadratic parser
// allocates 16 times as much; time follows allocation). The same ratio
// is checked at a quarter of the sizes (1 MiB against 256 KiB) unless
// -linear.cap is set: parsing 4 MiB of each filler of each sample takes
// some ten minutes on a loaded 2-core machine.
func TestEveryParserIsLinear(t *testing.T) {
	small, large := 256<<10, 1<<20
	if *atCap {
		small, large = 1<<20, 4<<20
	}
	for _, smp := range parserSamples(t) {
		for _, f := range fillers {
			one, four := f.grow(smp.text, small), f.grow(smp.text, large)
			start := time.Now()
			a1, a4 := allocated(smp.spec.Parser, one), allocated(smp.spec.Parser, four)
			if d := time.Since(start); d > 5*time.Second {
				t.Logf("%s, %s: %v", smp.name, f.name, d.Round(time.Millisecond))
			}
			// A parser that allocates next to nothing for its input (a
			// wide line it skips) is linear whatever the ratio of two
			// small, noisy counts: the floor is a quarter of the smaller
			// input, far below what a quadratic parser allocates.
			if a4 > 6*max(a1, uint64(len(one)/4)) {
				t.Errorf("%s, %s: %d bytes allocated for %d bytes of input, %d for %d (%.1fx)",
					smp.name, f.name, a1, len(one), a4, len(four), float64(a4)/float64(a1))
			}
		}
	}
}

// BenchmarkParserFillers parses, for each filler (one family of growth:
// blocks, rows, keys, continuation lines, hard wraps, wide lines), every
// sample of every parser of the catalogue grown to 1 MiB by it; MB/s is
// over all of them.
func BenchmarkParserFillers(b *testing.B) {
	samples := parserSamples(b)
	for _, f := range fillers {
		b.Run(f.name, func(b *testing.B) {
			texts := make([]string, len(samples))
			var n int64
			for i, smp := range samples {
				texts[i] = f.grow(smp.text, 1<<20)
				n += int64(len(texts[i]))
			}
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				for i, smp := range samples {
					_, _ = smp.spec.Parser.Parse(texts[i])
				}
			}
		})
	}
}
