package checks

import (
	"fmt"
	"runtime/debug"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// A rule, a cause link or a plan builder that panics fails alone: the
// engine recovers, reports what could not be done (the rule "not
// evaluated: internal error in RULE_ID", a host's findings without their
// cause links, a host without its fix plan) and keeps everything else.
// Each recovered panic is an InternalError of the run: the report says the
// run is incomplete, and the stack goes to the debug log (analysis.Run).

// InternalError is a panic the engine recovered.
type InternalError struct {
	// Where is what failed: "rule", "cause links", "fix plan" or
	// "readiness".
	Where string `json:"where"`
	// RuleID is the rule whose check failed (Where "rule").
	RuleID string `json:"rule_id,omitempty"`
	// Host is the host or guest it failed on ("" for a fleet rule).
	Host string `json:"host,omitempty"`
	// Message says what the report lost, in the words the report shows.
	Message string `json:"message"`
	// Panic is the panic's value; Stack where it happened (debug log only).
	Panic string `json:"panic"`
	Stack string `json:"-"`
}

// Where an internal error happened.
const (
	InRule      = "rule"
	InCauses    = "cause links"
	InPlan      = "fix plan"
	InReadiness = "readiness"
)

// pleaseReport is how every internal error ends.
const pleaseReport = "please report it, with `pvrdma-doctor bundle`"

// internalWhy is the reason of a rule's "not evaluated" result after its
// check panicked.
func internalWhy(ruleID string) string {
	return fmt.Sprintf("internal error in %s (%s)", ruleID, pleaseReport)
}

// recovered turns a recovered panic value into an InternalError.
func recovered(v any, where, ruleID, host, message string) InternalError {
	return InternalError{Where: where, RuleID: ruleID, Host: host, Message: message,
		Panic: fmt.Sprint(v), Stack: string(debug.Stack())}
}

// runCheck runs one rule's check on in. When the check panics, the
// results it reported in this run are dropped (a half-run check may
// contradict itself) and the panic is returned.
func runCheck(rule *Rule, in *Input, rep *Reporter) (failed *InternalError) {
	n := len(rep.results)
	defer func() {
		if v := recover(); v != nil {
			rep.results = rep.results[:n]
			ie := recovered(v, InRule, rule.ID, rep.host, "not evaluated: "+internalWhy(rule.ID))
			failed = &ie
		}
	}()
	rule.Check(in, rep)
	return nil
}

// guarded runs fn; a panic in it becomes an InternalError (nil when fn
// returned normally).
func guarded(where, host, message string, fn func()) (failed *InternalError) {
	defer func() {
		if v := recover(); v != nil {
			ie := recovered(v, where, "", host, message)
			failed = &ie
		}
	}()
	fn()
	return nil
}

// linker links the causes of a run's findings (causes.go); a variable so
// that a test can make one host's links fail.
var linker = linkCauses

// linkCausesSafely links the causes of fs. When linking panics, it links
// again host by host (a host's findings and the links between them), so
// that only the failing host's findings are shown without their causes;
// the links between guests and their hosts need the whole run and are
// then left out.
func linkCausesSafely(fleet *facts.Fleet, paths *facts.DataPath, fs []Finding) []InternalError {
	type saved struct {
		by  *Cause
		sev Severity
	}
	before := make([]saved, len(fs))
	for i, f := range fs {
		before[i] = saved{f.CausedBy, f.Severity}
	}
	first := guarded(InCauses, "", "", func() { linker(fleet, paths, fs) })
	if first == nil {
		return nil
	}
	for i := range fs {
		fs[i].CausedBy, fs[i].Severity = before[i].by, before[i].sev
	}
	byHost := map[string][]int{}
	var hosts []string
	for i, f := range fs {
		if byHost[f.Host] == nil {
			hosts = append(hosts, f.Host)
		}
		byHost[f.Host] = append(byHost[f.Host], i)
	}
	var errs []InternalError
	for _, h := range hosts {
		idx := byHost[h]
		sub := make([]Finding, len(idx))
		for k, i := range idx {
			sub[k] = fs[i]
		}
		msg := fmt.Sprintf("internal error in the cause links of %s (%s): its findings are shown without their causes", h, pleaseReport)
		if ie := guarded(InCauses, h, msg, func() { linker(fleet, paths, sub) }); ie != nil {
			errs = append(errs, *ie)
			continue
		}
		for k, i := range idx {
			fs[i].CausedBy, fs[i].Severity = sub[k].CausedBy, sub[k].Severity
		}
	}
	if len(errs) == 0 {
		first.Message = fmt.Sprintf("internal error in the cause links (%s): guest findings are shown without their host-side causes", pleaseReport)
		errs = append(errs, *first)
	}
	return errs
}
