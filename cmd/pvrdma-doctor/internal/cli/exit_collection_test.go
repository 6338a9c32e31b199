package cli

import (
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// An output that could not be parsed on a collected host is a
// COLLECTION_FAILED warning: counted apart from the problems (schema 1.2),
// it still exits 3 with the default --fail-on, and 0 with --fail-on critical.
func TestExitCodeCountsCollectionFailed(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected}}
	fleet := facts.Build(results)
	f := checks.Finding{RuleID: "COLLECTION_FAILED", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx01",
		Subject: "esxcli network nic list", Message: "output could not be parsed"}
	r := report.Build(results, &fleet, checks.Result{Findings: []checks.Finding{f}}, nil, report.Meta{Now: time.Unix(0, 0)})
	if r.Summary.Warning != 0 || r.Summary.CollectionFailed != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}
	if got := exitCodeFor(r, checks.Warning); got != ExitWarning {
		t.Errorf("exit %d, want %d", got, ExitWarning)
	}
	if got := exitCodeFor(r, checks.Critical); got != ExitOK {
		t.Errorf("--fail-on critical: exit %d, want %d", got, ExitOK)
	}
}

// A run in which a rule failed alone (a recovered panic) is incomplete:
// exit 5, the rule not evaluated with the reason, the other results kept;
// critical findings still win.
func TestExitCodeOfARuleThatFailedAlone(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected}}
	fleet := facts.Build(results)
	boom := &checks.Rule{ID: "INJECTED_PANIC", Severity: checks.Critical, Scope: checks.HostScope,
		Check: func(*checks.Input, *checks.Reporter) { panic("injected") }}
	rules := []*checks.Rule{boom}
	if r, ok := checks.Lookup("COLLECTION_FAILED"); ok {
		rules = append(rules, r)
	}
	res := checks.RunRules(&fleet, rules)
	r := report.Build(results, &fleet, res, nil, report.Meta{Now: time.Unix(0, 0)})
	if len(r.InternalErrors) != 1 || r.Summary.NotEvaluated != 1 || r.Summary.Passed != 1 {
		t.Fatalf("internal errors %+v, summary %+v", r.InternalErrors, r.Summary)
	}
	if got := exitCodeFor(r, checks.Warning); got != ExitIncomplete {
		t.Errorf("exit %d, want %d", got, ExitIncomplete)
	}
	if r.VerdictClass() != "incomplete" {
		t.Errorf("verdict %q", r.Verdict)
	}
	crit := checks.Finding{RuleID: "NO_RDMA_DEVICE", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx01", Subject: "esx01"}
	res.Findings = append(res.Findings, crit)
	if got := exitCodeFor(report.Build(results, &fleet, res, nil, report.Meta{Now: time.Unix(0, 0)}), checks.Warning); got != ExitCritical {
		t.Errorf("with a critical finding: exit %d, want %d", got, ExitCritical)
	}
}
