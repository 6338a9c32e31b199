package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// A bundle's report is built with the run's config: a finding suppressed on
// screen stays suppressed (with its reason) in the bundle, redacted or not.
func TestBundleHonoursConfigSuppressions(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("suppress:\n  - rule: RDMA_ERRORS\n    host: esx04\n    subject: vmrdma1\n    reason: cabling incident on esx04, cleared at next reboot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, redact := range []bool{false, true} {
		out := filepath.Join(dir, "b.tar.gz")
		os.Remove(out)
		args := []string{"demo", "--output", "json", "--config", cfg, "--bundle", out}
		if !redact {
			args = append(args, "--no-redact")
		}
		var stdout, stderr bytes.Buffer
		Run(args, &IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, func(string) string { return "" })
		var live report.Report
		if err := json.Unmarshal(stdout.Bytes(), &live); err != nil {
			t.Fatalf("demo JSON: %v\n%s", err, stderr.String())
		}
		if live.Summary.Suppressed != 1 {
			t.Fatalf("live run: %d suppressed, want 1", live.Summary.Suppressed)
		}
		stdout.Reset()
		Run([]string{"analyze", out, "--output", "json"}, &IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, func(string) string { return "" })
		// analyze re-runs today's rules without the config; the bundle's own
		// report.json is what the user saw.
		var fromBundle report.Report
		raw := archiveFiles(t, out)["report.json"]
		if err := json.Unmarshal(raw, &fromBundle); err != nil {
			t.Fatal(err)
		}
		if fromBundle.Summary.Suppressed != 1 || len(fromBundle.Suppressed) != 1 {
			t.Errorf("redact=%v: bundle report has %d suppressed, want 1", redact, fromBundle.Summary.Suppressed)
			continue
		}
		if s := fromBundle.Suppressed[0]; s.RuleID != "RDMA_ERRORS" || !strings.Contains(s.SuppressReason, "cabling incident") {
			t.Errorf("redact=%v: suppressed %+v", redact, s)
		}
		if redact && strings.Contains(string(raw), "esx04") {
			t.Errorf("redacted bundle report still names esx04")
		}
	}
}
