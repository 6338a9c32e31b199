package archtest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The design card's top level: the Go packages at the root of the module
// are exactly these stages (bench/ holds the benchmark, which the card
// lists beside docs/ and scripts/); everything else lives under internal/.
var cardRoot = []string{"bench", "checks", "cmd", "collect", "fixtures", "internal", "parse", "tui"}

// folder is the node a package belongs to at the folder level: a root
// folder (a stage of the pipeline, cmd, fixtures, bench), or one entry of
// internal/, which holds libraries of many floors side by side and is no
// floor of its own.
func folder(pkg string) string {
	parts := strings.Split(pkg, "/")
	if parts[0] == "internal" && len(parts) > 1 {
		return "internal/" + parts[1]
	}
	return parts[0]
}

// listPackages is `go list -json` of the whole module: each package with
// its production imports (test-only packages have no GoFiles).
func listPackages(t *testing.T) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestRootIsTheDesignCard(t *testing.T) {
	for _, p := range listPackages(t) {
		if root := strings.Split(p.ImportPath, "/")[0]; !slices.Contains(cardRoot, root) {
			t.Errorf("package %s is at the root, which holds only %v: move it under internal/ (or into the stage it belongs to)", p.ImportPath, cardRoot)
		}
	}
}

// TestNoUpwardImportAtFolderLevel: the folders' import graph (root
// folders, and each entry of internal/) has no cycle, so every folder
// sits on a floor and imports only from floors below it; and no package
// under internal/ imports the top floors (cmd, tui): the CLI wiring lives
// with cmd/pvrdma-doctor.
func TestNoUpwardImportAtFolderLevel(t *testing.T) {
	edges := map[string]map[string]string{} // from -> to -> an example import
	for _, p := range listPackages(t) {
		if len(p.GoFiles) == 0 {
			continue // test-only packages import what their tests need
		}
		from := folder(p.ImportPath)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			to := folder(dep)
			if to == from {
				continue
			}
			if strings.HasPrefix(from, "internal/") && (to == "cmd" || to == "tui") {
				t.Errorf("%s imports %s: internal/ holds no top floor", p.ImportPath, dep)
			}
			if edges[from] == nil {
				edges[from] = map[string]string{}
			}
			edges[from][to] = p.ImportPath + " -> " + dep
		}
	}
	for _, cycle := range findCycles(edges) {
		var why []string
		for k := 0; k+1 < len(cycle); k++ {
			why = append(why, edges[cycle[k]][cycle[k+1]])
		}
		t.Errorf("folders import each other (%s): %s", strings.Join(cycle, " -> "), strings.Join(why, "; "))
	}
}

// findCycles returns the cycles a depth-first search of the graph meets,
// each as its nodes with the first repeated at the end.
func findCycles(edges map[string]map[string]string) [][]string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var cycles [][]string
	var visit func(n string)
	visit = func(n string) {
		state[n] = open
		stack = append(stack, n)
		tos := make([]string, 0, len(edges[n]))
		for to := range edges[n] {
			tos = append(tos, to)
		}
		sort.Strings(tos)
		for _, to := range tos {
			switch state[to] {
			case open:
				i := slices.Index(stack, to)
				cycles = append(cycles, append(slices.Clone(stack[i:]), to))
			case unseen:
				visit(to)
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
	}
	nodes := make([]string, 0, len(edges))
	for n := range edges {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		if state[n] == unseen {
			visit(n)
		}
	}
	return cycles
}

// The folder test's parts on their own: the folder of a package, and a
// cycle found where two folders import each other (and none where the
// imports only go down).
func TestFolderOfAndCycles(t *testing.T) {
	for pkg, want := range map[string]string{
		"internal/report":                "internal/report",
		"internal/facts":                 "internal/facts",
		"collect/vcenter/vcsim":          "collect",
		"cmd/pvrdma-doctor/internal/cli": "cmd",
		"checks":                         "checks",
	} {
		if got := folder(pkg); got != want {
			t.Errorf("folder(%q) = %q, want %q", pkg, got, want)
		}
	}
	down := map[string]map[string]string{"cmd": {"tui": ""}, "tui": {"checks": ""}, "checks": {"internal/facts": ""}}
	if c := findCycles(down); len(c) != 0 {
		t.Errorf("cycles in a graph without one: %v", c)
	}
	down["internal/facts"] = map[string]string{"checks": ""}
	if c := findCycles(down); len(c) != 1 || strings.Join(c[0], " ") != "checks internal/facts checks" {
		t.Errorf("findCycles = %v, want the one cycle checks -> internal/facts -> checks", c)
	}
}
