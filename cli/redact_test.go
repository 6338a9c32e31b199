package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/bundle"
)

// redact IN OUT with OUT being IN (by the same or another path) is refused
// and leaves the original untouched.
func TestRedactRefusesInPlace(t *testing.T) {
	dir := t.TempDir()
	// The unredacted original: a transcript.
	orig := filepath.Join(dir, "orig.txt")
	rdma, _ := os.ReadFile(filepath.Join(healthyDir, "esx01", "esxcli_rdma_device_list.txt"))
	text := "[root@esx01:~] esxcli rdma device list\n" + string(rdma)
	os.WriteFile(orig, []byte(text), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(orig, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, out := range []string{orig, filepath.Join(sub, "..", "orig.txt"), link} {
		code, _, stderr := runCLI(t, "", "redact", orig, out)
		if code != ExitUsage || !strings.Contains(stderr, "unredacted original") {
			t.Fatalf("redact %s %s: exit %d %s", orig, out, code, stderr)
		}
		if b, _ := os.ReadFile(orig); string(b) != text {
			t.Fatalf("the original was changed")
		}
		if _, err := os.Stat(bundle.TokensPath(out)); err == nil {
			t.Fatalf("a token map was written next to %s", out)
		}
	}
}

// A redacted bundle's token map is never overwritten: redact and bundle
// refuse the output file (exit 2, naming the map); a bundle without a token
// map may be overwritten; reusing the same map with --tokens is allowed.
func TestBundleOutputKeepsTokenMap(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shared.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, out); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	tokens := bundle.TokensPath(out)
	before, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatal(err)
	}
	bundleBefore, _ := os.ReadFile(out)
	code, _, stderr := runCLI(t, "", "redact", "../fixtures/scenarios/mixed", out)
	if code != ExitUsage || !strings.Contains(stderr, tokens) || !strings.Contains(stderr, "already exists") {
		t.Fatalf("redact over a bundle with a token map: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "bundle", "--hosts", "esx01", "-o", out)
	if code != ExitUsage || !strings.Contains(stderr, tokens) {
		t.Fatalf("bundle -o over a token map: exit %d %s", code, stderr)
	}
	if after, _ := os.ReadFile(tokens); string(after) != string(before) {
		t.Fatal("the token map was overwritten")
	}
	if after, _ := os.ReadFile(out); string(after) != string(bundleBefore) {
		t.Fatal("the bundle was overwritten")
	}
	// Reusing that very map extends it: allowed.
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, out, "--tokens", tokens); code != ExitOK {
		t.Fatalf("redact --tokens OUT.tokens.json: %d %s", code, stderr)
	}
	// A bundle without a token map may be overwritten.
	os.Remove(tokens)
	if code, _, stderr := runCLI(t, "", "redact", "../fixtures/scenarios/mixed", out); code != ExitOK {
		t.Fatalf("overwrite a bundle without a token map: %d %s", code, stderr)
	}
}
