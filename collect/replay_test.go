package collect_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/transporttest"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A scan replayed from its own captures, with no network, gives the same
// captures: same commands (stage 2 planned from the replayed stage 1, the
// probes from the replayed addresses), outputs, exit codes, statuses and
// errors; a host that could not be reached stays not collected, with its
// reason, and a hung command times out again.
func TestReplayReproducesAScan(t *testing.T) {
	sc := loadScenario(t, "mixed")
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx02": {Hang: []string{"esxcli network nic list"}}}})
	opts := collect.Options{Probes: true, CommandTimeout: 2 * time.Second}
	live := scan(t, labRunner(t, l), l.Targets(), opts)

	var recorded []hostio.HostResult
	for _, r := range live {
		recorded = append(recorded, r)
	}
	replay := collect.NewReplay(recorded)
	if replay.Name() != "replay" {
		t.Errorf("Name() = %q", replay.Name())
	}
	again := scan(t, replay, l.Targets(), opts)
	if len(again) != len(live) {
		t.Fatalf("%d hosts replayed, %d scanned", len(again), len(live))
	}
	sawHang, sawDown := false, false
	for name, want := range live {
		got := again[name]
		if got.Status != want.Status || got.Reason != want.Reason {
			t.Errorf("%s: replayed %s %q, scanned %s %q", name, got.Status, got.Reason, want.Status, want.Reason)
		}
		sawDown = sawDown || want.Status == hostio.StatusNotCollected
		if len(got.Captures) != len(want.Captures) {
			t.Errorf("%s: %d captures replayed, %d scanned", name, len(got.Captures), len(want.Captures))
			continue
		}
		for i, w := range want.Captures {
			g := got.Captures[i]
			if g.Command != w.Command || g.Kind != w.Kind || g.Stdout != w.Stdout || g.Stderr != w.Stderr ||
				g.ExitCode != w.ExitCode || g.Status != w.Status || g.Error != w.Error {
				t.Errorf("%s %q: replayed %s exit %d %q, scanned %s exit %d %q", name, w.Command, g.Status, g.ExitCode, g.Error, w.Status, w.ExitCode, w.Error)
			}
			sawHang = sawHang || w.Status == hostio.StatusTimedOut
		}
	}
	if !sawHang || !sawDown {
		t.Errorf("the scan should include a hung command (%v) and an unreachable host (%v)", sawHang, sawDown)
	}
}

// The replay transport refuses lines outside the allowlist and answers a
// command it never recorded as a failure, never with made-up output.
func TestReplayRefusesAndDoesNotInvent(t *testing.T) {
	r := collect.NewReplay([]hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		{Command: "esxcli rdma device list", Kind: catalog.KindRDMADeviceList, Stdout: "x\n", Status: hostio.StatusCollected},
	}}})
	if _, err := r.Open(context.Background(), hostio.Target{Name: "esx09"}); err == nil {
		t.Error("opened a host with no recorded captures")
	}
	conn, err := r.Open(context.Background(), hostio.Target{Name: "esx01"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if res := conn.Run(context.Background(), "esxcli rdma device list"); res.Err != nil || string(res.Stdout) != "x\n" {
		t.Errorf("recorded command: %q %v", res.Stdout, res.Err)
	}
	if res := conn.Run(context.Background(), "esxcli network nic list"); res.Err == nil || len(res.Stdout) != 0 {
		t.Errorf("unrecorded command answered: %q %v", res.Stdout, res.Err)
	}
	if res := conn.Run(context.Background(), "rm -rf /"); res.Err == nil || !strings.Contains(res.Err.Error(), "allowlist") {
		t.Errorf("non-allowlisted line: %v", res.Err)
	}
}

// collect.Replay passes the transports' conformance suite: it answers the
// recorded outputs (a recorded non-zero exit as such, a recorded timeout by
// hanging until the deadline) and refuses what is not allowlisted.
func TestReplayConformance(t *testing.T) {
	sc := loadScenario(t, "healthy")
	h := sc.Hosts[0]
	var lines []string
	caps := []hostio.Capture{
		{Host: h.Name, Command: "esxcli network nic get -n vmnic98", Status: hostio.StatusFailed, ExitCode: 1, Error: "exit status 1"},
		{Host: h.Name, Command: "esxcli network nic get -n vmnic99", Status: hostio.StatusTimedOut, Error: "no answer within 1s; command abandoned"},
	}
	for _, c := range collect.Stage1() {
		lines = append(lines, c.Line)
		caps = append(caps, hostio.Capture{Host: h.Name, Command: c.Line, Kind: c.Kind, Stdout: h.Respond(c.Line).Stdout, Status: hostio.StatusCollected})
	}
	replay := collect.NewReplay([]hostio.HostResult{{Host: h.Name, Status: hostio.StatusCollected, Captures: caps}})
	transporttest.Run(t, transporttest.Transport{Runner: replay, Target: hostio.Target{Name: h.Name}, Lines: lines,
		Stdout:  func(line string) string { return h.Respond(line).Stdout },
		Failing: "esxcli network nic get -n vmnic98", Hanging: "esxcli network nic get -n vmnic99", Unknown: hostio.Target{Name: "nosuchhost"}})
}
