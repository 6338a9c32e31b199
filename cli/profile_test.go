package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden --cpuprofile/--memprofile flags write their profiles, also
// when the command fails (cobra skips the post-run hook then), and stay
// out of --help.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	var out, errOut bytes.Buffer
	io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	env := func(string) string { return "" }
	// analyze of a missing file fails.
	code := Run([]string{"--cpuprofile", cpu, "--memprofile", mem, "analyze", filepath.Join(dir, "missing.tar.gz")}, io, env)
	if code == ExitOK {
		t.Fatalf("analyze of a missing file succeeded: %s", out.String())
	}
	for _, f := range []string{cpu, mem} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (want a non-empty profile)", filepath.Base(f), err)
		}
	}
	out.Reset()
	Run([]string{"--help"}, io, env)
	if strings.Contains(out.String(), "profile") {
		t.Errorf("--help shows the hidden profiling flags:\n%s", out.String())
	}
}
