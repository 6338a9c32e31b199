package collect_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Hostile hosts (issue #18): after a successful login the host wedges,
// floods or lies. Each case scans the hostile esx01 beside a healthy esx02
// over real SSH and asserts that the scan ends within the host timeout
// (plus a margin for a loaded machine), that esx02 is fully reported, that
// esx01 names a clear reason, and that the heap stays under the bound the
// README states.

// hostileSessions is the sessions per host of the scans below (the
// collector's default).
const hostileSessions = 8

// hostileHostTimeout leaves every stage-1 command its whole command
// timeout: against a host that refuses every session each command is
// retried until its own timeout, in ceil(stage 1 / sessions) waves (2 for
// 16 commands), and the host timeout is twice that chain (8 s), so one
// more command (the recipe test adds one: 3 waves, 12 s) or a stalled
// machine still meets each command's timeout before the host's.
var hostileHostTimeout = hostileCommandTimeout * time.Duration(2*((len(collect.Stage1())+hostileSessions-1)/hostileSessions))

const (
	// 2 s at least: a host streaming 3 MiB must finish within its command
	// timeout on a loaded 2-core machine (1 s timed it out once in a full
	// test run with other builds running).
	hostileCommandTimeout = max(2, raceSlowdown) * time.Second
	// hangBound is how long a scan may take before the test calls it
	// hung. Every bound below measures behaviour, not speed: without the
	// mechanism under test (the host timeout, the cancel, the abort) the
	// scan would wait for an hour-long command or forever, so any bound
	// far below that proves it; a busy 2-core CI box, -race and a loaded
	// machine all stay far inside it (issue 23).
	hangBound = 2 * time.Minute
	// hostileHeapBound is the README's bound for one scan of a few hosts
	// whatever they send: the caps (4 MiB a command, 16 MiB a host) plus
	// parsing and buffers. The unbounded scan took 1.9 GB for a 100 MB
	// output.
	hostileHeapBound = 96 << 20
)

type hostileCase struct {
	name  string
	fault lab.Hostile
	// check inspects the hostile host's result.
	check func(t *testing.T, r hostio.HostResult)
}

func hostileCases() []hostileCase {
	allErr := func(want string) func(t *testing.T, r hostio.HostResult) {
		return func(t *testing.T, r hostio.HostResult) {
			t.Helper()
			if len(r.Captures) == 0 {
				t.Fatalf("no captures; reason %q", r.Reason)
			}
			for _, c := range r.Captures {
				if c.Status == hostio.StatusCollected || !strings.Contains(c.Error, want) {
					t.Errorf("%q: %s %q; want an error containing %q", c.Command, c.Status, c.Error, want)
				}
			}
			if !strings.Contains(r.Reason, want) {
				t.Errorf("host reason %q does not contain %q", r.Reason, want)
			}
		}
	}
	return []hostileCase{
		{name: "wedge after auth", fault: lab.Hostile{WedgeSessions: true},
			check: allErr("sshd wedged")},
		{name: "never replies to exec", fault: lab.Hostile{NoExecReply: true},
			check: allErr("exec request (the host opened the session, then stopped answering")},
		{name: "refuses sessions and ignores keepalives", fault: lab.Hostile{RefuseSessions: true, IgnoreKeepalives: true},
			check: allErr("still refused")},
		{name: "100 MB on one command", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli vm process list", Fill: lab.FillText, Bytes: 100 << 20}}},
			check: oneCapped("esxcli vm process list", "output over the cap")},
		{name: "endless output", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli network nic list", Fill: lab.FillNewlines, Bytes: -1}}},
			check: oneCapped("esxcli network nic list", "output over the cap")},
		{name: "3 MiB of newlines", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli network nic list", Fill: lab.FillNewlines, Bytes: 3 << 20}}},
			check: oneCapped("esxcli network nic list", "more than 500000 lines")},
		{name: "per-host cap", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli", Fill: lab.FillText, Bytes: 3 << 20}}},
			check: func(t *testing.T, r hostio.HostResult) {
				capped := 0
				for _, c := range r.Captures {
					if strings.Contains(c.Error, "the host's commands sent more than 16 MiB") {
						capped++
					}
				}
				if capped == 0 {
					t.Errorf("12 commands of 3 MiB each: none stopped by the 16 MiB host cap")
				}
			}},
		{name: "3 MiB of one wrapped value", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli system version get", Fill: lab.FillContinuation, Bytes: 3 << 20}}},
			check: func(t *testing.T, r hostio.HostResult) {
				c, _ := r.Find("esxcli system version get")
				if c.Status != hostio.StatusCollected || len(c.Stdout) != 3<<20 {
					t.Fatalf("%s, %d bytes; want collected, all %d bytes kept (under the command cap)", c.Status, len(c.Stdout), 3<<20)
				}
				first, rest, _ := strings.Cut(c.Stdout, "\n")
				if first != "   Description: a value that goes on" || !strings.HasPrefix(rest, "            rest of a wrapped value\n") {
					t.Errorf("starts %q then %.40q; want one key, then indented lines continuing it", first, rest)
				}
				assertOthersCollected(t, r, "esxcli system version get")
			}},
		{name: "binary garbage", fault: lab.Hostile{Streams: []lab.Stream{{Fill: lab.FillBinary, Bytes: 64 << 10}}},
			check: func(t *testing.T, r hostio.HostResult) {
				for _, c := range r.Captures {
					if c.Status != hostio.StatusCollected || len(c.Stdout) != 64<<10 {
						t.Errorf("%q: %s, %d bytes; want the 64 KiB collected as sent", c.Command, c.Status, len(c.Stdout))
					}
				}
			}},
		{name: "connection dropped mid-command", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli network nic list", Fill: lab.FillText, Bytes: 8 << 10, Drop: true}}},
			check: func(t *testing.T, r hostio.HostResult) {
				c, _ := r.Find("esxcli network nic list")
				if c.Status != hostio.StatusFailed || !strings.Contains(c.Error, "connection lost") {
					t.Errorf("dropped command: %s %q; want connection lost", c.Status, c.Error)
				}
				if !strings.Contains(r.Reason, "connection lost after") {
					t.Errorf("host reason %q", r.Reason)
				}
			}},
		{name: "no exit status, keepalives ignored", fault: lab.Hostile{IgnoreKeepalives: true, Streams: []lab.Stream{{Prefix: "esxcli network nic list", Fill: lab.FillText, Bytes: 100, NoExitStatus: true}}},
			check: func(t *testing.T, r hostio.HostResult) {
				// Telling a lost connection from a failed command sends a
				// keepalive this host never answers: bounded by the
				// command's own timeout (it ends before the host's), not a
				// hang.
				c, _ := r.Find("esxcli network nic list")
				if c.Status != hostio.StatusFailed || !strings.Contains(c.Error, "without reporting its exit status") || c.Duration >= hostileHostTimeout {
					t.Errorf("%q: %s %q after %s", c.Command, c.Status, c.Error, c.Duration)
				}
				assertOthersCollected(t, r, "esxcli network nic list")
			}},
		{name: "exit status without output", fault: lab.Hostile{Streams: []lab.Stream{{}}},
			check: func(t *testing.T, r hostio.HostResult) {
				for _, c := range r.Captures {
					if c.Status != hostio.StatusCollected || c.Stdout != "" || c.ExitCode != 0 {
						t.Errorf("%q: %s exit %d %q", c.Command, c.Status, c.ExitCode, c.Stdout)
					}
				}
			}},
		{name: "stderr only", fault: lab.Hostile{Streams: []lab.Stream{{Fill: lab.FillText, Bytes: 300, Stderr: true, Exit: 1}}},
			check: func(t *testing.T, r hostio.HostResult) {
				for _, c := range r.Captures {
					if c.Status != hostio.StatusFailed || !strings.HasPrefix(c.Error, "exit status 1: hostile output line") || c.Stdout != "" {
						t.Errorf("%q: %s %q", c.Command, c.Status, c.Error)
					}
				}
			}},
		{name: "300,000 listed devices", fault: lab.Hostile{Streams: []lab.Stream{{Prefix: "vsish -e ls", Fill: lab.FillDevices, Count: 300000}}},
			check: func(t *testing.T, r hostio.HostResult) {
				props := 0
				for _, c := range r.Captures {
					if c.Kind == catalog.KindPVRDMAProperties {
						props++
					}
				}
				if props == 0 || props > collect.DefaultMaxStage2 {
					t.Errorf("%d PVRDMA property commands; want 1..%d", props, collect.DefaultMaxStage2)
				}
				notes := strings.Join(r.Notes, "\n")
				if !strings.Contains(notes, "more follow-up commands not collected (cap of 512 per host)") {
					t.Errorf("no cap note: %s", notes)
				}
			}},
	}
}

// oneCapped checks that cmd alone failed, over a cap (want), its output
// discarded.
func oneCapped(cmd, want string) func(t *testing.T, r hostio.HostResult) {
	return func(t *testing.T, r hostio.HostResult) {
		t.Helper()
		c, _ := r.Find(cmd)
		if c.Status != hostio.StatusFailed || !strings.Contains(c.Error, want) || c.Stdout != "" {
			t.Errorf("%q: %s %q (%d bytes kept); want failed, %q, nothing kept", cmd, c.Status, c.Error, len(c.Stdout), want)
		}
		assertOthersCollected(t, r, cmd)
	}
}

func assertOthersCollected(t *testing.T, r hostio.HostResult, except string) {
	t.Helper()
	for _, c := range r.Captures {
		if c.Command != except && c.Status != hostio.StatusCollected && c.Kind != catalog.KindVmkping {
			t.Errorf("%q: %s %q; only %q should fail", c.Command, c.Status, c.Error, except)
		}
	}
}

func TestHostileHosts(t *testing.T) {
	sc := loadScenario(t, "healthy")
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hostile: tc.fault}}})
			r := labRunner(t, l)
			var res map[string]hostio.HostResult
			var elapsed time.Duration
			peak := lab.HeapGrowth(func() {
				start := time.Now()
				res = scan(t, r, l.Targets(), collect.Options{CommandTimeout: hostileCommandTimeout, HostTimeout: hostileHostTimeout, SessionsPerHost: hostileSessions, Probes: true})
				elapsed = time.Since(start)
			})
			if elapsed > hangBound {
				t.Errorf("scan took %s: it did not end at the host timeout %s", elapsed, hostileHostTimeout)
			}
			if peak > hostileHeapBound {
				t.Errorf("heap grew by %d MiB during the scan; bound %d MiB", peak>>20, hostileHeapBound>>20)
			}
			t.Logf("%s: %s, heap +%d MiB", tc.name, elapsed.Round(time.Millisecond), peak>>20)
			healthy := res["esx02"]
			if healthy.Status != hostio.StatusCollected || len(healthy.Captures) <= len(collect.Stage1()) {
				t.Errorf("healthy esx02: %s %q, %d captures", healthy.Status, healthy.Reason, len(healthy.Captures))
			}
			tc.check(t, res["esx01"])
		})
	}
}

// A hostile host cannot hold a scan past the first Ctrl-C: cancelling the
// scan closes every connection, so Collect returns at once with the
// healthy host's result.
func TestCancelEndsWedgedScan(t *testing.T) {
	sc := loadScenario(t, "healthy")
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{WedgeSessions: true}}}})
	r := labRunner(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	var healthyDone time.Time
	opts := collect.Options{Runner: r, CommandTimeout: time.Hour, HostTimeout: time.Hour, ConnectTimeout: 10 * time.Second,
		Progress: func(e hostio.Event) {
			if e.Host == "esx02" && e.Phase == hostio.PhaseDone {
				healthyDone = time.Now()
				cancel()
			}
		}}
	res := collect.Collect(ctx, l.Targets(), opts)
	if d := time.Since(healthyDone); healthyDone.IsZero() || d > hangBound {
		t.Fatalf("Collect returned %s after the cancel (the wedged host's timeout is an hour)", d)
	}
	if res[1].Status != hostio.StatusCollected {
		t.Errorf("esx02: %s %q", res[1].Status, res[1].Reason)
	}
	if res[0].Status == hostio.StatusCollected {
		t.Errorf("wedged esx01 reported collected")
	}
}

// Abort returns at once even when a transport ignores the cancellation.
func TestAbortReturnsWithWhatWasCollected(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	abort := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	runner := stuckRunner{stuck: stuck}
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
		time.Sleep(50 * time.Millisecond)
		close(abort)
	}()
	start := time.Now()
	res := collect.Collect(ctx, []hostio.Target{{Name: "a"}, {Name: "b"}}, collect.Options{Runner: runner, Abort: abort, StopGrace: time.Hour})
	if d := time.Since(start); d > hangBound {
		t.Fatalf("Collect returned after %s (the stop grace is an hour, the transport never returns)", d)
	}
	for _, r := range res {
		if r.Status == hostio.StatusCollected || !strings.Contains(r.Reason, "scan stopped") {
			t.Errorf("%s: %s %q", r.Host, r.Status, r.Reason)
		}
	}
}

// stuckRunner connects, then never returns from Run (not even on ctx).
type stuckRunner struct{ stuck chan struct{} }

func (s stuckRunner) Name() string { return "stuck" }
func (s stuckRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	return s, nil
}
func (s stuckRunner) Run(ctx context.Context, line string) hostio.Result {
	<-s.stuck
	return hostio.Result{ExitCode: -1}
}
func (s stuckRunner) Notes() []string { return nil }
func (s stuckRunner) Close() error    { return nil }

// The host timeout closes the connection under a command that would run
// for an hour: the command is reported abandoned at the host timeout (not
// as a lost connection) and the host says its timeout was reached.
func TestHostTimeoutClosesTheConnection(t *testing.T) {
	sc := loadScenario(t, "healthy")
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hang: []string{"esxcli network nic list"}}}})
	r := labRunner(t, l)
	hostTimeout := raceSlowdown * time.Second
	start := time.Now()
	res := scan(t, r, l.Targets(), collect.Options{CommandTimeout: time.Hour, HostTimeout: hostTimeout})
	if d := time.Since(start); d > hangBound {
		t.Errorf("scan took %s: the host timeout %s did not end the hour-long command", d, hostTimeout)
	}
	h := res["esx01"]
	c, _ := h.Find("esxcli network nic list")
	if c.Status != hostio.StatusTimedOut || !strings.Contains(c.Error, "host timeout reached") {
		t.Errorf("hung command: %s %q", c.Status, c.Error)
	}
	if !strings.Contains(h.Reason, "host timeout") {
		t.Errorf("host reason %q", h.Reason)
	}
	if res["esx02"].Status != hostio.StatusCollected {
		t.Errorf("esx02: %s %q", res["esx02"].Status, res["esx02"].Reason)
	}
}

// closeFirstConn is a transport that sees its connection closed before it
// sees the command's context end: a hung command returns the transport's
// own "connection lost" error once Close is called, never ctx's.
type closeFirstConn struct {
	hang   string
	closed chan struct{}
	once   *sync.Once
}

func (c closeFirstConn) Name() string { return "close-first" }
func (c closeFirstConn) Open(context.Context, hostio.Target) (hostio.Conn, error) {
	return c, nil
}
func (c closeFirstConn) Run(_ context.Context, line string) hostio.Result {
	if line != c.hang {
		return hostio.Result{}
	}
	<-c.closed
	return hostio.Result{ExitCode: -1, Err: errors.New("connection lost after 3 commands: the command ended without reporting its exit status")}
}
func (c closeFirstConn) Notes() []string { return nil }
func (c closeFirstConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
func (c closeFirstConn) LostAfter() (int, bool) {
	select {
	case <-c.closed:
		return 3, true
	default:
		return 0, false
	}
}

// When the host timeout closes the connection, the command it closed and
// the host say the timeout was reached, whichever the transport noticed
// first (the close or the context): the connection was not lost.
func TestHostTimeoutNotReportedAsALostConnection(t *testing.T) {
	conn := closeFirstConn{hang: "esxcli network nic list", closed: make(chan struct{}), once: &sync.Once{}}
	// The hung command is launched at once (every other command answers at
	// once): the host timeout leaves a busy machine ample time for that.
	hostTimeout := raceSlowdown * time.Second
	res := collect.Collect(context.Background(), []hostio.Target{{Name: "esx01"}},
		collect.Options{Runner: conn, CommandTimeout: time.Hour, HostTimeout: hostTimeout})
	h := res[0]
	c, ok := h.Find("esxcli network nic list")
	if !ok || c.Status != hostio.StatusTimedOut || c.Error != "abandoned: host timeout reached" {
		t.Errorf("closed command: %v %s %q", ok, c.Status, c.Error)
	}
	if !strings.HasPrefix(h.Reason, "host timeout ("+hostTimeout.String()+") reached") {
		t.Errorf("host reason %q", h.Reason)
	}
}
