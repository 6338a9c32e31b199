package collect_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// probeFleet is n healthy hosts on a modelled network whose esx0002 port
// carries 1500-byte frames.
func probeFleet(t *testing.T, n int) (*fixtures.Scenario, []hostio.Target) {
	t.Helper()
	fl, net, err := fixtures.PathLab(n, map[int]int{1: 1500})
	if err != nil {
		t.Fatal(err)
	}
	net.LossWait = 1
	var ts []hostio.Target
	for _, h := range fl.Hosts {
		ts = append(ts, hostio.Target{Name: h.Name})
	}
	return fl, ts
}

func probes(r hostio.HostResult) []string {
	var out []string
	for _, c := range r.Captures {
		if c.Kind == catalog.KindVmkping {
			out = append(out, c.Command)
		}
	}
	return out
}

// A healthy pair costs one probe of the configured size; a blocked one
// adds the search's one-packet tries; the budget cuts pairs and says so
// on the hosts that lost some.
func TestAdaptiveProbesAndBudget(t *testing.T) {
	fl, ts := probeFleet(t, 4)
	res := collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesAll})
	// esx0001: to esx0002 blocked (1 + search), to esx0003 and esx0004 one probe each.
	got := probes(res[0])
	if len(got) < 2+1+10 || len(got) > 2+1+collect.MaxSearchTries {
		t.Fatalf("esx0001 sent %d probes: %v", len(got), got)
	}
	if got[0] != "vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.6" || got[1] != "vmkping -I vmk1 -c 1 -W 1 -d -s 1472 192.168.50.6" {
		t.Errorf("first probes to the blocked peer: %v", got[:2])
	}
	for _, c := range got[1 : len(got)-2] {
		if !strings.Contains(c, " -c 1 -W 1 -d -s ") || !strings.HasSuffix(c, " 192.168.50.6") {
			t.Errorf("search try %q", c)
		}
	}
	if err := collect.CheckAllowed(got[2]); err != nil {
		t.Error(err)
	}
	// Budget: 4 pairs of 12, every host's next peer first.
	res = collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesAll, ProbeBudget: 4})
	total := 0
	for _, r := range res {
		n := 0
		for _, c := range probes(r) {
			if strings.Contains(c, " -c 3 ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s probed %d peers with budget 4, want 1", r.Host, n)
		}
		total += n
		if !strings.Contains(strings.Join(r.Notes, "\n"), "probe budget of 4 pairs for the fleet reached: 2 paths from this host to its peers not probed, 1 probed") {
			t.Errorf("%s notes: %v", r.Host, r.Notes)
		}
	}
	if total != 4 {
		t.Errorf("%d pairs probed", total)
	}
	// Off: nothing sent.
	res = collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesOff})
	for _, r := range res {
		if p := probes(r); len(p) > 0 {
			t.Errorf("--probes off sent %v", p)
		}
	}
}
