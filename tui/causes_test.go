package tui

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The host screen draws a consequence under its cause and previews the
// fix plan; f opens the whole plan; the finding screen names the cause.
func TestHostScreenCauseTreeAndPlan(t *testing.T) {
	m := newTestModel(t, 120, 30, func(o *Options) {
		o.Analyze = func(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
			rep, fleet := testAnalyze(rs)
			for _, r := range rs {
				if r.Host != "esx02" {
					continue
				}
				cons := checks.Finding{RuleID: "TEST_HCA", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx02",
					Subject: "hpc-node04 (PVRDMA adapter 0)", Message: "hpc-node04 has no physical HCA behind its PVRDMA adapter",
					Fix:      "power-cycle hpc-node04",
					CausedBy: &checks.Cause{RuleID: "TEST_TCP_FALLBACK", Host: "esx02", Subject: "esx02 (hpc-node04)"},
					Evidence: []checks.Evidence{{Host: "esx02", Command: cmdProps, Line: 5, Text: "Physical HCA available:0"}}}
				res := checks.Result{Findings: append(append([]checks.Finding(nil), rep.Findings...), cons), Passed: rep.Passed}
				rep = report.Build(rs, fleet, res, nil, report.Meta{Source: rep.Source, Version: "test", Now: rep.GeneratedAt})
				rep.Plans = []checks.Plan{{Host: "esx02", Steps: []checks.PlanStep{
					{N: 1, Action: plan.KindInstallNIC, Text: "Install an RoCE NIC on esx02.",
						Resolves: []checks.Cause{{RuleID: "TEST_TCP_FALLBACK", Host: "esx02", Subject: "esx02 (hpc-node04)"}},
						Verify: []plan.Read{{Command: "esxcli rdma device list", On: "esxi", Expect: "vmrdma0 Active",
							Match: []plan.Match{{Row: "vmrdma0", Field: "State", Value: "Active"}}}}},
				}}}
			}
			return rep, fleet
		}
	})
	press(t, m, "j", "enter")
	scr := screen(m)
	mustContain(t, scr, "pvrdma-doctor › esx02", "TEST_TCP_FALLBACK", "└ TEST_HCA", "FIX PLAN for esx02", "1. Install an RoCE NIC on esx02.")
	press(t, m, "f")
	scr = screen(m)
	mustContain(t, scr, "esx02 › fix plan", "resolves: TEST_TCP_FALLBACK esx02 (hpc-node04)", "- `esxcli rdma device list` shows vmrdma0 Active")
	press(t, m, "esc", "j", "enter")
	mustContain(t, screen(m), "Caused by:", "TEST_TCP_FALLBACK esx02 (hpc-node04)")
}

// A consequence whose cause is a finding of another host (a guest's
// interface MTU under esx01's LOW_MTU) is not drawn under the row above it
// on esx01's screen, which it does not follow from.
func TestTreeRuleCauseOnAnotherHost(t *testing.T) {
	root := checks.Finding{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Status: checks.StatusFail, Host: "esx01", Subject: "hpc-node02 (PVRDMA adapter 0)"}
	guest := checks.Finding{RuleID: "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", Status: checks.StatusFail, Host: "hpc-node03", Subject: "vmw_pvrdma0"}
	low := checks.Finding{RuleID: "LOW_MTU", Status: checks.StatusFail, Host: "esx01", Subject: "hpc-node03 (PVRDMA adapter 0)",
		CausedBy: &checks.Cause{RuleID: guest.RuleID, Host: guest.Host, Subject: guest.Subject}}
	same := checks.Finding{RuleID: "TCP_FALLBACK", Status: checks.StatusFail, Host: "esx01", Subject: "esx01 (hpc-node02)",
		CausedBy: &checks.Cause{RuleID: root.RuleID, Host: root.Host, Subject: root.Subject}}
	s := &shared{rep: &report.Report{Findings: []checks.Finding{root, same, guest, low}},
		byHost: map[string][]checks.Finding{"esx01": {root, same, low}, "hpc-node03": {guest}}}
	if got := s.treeRule(same, "esx01"); got != "└ TCP_FALLBACK" {
		t.Errorf("same-host consequence: %q", got)
	}
	if got := s.treeRule(low, "esx01"); got != "← LOW_MTU" {
		t.Errorf("consequence of another host's finding: %q", got)
	}
	if got := s.treeRule(root, "esx01"); got != "PHYSICAL_HCA_UNAVAILABLE" {
		t.Errorf("root: %q", got)
	}
}
