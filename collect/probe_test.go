package collect

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// limitProbe is a path that carries payloads up to pass and refuses
// (locally) those above refuse (0: never).
func limitProbe(pass, refuse int, calls *int) ProbeFunc {
	return func(_ context.Context, payload int) (Try, error) {
		*calls++
		if refuse > 0 && payload > refuse {
			return Try{TooLong: true}, nil
		}
		return Try{Passed: payload <= pass}, nil
	}
}

func TestSearchPathMTUFindsEveryLimitExactly(t *testing.T) {
	for pass := 0; pass < MaxPayload; pass += 37 {
		for _, p := range []int{pass, 1472, 1471, 1473, 56, 55, 57, 8000, 8971, 1} {
			calls := 0
			s := SearchPathMTU(context.Background(), MaxPayload, limitProbe(p, 0, &calls))
			want := p
			if p < MinPayload && p < StandardPayload {
				// Below the minimum probe nothing is searched: unreachable.
				want = 0
			}
			if s.Largest != want {
				t.Fatalf("limit %d: found %d (tries %v)", p, s.Largest, s.Tries)
			}
			if calls > MaxSearchTries || len(s.Tries) != calls {
				t.Fatalf("limit %d: %d tries (max %d)", p, calls, MaxSearchTries)
			}
			if want > 0 && s.SmallestLost != want+1 {
				t.Fatalf("limit %d: smallest lost %d", p, s.SmallestLost)
			}
		}
	}
}

func TestSearchPathMTULocalRefusalAndStop(t *testing.T) {
	calls := 0
	s := SearchPathMTU(context.Background(), 8972, limitProbe(8972, 1472, &calls))
	if s.Largest != 1472 || !s.Tries[len(s.Tries)-1].TooLong && s.Tries[0].TooLong {
		t.Errorf("local MTU 1500: %+v", s)
	}
	// A configured size of 1472 that fails goes straight to the minimum.
	calls = 0
	s = SearchPathMTU(context.Background(), 1472, limitProbe(1400, 0, &calls))
	if s.Largest != 1400 || s.Tries[0].Payload != MinPayload {
		t.Errorf("1472 lost: %+v", s)
	}
	boom := errors.New("connection lost")
	n := 0
	s = SearchPathMTU(context.Background(), 8972, func(context.Context, int) (Try, error) {
		n++
		if n == 3 {
			return Try{}, boom
		}
		return Try{Passed: true}, nil
	})
	if !errors.Is(s.Stopped, boom) || len(s.Tries) != 2 {
		t.Errorf("stop: %+v", s)
	}
}

// planPairs is every host's pairs, in the fleet's ring-distance order.
func planPairs(names []string, src map[string]probeSource, mode string, n, budget int) (kept []ProbePair, dropped map[string]int) {
	ends := probeEnds(names, src)
	dropped = map[string]int{}
	byHost := map[string][]ProbePair{}
	for _, h := range ends {
		byHost[h], dropped[h], _ = pairsFor(h, ends, src, mode, n, budget)
	}
	for d := 0; d < len(ends); d++ {
		for _, h := range ends {
			if d < len(byHost[h]) {
				kept = append(kept, byHost[h][d])
			}
		}
	}
	return kept, dropped
}

func TestPlanPairs(t *testing.T) {
	names := []string{"d", "a", "c", "b", "e"}
	src := map[string]probeSource{}
	for i, n := range names {
		src[n] = probeSource{Vmknic: "vmk1", IP: fmt.Sprintf("10.0.0.%d", i+1)}
	}
	src["e"] = probeSource{} // no address: neither probes nor is probed
	ring, _ := planPairs(names, src, ProbesRing, 1, 0)
	if got := fmt.Sprint(ring[0].From, ring[0].To, " ", ring[3].From, ring[3].To, " ", len(ring)); got != "ab da 4" {
		t.Errorf("ring: %s", got)
	}
	all, _ := planPairs(names, src, ProbesAll, 1, 0)
	if len(all) != 12 {
		t.Errorf("all: %d pairs, want 4x3", len(all))
	}
	seen := map[[2]string]bool{}
	for _, p := range all {
		if p.From == p.To || seen[[2]string{p.From, p.To}] {
			t.Errorf("bad or repeated pair %v", p)
		}
		seen[[2]string{p.From, p.To}] = true
	}
	kept, dropped := planPairs(names, src, ProbesAll, 1, 6)
	if len(kept) != 6 || dropped["a"]+dropped["b"]+dropped["c"]+dropped["d"] != 6 {
		t.Errorf("budget 6: kept %d dropped %v", len(kept), dropped)
	}
	// The budget cuts evenly: every host keeps its next peer first.
	from := map[string]int{}
	for _, p := range kept {
		from[p.From]++
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if from[n] == 0 {
			t.Errorf("budget left %s without a probe: %v", n, from)
		}
	}
	// Planning one host of a large fleet makes that host's pairs only.
	big := map[string]probeSource{}
	var bigNames []string
	for i := 0; i < 2000; i++ {
		n := fmt.Sprintf("h%04d", i)
		bigNames = append(bigNames, n)
		big[n] = probeSource{Vmknic: "vmk1", IP: fmt.Sprintf("10.%d.%d.1", i/250, i%250)}
	}
	ends := probeEnds(bigNames, big)
	mine, n, _ := pairsFor("h0005", ends, big, ProbesAll, 3, 0)
	if len(mine) != 1999 || n != 0 || mine[0].To != "h0006" || mine[1998].To != "h0004" {
		t.Errorf("all of 2000: %d pairs, dropped %d", len(mine), n)
	}
}

// The probe's count, interval and wait are validated like every value
// that reaches a command line, and the allowlist takes only their forms.
func TestProbeLineValues(t *testing.T) {
	for _, args := range [][]string{
		{"vmk1", "", "11", "", "", "8972", "10.0.0.1"},
		{"vmk1", "", "3", "0.2;reboot", "", "8972", "10.0.0.1"},
		{"vmk1", "", "3", "5", "", "8972", "10.0.0.1"},
		{"vmk1", "", "1", "", "10", "8972", "10.0.0.1"},
		{"vmk1", "", "1", "", "0", "8972", "10.0.0.1"},
		{"vmk1", "", "01", "", "1", "8972", "10.0.0.1"},
		{"vmk1", "", "1", "", "1", "8973", "10.0.0.1"},
		{"vmk1 -x", "", "1", "", "1", "56", "10.0.0.1"},
	} {
		if c, err := build("vmkping", args...); err == nil {
			t.Errorf("%v accepted: %q", args, c.Line)
		}
	}
	c, err := ProbeLine(ProbeEnd{Vmknic: "vmk1", Netstack: "vxlan"}, "10.0.0.1", 1472, 1)
	if err != nil || c.Line != "vmkping -I vmk1 -S vxlan -c 1 -W 1 -d -s 1472 10.0.0.1" || CheckAllowed(c.Line) != nil {
		t.Errorf("search try %q %v", c.Line, err)
	}
	assertRefused(t,
		"vmkping -I vmk1 -c 3 -i 5 -W 1 -d -s 8972 10.0.0.1",
		"vmkping -I vmk1 -c 100 -d -s 8972 10.0.0.1",
		"vmkping -I vmk1 -c 1 -W 1 -s 8972 10.0.0.1",
		"vmkping -I vmk1 -c 1 -W 1 -d -s 8972 10.0.0.1 -c 5",
	)
}

// One hostile mix of peers (issue 38.3): esx01 is valid, the next three in
// its ring claim esx01's own address, the subnet's broadcast and its
// network address, esx05 is valid. Each bad peer is skipped with its
// reason and takes no place in the ring: esx01 still probes esx05 (and
// esx05 esx01), and nothing probes a bad address.
func TestProbePlanningPerPeer(t *testing.T) {
	net := netip.MustParsePrefix("192.168.50.0/24")
	src := func(ip string) probeSource {
		return probeSource{Vmknic: "vmk1", Netstack: "defaultTcpipStack", IP: ip, MTU: 9000, Net: net}
	}
	var targets []hostio.Target
	for _, h := range []string{"esx01", "esx02", "esx03", "esx04", "esx05"} {
		targets = append(targets, hostio.Target{Name: h})
	}
	board := newProbeBoard(targets, nil, true)
	board.publish("esx01", src("192.168.50.11"))
	board.publish("esx02", src("192.168.50.11"))
	board.publish("esx03", src("192.168.50.255"))
	board.publish("esx04", src("192.168.50.0"))
	board.publish("esx05", src("192.168.50.15"))
	opts := Options{ProbeMode: ProbesRing, ProbePeers: 3}
	pairs, notes := board.planFor("esx01", opts)
	if len(pairs) != 1 || pairs[0].To != "esx05" {
		t.Errorf("esx01 probes %+v, want esx05 only", pairs)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		"path to esx02 not probed: its PVRDMA vmknic address 192.168.50.11 is this host's own",
		"path to esx03 not probed: its PVRDMA vmknic address 192.168.50.255 is the broadcast address of this host's subnet 192.168.50.0/24",
		"path to esx04 not probed: its PVRDMA vmknic address 192.168.50.0 is the network address of this host's subnet 192.168.50.0/24",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("esx01's notes lack %q:\n%s", want, all)
		}
	}
	pairs, _ = board.planFor("esx05", opts)
	var to []string
	for _, p := range pairs {
		to = append(to, p.To+"="+p.Dst.IP)
		if p.Dst.IP == "192.168.50.255" || p.Dst.IP == "192.168.50.0" {
			t.Errorf("esx05 probes %s at %s", p.To, p.Dst.IP)
		}
	}
	if !slices.Contains(to, "esx01=192.168.50.11") {
		t.Errorf("esx05 probes %q, not esx01", to)
	}
}
