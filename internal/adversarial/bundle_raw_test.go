package adversarial

import (
	"bytes"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// A bundle keeps the raw bytes of every output, hostile ones included:
// written and read back, each capture is byte for byte what the host
// printed, and the analysis of the bundle is the analysis of the scan.
func TestBundleKeepsRawHostileBytes(t *testing.T) {
	p := "\x1b]0;PWNED\x07\x1b[2J\u202e\xff\xc0\xaf\x9b"
	rs := poisonCaptures(loadMixed(t), p)
	var buf bytes.Buffer
	an := func(rs []hostio.HostResult, redact func(string) string) bundle.Analysis {
		return *analysis.Run(rs, analysis.Options{Meta: report.Meta{Source: redact("test"), Now: time.Unix(0, 0)}})
	}
	if _, err := bundle.Write(&buf, rs, bundle.Options{ToolVersion: "test", Now: time.Unix(0, 0), Analyze: an, HTML: report.WriteHTML}); err != nil {
		t.Fatal(err)
	}
	in, err := offline.LoadReader("b.tar.gz", &buf)
	if err != nil || in.Partial() {
		t.Fatalf("%v %v", err, in.Problems)
	}
	want := map[string]string{}
	for _, hr := range rs {
		for _, c := range hr.Captures {
			want[hr.Host+"\x00"+c.Command] = c.Stdout
		}
	}
	n := 0
	for _, hr := range in.Results {
		for _, c := range hr.Captures {
			w, ok := want[hr.Host+"\x00"+c.Command]
			if ok && c.Status == hostio.StatusCollected {
				n++
				if c.Stdout != w {
					t.Fatalf("%s %s: the bundle changed the output", hr.Host, c.Command)
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d captures compared", n)
	}
	a, _ := analyze(in.Results)
	b, _ := analyze(rs)
	if len(a.Findings) != len(b.Findings) {
		t.Errorf("%d findings from the bundle, %d from the scan", len(a.Findings), len(b.Findings))
	}
	for i := range a.Findings {
		// Host names travel in the bundle's JSON (results.json), so an
		// invalid byte in one (a pasted prompt) becomes U+FFFD there; the
		// outputs themselves are files, byte for byte.
		if jsonForm(a.Findings[i].Message) != jsonForm(b.Findings[i].Message) || jsonForm(a.Findings[i].Fix) != jsonForm(b.Findings[i].Fix) {
			t.Errorf("finding %d differs:\n%q\n%q", i, a.Findings[i].Message, b.Findings[i].Message)
		}
	}
}
