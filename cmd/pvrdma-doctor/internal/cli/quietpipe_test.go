package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// A piped scan is quiet (issue 37.5): stderr holds warnings and errors
// only, none of the per-host info lines; -v brings them back.
func TestPipedScanLogsWarningsOnly(t *testing.T) {
	l, ldir := startScanLab(t, "single", lab.Options{})
	kh := labKnownHosts(t, l, ldir)
	args := []string{"scan", "--hosts-file", filepath.Join(ldir, "hosts"), "--ssh-config", filepath.Join(ldir, "ssh_config"),
		"--known-hosts", kh, "--password-env", "PD_PW", "-o", "json"}
	env := map[string]string{"PD_PW": testPassword}
	code, out, errOut := runWithEnv(env, args...)
	if code == ExitUsage || !strings.Contains(out, `"summary"`) {
		t.Fatalf("scan: exit %d\n%s", code, errOut)
	}
	if strings.Contains(errOut, "level=INFO") {
		t.Errorf("a piped scan logs info lines on stderr:\n%s", errOut)
	}
	_, _, errOut = runWithEnv(env, append(args, "-v")...)
	if !strings.Contains(errOut, "level=INFO msg=connecting") || !strings.Contains(errOut, "level=INFO msg=\"host finished\"") {
		t.Errorf("scan -v does not log each host's progress:\n%s", errOut)
	}
}
