package checks

import (
	"context"
	"reflect"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The data-path model changes nothing but speed: on every scenario, the
// rules give the same results with the model facts.Build derived once for
// the fleet as with one derived afresh for the run, and each host's path in
// the model is the one derived from that host alone.
func TestDataPathModelSameResults(t *testing.T) {
	for _, name := range fixtures.Names() {
		sc := fixtures.MustLoad(t, name)
		var targets []hostio.Target
		for _, h := range sc.Hosts {
			if h.Fault == "" {
				targets = append(targets, hostio.Target{Name: h.Name})
			}
		}
		results := collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true})
		built := facts.Build(results)
		// A fleet with the same hosts but no model of its own (as one
		// decoded from a bundle's facts.json): Run derives one.
		fresh := facts.Fleet{Hosts: append([]facts.Host(nil), built.Hosts...)}
		if built.DataPath() == fresh.DataPath() {
			t.Fatalf("%s: the copy shares the built fleet's model", name)
		}
		a, b := Run(&built), Run(&fresh)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: results differ between the built model and a fresh one:\nbuilt: %+v\nfresh: %+v", name, a, b)
		}
		if len(a.Findings)+len(a.Passed) == 0 {
			t.Errorf("%s: no results at all", name)
		}
		paths := built.DataPath()
		for i := range built.Hosts {
			// The measured pairs need the fleet (who owns each address):
			// PathOf alone has none, and only they can lower the MTU or
			// say the fabric was measured.
			got := *paths.Host(i)
			got.Pairs, got.MTU.Measured = nil, false
			if want := facts.PathOf(&built.Hosts[i]); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: fleet model %+v, host alone %+v", name, built.Hosts[i].Host, *paths.Host(i), want)
			}
		}
	}
}
