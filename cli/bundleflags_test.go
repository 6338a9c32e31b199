package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Bad --bundle/--tokens values are usage errors before anything is scanned.
func TestBundleFlagsCheckedBeforeScanning(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "b.tar.gz"), "--tokens", filepath.Join(dir, "nope.json")},
		{"scan", "--hosts", "127.0.0.1:1", "--password-env", "PW", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
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
