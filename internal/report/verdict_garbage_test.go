package report

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Hosts that answered every command with garbage: every check is not
// evaluated and none passed. The verdict must not say HEALTHY (issue #18).
func TestVerdictNothingEvaluatedIsNotHealthy(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected}, {Host: "esx02", Status: hostio.StatusCollected}}
	fleet := facts.Build(results)
	res := checks.Result{Findings: []checks.Finding{{RuleID: "LOW_MTU", Severity: checks.Warning, Status: checks.StatusNotEvaluated, Host: "esx01", Subject: "esx01", Message: "unparsable"}}}
	r := Build(results, &fleet, res, nil, Meta{Source: "test"})
	if strings.Contains(r.Verdict, "HEALTHY") || !strings.HasPrefix(r.Verdict, "NOTHING CHECKED: 2 of 2 hosts collected, but no check could be evaluated") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if r.VerdictClass() != "nothing_checked" {
		t.Errorf("class %q", r.VerdictClass())
	}
}
