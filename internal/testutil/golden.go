package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// RequireGolden is golden.RequireEqual: out must equal
// testdata/<test name>.golden, which -update (go generate) rewrites. With
// -update it also says on standard error which golden it created or
// changed, so that go generate's output names every golden it rewrote
// (the go:generate lines run go test in local directory mode, which shows
// that output).
func RequireGolden[T []byte | string](tb testing.TB, out T) {
	tb.Helper()
	path := filepath.Join("testdata", tb.Name()+".golden")
	f := flag.Lookup("update")
	updating := f != nil && f.Value.String() == "true"
	before, err := os.ReadFile(path)
	existed := err == nil
	golden.RequireEqual(tb, out)
	if updating {
		reportGoldenUpdate(os.Stderr, displayPath(path), before, existed, []byte(out))
	}
}

// reportGoldenUpdate writes "golden created: PATH" or "golden changed:
// PATH" when the golden at path (before, if it existed) is not out.
func reportGoldenUpdate(w io.Writer, path string, before []byte, existed bool, out []byte) {
	switch {
	case !existed:
		fmt.Fprintf(w, "golden created: %s\n", path)
	case !bytes.Equal(before, out):
		fmt.Fprintf(w, "golden changed: %s\n", path)
	}
}

// displayPath is path (relative to the test's package) relative to the
// module's root when it can be found.
func displayPath(path string) string {
	dir, err := os.Getwd()
	if err != nil {
		return path
	}
	for root := dir; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			if rel, err := filepath.Rel(root, filepath.Join(dir, path)); err == nil {
				return filepath.ToSlash(rel)
			}
			return path
		}
		if filepath.Dir(root) == root {
			return path
		}
	}
}
