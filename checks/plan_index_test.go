package checks

import (
	"strings"
	"testing"
)

// compareCauses orders causes exactly as their formatted keys sort
// (the order plans cite consequences in).
func TestCompareCausesIsKeyOrder(t *testing.T) {
	cs := []Cause{
		{"A", "h", "s"}, {"A", "h", ""}, {"A", "", "s"}, {"", "h", "s"}, {"A|h", "s", ""},
		{"AB", "h", "s"}, {"A", "hb", "s"}, {"A", "h", "sa"}, {"A", "h|s", ""}, {"B", "a", "a"},
		{"A", "h", "s|"}, {"A", "h", "s!"}, {"A!", "", ""}, {"", "", ""},
	}
	sign := func(n int) int { return max(-1, min(1, n)) }
	for _, a := range cs {
		for _, b := range cs {
			if got, want := sign(compareCauses(a, b)), strings.Compare(a.Key(), b.Key()); got != want {
				t.Errorf("compareCauses(%q, %q) = %d, keys compare %d", a.Key(), b.Key(), got, want)
			}
		}
	}
}

// The index links each finding to the findings it causes, in key order,
// and leaves out passes, suppressed findings and failures to collect.
func TestFindingIndex(t *testing.T) {
	root := Finding{RuleID: "NO_RDMA_DEVICE", Host: "esx01", Subject: "esx01", Status: StatusFail, Severity: Critical}
	c := causeOf(root)
	fs := []Finding{
		root,
		{RuleID: "TCP_FALLBACK", Host: "esx01", Subject: "vm2", Status: StatusFail, Severity: Critical, CausedBy: &c},
		{RuleID: "TCP_FALLBACK", Host: "esx01", Subject: "vm1", Status: StatusFail, Severity: Critical, CausedBy: &c},
		{RuleID: "TCP_FALLBACK", Host: "esx01", Subject: "vm3", Status: StatusFail, Severity: Critical, CausedBy: &c, Suppressed: true},
		{RuleID: "TCP_FALLBACK", Host: "esx01", Subject: "vm4", Status: StatusPass, CausedBy: &c},
		{RuleID: CollectionFailed, Host: "esx02", Subject: "esx02", Status: StatusFail, Severity: Critical},
	}
	x := newFindingIndex(fs)
	if len(x.byKey) != 3 {
		t.Errorf("indexed %d findings, want 3", len(x.byKey))
	}
	var got []string
	for _, f := range x.effects[c] {
		got = append(got, f.Subject)
	}
	if strings.Join(got, ",") != "vm1,vm2" {
		t.Errorf("effects of %s: %v, want vm1,vm2", c.Key(), got)
	}
}
