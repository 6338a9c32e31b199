package checks

import (
	"strings"
	"testing"
)

func TestCatalogueMetadata(t *testing.T) {
	required := []string{"PHYSICAL_HCA_UNAVAILABLE", "LOW_MTU", "TCP_FALLBACK", "COLLECTION_FAILED", "NO_RDMA_DEVICE",
		"RDMA_DEVICE_DOWN", "RDMA_UPLINK_NOT_ON_DVS", "DVS_MULTIPLE_UPLINKS", "PVRDMA_VMKNIC_UNSET", "PVRDMA_FIREWALL_CLOSED",
		"MTU_MISMATCH", "PFC_DISABLED", "RDMA_ERRORS"}
	for _, id := range required {
		if _, ok := Lookup(id); !ok {
			t.Errorf("rule %s missing", id)
		}
	}
	for _, r := range Rules() {
		if len(r.Docs) == 0 || r.Applies == "" {
			t.Errorf("%s: no docs or applies", r.ID)
		}
		if strings.ToUpper(r.ID) != r.ID || strings.ContainsAny(r.ID, " -") {
			t.Errorf("%s: ID must be UPPER_SNAKE", r.ID)
		}
	}
}

// The catalogue refuses a rule without prose, prose without a rule, an
// unknown source and a misspelt key, naming what is wrong.
func TestBuildCatalogueRefusesMismatches(t *testing.T) {
	check := func(*Input, *Reporter) {}
	rule := func(id string) *Rule { return &Rule{ID: id, Severity: Warning, Check: check} }
	prose := "sources:\n  s: \"https://example.invalid/doc\"\nrules:\n  A:\n    title: t\n    why: w\n    fix: f\n    sources: [s]\n"
	m, err := buildCatalogue([]*Rule{rule("A")}, []byte(prose))
	if err != nil {
		t.Fatal(err)
	}
	if r := m["A"]; r.Applies != pvrdmaReleases || r.Scope != HostScope || len(r.Docs) != 1 || r.Docs[0] != "https://example.invalid/doc" || r.Title != "t" {
		t.Errorf("joined rule: %+v", r)
	}
	for _, c := range []struct {
		name  string
		rules []*Rule
		prose string
		want  string
	}{
		{"rule without prose", []*Rule{rule("A"), rule("B")}, prose, "rule B has no prose"},
		{"prose without rule", nil, prose, "prose for rules that do not exist: A"},
		{"unknown source", []*Rule{rule("A")}, strings.Replace(prose, "[s]", "[nope]", 1), `unknown source "nope"`},
		{"misspelt key", []*Rule{rule("A")}, strings.Replace(prose, "why:", "wyh:", 1), "wyh"},
		{"duplicate rule", []*Rule{rule("A"), rule("A")}, prose, "duplicate rule A"},
		{"incomplete rule", []*Rule{{ID: "A", Check: check}}, prose, "incomplete rule A"},
	} {
		if _, err := buildCatalogue(c.rules, []byte(c.prose)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
