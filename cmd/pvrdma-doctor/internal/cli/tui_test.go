package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// refusingRunner is a transport whose hosts all refuse the connection.
type refusingRunner struct{}

func (refusingRunner) Name() string { return "test" }
func (refusingRunner) Open(context.Context, hostio.Target) (hostio.Conn, error) {
	return nil, errors.New("connection refused")
}

func TestUseTUI(t *testing.T) {
	for _, c := range []struct {
		output        string
		stdout, stdin bool
		want          bool
	}{
		{"", true, true, true},
		{"text", true, true, false},
		{"json", true, true, false},
		{"", false, true, false},
		{"", true, false, false},
	} {
		p := &Pipeline{IO: &IOStreams{StdoutTTY: c.stdout, StdinTTY: c.stdin}, Report: &ReportOptions{Output: c.output}}
		if got := p.useTUI(); got != c.want {
			t.Errorf("output %q stdout tty %v stdin tty %v: useTUI = %v", c.output, c.stdout, c.stdin, got)
		}
	}
}

// TestPipelineRunsTheTUIOnATerminal runs a live scan through the TUI: the
// collection streams into the UI, q quits, and the exit status and verdict
// are those of the results.
func TestPipelineRunsTheTUIOnATerminal(t *testing.T) {
	in, keys := io.Pipe()
	out := &syncBuffer{}
	ro := &ReportOptions{FailOn: "warning", Config: writeEmptyConfig(t)}
	if err := ro.validate(); err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{
		IO:     &IOStreams{In: in, Out: out, ErrOut: &bytes.Buffer{}, StdoutTTY: true, StdinTTY: true},
		Getenv: func(string) string { return "" }, Report: ro,
		Targets: []hostio.Target{{Name: "esx-a"}, {Name: "esx-b"}},
		Collect: collect.Options{Runner: refusingRunner{}},
	}
	errc := make(chan error, 1)
	go func() { errc <- p.Run(context.Background()) }()
	deadline := time.Now().Add(10 * time.Second)
	// The hosts' failures reach the UI through the event stream.
	for strings.Count(out.String(), "NOT CHECKED: SSH refused") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the UI never showed the collected hosts:\n%q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("q did not end the UI")
	}
	var ec *exitCodeError
	if !errors.As(err, &ec) || ec.code != ExitIncomplete {
		t.Fatalf("exit = %v, want status %d (hosts not collected)", err, ExitIncomplete)
	}
	// After the UI, the verdict stays on the terminal.
	if !strings.Contains(out.String(), "scan is INCOMPLETE") && !strings.Contains(out.String(), "PVRDMA is DEGRADED") {
		t.Fatalf("no verdict after the UI:\n%q", out.String())
	}
}

func writeEmptyConfig(t *testing.T) string {
	t.Helper()
	path := t.TempDir() + "/config.yaml"
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTUIRescanCollectsOnlyTheChosenHosts checks the Rescan action the cli
// gives the UI, and that nothing is collected once the UI has quit.
func TestTUIRescanCollectsOnlyTheChosenHosts(t *testing.T) {
	var mu sync.Mutex
	var events []hostio.Event
	p := &Pipeline{IO: &IOStreams{ErrOut: &bytes.Buffer{}}, Report: &ReportOptions{failOn: checks.Warning},
		Targets: []hostio.Target{{Name: "esx-a"}, {Name: "esx-b"}, {Name: "esx-c"}},
		Collect: collect.Options{Runner: refusingRunner{}}}
	run := &tuiRun{p: p, ctx: context.Background(), latest: map[string]hostio.HostResult{},
		order: []string{"esx-a", "esx-b", "esx-c"},
		send: func(ev hostio.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}}
	run.rescan(context.Background(), []string{"esx-b"})
	hosts := map[string]bool{}
	for _, ev := range events {
		hosts[ev.Host] = true
	}
	if len(hosts) != 1 || !hosts["esx-b"] {
		t.Fatalf("rescan of esx-b sent events for %v", hosts)
	}
	rs := run.results()
	if len(rs) != 1 || rs[0].Host != "esx-b" || rs[0].Status != hostio.StatusNotCollected {
		t.Fatalf("latest results = %+v", rs)
	}
	run.rescan(context.Background(), []string{"esx-c", "esx-a"})
	rs = run.results()
	if len(rs) != 3 || rs[0].Host != "esx-a" || rs[1].Host != "esx-b" || rs[2].Host != "esx-c" {
		t.Fatalf("results not in host order: %+v", rs)
	}
	run.closed = true
	n := len(events)
	run.rescan(context.Background(), []string{"esx-a"})
	if len(events) != n {
		t.Fatal("collection ran after the UI quit")
	}
}
