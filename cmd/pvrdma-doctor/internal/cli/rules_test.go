package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

func runRulesCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	// HOME points at an empty folder: no default config file applies.
	t.Setenv("HOME", t.TempDir())
	return runCLI(t, "", args...)
}

func TestRulesList(t *testing.T) {
	code, out, errOut := runRulesCLI(t, "rules", "list")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "SEVERITY") || !strings.Contains(lines[0], "TITLE") {
		t.Errorf("header: %q", lines[0])
	}
	for _, l := range lines {
		if len([]rune(l)) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	for _, r := range checks.Rules() {
		if !strings.Contains(out, r.ID+" ") {
			t.Errorf("rule %s not listed", r.ID)
		}
	}

	code, out, _ = runRulesCLI(t, "rules", "list", "--output", "json")
	var docs []RuleDoc
	if code != ExitOK || json.Unmarshal([]byte(out), &docs) != nil || len(docs) != len(checks.Rules()) {
		t.Fatalf("json: exit %d, %d rules", code, len(docs))
	}
	for _, d := range docs {
		if d.ID == "" || d.Severity == "" || d.Title == "" || d.Why == "" || d.Fix == "" || len(d.Docs) == 0 || d.Applies == "" {
			t.Errorf("incomplete metadata: %+v", d)
		}
	}
	if code, _, _ := runRulesCLI(t, "rules", "list", "--output", "yaml"); code != ExitUsage {
		t.Errorf("bad --output: exit %d", code)
	}
}

func TestRulesExplain(t *testing.T) {
	code, out, errOut := runRulesCLI(t, "rules", "explain", "pfc_disabled")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"PFC_DISABLED (warning)", "WHY IT MATTERS", "HOW TO FIX", "pauseParams", "DOCUMENTATION", "APPLIES TO", "ESXi 6.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runRulesCLI(t, "rules", "explain", "LOW_MTUU")
	if code != ExitUsage || !strings.Contains(errOut, "did you mean LOW_MTU") {
		t.Errorf("unknown ID: exit %d, %q", code, errOut)
	}
	code, _, errOut = runRulesCLI(t, "rules", "explain", "firewall")
	if code != ExitUsage || !strings.Contains(errOut, "PVRDMA_FIREWALL_CLOSED") {
		t.Errorf("partial ID: exit %d, %q", code, errOut)
	}
	if code, _, _ := runRulesCLI(t, "rules", "explain"); code != ExitUsage {
		t.Errorf("no ID: exit %d", code)
	}
}

// savedOutputs copies a scenario's hosts into a folder `analyze` reads,
// then lets edit change files.
func savedOutputs(t *testing.T, scenario string, hosts []string, edit map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, h := range hosts {
		if err := os.CopyFS(filepath.Join(dir, h), os.DirFS(filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", scenario, h))); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range edit {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const pfcOff = `   Nic Name: vmnic4
   Mode: 3 - IEEE Mode
   Enabled: true
   PFC Enabled: false
   PFC Configuration: 0 0 0 0 0 0 0 0
`

const emptyRDMA = `Name  Driver  State  MTU  Speed  Paired Uplink  Description
----  ------  -----  ---  -----  -------------  -----------
`

func TestExitCodes(t *testing.T) {
	healthy := savedOutputs(t, "healthy", []string{"esx01", "esx02"}, nil)
	warning := savedOutputs(t, "healthy", []string{"esx01", "esx02"}, map[string]string{
		"esx01/esxcli_network_nic_dcb_status_get_-n_vmnic4.txt": pfcOff})
	// One host with PVRDMA VMs and no RDMA device, no other PVRDMA host: info.
	info := savedOutputs(t, "healthy", []string{"esx01"}, map[string]string{
		"esx01/esxcli_rdma_device_list.txt": emptyRDMA})
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("suppress:\n  - rule: PFC_DISABLED\n    host: esx01\n    subject: vmnic*\n    reason: switch has no DCB yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"healthy", []string{"analyze", healthy, "-o", "json"}, ExitOK},
		{"warning", []string{"analyze", warning, "-o", "json"}, ExitWarning},
		{"warning below --fail-on critical", []string{"analyze", warning, "-o", "json", "--fail-on", "critical"}, ExitOK},
		{"warning suppressed by config", []string{"analyze", warning, "-o", "json", "--config", cfg}, ExitOK},
		{"warning raised to critical by config", []string{"analyze", warning, "-o", "json", "--config", writeConfig(t, "severity:\n  PFC_DISABLED: critical\n")}, ExitCritical},
		{"info with default --fail-on", []string{"analyze", info, "-o", "json"}, ExitOK},
		{"info with --fail-on info", []string{"analyze", info, "-o", "json", "--fail-on", "info"}, ExitWarning},
		{"critical and incomplete (mixed)", []string{"demo", "-o", "json"}, ExitCritical},
		{"critical wins over --fail-on critical", []string{"demo", "-o", "json", "--fail-on", "critical"}, ExitCritical},
		{"bad --output", []string{"demo", "-o", "pdf"}, ExitUsage},
		{"bad --fail-on", []string{"demo", "--fail-on", "never"}, ExitUsage},
		{"missing --config", []string{"analyze", healthy, "-o", "json", "--config", filepath.Join(t.TempDir(), "nope.yaml")}, ExitUsage},
		{"config typo", []string{"analyze", healthy, "-o", "json", "--config", writeConfig(t, "suppress:\n  - rule: LOW_MTU\n    reasn: x\n")}, ExitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runRulesCLI(t, c.args...)
			if code != c.want {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.want, errOut)
			}
		})
	}
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Incomplete collection without critical findings exits 5: mixed with
// every failing finding suppressed still has an unreachable host.
func TestExitIncomplete(t *testing.T) {
	cfg := writeConfig(t, "suppress:\n  - rule: \"*\"\n    reason: test\n")
	code, out, errOut := runRulesCLI(t, "demo", "-o", "json", "--config", cfg, "--show-suppressed")
	if code != ExitIncomplete {
		t.Fatalf("exit %d, want %d: %s", code, ExitIncomplete, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Critical+r.Summary.Warning+r.Summary.Info != 0 || r.Summary.Suppressed == 0 || len(r.Suppressed) != r.Summary.Suppressed {
		t.Errorf("summary %+v, %d listed", r.Summary, len(r.Suppressed))
	}
	// Without --show-suppressed they are counted, not listed.
	_, out, _ = runRulesCLI(t, "demo", "-o", "json", "--config", cfg)
	r = report.Report{}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Suppressed == 0 || len(r.Suppressed) != 0 {
		t.Errorf("without --show-suppressed: %d counted, %d listed", r.Summary.Suppressed, len(r.Suppressed))
	}
}

func TestOutputFormatsThroughCLI(t *testing.T) {
	for _, f := range []struct {
		format string
		check  func(string) bool
	}{
		{"markdown", func(s string) bool { return strings.HasPrefix(s, "# pvrdma-doctor report") }},
		{"html", func(s string) bool { return strings.HasPrefix(s, "<!DOCTYPE html>") && !strings.Contains(s, "<script") }},
		{"junit", func(s string) bool {
			var v struct {
				XMLName xml.Name `xml:"testsuites"`
			}
			return xml.Unmarshal([]byte(s), &v) == nil
		}},
		{"sarif", func(s string) bool {
			var v map[string]any
			return json.Unmarshal([]byte(s), &v) == nil && v["version"] == "2.1.0"
		}},
	} {
		t.Run(f.format, func(t *testing.T) {
			code, out, errOut := runRulesCLI(t, "demo", "--output", f.format)
			if code != ExitCritical || !f.check(out) {
				t.Errorf("exit %d (stderr %s), output starts %q", code, errOut, out[:min(len(out), 120)])
			}
		})
	}
}
