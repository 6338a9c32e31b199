package parse

import (
	"regexp"
	"testing"
)

// reVMXLine is the grammar of a .vmx line as a regexp: the specification
// vmxLine implements without one.
var reVMXLine = regexp.MustCompile(`^\s*([A-Za-z0-9_.:\[\]-]+)\s*=\s*(?:"(.*)"|([^"\s]*))\s*$`)

func vmxLineByRegexp(s string) (key, val string, ok bool) {
	m := reVMXLine.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	if m[3] != "" {
		return m[1], m[3], true
	}
	return m[1], m[2], true
}

var vmxLineSeeds = []string{
	`displayName = "hpc-node01"`, `  memSize="16384"  `, `a = b`, `a =`, `a = "`, `a = ""`, `a = "x"y"`,
	`a = "x" y`, `a = x y`, `a = x"`, "\ta\t=\t\"v\"\t", `= "v"`, `a.b[0]:c-d_e = "|22q|22"`, `a b = "c"`,
	"a = \"v\"\r", "a = \"x\ny\"", `ä = "v"`, `a == "v"`, `a = "v"  # c`, "a =\f\"v\"", "a = \"v\"\v",
	`pciPassthru0.id = "00000:059:00.0"`, `# comment`, ``, `   `,
}

func TestVMXLineMatchesItsGrammar(t *testing.T) {
	for _, s := range vmxLineSeeds {
		k1, v1, ok1 := vmxLine(s)
		k2, v2, ok2 := vmxLineByRegexp(s)
		if k1 != k2 || v1 != v2 || ok1 != ok2 {
			t.Errorf("%q: got (%q, %q, %v), the grammar gives (%q, %q, %v)", s, k1, v1, ok1, k2, v2, ok2)
		}
	}
}

func FuzzVMXLine(f *testing.F) {
	for _, s := range vmxLineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k1, v1, ok1 := vmxLine(s)
		k2, v2, ok2 := vmxLineByRegexp(s)
		if k1 != k2 || v1 != v2 || ok1 != ok2 {
			t.Errorf("%q: got (%q, %q, %v), the grammar gives (%q, %q, %v)", s, k1, v1, ok1, k2, v2, ok2)
		}
	})
}
