package catalog_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// parsePackage is the import path of the parsers' package, as the runtime
// names its functions.
const parsePackage = "github.com/pvrdma-doctor/pvrdma-doctor/parse."

// Every parser of the catalogue (the host, guest and bandwidth catalogues
// and the outputs only `parse` reads) is a function of package parse with
// a fuzz target FuzzNAME in parse's tests (beside the parser's own test)
// that parse/fuzz_targets.txt lists, by name or as "./parse *" (all of
// them), so that scripts/fuzz.sh runs it: a new parser without one fails
// here.
func TestEveryParserHasAFuzzTarget(t *testing.T) {
	dir := filepath.Join("..", "..", "parse")
	listed, all := map[string]bool{}, false
	f, err := os.Open(filepath.Join(dir, "fuzz_targets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "./parse" {
			listed[fields[1]] = true
			all = all || fields[1] == "*"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	reFuzz := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	for _, name := range tests {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range reFuzz.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
	}
	if len(listed) == 0 || len(defined) == 0 {
		t.Fatalf("%d fuzz targets listed, %d defined: not the parse package's files", len(listed), len(defined))
	}
	seen := map[string]bool{}
	for _, list := range [][]*catalog.Spec{catalog.Specs(), catalog.ParseOnly(), catalog.GuestSpecs(), catalog.BandwidthSpecs()} {
		for _, s := range list {
			fn, ok := strings.CutPrefix(s.Parser.Func, parsePackage)
			if !ok || strings.Contains(fn, ".") {
				t.Errorf("%s: its parser %q is not a function of package parse", s.Line, s.Parser.Func)
				continue
			}
			if seen[fn] {
				continue
			}
			seen[fn] = true
			target := "Fuzz" + fn
			if !defined[target] {
				t.Errorf("%s: parse.%s has no fuzz target: add func %s(f *testing.F) to parse's tests", s.Line, fn, target)
			}
			if !listed[target] && !all {
				t.Errorf("%s: %s is not in parse/fuzz_targets.txt, so scripts/fuzz.sh never runs it", s.Line, target)
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("only %d parsers found in the catalogue", len(seen))
	}
}
