package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// RequireGolden runs require (charmbracelet's golden.RequireEqual: out
// must equal testdata/<test name>.golden, which its -update flag, set by
// go generate, rewrites) and, with -update, says on standard error which
// golden it created or changed, so that go generate's output names every
// golden it rewrote (the go:generate lines run go test in local directory
// mode, which shows that output). The golden package is the caller's: it
// defines the -update flag, which other packages' tests define themselves.
func RequireGolden[T []byte | string](tb testing.TB, out T, require func(testing.TB, T)) {
	tb.Helper()
	path := filepath.Join("testdata", tb.Name()+".golden")
	f := flag.Lookup("update")
	updating := f != nil && f.Value.String() == "true"
	before, err := os.ReadFile(path)
	existed := err == nil
	require(tb, out)
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
