package checks

import (
	"context"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// mixedFleet is the mixed scenario collected in memory: five hosts (one
// refusing SSH) and their guests.
func mixedFleet(t testing.TB) *facts.Fleet {
	t.Helper()
	sc := fixtures.MustLoad(t, "mixed")
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name})
	}
	for _, g := range sc.Guests {
		targets = append(targets, hostio.Target{Name: g.Name, Role: hostio.RoleGuest})
	}
	fleet := facts.Build(collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true}))
	return &fleet
}

// withoutRule drops one rule's results from a result (and the rule's
// internal errors).
func withoutRule(fs []Finding, id string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.RuleID != id {
			out = append(out, f)
		}
	}
	return out
}

// A rule that panics fails alone: it is "not evaluated: internal error in
// RULE_ID" where it panicked (every host for a host rule that always
// panics, the one host for a rule that panics on one, every host it ran
// for for a fleet rule, the guest for a guest rule), the panic with its
// stack is an internal error of the run, and every other result is the
// same as without the rule.
func TestPanickingRuleFailsAlone(t *testing.T) {
	fleet := mixedFleet(t)
	base := RunRules(fleet, Rules())
	if len(base.Errors) != 0 {
		t.Fatalf("the catalogue itself panics: %+v", base.Errors)
	}
	var nilMap map[string]int
	cases := []struct {
		name  string
		rule  Rule
		hosts []string // where it must be not evaluated
	}{
		{"host rule, every host", Rule{ID: "INJECTED_PANIC", Scope: HostScope, Check: func(in *Input, r *Reporter) {
			r.Pass(in.Host.Host) // reported before the panic: dropped
			nilMap["x"]++
		}}, []string{"esx01", "esx02", "esx03", "esx04", "esx06"}},
		{"host rule, one host", Rule{ID: "INJECTED_PANIC", Scope: HostScope, Check: func(in *Input, r *Reporter) {
			if in.Host.Host == "esx03" {
				var p *facts.HostPath
				_ = p.Switch.Name
			}
			r.Pass(in.Host.Host)
		}}, []string{"esx03"}},
		{"fleet rule", Rule{ID: "INJECTED_PANIC", Scope: FleetScope, Check: func(in *Input, r *Reporter) {
			panic("injected")
		}}, []string{"esx01", "esx02", "esx03", "esx04", "esx06"}},
		{"guest rule", Rule{ID: "INJECTED_PANIC", Scope: GuestScope, Check: func(in *Input, r *Reporter) {
			if in.Guest.Guest == "hpc-node02" {
				panic("injected")
			}
			r.Pass(in.Guest.Guest)
		}}, []string{"hpc-node02"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rule := tc.rule
			rule.Severity = Critical
			res := RunRules(fleet, append(Rules(), &rule))
			if !reflect.DeepEqual(withoutRule(res.Findings, rule.ID), base.Findings) ||
				!reflect.DeepEqual(withoutRule(res.Passed, rule.ID), base.Passed) {
				t.Errorf("the other rules' results changed")
			}
			var got []string
			for _, f := range res.Findings {
				if f.RuleID != rule.ID || strings.Contains(f.Message, "host not collected") {
					continue // esx05 refuses SSH: not evaluated for that reason
				}
				if f.Status != StatusNotEvaluated || f.Message != "not evaluated: internal error in INJECTED_PANIC (please report it, with `pvrdma-doctor bundle`)" {
					t.Errorf("%s: %s %q", f.Host, f.Status, f.Message)
				}
				got = append(got, f.Host)
			}
			for _, f := range res.Passed {
				if f.RuleID == rule.ID && slices.Contains(tc.hosts, f.Host) {
					t.Errorf("%s: a pass reported before the panic was kept", f.Host)
				}
			}
			if !reflect.DeepEqual(got, tc.hosts) {
				t.Errorf("not evaluated on %v, want %v", got, tc.hosts)
			}
			want := len(tc.hosts)
			if rule.Scope == FleetScope {
				want = 1
			}
			if len(res.Errors) != want {
				t.Fatalf("%d internal errors, want %d: %+v", len(res.Errors), want, res.Errors)
			}
			for _, ie := range res.Errors {
				if ie.Where != InRule || ie.RuleID != rule.ID || ie.Panic == "" || !strings.Contains(ie.Stack, "recover_test.go") {
					t.Errorf("internal error %+v", ie)
				}
			}
		})
	}
}

// A cause link that panics on one host leaves that host's findings
// unlinked (every one still reported, as a root cause) and links every
// other host's as before.
func TestPanickingCauseLinkFailsAlone(t *testing.T) {
	fleet := mixedFleet(t)
	base := RunRules(fleet, Rules())
	linked := 0
	for _, f := range base.Findings {
		if f.Host == "esx04" && f.CausedBy != nil {
			linked++
		}
	}
	if linked == 0 {
		t.Fatal("the scenario links no finding on esx04: the test proves nothing")
	}
	defer func(l func(*facts.Fleet, *facts.DataPath, []Finding)) { linker = l }(linker)
	linker = func(fleet *facts.Fleet, paths *facts.DataPath, fs []Finding) {
		for _, f := range fs {
			if f.Host == "esx04" && f.Status == StatusFail {
				panic("injected")
			}
		}
		linkCauses(fleet, paths, fs)
	}
	res := RunRules(fleet, Rules())
	if len(res.Findings) != len(base.Findings) || len(res.Passed) != len(base.Passed) {
		t.Fatalf("findings lost: %d/%d, passed %d/%d", len(res.Findings), len(base.Findings), len(res.Passed), len(base.Passed))
	}
	byKey := map[string]Finding{}
	for _, f := range base.Findings {
		byKey[f.Key()+"|"+string(f.Status)] = f
	}
	for _, f := range res.Findings {
		b, ok := byKey[f.Key()+"|"+string(f.Status)]
		switch {
		case !ok:
			t.Errorf("new finding %s", f.Key())
		case f.Host == "esx04" && f.CausedBy != nil:
			t.Errorf("%s: linked although its host's links failed", f.Key())
		case b.CausedBy != nil && b.CausedBy.Host != b.Host:
			// A link between a guest and its host needs the whole run.
			if f.CausedBy != nil {
				t.Errorf("%s: linked across hosts after a failure", f.Key())
			}
		case f.Host != "esx04" && !reflect.DeepEqual(f, b):
			t.Errorf("%s changed:\n%+v\n%+v", f.Key(), f, b)
		}
	}
	if len(res.Errors) != 1 || res.Errors[0].Where != InCauses || res.Errors[0].Host != "esx04" ||
		!strings.Contains(res.Errors[0].Message, "internal error in the cause links of esx04") {
		t.Errorf("internal errors %+v", res.Errors)
	}
}

// A plan contribution that panics costs its finding its planned step,
// nothing else: the finding gets its own fix as a step, every other plan
// and step is built, and the run records the internal error.
func TestPanickingPlanBuilderFailsAlone(t *testing.T) {
	fleet := mixedFleet(t)
	res := RunRules(fleet, Rules())
	base, errs := PlansChecked(fleet, res.Findings)
	if len(errs) != 0 || PlanFor(base, "esx02") == nil || len(base) < 3 {
		t.Fatalf("baseline: %d plans, errors %+v", len(base), errs)
	}
	rule := catalogue["PVRDMA_FIREWALL_CLOSED"]
	defer func(orig func(*planner, Finding)) { rule.Plan = orig }(rule.Plan)
	orig := rule.Plan
	rule.Plan = func(p *planner, f Finding) {
		if p.subject == "esx02" {
			p.add(plan.PhaseHost, plan.Investigate{Note: "half a contribution"}, f)
			panic("injected")
		}
		orig(p, f)
	}
	got, errs := PlansChecked(fleet, res.Findings)
	for _, b := range base {
		if b.Host == "esx02" {
			continue
		}
		if g := PlanFor(got, b.Host); g == nil || !reflect.DeepEqual(*g, b) {
			t.Errorf("%s's plan changed", b.Host)
		}
	}
	p := PlanFor(got, "esx02")
	if p == nil {
		t.Fatal("esx02 lost its plan")
	}
	var own bool
	for _, st := range p.Steps {
		if inv, ok := st.Params.(plan.Investigate); ok && inv.Note == "half a contribution" {
			t.Errorf("the failed contribution's half-made step stayed: %+v", st)
		}
		for _, c := range st.Resolves {
			if c.RuleID == "PVRDMA_FIREWALL_CLOSED" && st.Action == plan.KindFollowFix {
				own = true
			}
		}
	}
	if !own {
		t.Errorf("the firewall finding has no step of its own fix: %+v", p.Steps)
	}
	if len(errs) != 1 || errs[0].Where != InPlan || errs[0].Host != "esx02" || errs[0].RuleID != "PVRDMA_FIREWALL_CLOSED" || errs[0].Stack == "" {
		t.Errorf("internal errors %+v", errs)
	}
	if got2 := Plans(fleet, res.Findings); !reflect.DeepEqual(got2, got) {
		t.Errorf("Plans differs from PlansChecked")
	}
}
