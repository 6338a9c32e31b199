package checks

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
)

// The per-run memo changes nothing but speed: every rule gives the same
// results with it (inside RunRules) as without it, and it does not outlive
// the run.
func TestRunMemoSameResults(t *testing.T) {
	var hosts []facts.Host
	for i := range 6 {
		h := goodHost(fmt.Sprintf("esx%02d", i), fmt.Sprintf("192.168.50.%d", 10+i))
		if i%3 == 0 { // some peers with a lower path MTU, some probes failing
			h.Vmknics[1].MTU = 1500
			h.DVSwitches[0].MTU = 1500
		}
		addPings(&h, fmt.Sprintf("192.168.50.%d", 10+(i+1)%6), true, i%2 == 0)
		hosts = append(hosts, h)
	}
	fleet := &facts.Fleet{Hosts: hosts}
	for _, rule := range Rules() {
		var plain []Finding
		if rule.Fleet != nil {
			rep := &Reporter{rule: rule}
			rule.Fleet(fleet, rep)
			plain = rep.results
		} else {
			for i := range fleet.Hosts {
				rep := &Reporter{rule: rule, host: fleet.Hosts[i].Host}
				rule.Host(&fleet.Hosts[i], fleet, rep)
				plain = append(plain, rep.results...)
			}
		}
		res := RunRules(fleet, []*Rule{rule})
		memo := append(append([]Finding(nil), res.Findings...), res.Passed...)
		sorted := append([]Finding(nil), plain...)
		SortFindings(sorted)
		var f, p []Finding
		for _, x := range sorted {
			if x.Status == StatusPass {
				p = append(p, x)
			} else {
				f = append(f, x)
			}
		}
		if !reflect.DeepEqual(append(f, p...), memo) {
			t.Errorf("%s: results differ with the run memo:\nplain: %+v\nmemo:  %+v", rule.ID, append(f, p...), memo)
		}
	}
	if memoOf(fleet) != nil {
		t.Error("memo outlived RunRules")
	}
}
