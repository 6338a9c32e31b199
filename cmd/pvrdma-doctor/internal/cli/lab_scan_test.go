package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

// scanLab starts the simulated lab for a scenario and scans it over SSH.
func scanLab(t *testing.T, sc *fixtures.Scenario, opts lab.Options, copts collect.Options) (*lab.Lab, *Analysis) {
	t.Helper()
	l := lab.StartTB(t, sc, opts)
	targets, runner := labTargets(l)
	copts.Runner = runner
	copts.Probes = true
	copts.Logger = slog.New(slog.DiscardHandler)
	p := &Pipeline{Targets: targets, Collect: copts, Meta: report.Meta{Source: "test", Now: time.Unix(0, 0)}}
	return l, scan.Run(context.Background(), p.scanOptions(context.Background(), nil)).Analysis
}

// Every scenario is scanned over real SSH and yields exactly the findings
// its scenario.yaml says it was designed to trigger.
func TestScenarioFindingsOverSSH(t *testing.T) {
	for _, name := range fixtures.Names() {
		t.Run(name, func(t *testing.T) {
			sc := loadScenario(t, name)
			_, a := scanLab(t, sc, lab.Options{}, collect.Options{})
			var want []string
			for _, e := range sc.Expect {
				want = append(want, fmt.Sprintf("%s %s %s [%s] <- %s", e.Rule, e.Host, e.Subject, e.Severity, e.CausedBy))
			}
			sort.Strings(want)
			var got []string
			for _, f := range a.Checks.Findings {
				if f.Status == checks.StatusFail {
					cause := ""
					if f.CausedBy != nil {
						cause = f.CausedBy.RuleID + " " + f.CausedBy.Subject
					}
					got = append(got, fmt.Sprintf("%s %s %s [%s] <- %s", f.RuleID, f.Host, f.Subject, f.Severity, cause))
				}
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings differ from scenario.yaml expect:\n got:\n  %s\n want:\n  %s",
					strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			for _, f := range a.Checks.Findings {
				if f.Status != checks.StatusFail || f.RuleID == "COLLECTION_FAILED" {
					continue
				}
				if len(f.Evidence) == 0 || f.Fix == "" {
					t.Errorf("%s on %s: finding without evidence or fix: %+v", f.RuleID, f.Host, f)
				}
				for _, e := range f.Evidence {
					if e.Host == "" || e.Command == "" {
						t.Errorf("%s on %s: evidence without host or command: %+v", f.RuleID, f.Host, e)
					}
				}
			}
			// One fix plan per host, as scenario.yaml says, and no two
			// steps of a plan act on one object in opposite ways.
			gotPlans := map[string][]string{}
			for _, p := range a.Report.Plans {
				for _, c := range checks.Contradictions(p) {
					t.Errorf("contradictory plan: %s", c)
				}
				for _, st := range p.Steps {
					gotPlans[p.Host] = append(gotPlans[p.Host], string(st.Action))
				}
				// A plan completes: VMs off once and on once, and a host put
				// in maintenance mode leaves it before anything powers on.
				acts := strings.Join(gotPlans[p.Host], " ")
				offs, ons := strings.Count(acts, "power_off_vms"), strings.Count(acts, "power_on_vms")
				if offs > 1 || offs != ons {
					t.Errorf("%s: VMs powered off %d times, on %d times", p.Host, offs, ons)
				}
				if strings.Contains(acts, "enter_maintenance") && (!strings.Contains(acts, "exit_maintenance") ||
					ons > 0 && strings.Index(acts, "exit_maintenance") > strings.Index(acts, "power_on_vms")) {
					t.Errorf("%s: maintenance mode not left before the power-on: %s", p.Host, acts)
				}
			}
			if fmt.Sprint(gotPlans) != fmt.Sprint(sc.Plans) && !(len(gotPlans) == 0 && len(sc.Plans) == 0) {
				t.Errorf("plans differ from scenario.yaml plans:\n got:  %v\n want: %v", gotPlans, sc.Plans)
			}
		})
	}
}

func TestDemoExitCodesAndJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "", "demo", "--scenario", "healthy", "--output", "json")
	if code != ExitOK {
		t.Fatalf("healthy: exit %d, stderr %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("healthy JSON: %v", err)
	}
	if r.SchemaVersion == "" || r.Summary.Critical+r.Summary.Warning != 0 || len(r.Hosts) != 2 {
		t.Errorf("healthy: %+v", r.Summary)
	}
	for _, h := range r.Hosts {
		if h.Status != hostio.StatusCollected || len(h.Commands) == 0 {
			t.Errorf("healthy host %s: %s with %d commands", h.Host, h.Status, len(h.Commands))
		}
	}

	code, out, _ = runCLI(t, "", "demo", "--output", "json")
	if code != ExitCritical {
		t.Errorf("mixed: exit %d, want %d", code, ExitCritical)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("mixed JSON: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		seen[f.RuleID] = true
		for _, field := range []string{f.RuleID, string(f.Severity), f.Host, f.Subject, f.Message} {
			if field == "" {
				t.Errorf("finding with an empty field: %+v", f)
			}
		}
	}
	for _, id := range []string{"PHYSICAL_HCA_UNAVAILABLE", "LOW_MTU", "TCP_FALLBACK"} {
		if !seen[id] {
			t.Errorf("mixed: rule %s did not fire", id)
		}
	}
	// esx05 refuses SSH: the simulated vCenter still gives its
	// configuration, so it is partial, and says why.
	var partial int
	for _, h := range r.Hosts {
		if h.Status == hostio.StatusPartial {
			partial++
			if h.Host != "esx05" || !strings.Contains(h.Reason, "connection refused") || !strings.Contains(h.Reason, "vCenter") {
				t.Errorf("host %s partial: %q", h.Host, h.Reason)
			}
			for _, c := range h.Commands {
				if strings.HasPrefix(c.Command, "vcenter ") && (c.Status != hostio.StatusCollected || c.Transport != "vcenter") {
					t.Errorf("%s: %+v", h.Host, c)
				}
			}
		}
	}
	if partial != 1 {
		t.Errorf("mixed: %d hosts partial, want 1 (esx05 refuses SSH, read from vCenter)", partial)
	}
	code, out, _ = runCLI(t, "", "demo", "--output", "json", "--no-vcenter")
	r = report.Report{}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitCritical {
		t.Fatalf("mixed --no-vcenter: exit %d, %v", code, err)
	}
	var notCollected int
	for _, h := range r.Hosts {
		if h.Status == hostio.StatusNotCollected {
			notCollected++
			if h.Reason == "" {
				t.Errorf("host %s not collected without a reason", h.Host)
			}
		}
	}
	if notCollected != 1 {
		t.Errorf("mixed --no-vcenter: %d hosts not collected, want 1 (esx05 refuses SSH)", notCollected)
	}

	if code, _, errOut := runCLI(t, "", "demo", "--scenario", "nope"); code != ExitUsage || !strings.Contains(errOut, "mixed") {
		t.Errorf("unknown scenario: exit %d, stderr %q", code, errOut)
	}
}

// A VM display name full of shell metacharacters is parsed, shown, and
// never reaches a command line: every command the hosts received is on the
// allowlist and carries none of it.
func TestHostileVMNameNeverReachesACommandLine(t *testing.T) {
	sc := loadScenario(t, "hostile")
	l, a := scanLab(t, sc, lab.Options{}, collect.Options{})
	var hostile string
	for _, h := range a.Fleet.Hosts {
		for _, vm := range h.VMs {
			if strings.ContainsAny(vm.DisplayName, "$;`|") {
				hostile = vm.DisplayName
			}
		}
	}
	if hostile == "" {
		t.Fatal("the hostile scenario should contain a VM whose name has shell metacharacters")
	}
	total := 0
	for _, h := range l.Hosts() {
		for _, cmd := range l.Stats(h.Name).Commands {
			total++
			if err := collect.CheckAllowed(cmd); err != nil {
				t.Errorf("%s received a command outside the allowlist: %v", h.Name, err)
			}
			for _, part := range []string{hostile, "reboot", "halt", "$(", "`", ";", "|"} {
				if strings.Contains(cmd, part) {
					t.Errorf("%s received %q containing %q", h.Name, cmd, part)
				}
			}
		}
	}
	if total < 4*len(collect.Stage1()) {
		t.Errorf("only %d commands reached the hosts", total)
	}
}

// A host that refuses the connection, one that rejects the password and one
// that never answers are "not collected" with the reason; the others are
// scanned normally.
func TestUnreachableHostsAreReportedAndTheScanGoesOn(t *testing.T) {
	sc := loadScenario(t, "mixed")
	_, a := scanLab(t, sc, lab.Options{Faults: map[string]lab.Fault{
		"esx01": {RejectAuth: true},
		"esx02": {Silent: true},
	}}, collect.Options{ConnectTimeout: 1500 * time.Millisecond})
	status := map[string]hostio.HostResult{}
	for _, r := range a.Results {
		status[r.Host] = r
	}
	for host, want := range map[string]string{
		"esx01": "authentication failed",
		"esx02": "timed out",
		"esx05": "connection refused",
	} {
		r := status[host]
		if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, want) {
			t.Errorf("%s: status %s, reason %q; want not_collected with %q", host, r.Status, r.Reason, want)
		}
	}
	for _, host := range []string{"esx03", "esx04"} {
		if r := status[host]; r.Status == hostio.StatusNotCollected || len(r.Captures) < len(collect.Stage1()) {
			t.Errorf("%s should have been collected: %s %q", host, r.Status, r.Reason)
		}
	}
	if !a.Report.Incomplete() {
		t.Error("the report should say the scan is incomplete")
	}
	var buf bytes.Buffer
	if err := report.WriteText(&buf, a.Report, report.TextOptions{Details: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "authentication failed") || !strings.Contains(buf.String(), "NOT CHECKED") {
		t.Errorf("text report does not say what was not checked and why:\n%s", buf.String())
	}
}
