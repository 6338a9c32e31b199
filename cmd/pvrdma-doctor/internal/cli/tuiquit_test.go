package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// heldRunner refuses every host but held, whose connection waits until
// the collection's context ends (then cancelled is closed).
type heldRunner struct {
	held      string
	opened    chan struct{}
	cancelled chan struct{}
}

func (heldRunner) Name() string { return "test" }
func (r heldRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	if t.Name == r.held {
		close(r.opened)
		<-ctx.Done()
		close(r.cancelled)
		return nil, ctx.Err()
	}
	return nil, errors.New("connection refused")
}

// analysisCounter counts the analyses of a run (the calls of BeforeHost
// for its first host) and can hold them there until released.
type analysisCounter struct {
	first   string
	mu      sync.Mutex
	runs    int
	hosts   map[string]int
	started chan struct{} // gets a value as each analysis starts
	release chan struct{} // nil: never hold
}

func (c *analysisCounter) before(host string) {
	c.mu.Lock()
	c.hosts[host]++
	if host == c.first {
		c.runs++
	}
	c.mu.Unlock()
	if host == c.first {
		c.started <- struct{}{}
		if c.release != nil {
			<-c.release
		}
	}
}

func (c *analysisCounter) count(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if host == "" {
		return c.runs
	}
	return c.hosts[host]
}

// tuiPipeline is a live scan of hosts through the TUI on a fake terminal;
// keys go to its input.
func tuiPipeline(t *testing.T, runner hostio.Runner, c *analysisCounter, hosts ...string) (*Pipeline, *syncBuffer, io.Writer) {
	t.Helper()
	in, keys := io.Pipe()
	t.Cleanup(func() { keys.Close() })
	out := &syncBuffer{}
	ro := &ReportOptions{FailOn: "warning", Config: writeEmptyConfig(t)}
	if err := ro.validate(); err != nil {
		t.Fatal(err)
	}
	var targets []hostio.Target
	for _, h := range hosts {
		targets = append(targets, hostio.Target{Name: h})
	}
	p := &Pipeline{
		IO:     &IOStreams{In: in, Out: out, ErrOut: &bytes.Buffer{}, StdoutTTY: true, StdinTTY: true},
		Getenv: func(string) string { return "" }, Report: ro,
		Targets: targets,
		// No timeout ends a held connection: only quitting does.
		Collect:    collect.Options{Runner: runner, ConnectTimeout: time.Hour, HostTimeout: time.Hour},
		beforeHost: c.before,
	}
	return p, out, keys
}

// waitForOutput waits (bounded only so that a broken build fails rather than
// hangs) until the UI's output contains want n times.
func waitForOutput(t *testing.T, out *syncBuffer, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(out.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the UI never showed %q %d times:\n%q", want, n, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runResult waits for the pipeline's end (bounded only against hangs).
func runResult(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("q did not end the run")
	}
	return nil
}

// TestTUIQuitWhileCollectingCancelsTheCollection: q while a host is still
// being collected cancels that collection (the held connection sees its
// context end) instead of waiting for it, and the report after the UI is
// the one analysis of the results (the UI made none: the collection had
// not ended).
func TestTUIQuitWhileCollectingCancelsTheCollection(t *testing.T) {
	c := &analysisCounter{first: "esx-a", hosts: map[string]int{}, started: make(chan struct{}, 4)}
	runner := heldRunner{held: "esx-b", opened: make(chan struct{}), cancelled: make(chan struct{})}
	p, out, keys := tuiPipeline(t, runner, c, "esx-a", "esx-b")
	errc := make(chan error, 1)
	go func() { errc <- p.Run(context.Background()) }()
	select {
	case <-runner.opened:
	case <-time.After(20 * time.Second):
		t.Fatal("the held host was never connected")
	}
	waitForOutput(t, out, "esx-b", 1)
	select {
	case <-runner.cancelled:
		t.Fatal("the held host's collection ended before q")
	default:
	}
	if n := c.count(""); n != 0 {
		t.Fatalf("%d analyses while a host was being collected, want none", n)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	err := runResult(t, errc)
	select {
	case <-runner.cancelled:
	default:
		t.Fatal("the run ended without cancelling the collection still running")
	}
	var ec *exitCodeError
	if !errors.As(err, &ec) || ec.code != ExitIncomplete {
		t.Fatalf("exit = %v, want status %d", err, ExitIncomplete)
	}
	if n := c.count(""); n != 1 {
		t.Fatalf("%d analyses, want 1 (the report after the UI)", n)
	}
	if !strings.Contains(out.String(), "INCOMPLETE") {
		t.Fatalf("no verdict after the UI:\n%q", out.String())
	}
}

// TestTUIQuitWhileAnalysingStopsIt: q while the UI's analysis runs (held
// on its first host) stops it at the next host, and the report after the
// UI is that analysis: no second one runs, the second host is never
// analysed, and the report says the analysis was interrupted.
func TestTUIQuitWhileAnalysingStopsIt(t *testing.T) {
	c := &analysisCounter{first: "esx-a", hosts: map[string]int{}, started: make(chan struct{}, 4), release: make(chan struct{})}
	p, out, keys := tuiPipeline(t, refusingRunner{}, c, "esx-a", "esx-b")
	errc := make(chan error, 1)
	go func() { errc <- p.Run(context.Background()) }()
	select {
	case <-c.started:
	case <-time.After(20 * time.Second):
		t.Fatalf("the UI never analysed the collected hosts:\n%q", out.String())
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	// The UI quits while its analysis is held: the run waits for nothing
	// but that analysis, which stops at its next host once released.
	waitForOutput(t, out, "\x1b[?1049l", 1) // the UI left the alternate screen
	close(c.release)
	err := runResult(t, errc)
	if n := c.count(""); n != 1 {
		t.Fatalf("%d analyses, want 1 (the UI's, reused)", n)
	}
	if n := c.count("esx-b"); n != 0 {
		t.Fatalf("esx-b analysed %d times after q, want 0 (stopped at the next host)", n)
	}
	var ec *exitCodeError
	if !errors.As(err, &ec) || ec.code != ExitIncomplete {
		t.Fatalf("exit = %v, want status %d", err, ExitIncomplete)
	}
}

// TestTUIQuitReusesTheLastAnalysis: q once the UI has analysed every host
// prints that analysis' verdict without analysing again.
func TestTUIQuitReusesTheLastAnalysis(t *testing.T) {
	c := &analysisCounter{first: "esx-a", hosts: map[string]int{}, started: make(chan struct{}, 4)}
	p, out, keys := tuiPipeline(t, refusingRunner{}, c, "esx-a", "esx-b")
	errc := make(chan error, 1)
	go func() { errc <- p.Run(context.Background()) }()
	<-c.started
	// The verdict in the header appears once the analysis is applied.
	waitForOutput(t, out, "INCOMPLETE", 1)
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	err := runResult(t, errc)
	if n := c.count(""); n != 1 {
		t.Fatalf("%d analyses, want 1 (the UI's, reused)", n)
	}
	var ec *exitCodeError
	if !errors.As(err, &ec) || ec.code != ExitIncomplete {
		t.Fatalf("exit = %v, want status %d", err, ExitIncomplete)
	}
}

// sameCaptures tells the results an analysis was made of from any other:
// the same hosts with the very same captures are current; a host
// rescanned (new captures, even equal ones), finished since, or missing
// is not (the near misses).
func TestSameCaptures(t *testing.T) {
	caps := []hostio.Capture{{Host: "esx-a", Command: "esxcli rdma device list", Stdout: "x"}}
	a := []hostio.HostResult{{Host: "esx-a", Status: hostio.StatusCollected, Captures: caps}, {Host: "esx-b", Status: hostio.StatusNotCollected, Reason: "refused"}}
	same := append([]hostio.HostResult(nil), a...)
	if !sameCaptures(a, same) {
		t.Fatal("a copy of the same results is not current")
	}
	rescanned := append([]hostio.HostResult(nil), a...)
	rescanned[0].Captures = append([]hostio.Capture(nil), caps...)
	finished := append([]hostio.HostResult(nil), a...)
	finished[1] = hostio.HostResult{Host: "esx-b", Status: hostio.StatusCollected, Captures: caps}
	for name, b := range map[string][]hostio.HostResult{
		"rescanned (equal captures, new ones)": rescanned,
		"a host finished since":                finished,
		"a host missing":                       a[:1],
		"hosts in another order":               {a[1], a[0]},
	} {
		if sameCaptures(a, b) {
			t.Errorf("%s: taken as current", name)
		}
	}
}
