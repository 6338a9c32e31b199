package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad --bundle/--tokens values are usage errors before anything is scanned.
func TestBundleFlagsCheckedBeforeScanning(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.tar.gz")
	if err := os.WriteFile(taken+".tokens.json", []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "b.tar.gz"), "--tokens", filepath.Join(dir, "nope.json")},
		{"scan", "--hosts", "127.0.0.1:1", "--password-env", "PW", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
		// An existing token map would be overwritten: refused up front.
		{"demo", "--output", "json", "--bundle", taken},
	} {
		var out, errOut bytes.Buffer
		code := Run(args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, func(k string) string {
			if k == "PW" {
				return "pw"
			}
			return ""
		})
		if code != ExitUsage || out.Len() != 0 {
			t.Errorf("%v: exit %d with %d bytes of report; want a usage error before any scan (stderr %q)", args, code, out.Len(), errOut.String())
		}
	}
}
