package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// fleetReport is a report of n hosts with perHost findings each; name is
// the first host's first VM.
func fleetReport(n, perHost int, name string) *Report {
	var rs []hostio.HostResult
	var fs []checks.Finding
	for i := range n {
		host := fmt.Sprintf("esx%04d", i)
		rs = append(rs, hostio.HostResult{Host: host, Status: hostio.StatusCollected,
			Captures: []hostio.Capture{{Host: host, Command: "esxcli vm process list", Status: hostio.StatusCollected}}})
		for j := range perHost {
			vm := fmt.Sprintf("vm-%d-%d", i, j)
			if i == 0 && j == 0 {
				vm = name
			}
			fs = append(fs, checks.Finding{RuleID: "TCP_FALLBACK", Severity: checks.Critical, Status: checks.StatusFail, Host: host,
				Subject: vm + " (PVRDMA adapter 0)", Message: vm + " falls back to TCP", Fix: "power-cycle " + vm,
				Evidence: []checks.Evidence{{Host: host, Command: "esxcli vm process list", Line: 1, Text: vm}}})
		}
	}
	return Build(rs, &facts.Fleet{}, checks.Result{Findings: fs}, nil, Meta{Source: "test", Now: time.Unix(0, 0)})
}

func TestForHumansCopiesAndLeavesMachineFormatsExact(t *testing.T) {
	const pwned = "vm\x1b]0;PWNED\x07"
	r := fleetReport(2, 2, pwned)
	h := ForHumans(r)
	if h == r || h.Findings[0].Message == r.Findings[0].Message {
		t.Fatal("ForHumans did not make a cleaned copy")
	}
	if !strings.Contains(r.Findings[0].Message, "\x1b") || !strings.Contains(h.Findings[0].Message, `vm\x1b]0;PWNED\x07`) {
		t.Fatalf("original %q, copy %q", r.Findings[0].Message, h.Findings[0].Message)
	}
	var b bytes.Buffer
	WriteJSON(&b, r)
	if !strings.Contains(b.String(), `vm\u001b]0;PWNED\u0007`) {
		t.Error("JSON lost the exact name")
	}
	if clean := fleetReport(2, 2, "vm"); ForHumans(clean) != clean {
		t.Error("a clean report is copied")
	}
	if ForHumans(nil) != nil {
		t.Error("nil")
	}
}

// BenchmarkTextReport1000Hosts is the text report of 1,000 hosts with 20
// findings each, the clean copy (ForHumans) included.
func BenchmarkTextReport1000Hosts(b *testing.B) {
	r := fleetReport(1000, 20, "vm\x1b]0;PWNED\x07")
	for b.Loop() {
		WriteText(io.Discard, r, TextOptions{})
	}
}

// BenchmarkForHumans1000Hosts is the clean copy alone: of a report with
// one hostile name, and of one without (checked, not copied).
func BenchmarkForHumans1000Hosts(b *testing.B) {
	for _, name := range []string{"vm\x1b]0;PWNED\x07", "vm"} {
		r := fleetReport(1000, 20, name)
		b.Run(fmt.Sprintf("hostile=%t", name != "vm"), func(b *testing.B) {
			for b.Loop() {
				ForHumans(r)
			}
		})
	}
}

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
