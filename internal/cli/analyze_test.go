package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// A transcript holding only 2 of the stage-1 commands is incomplete
// (exit 5), exactly like a folder of saved outputs with the same gap: the
// host is partial and the report names what was not in the input.
func TestAnalyzeIncompleteTranscriptAndFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "fixtures", "scenarios", "mixed", "esx01")
	version, _ := os.ReadFile(filepath.Join(src, "esxcli_system_version_get.txt"))
	rdma, _ := os.ReadFile(filepath.Join(src, "esxcli_rdma_device_list.txt"))
	tr := filepath.Join(dir, "session.txt")
	os.WriteFile(tr, []byte("~ # esxcli system version get\n"+string(version)+"~ # esxcli rdma device list\n"+string(rdma)+"~ # \n"), 0o644)
	folder := filepath.Join(dir, "saved", "esx01")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "esxcli_system_version_get.txt"), version, 0o644)
	os.WriteFile(filepath.Join(folder, "esxcli_rdma_device_list.txt"), rdma, 0o644)
	for _, c := range []struct{ path, why string }{
		{tr, "not in the transcript"},
		{filepath.Dir(folder), "no saved output for it"},
	} {
		code, out, stderr := runCLI(t, "", "analyze", c.path, "--output", "text", "--details")
		if code != ExitIncomplete {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", c.path, code, ExitIncomplete, out, stderr)
		}
		flat := strings.Join(strings.Fields(out), " ") // the text report wraps lines
		if strings.Contains(out, "HEALTHY") || !strings.Contains(flat, fmt.Sprintf("INCOMPLETE: %d of the %d stage-1 commands missing (%s)", len(collect.Stage1())-2, len(collect.Stage1()), c.why)) ||
			!strings.Contains(flat, "`esxcli network firewall ruleset list` skipped ("+c.why+")") {
			t.Errorf("%s: the report does not say what was not checked:\n%s", c.path, out)
		}
	}
}

// A truncated bundle is blamed on the bundle, not the hosts: at most one
// COLLECTION_FAILED finding per host, whose fix says the bundle is damaged.
func TestAnalyzeTruncatedBundleBlamesTheBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "m.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", "../../fixtures/scenarios/mixed", b); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	orig, _ := os.ReadFile(b)
	trunc := filepath.Join(dir, "trunc.tar.gz")
	os.WriteFile(trunc, orig[:len(orig)/4], 0o644)
	_, out, stderr := runCLI(t, "", "analyze", trunc, "--output", "json")
	var r struct {
		Findings []struct {
			RuleID                     string `json:"rule_id"`
			Host, Status, Message, Fix string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	perHost := map[string]int{}
	for _, f := range r.Findings {
		if f.RuleID != "COLLECTION_FAILED" || f.Status != "fail" {
			continue
		}
		perHost[f.Host]++
		if !strings.Contains(f.Fix, "The bundle is damaged (see the PARTIAL INPUT note)") || strings.Contains(f.Fix, "--command-timeout") ||
			!strings.Contains(f.Message, "missing or corrupt in the bundle") {
			t.Errorf("%s: %s / %s", f.Host, f.Message, f.Fix)
		}
	}
	if len(perHost) == 0 {
		t.Fatalf("no COLLECTION_FAILED finding for the truncated bundle:\n%s", out)
	}
	for h, n := range perHost {
		if n != 1 {
			t.Errorf("%s: %d COLLECTION_FAILED findings, want 1", h, n)
		}
	}
}

// The UI's export of an analysed redacted bundle keeps it as it is: no
// second redaction, no token map, the manifest still says redacted and the
// tokens are those of the original. An unredacted input is still redacted.
func TestAnalyzeExportOfRedactedBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "shared.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, b); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	var errOut strings.Builder
	opts := &AnalyzeOptions{IO: &IOStreams{Out: &errOut, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	in, err := loadInput(b, nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "export.tar.gz")
	if err := analyzePipeline(opts, in).Bundle(out, in.Results); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle.TokensPath(out)); err == nil {
		t.Error("exporting a redacted bundle wrote a token map")
	}
	again, err := offline.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Redacted() || again.Manifest.Hosts[0].Host != in.Manifest.Hosts[0].Host || again.Results[0].Host != "host-001" {
		t.Errorf("export: redacted %v, hosts %q (was %q)", again.Redacted(), again.Manifest.Hosts[0].Host, in.Manifest.Hosts[0].Host)
	}
	var w strings.Builder
	if err := writeBundle(filepath.Join(dir, "said.tar.gz"), in.Results, report.Meta{}, BundleFlags{AlreadyRedacted: true}, &w, bundleRun{}); err != nil ||
		!strings.Contains(w.String(), "already redacted") {
		t.Errorf("message %q, err %v", w.String(), err)
	}

	// An unredacted input is redacted on export, with its token map.
	in, err = loadInput(healthyDir, nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "fresh.tar.gz")
	if err := analyzePipeline(opts, in).Bundle(out, in.Results); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle.TokensPath(out)); err != nil {
		t.Errorf("unredacted input exported without a token map: %v", err)
	}
}
