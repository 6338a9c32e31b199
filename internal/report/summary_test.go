package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// One summary for every format: the verdict, the JSON summary, the host
// counts, Markdown and HTML give the same numbers, COLLECTION_FAILED is
// counted apart, and consequences are counted apart from root causes.
func TestOneSummaryForEveryFormat(t *testing.T) {
	results := []hostio.HostResult{
		{Host: "esx01", Status: hostio.StatusPartial, Reason: "1 command failed"},
		{Host: "esx02", Status: hostio.StatusCollected},
	}
	root := checks.Finding{RuleID: "NO_RDMA_DEVICE", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx02", Subject: "esx02", Message: "no device"}
	cons := checks.Finding{RuleID: "TCP_FALLBACK", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx02", Subject: "esx02 (vm)", Message: "tcp",
		CausedBy: &checks.Cause{RuleID: "NO_RDMA_DEVICE", Host: "esx02", Subject: "esx02"}}
	warn := checks.Finding{RuleID: "LOW_MTU", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx01", Subject: "vm", Message: "mtu"}
	r := buildWith(results, cons, warn, root, collectionFailed("esx01", "`esxcli rdma device list` failed"))

	s := r.Summary
	if s.Critical != 2 || s.Warning != 1 || s.CollectionFailed != 1 || s.Consequences != 1 ||
		s.RootCauses != (SeverityCounts{Critical: 1, Warning: 1}) {
		t.Fatalf("summary %+v", s)
	}
	if h := r.Hosts[0]; h.Warning != 1 || h.CollectionFailed != 1 || h.Verdict != "DEGRADED: 1 warning (root cause)" {
		t.Errorf("esx01 %+v", h)
	}
	if h := r.Hosts[1]; h.Critical != 2 || h.Consequences != 1 || h.Verdict != "BROKEN: 1 critical (root cause), 1 consequence" {
		t.Errorf("esx02 %+v", h)
	}
	if !strings.HasPrefix(r.Verdict, "PVRDMA is BROKEN: 1 critical, 1 warning (root causes), 1 consequence on 2 hosts;") {
		t.Errorf("verdict %q", r.Verdict)
	}
	// The consequence comes right after its cause, whatever the input order.
	if r.Findings[0].RuleID != "NO_RDMA_DEVICE" || r.Findings[1].RuleID != "TCP_FALLBACK" {
		t.Errorf("order %s, %s", r.Findings[0].RuleID, r.Findings[1].RuleID)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string         `json:"verdict"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict != r.Verdict || doc.Summary["warning"] != float64(1) || doc.Summary["collection_failed"] != float64(1) ||
		doc.Summary["consequences"] != float64(1) {
		t.Errorf("JSON verdict %q summary %v", doc.Verdict, doc.Summary)
	}
	var txt, md, html bytes.Buffer
	if err := WriteText(&txt, r, TextOptions{Width: 200, Details: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), r.Verdict) || !strings.Contains(txt.String(), "esx02 — BROKEN: 1 critical (root cause), 1 consequence\n  ROOT CAUSES (1)") ||
		!strings.Contains(txt.String(), "and therefore") {
		t.Errorf("text:\n%s", txt.String())
	}
	// The table counts what the verdict counts: 1 critical, 1 warning (the
	// root causes), 2 findings that are root causes, 1 consequence.
	if !strings.Contains(md.String(), "| 1 | 1 | 0 | 2 | 1 |") {
		t.Errorf("markdown summary row:\n%s", md.String())
	}
	if !strings.Contains(html.String(), `<td class="num">1</td><td class="num">1</td><td class="num">0</td><td class="num">2</td><td class="num">1</td>`) {
		t.Errorf("html summary row")
	}
}

// Information is no root cause: the verdict counts it apart, as notes,
// and a host with notes only has no root cause.
func TestInfoNotesAreNotRootCauses(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected}, {Host: "esx02", Status: hostio.StatusCollected}}
	warn := checks.Finding{RuleID: "LOW_MTU", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx01", Subject: "vm", Message: "mtu"}
	note1 := checks.Finding{RuleID: "PFC_DISABLED", Severity: checks.Info, Status: checks.StatusFail, Host: "esx02", Subject: "vmnic5", Message: "unused"}
	note2 := checks.Finding{RuleID: "RDMA_DEVICE_DOWN", Severity: checks.Info, Status: checks.StatusFail, Host: "esx02", Subject: "vmrdma1", Message: "down"}
	r := buildWith(results, warn, note1, note2)
	if !strings.Contains(r.Verdict, "1 warning (root cause), 2 info notes on") || strings.Contains(r.Verdict, "info (root") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if h := r.Hosts[1]; strings.Contains(h.Verdict, "root cause") || !strings.Contains(h.Verdict, "2 info notes") {
		t.Errorf("esx02 verdict %q", h.Verdict)
	}
}
