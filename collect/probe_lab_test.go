package collect_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
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
// adds the search's one-packet tries, smallest first, SearchWidth at a
// time: a switch port at 1500 is exact after one round (1472 passes, 1473
// is lost), each try's capture saying its round; the budget cuts pairs and
// says so on the hosts that lost some.
func TestAdaptiveProbesAndBudget(t *testing.T) {
	fl, ts := probeFleet(t, 4)
	res := collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesAll})
	// esx0001: to esx0002 blocked (1 + search), to esx0003 and esx0004 one probe each.
	got := probes(res[0])
	want := []string{"vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.6"}
	// Three pairs share 8 sessions: 2 tries at a time.
	for _, s := range []string{"56", "479", "904", "1328", "1472", "1473"} {
		want = append(want, "vmkping -I vmk1 -c 1 -W 1 -d -s "+s+" 192.168.50.6")
	}
	want = append(want, "vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.7", "vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.8")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("esx0001 sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range res[0].Captures {
		if c.Kind != catalog.KindVmkping {
			continue
		}
		if wantRound := map[bool]int{true: 1, false: 0}[strings.Contains(c.Command, " -c 1 ")]; c.Round != wantRound {
			t.Errorf("%s: round %d, want %d", c.Command, c.Round, wantRound)
		}
		if err := collect.CheckAllowed(c.Command); err != nil {
			t.Error(err)
		}
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

// A scan whose probes find blocked paths spends at most MaxSearchRounds
// rounds of probe waits per pair, counted from the captures (each try says
// its round; a round with a lost try waits once): switch ports at 1500 and
// 4321, a mid-path link at 7777 and a vmknic that refuses above 3000, every
// ordered pair probed, each path MTU exact.
func TestBlockedPathsTakeAtMostThreeRounds(t *testing.T) {
	fl, net, err := fixtures.PathLab(6, map[int]int{1: 1500, 3: 4321})
	if err != nil {
		t.Fatal(err)
	}
	net.LossWait = time.Millisecond
	net.Limit("esx0001", "esx0006", fixtures.Link{Name: "wan", MTU: 7777})
	end, _ := net.End("192.168.50.9") // esx0005
	end.MTU = 3000
	var ts []hostio.Target
	for _, h := range fl.Hosts {
		ts = append(ts, hostio.Target{Name: h.Name})
	}
	res := collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesAll})
	fleet := facts.Build(res)
	pairs := fleet.DataPath().Pairs()
	if len(pairs) != 30 {
		t.Fatalf("%d pairs measured, want 30", len(pairs))
	}
	rounds := map[int]int{}
	for _, pp := range pairs {
		want := 0
		for _, h := range fl.Hosts {
			if h.Name == pp.From {
				e := "192.168.50." + strconv.Itoa(4+hostNumber(h.Name))
				want, _ = net.PathMTU(e, pp.Target)
			}
		}
		if pp.MTU != want || want < 9000 && !pp.Exact {
			t.Errorf("%s -> %s: measured %d (exact %v), the network carries %d", pp.From, pp.To, pp.MTU, pp.Exact, want)
		}
		waits := map[int]bool{}
		for _, p := range pp.Probes {
			if collect.IntFlag(p.Command, "-c") == 1 && p.Failed() && !p.MessageTooLong {
				waits[p.Round] = true
			}
		}
		if pp.Rounds > collect.MaxSearchRounds || len(waits) > pp.Rounds || want < 9000 && pp.Rounds == 0 {
			t.Errorf("%s -> %s: %d rounds, %d of them waiting for a lost try", pp.From, pp.To, pp.Rounds, len(waits))
		}
		rounds[pp.Rounds]++
	}
	// The 1500 port and the refusing vmknic (a peer's configured size is
	// the hint) take one round; 4321 and 7777 take more.
	t.Logf("pairs by rounds: %v", rounds)
	if rounds[0] == 0 || rounds[1] == 0 || rounds[2]+rounds[3] == 0 {
		t.Errorf("pairs by rounds: %v", rounds)
	}
}

func hostNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "esx"))
	return n
}
