package facts_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Build parses hosts on several goroutines: the fleet is the one built
// host by host, in the order given (run with -race too).
func TestBuildInParallelIsBuildHostByHost(t *testing.T) {
	var results []hostio.HostResult
	for _, name := range []string{"mixed", "healthy", "jumbodrop", "vmconfig", "edges"} {
		sc, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var targets []hostio.Target
		for _, h := range sc.Hosts {
			targets = append(targets, hostio.Target{Name: h.Name})
		}
		results = append(results, collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true})...)
	}
	if len(results) < 16 {
		t.Fatalf("%d hosts: too few to build in parallel", len(results))
	}
	got := facts.Build(results)
	var want []facts.Host
	for _, hr := range results {
		if hr.Role != hostio.RoleGuest {
			want = append(want, facts.BuildHost(hr))
		}
	}
	if len(got.Hosts) != len(want) {
		t.Fatalf("%d hosts, want %d", len(got.Hosts), len(want))
	}
	for i := range want {
		a, _ := json.Marshal(got.Hosts[i])
		b, _ := json.Marshal(want[i])
		if string(a) != string(b) {
			t.Fatalf("host %d (%s) differs built in parallel", i, want[i].Host)
		}
	}
}
