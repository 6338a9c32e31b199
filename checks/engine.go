// Package checks is the rule engine: each rule reads typed facts (never raw
// text) and reports findings that point at their evidence. A rule whose
// inputs are missing reports "not evaluated" with the reason, never a pass.
package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/parallel"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Severity of a finding.
type Severity string

// Severities, most severe first.
const (
	Critical Severity = "critical"
	Warning  Severity = "warning"
	Info     Severity = "info"
)

// Rank orders severities: critical 3, warning 2, info 1, unknown 0.
func (s Severity) Rank() int {
	switch s {
	case Critical:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// ParseSeverity accepts critical, warning, info (any case).
func ParseSeverity(s string) (Severity, error) {
	switch v := Severity(strings.ToLower(strings.TrimSpace(s))); v {
	case Critical, Warning, Info:
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q (want critical, warning or info)", s)
}

// Status of a rule result.
type Status string

// Result states.
const (
	StatusFail         Status = "fail"
	StatusNotEvaluated Status = "not_evaluated"
	StatusPass         Status = "pass"
)

// Evidence points at the exact line of a capture that shows the problem.
type Evidence struct {
	Host    string `json:"host"`
	Command string `json:"command"`
	Line    int    `json:"line,omitempty"`
	Text    string `json:"text,omitempty"`
	// Property is, for evidence read from vCenter, the property path and
	// value the line shows ("config.memoryAllocation.reservation = 0"):
	// what reports show and highlight instead of the whole JSON line.
	Property string `json:"property,omitempty"`
	// Note says what this evidence shows, when it is not obvious.
	Note string `json:"note,omitempty"`
}

// Finding is one rule result about one subject.
type Finding struct {
	RuleID   string     `json:"rule_id"`
	Severity Severity   `json:"severity"`
	Status   Status     `json:"status"`
	Host     string     `json:"host"`
	Subject  string     `json:"subject"`
	Message  string     `json:"message"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Fix is the exact remediation: a command to run or a setting to change.
	Fix string `json:"fix,omitempty"`
	// Suppressed is set when a suppression from the config file matched.
	Suppressed     bool   `json:"suppressed,omitempty"`
	SuppressReason string `json:"suppress_reason,omitempty"`
	// CausedBy names the finding this one follows from (nil for a root
	// cause); see causes.go.
	CausedBy *Cause `json:"caused_by,omitempty"`
}

// Key identifies a finding across runs (rule, host, subject).
func (f Finding) Key() string { return f.RuleID + "|" + f.Host + "|" + f.Subject }

// Scope says how often a rule runs: once per collected host, or once per
// scan.
type Scope string

// Scopes.
const (
	HostScope  Scope = "host"
	FleetScope Scope = "fleet"
	// GuestScope rules run once per scanned Linux guest (rules_guest.go).
	GuestScope Scope = "guest"
)

// Rule is one check of the catalogue (catalogue.go lists them all; each
// area's rules live in their own rules_AREA.go file, beside its test). The
// prose (Title, Why, Fix, Docs, Applies) comes from catalogue.yaml.
type Rule struct {
	ID       string
	Title    string
	Severity Severity
	// Why explains what breaks and why it matters.
	Why string
	// Fix is the general remediation; findings carry the specific command.
	Fix string
	// Docs are links to the sources of the rule.
	Docs []string
	// Applies names the ESXi versions the rule applies to (default:
	// pvrdmaReleases).
	Applies string
	// Scope: host rules (the default) run once per collected host, fleet
	// rules once per scan.
	Scope Scope
	// Needs are the inputs the rule reads. On a host where one of them was
	// not collected or not parsed, the engine reports the rule not
	// evaluated, once, with the reason (for the subject NeedsSubject, or the
	// host), and does not run Check there; a fleet rule's Check then only
	// sees the hosts that have them (Input.Ready).
	Needs        []hostio.Kind
	NeedsSubject string
	// ListedBy are the inputs that list the rule's subjects (listed.go):
	// where the rule reports nothing about a host and one of them is
	// missing, the engine reports it not evaluated there, with the reason.
	ListedBy []hostio.Kind
	// Check evaluates the rule.
	Check func(in *Input, r *Reporter)
	// Plan proposes the actions that resolve one of the rule's findings
	// (warning or above) in the plan of its host or guest (plan.go); nil:
	// the finding's own fix stands as a follow_fix step.
	Plan func(p *planner, f Finding)
	// PlanConsequences: the rule's findings need their own actions even
	// when another finding causes them (an adapter binds to the HCA only
	// at its next power-on); otherwise a consequence is resolved with its
	// cause.
	PlanConsequences bool
}

// Input is what a rule reads: the fleet and its data-path model, and for a
// host rule the host and its path.
type Input struct {
	Fleet *facts.Fleet
	Paths *facts.DataPath
	// Host and Path are set for host rules.
	Host *facts.Host
	Path *facts.HostPath
	// Ready, for fleet rules, lists the indexes (in Fleet.Hosts) of the
	// hosts where every need is available (every host when the rule has no
	// Needs).
	Ready []int
	// Guest is set for guest rules.
	Guest *facts.Guest
}

// CollectionFailed is the ID of the rule that reports what could not be
// collected. Its findings say the scan is incomplete, not that PVRDMA is
// degraded: it still runs on hosts that were not collected, fix plans and
// verdicts do not count it as a problem.
const CollectionFailed = "COLLECTION_FAILED"

// Reporter collects one rule's results.
type Reporter struct {
	rule    *Rule
	host    string
	results []Finding
}

// Fail reports a problem about subject on the reporter's host.
func (r *Reporter) Fail(subject, message, fix string, ev ...Evidence) {
	r.FailOn(r.host, subject, message, fix, ev...)
}

// FailOn reports a problem on a given host (for fleet rules).
func (r *Reporter) FailOn(host, subject, message, fix string, ev ...Evidence) {
	r.results = append(r.results, Finding{RuleID: r.rule.ID, Severity: r.rule.Severity, Status: StatusFail,
		Host: host, Subject: subject, Message: message, Fix: fix, Evidence: ev})
}

// FailSeverity reports a problem with a severity other than the rule's default.
func (r *Reporter) FailSeverity(sev Severity, host, subject, message, fix string, ev ...Evidence) {
	r.FailOn(host, subject, message, fix, ev...)
	r.results[len(r.results)-1].Severity = sev
}

// NotEvaluated reports that the rule could not be checked for subject.
func (r *Reporter) NotEvaluated(subject, why string) { r.NotEvaluatedOn(r.host, subject, why) }

// NotEvaluatedOn is NotEvaluated for a given host.
func (r *Reporter) NotEvaluatedOn(host, subject, why string) {
	r.results = append(r.results, Finding{RuleID: r.rule.ID, Severity: r.rule.Severity, Status: StatusNotEvaluated,
		Host: host, Subject: subject, Message: "not evaluated: " + why})
}

// Pass records that subject was checked and is fine.
func (r *Reporter) Pass(subject string) { r.PassOn(r.host, subject) }

// PassOn is Pass for a given host.
func (r *Reporter) PassOn(host, subject string) {
	r.results = append(r.results, Finding{RuleID: r.rule.ID, Severity: r.rule.Severity, Status: StatusPass, Host: host, Subject: subject})
}

// Ev builds evidence from a fact's Ref.
func Ev(host string, ref parse.Ref) Evidence {
	return Evidence{Host: host, Command: ref.Command, Line: ref.Line, Text: ref.Text, Property: ref.Property}
}

// Result is the outcome of running the catalogue on a fleet.
type Result struct {
	// Findings holds failures and not-evaluated results, most severe first.
	Findings []Finding `json:"findings"`
	// Passed holds the checks that passed.
	Passed []Finding `json:"passed"`
	// Errors are the panics the engine recovered (recover.go): a rule
	// that failed alone, a host's cause links or fix plan.
	Errors []InternalError `json:"internal_errors,omitempty"`
}

// Run evaluates every rule of the catalogue on the fleet.
func Run(fleet *facts.Fleet) Result {
	return RunRules(fleet, Rules())
}

// RunRules evaluates the given rules.
func RunRules(fleet *facts.Fleet, rules []*Rule) Result {
	paths := fleet.DataPath()
	// Each rule's results, then one slice of each kind of their size (a
	// fleet of 1,000 hosts passes 40,000 checks: growing slices of them
	// copied each several times).
	per := make([][]Finding, len(rules))
	perErrs := make([][]InternalError, len(rules))
	// Rules read the fleet and never change it: they run side by side, each
	// into its own slot, and their results are joined in catalogue order,
	// so the outcome is the same as one after the other.
	parallel.For(len(rules), 1, func(i int) {
		per[i] = evaluate(rules[i], fleet, paths, &perErrs[i])
	})
	var errs []InternalError
	n, passed := 0, 0
	for i := range rules {
		errs = append(errs, perErrs[i]...)
		n += len(per[i])
		for _, f := range per[i] {
			if f.Status == StatusPass {
				passed++
			}
		}
	}
	all := make([]Finding, 0, n)
	for _, fs := range per {
		all = append(all, fs...)
	}
	per = nil
	errs = append(errs, linkCausesSafely(fleet, paths, all)...)
	res := Result{Errors: errs}
	if passed > 0 {
		res.Passed = make([]Finding, 0, passed)
	}
	if n > passed {
		res.Findings = make([]Finding, 0, n-passed)
	}
	for _, f := range all {
		if f.Status == StatusPass {
			res.Passed = append(res.Passed, f)
		} else {
			res.Findings = append(res.Findings, f)
		}
	}
	SortFindings(res.Findings)
	SortFindings(res.Passed)
	return res
}

// SortFindings orders failures before not-evaluated, then by severity
// (most severe first), host, rule and subject.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if (a.Status == StatusFail) != (b.Status == StatusFail) {
			return a.Status == StatusFail
		}
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Subject < b.Subject
	})
}

// evaluate evaluates one rule: on every host for a host rule (a host not
// collected, or missing one of the rule's Needs, gets one not-evaluated
// result with the reason), once for a fleet rule.
func evaluate(rule *Rule, fleet *facts.Fleet, paths *facts.DataPath, errs *[]InternalError) []Finding {
	if rule.Scope == GuestScope {
		return evaluateGuests(rule, fleet, paths, errs)
	}
	if rule.Scope == FleetScope {
		rep := &Reporter{rule: rule}
		in := &Input{Fleet: fleet, Paths: paths}
		for i := range fleet.Hosts {
			h := &fleet.Hosts[i]
			if len(rule.Needs) > 0 {
				if ok, why := h.Available(rule.Needs...); !ok {
					rep.NotEvaluatedOn(h.Host, needsSubject(rule, h), why)
					continue
				}
			}
			in.Ready = append(in.Ready, i)
		}
		if ie := runCheck(rule, in, rep); ie != nil {
			// The rule failed as a whole: not evaluated on every host it ran for.
			*errs = append(*errs, *ie)
			for _, i := range in.Ready {
				if h := &fleet.Hosts[i]; h.Status != hostio.StatusNotCollected {
					rep.NotEvaluatedOn(h.Host, needsSubject(rule, h), internalWhy(rule.ID))
				}
			}
			return rep.results
		}
		for _, i := range in.Ready {
			h := &fleet.Hosts[i]
			if len(rule.ListedBy) > 0 && saidNothing(rep.results, h.Host) {
				if ok, why := listedOn(rule.ListedBy, fleet, paths, i); !ok {
					rep.NotEvaluatedOn(h.Host, needsSubject(rule, h), why)
				}
			}
		}
		return rep.results
	}
	// One reporter for every host: its results are the rule's, appended
	// once (a reporter per host copied them all again into the rule's).
	rep := &Reporter{rule: rule}
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		rep.host = h.Host
		start := len(rep.results)
		switch {
		case h.Status == hostio.StatusNotCollected && rule.ID != CollectionFailed:
			rep.NotEvaluated(h.Host, "host not collected: "+h.Reason)
		default:
			if len(rule.Needs) > 0 {
				if ok, why := h.Available(rule.Needs...); !ok {
					rep.NotEvaluated(needsSubject(rule, h), why)
					break
				}
			}
			if ie := runCheck(rule, &Input{Fleet: fleet, Paths: paths, Host: h, Path: paths.Host(i)}, rep); ie != nil {
				*errs = append(*errs, *ie)
				rep.NotEvaluated(needsSubject(rule, h), internalWhy(rule.ID))
				break
			}
			if len(rule.ListedBy) > 0 && len(rep.results) == start {
				if ok, why := listedOn(rule.ListedBy, fleet, paths, i); !ok {
					rep.NotEvaluated(needsSubject(rule, h), why)
				}
			}
		}
	}
	return rep.results
}

// needsSubject is the subject of a rule's "inputs missing" result.
func needsSubject(rule *Rule, h *facts.Host) string {
	if rule.NeedsSubject != "" {
		return rule.NeedsSubject
	}
	return h.Host
}

// evs turns refs into one host's output into evidence.
func evs(host string, refs []parse.Ref) []Evidence {
	out := make([]Evidence, 0, len(refs))
	for _, ref := range refs {
		out = append(out, Ev(host, ref))
	}
	return out
}
