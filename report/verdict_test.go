package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

func buildWith(results []hostio.HostResult, findings ...checks.Finding) *Report {
	fleet := facts.Build(results)
	return Build(results, &fleet, checks.Result{Findings: findings}, nil, Meta{Source: "test", Version: "t", Now: time.Unix(0, 0)})
}

func collectionFailed(host, msg string) checks.Finding {
	return checks.Finding{RuleID: "COLLECTION_FAILED", Severity: checks.Warning, Status: checks.StatusFail, Host: host, Subject: host, Message: msg}
}

// No host collected (scan --hosts 127.0.0.1:1): the only warning is
// COLLECTION_FAILED, and the verdict must not call PVRDMA degraded.
func TestVerdictNothingCollected(t *testing.T) {
	r := buildWith([]hostio.HostResult{{Host: "127.0.0.1:1", Status: hostio.StatusNotCollected, Reason: "connection refused"}},
		collectionFailed("127.0.0.1:1", "127.0.0.1:1 was not collected: connection refused"))
	if !strings.HasPrefix(r.Verdict, "NOTHING CHECKED: 0 of 1 host could be collected") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if strings.Contains(r.Verdict, "DEGRADED") || strings.Contains(r.Verdict, "warning") {
		t.Errorf("verdict overstates what was checked: %q", r.Verdict)
	}
	if r.VerdictClass() != "nothing_checked" {
		t.Errorf("class %q", r.VerdictClass())
	}
}

// A partial host whose only finding is COLLECTION_FAILED is INCOMPLETE, and
// so is the fleet; the text counts partial hosts as reached, not collected.
func TestVerdictCollectionFailedIsIncomplete(t *testing.T) {
	results := []hostio.HostResult{
		{Host: "esx01", Status: hostio.StatusPartial, Reason: "1 command failed"},
		{Host: "esx02", Status: hostio.StatusCollected},
		{Host: "esx03", Status: hostio.StatusNotCollected, Reason: "connection refused"},
	}
	r := buildWith(results,
		collectionFailed("esx01", "`esxcli rdma device list` failed"),
		collectionFailed("esx03", "esx03 was not collected"))
	if got := r.Hosts[0].Verdict; !strings.HasPrefix(got, "INCOMPLETE: ") {
		t.Errorf("esx01 verdict %q, want INCOMPLETE", got)
	}
	if !strings.HasPrefix(r.Verdict, "No problem found, but the scan is INCOMPLETE: ") {
		t.Errorf("fleet verdict %q", r.Verdict)
	}
	if !strings.Contains(r.Verdict, "2 of 3 hosts reached (1 partially collected), 1 not collected") {
		t.Errorf("fleet verdict does not match the summary (collected %d, partial %d): %q",
			r.Summary.HostsCollected, r.Summary.HostsPartial, r.Verdict)
	}
	// Real problems still make it DEGRADED, counted without COLLECTION_FAILED.
	r = buildWith(results, collectionFailed("esx03", "esx03 was not collected"),
		checks.Finding{RuleID: "LOW_MTU", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx02", Subject: "vm"})
	if !strings.HasPrefix(r.Verdict, "PVRDMA is DEGRADED: 1 warning (root cause) on 1 host; ") {
		t.Errorf("fleet verdict %q", r.Verdict)
	}
	all := buildWith([]hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected}})
	if !strings.HasPrefix(all.Verdict, "PVRDMA looks HEALTHY: no findings; 1 of 1 host collected") {
		t.Errorf("healthy verdict %q", all.Verdict)
	}
}
