// Package archtest holds the test that keeps docs/ARCHITECTURE.md true:
// every package of the module has a row in its package table, and imports
// only what its "may import" cell lists.
package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/pvrdma-doctor/pvrdma-doctor"

// row is one line of the package table: the package (a path below the
// module) and what it may import.
type row struct {
	pkg        string
	everything bool
	may        map[string]bool
}

var reName = regexp.MustCompile("`([a-z0-9/_-]+)`")

// readTable reads the package table of docs/ARCHITECTURE.md: the rows
// whose first cell is a backticked package path; names in the third cell
// (backticked) are what it may import, "everything" allows any package.
func readTable(t *testing.T) map[string]row {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]row{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 {
			continue
		}
		name := reName.FindStringSubmatch(strings.TrimSpace(cells[1]))
		if name == nil || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		r := row{pkg: name[1], may: map[string]bool{}}
		mayCell := cells[len(cells)-2]
		if strings.Contains(mayCell, "everything") {
			r.everything = true
		}
		for _, m := range reName.FindAllStringSubmatch(mayCell, -1) {
			r.may[m[1]] = true
		}
		rows[r.pkg] = r
	}
	if len(rows) == 0 {
		t.Fatal("no package table found in docs/ARCHITECTURE.md")
	}
	return rows
}

// owner is the row a package belongs to: its own, or its nearest parent's
// (fixtures/internal/esxfmt belongs to fixtures).
func owner(rows map[string]row, pkg string) (row, bool) {
	for p := pkg; p != "." && p != ""; p = filepath.Dir(p) {
		if r, ok := rows[p]; ok {
			return r, true
		}
	}
	return row{}, false
}

type listed struct {
	ImportPath string
	GoFiles    []string
	Imports    []string
}

func TestArchitectureTableMatchesImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	rows := readTable(t)
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var problems []string
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) == 0 {
			continue // test-only packages (adversarial, integration, this one)
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		r, ok := owner(rows, pkg)
		if !ok {
			problems = append(problems, pkg+": no row in docs/ARCHITECTURE.md's package table")
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if dep == r.pkg || strings.HasPrefix(dep, r.pkg+"/") || r.everything {
				continue // its own subpackages
			}
			d, ok := owner(rows, dep)
			if !ok || !r.may[d.pkg] {
				problems = append(problems, pkg+" imports "+dep+", which its row (`"+r.pkg+"`) does not list under 'may import'")
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// The binary ships the simulated lab (fixtures, fixtures/lab,
// fixtures/vclab: `demo`, `lab serve`), which is also the tests' lab; what
// it ships must stay production code: nothing of the testing package or
// the tests' helpers.
func TestBinaryShipsNoTestCode(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/pvrdma-doctor")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fixtures := false
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "testing", strings.HasPrefix(dep, "testing/"), dep == module+"/internal/testutil":
			t.Errorf("the binary depends on %s", dep)
		case dep == module+"/fixtures/lab":
			fixtures = true
		}
	}
	if !fixtures {
		t.Error("the binary no longer ships fixtures/lab: update docs/ARCHITECTURE.md (fixtures is the demo's lab)")
	}
}
