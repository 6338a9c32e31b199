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
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	pkgs := []string{"./internal/hostio", "./internal/catalog", "./collect", "./parse", "./internal/facts", "./checks", "./report", "./internal/analysis"}
	cmd := exec.Command(goBin, append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "golang.org/x/crypto/ssh") || strings.HasSuffix(dep, "/sshrun") {
			t.Errorf("%s depends on %s: only sshrun (and cli) may import the SSH stack", strings.Join(pkgs, " "), dep)
		}
		if strings.HasPrefix(dep, "github.com/vmware/govmomi") || strings.HasSuffix(dep, "/vcenter") {
			t.Errorf("%s depends on %s: only vcenter (and cli) may import govmomi", strings.Join(pkgs, " "), dep)
		}
	}
}
