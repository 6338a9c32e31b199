package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// Grouped findings: the same problem (same rule, severity and cause, the
// same fix once the names of hosts, VMs and subjects are set aside) on 500
// VMs is one headline with its subjects listed, one fix, and the evidence
// of each subject one level down. The report keeps every finding (JSON
// "findings"); groups are added beside them (JSON "groups", since 1.4),
// and the verdict counts problems as groups.

// Group is one problem found on one or more subjects.
type Group struct {
	// ID is the group's anchor in HTML ("g-RULE-N").
	ID       string          `json:"id"`
	RuleID   string          `json:"rule_id"`
	Severity checks.Severity `json:"severity"`
	// Findings are the keys (checks.Finding.Key) of its findings, in
	// report order.
	Findings []string `json:"findings"`
	// Hosts are the hosts (or guests) of its findings, Subjects their
	// subjects, both in report order without repeats.
	Hosts    []string `json:"hosts"`
	Subjects []string `json:"subjects"`
	// Message and Fix are the first finding's; SameFix says whether every
	// finding has that fix word for word (else each keeps its own).
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	SameFix bool   `json:"same_fix"`
	// Consequences counts the findings that follow from its findings.
	Consequences int `json:"consequences"`

	key string
}

// Size is the number of findings in the group.
func (g Group) Size() int { return len(g.Findings) }

// Headline is the group's subjects in a line: "hpc-node02 (PVRDMA
// adapter 0)" or "vm-0001, vm-0002, vm-0003 and 497 more on 10 hosts".
func (g Group) Headline() string {
	s := nameList(g.Subjects, 3)
	if len(g.Hosts) > 1 {
		s += " on " + hostsNoun(g.RuleID, len(g.Hosts))
	}
	return s
}

// hostsNoun counts the machines a rule's findings are on: guests for a
// guest rule, hosts otherwise.
func hostsNoun(ruleID string, n int) string {
	if rule, ok := checks.Lookup(ruleID); ok && rule.Scope == checks.GuestScope {
		return plural(n, "guest", "guests")
	}
	return plural(n, "host", "hosts")
}

// namer rewrites the names a finding's text holds (hosts, guests,
// subjects, VMs, IPv4 addresses) to one placeholder, so that the same
// problem on two VMs gives the same text.
type namer struct{ r *strings.Replacer }

var ipv4 = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// norm is s with its names and addresses set aside.
func (n namer) norm(s string) string { return ipv4.ReplaceAllString(n.r.Replace(s), "\x00") }

func newNamer(r *Report, fs []checks.Finding) namer {
	set := map[string]bool{}
	addName := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= 3 {
			set[s] = true
		}
	}
	for _, h := range r.Entries() {
		addName(h.Host)
	}
	for _, f := range fs {
		addName(f.Host)
		addName(f.Subject)
		if vm, _, ok := strings.Cut(f.Subject, " ("); ok {
			addName(vm)
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	// Longest first: "esx010" before "esx01".
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	pairs := make([]string, 0, 2*len(names))
	for _, n := range names {
		pairs = append(pairs, n, "\x00")
	}
	return namer{strings.NewReplacer(pairs...)}
}

func (n namer) key(f checks.Finding) string {
	text := f.Fix
	if text == "" {
		text = f.Message
	}
	cause := ""
	if f.CausedBy != nil {
		cause = f.CausedBy.RuleID
	}
	return f.RuleID + "|" + string(f.Severity) + "|" + cause + "|" + n.norm(text)
}

// buildGroups groups the report's root causes (COLLECTION_FAILED apart:
// collectionFailures sums those up by cause).
func buildGroups(r *Report) []Group {
	roots := problemRoots(r)
	n := newNamer(r, roots)
	var out []Group
	idx := map[string]int{}
	effects := checks.IndexEffects(r.Findings)
	for _, f := range roots {
		k := n.key(f)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{ID: fmt.Sprintf("g-%s-%d", f.RuleID, i+1), RuleID: f.RuleID, Severity: f.Severity,
				Message: f.Message, Fix: f.Fix, SameFix: true, key: k})
		}
		g := &out[i]
		g.Findings = append(g.Findings, f.Key())
		if !contains(g.Hosts, f.Host) {
			g.Hosts = append(g.Hosts, f.Host)
		}
		if !contains(g.Subjects, f.Subject) {
			g.Subjects = append(g.Subjects, f.Subject)
		}
		if f.Fix != g.Fix {
			g.SameFix = false
		}
		g.Consequences += countConsequences(effects, f)
	}
	return out
}

// problemRoots are the failing root causes that are PVRDMA problems (not
// COLLECTION_FAILED), in report order.
func problemRoots(r *Report) []checks.Finding {
	var out []checks.Finding
	for _, f := range r.RootFindings() {
		if f.RuleID != checks.CollectionFailed {
			out = append(out, f)
		}
	}
	return out
}

func countConsequences(effects checks.Effects, f checks.Finding) int {
	n := 0
	for _, c := range effects[checks.CauseOf(f)] {
		n += 1 + countConsequences(effects, c)
	}
	return n
}

// GroupOf returns the group a finding belongs to (nil for a consequence,
// a finding not evaluated, or COLLECTION_FAILED).
func (r *Report) GroupOf(f checks.Finding) *Group {
	k := f.Key()
	if x := r.index(); x != nil {
		if i, ok := x.group[k]; ok {
			return &r.Groups[i]
		}
		return nil
	}
	for i := range r.Groups {
		if contains(r.Groups[i].Findings, k) {
			return &r.Groups[i]
		}
	}
	return nil
}

// FindingsOf returns the findings of a group, in report order.
func (r *Report) FindingsOf(g Group) []checks.Finding {
	want := map[string]bool{}
	for _, k := range g.Findings {
		want[k] = true
	}
	var out []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail && want[f.Key()] {
			out = append(out, f)
		}
	}
	return out
}

// hostGroups counts the distinct problems among one host's root causes,
// by severity: groups restricted to the host.
func hostGroups(r *Report, host string) SeverityCounts {
	var c SeverityCounts
	for _, g := range r.Groups {
		if contains(g.Hosts, host) {
			c.add(g.Severity)
		}
	}
	return c
}
