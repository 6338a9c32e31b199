package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden --cpuprofile/--memprofile/--trace flags write their files, also
// when the command fails (cobra skips the post-run hook then), and stay
// out of --help.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out"), filepath.Join(dir, "trace.out")
	// analyze of a missing file fails.
	code, out, _ := runCLI(t, "", "--cpuprofile", cpu, "--memprofile", mem, "--trace", tr, "analyze", filepath.Join(dir, "missing.tar.gz"))
	if code == ExitOK {
		t.Fatalf("analyze of a missing file succeeded: %s", out)
	}
	for _, f := range []string{cpu, mem, tr} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (want a non-empty profile)", filepath.Base(f), err)
		}
	}
	_, out, _ = runCLI(t, "", "--help")
	if strings.Contains(out, "profile") || strings.Contains(out, "--trace") {
		t.Errorf("--help shows the hidden profiling flags:\n%s", out)
	}
}
