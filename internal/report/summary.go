package report

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// summarize computes every count of the report, for the fleet and each
// host, in one place: the JSON summary, the verdict lines, the host table
// and the TUI all read these numbers, so no two formats can disagree.
// Problems (critical, warning, info) leave out COLLECTION_FAILED findings,
// which are counted apart: they make a scan incomplete, not PVRDMA broken.
// A problem is a root cause unless another failing finding of the report
// causes it (checks.Finding.CausedBy); a cause that was suppressed leaves
// its consequences as root causes.
func summarize(r *Report) {
	idx := map[string]*Host{}
	for i := range r.Hosts {
		idx[r.Hosts[i].Host] = &r.Hosts[i]
	}
	for i := range r.Guests {
		idx[r.Guests[i].Host] = &r.Guests[i]
	}
	present := map[string]bool{}
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail {
			present[f.Key()] = true
		}
	}
	s := &r.Summary
	*s = Summary{}
	for _, h := range idx {
		h.Critical, h.Warning, h.Info, h.NotEvaluated, h.CollectionFailed, h.Consequences = 0, 0, 0, 0, 0, 0
		h.RootCauses = SeverityCounts{}
	}
	for _, f := range r.Findings {
		h := idx[f.Host]
		switch {
		case f.Status == checks.StatusNotEvaluated:
			s.NotEvaluated++
			if h != nil {
				h.NotEvaluated++
			}
			continue
		case f.Status != checks.StatusFail:
			continue
		case f.RuleID == checks.CollectionFailed:
			s.CollectionFailed++
			if h != nil {
				h.CollectionFailed++
			}
			continue
		}
		root := f.CausedBy == nil || !present[f.CausedBy.Key()]
		s.addSeverity(f.Severity, root)
		if h != nil {
			h.addSeverity(f.Severity, root)
		}
	}
	s.Hosts = len(r.Hosts)
	s.Guests = len(r.Guests)
	s.Passed = len(r.Passed)
	s.Suppressed = len(r.Suppressed)
	for _, h := range r.Hosts {
		switch h.Status {
		case "collected":
			s.HostsCollected++
		case "partial":
			s.HostsPartial++
		default:
			s.HostsNotCollected++
		}
	}
	for _, g := range r.Guests {
		switch g.Status {
		case "collected":
			s.GuestsCollected++
		case "partial":
			s.GuestsPartial++
		default:
			s.GuestsNotCollected++
		}
	}
}

func (c *SeverityCounts) add(sev checks.Severity) {
	switch sev {
	case checks.Critical:
		c.Critical++
	case checks.Warning:
		c.Warning++
	case checks.Info:
		c.Info++
	}
}

// tally counts one problem into a summary's or a host's counters.
func tally(crit, warn, info *int, roots *SeverityCounts, consequences *int, sev checks.Severity, root bool) {
	all := SeverityCounts{*crit, *warn, *info}
	all.add(sev)
	*crit, *warn, *info = all.Critical, all.Warning, all.Info
	if root {
		roots.add(sev)
	} else {
		*consequences++
	}
}

func (s *Summary) addSeverity(sev checks.Severity, root bool) {
	tally(&s.Critical, &s.Warning, &s.Info, &s.RootCauses, &s.Consequences, sev, root)
}

func (h *Host) addSeverity(sev checks.Severity, root bool) {
	tally(&h.Critical, &h.Warning, &h.Info, &h.RootCauses, &h.Consequences, sev, root)
}

// rootCounts renders the problems (groups of root causes) and the
// consequences for a verdict: "2 critical, 1 warning (root causes), 4
// consequences", or, when a problem was found on several subjects, "2
// critical (root causes; 1000 findings)". Information is no root cause
// of anything: it is counted apart, "1 warning (root cause), 2 info
// notes".
func rootCounts(problems, rc SeverityCounts, consequences int) string {
	n := problems.Critical + problems.Warning
	if n+problems.Info == 0 {
		if consequences > 0 {
			// Its findings follow from a root cause another host or
			// guest shows (a path blocked at a hop both hosts cross).
			return plural(consequences, "consequence", "consequences") + " of a root cause shown under another host"
		}
		return "no findings"
	}
	var parts []string
	if n > 0 {
		word := " (root causes"
		if n == 1 {
			word = " (root cause"
		}
		if found := rc.Critical + rc.Warning; found > n {
			word += fmt.Sprintf("; %d findings", found)
		}
		parts = append(parts, counts(problems.Critical, problems.Warning, 0)+word+")")
	}
	if problems.Info > 0 {
		parts = append(parts, plural(problems.Info, "info note", "info notes"))
	}
	if consequences > 0 {
		parts = append(parts, plural(consequences, "consequence", "consequences"))
	}
	return strings.Join(parts, ", ")
}

// RootFindings returns the failing findings that are root causes in this
// report, in report order; ConsequencesOf the findings nested under one.
func (r *Report) RootFindings() []checks.Finding {
	present := map[checks.Cause]bool{}
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail {
			present[checks.CauseOf(f)] = true
		}
	}
	var out []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail && (f.CausedBy == nil || !present[*f.CausedBy]) {
			out = append(out, f)
		}
	}
	return out
}

// allConsequences returns every finding that follows from f, directly or
// through another (a chain NO_RDMA_DEVICE -> TCP_FALLBACK ->
// VM_PEERS_WITHOUT_RDMA), depth first, each after its own cause.
func allConsequences(r *Report, f checks.Finding) []checks.Finding {
	var out []checks.Finding
	for _, c := range r.ConsequencesOf(f) {
		out = append(out, c)
		out = append(out, allConsequences(r, c)...)
	}
	return out
}

// ConsequencesOf returns the failing findings caused by f, in report order.
func (r *Report) ConsequencesOf(f checks.Finding) []checks.Finding {
	if x := r.index(); x != nil {
		return x.consequences(f)
	}
	return checks.Consequences(r.Findings, f.Key())
}

// RootsBySeverity groups the root causes by severity.
func (r *Report) RootsBySeverity() map[checks.Severity][]checks.Finding {
	m := map[checks.Severity][]checks.Finding{}
	for _, f := range r.RootFindings() {
		m[f.Severity] = append(m[f.Severity], f)
	}
	return m
}

// therefore is how a consequence is introduced under its cause.
func therefore(f checks.Finding) string {
	why := ""
	if f.CausedBy != nil {
		why = checks.CauseWhy(f.CausedBy.RuleID, f.RuleID)
	}
	if why == "" {
		return "and therefore"
	}
	return "and therefore (" + strings.TrimSuffix(why, ".") + ")"
}

// causeOrder orders findings the way every format shows them: each root
// cause (most severe first, then host, rule, subject) directly followed by
// the findings it causes, depth first; then the checks not evaluated.
func causeOrder(in []checks.Finding) []checks.Finding {
	fs := append([]checks.Finding(nil), in...)
	checks.SortFindings(fs)
	present := map[checks.Cause]bool{}
	for _, f := range fs {
		if f.Status == checks.StatusFail {
			present[checks.CauseOf(f)] = true
		}
	}
	effects := checks.IndexEffects(fs)
	out := make([]checks.Finding, 0, len(fs))
	var walk func(f checks.Finding)
	walk = func(f checks.Finding) {
		out = append(out, f)
		for _, c := range effects[checks.CauseOf(f)] {
			walk(c)
		}
	}
	for _, f := range fs {
		if f.Status == checks.StatusFail && (f.CausedBy == nil || !present[*f.CausedBy]) {
			walk(f)
		}
	}
	for _, f := range fs {
		if f.Status != checks.StatusFail {
			out = append(out, f)
		}
	}
	return out
}
