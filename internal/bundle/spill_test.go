package bundle_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The derived files are encoded once (kept in a spill file between the
// writer's passes), and the bundle is the same byte for byte as when they
// are encoded twice (no spill file can be made).
func TestDerivedFilesEncodedOnce(t *testing.T) {
	write := func(spillDir string) ([]byte, int, map[string]bool) {
		var renders int
		tracked := map[string]bool{}
		var buf bytes.Buffer
		_, err := bundle.Write(&buf, mixed(t), bundle.Options{Redact: true, Now: time.Unix(1700000000, 0), Analyze: testAnalyze,
			SpillDir: spillDir,
			TempFile: func(p string, live bool) { tracked[p] = live },
			HTML: func(w io.Writer, r *report.Report) error {
				renders++
				_, err := io.WriteString(w, "<html>report</html>")
				return err
			}})
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), renders, tracked
	}
	dir := t.TempDir()
	once, n1, tracked := write(dir)
	twice, n2, _ := write(filepath.Join(dir, "missing"))
	if n1 != 1 || n2 != 2 {
		t.Errorf("report.html rendered %d times with a spill file, %d without (want 1 and 2)", n1, n2)
	}
	if !bytes.Equal(once, twice) {
		t.Error("the bundle differs with and without the spill file")
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the spill directory holds %d files after Write (%v)", len(ents), err)
	}
	if len(tracked) != 1 {
		t.Fatalf("temporary files tracked: %v", tracked)
	}
	for p, live := range tracked {
		if live || !strings.HasPrefix(filepath.Base(p), ".pvrdma-doctor-bundle-spill-") {
			t.Errorf("spill %s still live (%v) or misnamed", p, live)
		}
	}
}
