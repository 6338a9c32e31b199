package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

const sample = `# pvrdma-doctor config
severity:
  DVS_MULTIPLE_UPLINKS: info
suppress:
  - rule: PHYSICAL_HCA_UNAVAILABLE
    host: esx0*
    subject: "hpc-node02 (*"
    reason: VM is being decommissioned
    expires: 2026-06-30
  - rule: PVRDMA_VMKNIC_UNSET
    host: esx03
    subject: /Net/PVRDMAVmknic
    reason: lab host, no cross-host traffic
  - rule: RDMA_ERRORS
    reason: counters from the cabling incident, cleared at next reboot
    expires: 2025-01-01
`

func result() checks.Result {
	return checks.Result{Findings: []checks.Finding{
		{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx01", Subject: "hpc-node02 (PVRDMA adapter 0)"},
		{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx01", Subject: "hpc-node03 (PVRDMA adapter 0)"},
		{RuleID: "PVRDMA_VMKNIC_UNSET", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx03", Subject: "/Net/PVRDMAVmknic"},
		{RuleID: "PVRDMA_VMKNIC_UNSET", Severity: checks.Critical, Status: checks.StatusNotEvaluated, Host: "esx03", Subject: "/Net/PVRDMAVmknic"},
		{RuleID: "DVS_MULTIPLE_UPLINKS", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx04", Subject: "rdma-dvs"},
		{RuleID: "RDMA_ERRORS", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx04", Subject: "vmrdma1"},
	}}
}

func TestApply(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Apply(result(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	var kept []string
	for _, f := range a.Result.Findings {
		kept = append(kept, f.RuleID+" "+f.Host+" "+f.Subject+" "+string(f.Status)+" "+string(f.Severity))
	}
	want := []string{
		// the expired RDMA_ERRORS suppression no longer applies
		"PHYSICAL_HCA_UNAVAILABLE esx01 hpc-node03 (PVRDMA adapter 0) fail critical",
		"RDMA_ERRORS esx04 vmrdma1 fail warning",
		"DVS_MULTIPLE_UPLINKS esx04 rdma-dvs fail info",
		// not-evaluated results are never suppressed
		"PVRDMA_VMKNIC_UNSET esx03 /Net/PVRDMAVmknic not_evaluated critical",
	}
	if strings.Join(kept, "\n") != strings.Join(want, "\n") {
		t.Errorf("kept:\n%s\nwant:\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
	}
	if len(a.Suppressed) != 2 || !a.Suppressed[0].Suppressed || a.Suppressed[0].SuppressReason == "" {
		t.Fatalf("suppressed: %+v", a.Suppressed)
	}
	if !strings.Contains(a.Suppressed[0].SuppressReason+a.Suppressed[1].SuppressReason, "decommissioned (until 2026-06-30)") {
		t.Errorf("reasons: %q %q", a.Suppressed[0].SuppressReason, a.Suppressed[1].SuppressReason)
	}
	notes := strings.Join(a.Notes, "\n")
	if !strings.Contains(notes, "RDMA_ERRORS") || !strings.Contains(notes, "expired on 2025-01-01") || !strings.Contains(notes, "line 14") {
		t.Errorf("expiry note: %q", notes)
	}
	if !strings.Contains(notes, "DVS_MULTIPLE_UPLINKS severity overridden from warning to info") {
		t.Errorf("override note: %q", notes)
	}

	// After the expiry date, the first suppression stops applying too.
	a = c.Apply(result(), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	if len(a.Suppressed) != 1 || a.Suppressed[0].RuleID != "PVRDMA_VMKNIC_UNSET" {
		t.Errorf("after expiry: %+v", a.Suppressed)
	}
	// On the expiry day itself it still applies.
	a = c.Apply(result(), time.Date(2026, 6, 30, 23, 0, 0, 0, time.UTC))
	if len(a.Suppressed) != 2 {
		t.Errorf("on the expiry day: %d suppressed", len(a.Suppressed))
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"typo in a key", "suppress:\n  - rule: LOW_MTU\n    rason: x\n", `line 3: unknown key "rason"`},
		{"unknown top-level key", "severities:\n  LOW_MTU: info\n", `line 1: unknown key "severities"`},
		{"missing reason", "suppress:\n  - rule: LOW_MTU\n    host: esx01\n", "line 2: suppression of LOW_MTU needs a reason"},
		{"unknown rule", "suppress:\n  - rule: LOW_MTUU\n    reason: x\n", "line 2: suppression of unknown rule \"LOW_MTUU\""},
		{"bad severity", "severity:\n  LOW_MTU: urgent\n", "line 2: severity of LOW_MTU"},
		{"unknown rule in severity", "severity:\n  NOPE: info\n", "line 2: severity: unknown rule \"NOPE\""},
		{"bad date", "suppress:\n  - rule: LOW_MTU\n    reason: x\n    expires: 30/06/2026\n", "line 2: expires \"30/06/2026\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if c, err := Load(filepath.Join(dir, "none.yaml"), false); err != nil || c == nil || len(c.Suppress) != 0 {
		t.Errorf("missing default file: %v %+v", err, c)
	}
	if _, err := Load(filepath.Join(dir, "none.yaml"), true); err == nil {
		t.Error("missing explicit file must be an error")
	}
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, true)
	if err != nil || c.Path != p || len(c.Suppress) != 3 {
		t.Errorf("load: %v %+v", err, c)
	}
	if _, err := Load(p+"x", false); err != nil {
		t.Errorf("missing default: %v", err)
	}
	if err := os.WriteFile(p, []byte("suppress: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, false); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("broken file: %v", err)
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, s string
		ok   bool
	}{
		{"*", "vmk1 -> 192.168.50.12 (esx02 vmk1)", true},
		{"/Net/*", "/Net/PVRDMAVmknic", true},
		{"esx0?", "esx01", true},
		{"esx0?", "esx010", false},
		{"hpc-node0[2]*", "hpc-node0[2] x", true},
		{"hpc-node0[2]*", "hpc-node02", false},
	} {
		if glob(c.p, c.s) != c.ok {
			t.Errorf("glob(%q, %q) != %v", c.p, c.s, c.ok)
		}
	}
}
