package report

import "github.com/pvrdma-doctor/pvrdma-doctor/checks"

// reportIndex is a report's findings and groups indexed once, when the
// report is accounted: each finding's consequences (by typed cause key)
// and the group of each root finding. A report whose findings or groups
// were changed since (a test building one by hand) is read without it.
type reportIndex struct {
	findings []checks.Finding // what was indexed
	groups   []Group
	effects  map[checks.Cause][]int // a cause -> its consequences, in report order
	group    map[string]int         // finding key -> index in groups
}

func newReportIndex(r *Report) *reportIndex {
	x := &reportIndex{findings: r.Findings, groups: r.Groups, effects: map[checks.Cause][]int{}, group: map[string]int{}}
	for i, f := range r.Findings {
		if f.Status == checks.StatusFail && f.CausedBy != nil {
			x.effects[*f.CausedBy] = append(x.effects[*f.CausedBy], i)
		}
	}
	for i, g := range r.Groups {
		for _, k := range g.Findings {
			if _, ok := x.group[k]; !ok {
				x.group[k] = i
			}
		}
	}
	return x
}

// index is the report's index, or nil when its findings or groups are no
// longer the ones indexed.
func (r *Report) index() *reportIndex {
	x := r.idx
	if x == nil || !sameSlice(x.findings, r.Findings) || !sameSlice(x.groups, r.Groups) {
		return nil
	}
	return x
}

// consequences are the failing findings caused by f, in report order
// (read from the findings themselves, as they are now).
func (x *reportIndex) consequences(f checks.Finding) []checks.Finding {
	is := x.effects[checks.CauseOf(f)]
	if len(is) == 0 {
		return nil
	}
	out := make([]checks.Finding, 0, len(is))
	for _, i := range is {
		if c := x.findings[i]; c.Status == checks.StatusFail && c.CausedBy != nil && *c.CausedBy == checks.CauseOf(f) {
			out = append(out, c)
		}
	}
	return out
}

// sameSlice reports whether a and b are the same slice (same first
// element, same length).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
