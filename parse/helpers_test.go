package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parsed parses text with f; an error (a partial one too) fails the test.
func parsed[T any](t testing.TB, f func(string) (T, error), text string) T {
	t.Helper()
	v, err := f(text)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return v
}

// parseSample parses the sample file name with f; an error fails the test.
func parseSample[T any](t testing.TB, f func(string) (T, error), name string) T {
	t.Helper()
	return parsed(t, f, sample(t, name))
}

// parseSampleN parses the sample file name with f and wants n rows; an
// error or another count fails the test.
func parseSampleN[T any](t testing.TB, f func(string) ([]T, error), name string, n int) []T {
	t.Helper()
	v, err := f(sample(t, name))
	if err != nil || len(v) != n {
		t.Fatalf("%s: %d rows, want %d: %+v %v", name, len(v), n, v, err)
	}
	return v
}

// sample reads testdata/name and strips its "#@" header (up to "#@ ---").
func sample(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return stripHeader(string(b))
}

// samples returns every .txt sample of testdata/dir ("" for testdata
// itself), headers stripped, in file name order.
func samples(tb testing.TB, dir string) []string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = sample(tb, filepath.Join(dir, filepath.Base(f)))
	}
	return out
}

func stripHeader(s string) string {
	if !strings.HasPrefix(s, "#@") {
		return s
	}
	if i := strings.Index(s, "#@ ---\n"); i >= 0 {
		return s[i+len("#@ ---\n"):]
	}
	return s
}

// wantParseError asserts err is a *Error at the given line (0: any line).
func wantParseError(t *testing.T, err error, line int) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("want *parse.Error, got %T %v", err, err)
	}
	if line > 0 && pe.Line != line {
		t.Fatalf("want error at line %d, got %v", line, pe)
	}
	if !strings.HasPrefix(pe.Error(), "line ") && pe.Line > 0 {
		t.Fatalf("error %q does not name its line", pe.Error())
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}
