package hostio_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNoSSHBelowTheTransport keeps golang.org/x/crypto/ssh in the SSH
// transport (sshrun) and out of everything that only reads captures: the
// leaf types, the catalogue, the collector, parsers, facts, checks,
// reports and the analysis pipeline.
func TestNoSSHBelowTheTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"./internal/hostio", "./internal/catalog", "./collect", "./parse", "./internal/facts", "./checks", "./internal/report", "./internal/analysis"}
	for _, dep := range deps(t, pkgs...) {
		if strings.HasPrefix(dep, "golang.org/x/crypto/ssh") || strings.HasSuffix(dep, "/sshrun") {
			t.Errorf("%s depends on %s: only sshrun (and cli) may import the SSH stack", strings.Join(pkgs, " "), dep)
		}
		if strings.HasPrefix(dep, "github.com/vmware/govmomi") || strings.HasSuffix(dep, "/vcenter") {
			t.Errorf("%s depends on %s: only vcenter (and cli) may import govmomi", strings.Join(pkgs, " "), dep)
		}
	}
}

// TestRulesReadFactsNotTheCollector keeps the collector and the transports
// out of what reads facts: rules, facts and reports see a capture's typed
// cause and the catalogue's names, never the collector's.
func TestRulesReadFactsNotTheCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"./checks", "./internal/facts", "./internal/report"}
	for _, dep := range deps(t, pkgs...) {
		if strings.HasSuffix(dep, "pvrdma-doctor/collect") || strings.HasSuffix(dep, "/sshrun") {
			t.Errorf("%s depends on %s", strings.Join(pkgs, " "), dep)
		}
	}
}

// deps lists what pkgs import, directly or not (go list -deps).
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}
