package bundle_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// mixed is the mixed scenario, read as analyze reads it.
func mixed(t *testing.T) []hostio.HostResult {
	in, err := offline.Load("../../fixtures/scenarios/mixed")
	if err != nil {
		t.Fatal(err)
	}
	return in.Results
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	results := mixed(t)
	p := filepath.Join(dir, "b.tar.gz")
	w, err := bundle.WriteFile(p, results, bundle.Options{Redact: true, Analyze: testAnalyze})
	if err != nil || w == nil {
		t.Fatal(err)
	}
	st, err := os.Stat(bundle.TokensPath(p))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token map: %v %v", err, st)
	}
	if _, err := offline.Load(p); err != nil {
		t.Fatal(err)
	}
	// A write failing midway leaves neither the file nor a temporary.
	p2 := filepath.Join(dir, "fail.tar.gz")
	err = bundle.AtomicWrite(p2, 0o644, nil, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("x"), 4096)); err != nil {
			return err
		}
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("no error")
	}
	// An analysis that panics or fails mid-export is the same: Write's error aborts.
	_, err = bundle.WriteFile(p2, results, bundle.Options{Analyze: testAnalyze, HTML: func(io.Writer, *report.Report) error { return errors.New("boom") }})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err %v", err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "b.tar.gz b.tar.gz.tokens.json" {
		t.Errorf("directory after failed writes: %v", names)
	}
	// A writer that fails midway makes Write fail.
	if _, err := bundle.Write(&failWriter{n: 100}, results, bundle.Options{Analyze: testAnalyze}); err == nil {
		t.Error("Write to a failing writer succeeded")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return f.n, errors.New("device full")
	}
	f.n -= len(p)
	return len(p), nil
}

// A bundle never replaces a device, a FIFO, a directory or a symlink.
func TestWriteFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	target, link := testutil.PlantSymlink(t, dir, "target", "keep", "link.tar.gz")
	for _, p := range []string{link, dir, "/dev/null"} {
		if _, err := bundle.WriteFile(p, nil, bundle.Options{Analyze: testAnalyze}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: err = %v", p, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
}
