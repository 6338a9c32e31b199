// Package transporttest is the conformance suite of the transports, as
// restic keeps one for its storage backends: every hostio.Runner (sshrun
// against the SSH lab, collect.Replay, the scenarios' in-memory runner,
// vcenter's esxcli-over-the-API runner) runs the same tests of the
// contract the collector relies on. A transport answers an allowlisted
// line with the host's output; refuses any other line before it reaches
// the host (collect.CheckAllowedFor, *collect.ErrNotAllowed); reports a
// non-zero exit as a result, not an error; ends every call by the
// context's deadline; runs commands concurrently on one connection; and
// fails to open what it cannot reach. It is imported by tests only.
package transporttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Transport is a transport under test and what its host answers.
type Transport struct {
	// Runner is the transport; Target a host (or guest) it serves.
	Runner hostio.Runner
	Target hostio.Target
	// Lines are allowlisted command lines the target answers with exit
	// status 0; Stdout, when set, is the output each must give.
	Lines  []string
	Stdout func(line string) string
	// Failing is an allowlisted line the target answers with a non-zero
	// exit status ("": the transport has none).
	Failing string
	// Hanging is an allowlisted line the target never answers ("": the
	// transport has none).
	Hanging string
	// Sent returns the lines that reached the host so far (nil: the
	// transport cannot tell).
	Sent func() []string
	// Unknown is a target the transport cannot open (zero: not tested).
	Unknown hostio.Target
}

// hostile are lines no allowlist admits: a command that changes the host,
// and catalogue lines with something appended.
var hostile = []string{
	"esxcli system shutdown reboot -r test",
	"esxcli network nic list; reboot",
	"esxcli network nic list && rm -rf /",
	"esxcli network nic list\nreboot",
	"esxcli network nic list $(reboot)",
	"uname -r; reboot",
	"rm -rf /",
	"",
}

// hangBound is how long a call on a hanging command may take beyond its
// context's deadline: generous, it measures that the call ends, not speed.
const hangBound = 30 * time.Second

// Run runs the conformance suite on tr.
func Run(t *testing.T, tr Transport) {
	t.Helper()
	if len(tr.Lines) == 0 {
		t.Fatal("transporttest: no command lines to run")
	}
	open := func(t *testing.T) hostio.Conn {
		t.Helper()
		conn, err := tr.Runner.Open(context.Background(), tr.Target)
		if err != nil {
			t.Fatalf("Open(%s): %v", tr.Target.Name, err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	t.Run("answers", func(t *testing.T) {
		conn := open(t)
		for _, line := range tr.Lines {
			res := conn.Run(context.Background(), line)
			if res.Err != nil || res.ExitCode != 0 {
				t.Errorf("%q: exit %d, %v", line, res.ExitCode, res.Err)
				continue
			}
			if tr.Stdout != nil {
				if want := tr.Stdout(line); string(res.Stdout) != want {
					t.Errorf("%q: stdout\n%s\nwant\n%s", line, res.Stdout, want)
				}
			}
		}
		if tr.Runner.Name() == "" {
			t.Error("the transport has no name")
		}
		_ = conn.Notes()
	})
	t.Run("refuses what is not allowlisted before sending it", func(t *testing.T) {
		conn := open(t)
		for _, line := range hostile {
			res := conn.Run(context.Background(), line)
			var na *collect.ErrNotAllowed
			if !errors.As(res.Err, &na) {
				t.Errorf("%q: %v (exit %d), want *collect.ErrNotAllowed", line, res.Err, res.ExitCode)
			}
		}
		if tr.Sent != nil {
			for _, sent := range tr.Sent() {
				if slices.Contains(hostile, sent) {
					t.Errorf("%q reached the host", sent)
				}
			}
		}
	})
	if tr.Failing != "" {
		t.Run("a non-zero exit is a result", func(t *testing.T) {
			res := open(t).Run(context.Background(), tr.Failing)
			if res.Err != nil || res.ExitCode == 0 {
				t.Errorf("%q: exit %d, err %v; want a non-zero exit and no error", tr.Failing, res.ExitCode, res.Err)
			}
		})
	}
	t.Run("a done context ends the call", func(t *testing.T) {
		conn := open(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res := conn.Run(ctx, tr.Lines[0]); res.Err == nil {
			t.Errorf("%q on a cancelled context: no error", tr.Lines[0])
		}
		if c, err := tr.Runner.Open(ctx, tr.Target); err == nil {
			c.Close()
			t.Error("Open on a cancelled context: no error")
		}
	})
	if tr.Hanging != "" {
		t.Run("the deadline ends a hanging command", func(t *testing.T) {
			conn := open(t)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			done := make(chan hostio.Result, 1)
			go func() { done <- conn.Run(ctx, tr.Hanging) }()
			select {
			case res := <-done:
				if res.Err == nil {
					t.Errorf("%q past its deadline: no error", tr.Hanging)
				}
			case <-time.After(hangBound):
				t.Fatalf("%q still running %s after its deadline", tr.Hanging, hangBound)
			}
		})
	}
	t.Run("runs concurrently on one connection", func(t *testing.T) {
		conn := open(t)
		want := map[string]string{}
		for _, line := range tr.Lines {
			want[line] = string(conn.Run(context.Background(), line).Stdout)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(tr.Lines))
		for range 4 {
			for _, line := range tr.Lines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res := conn.Run(context.Background(), line)
					if res.Err != nil || string(res.Stdout) != want[line] {
						errs <- fmt.Errorf("%q concurrently: %v, stdout differs: %v", line, res.Err, string(res.Stdout) != want[line])
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	if tr.Unknown != (hostio.Target{}) {
		t.Run("fails to open what it cannot reach", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			if c, err := tr.Runner.Open(ctx, tr.Unknown); err == nil {
				c.Close()
				t.Errorf("Open(%+v): no error", tr.Unknown)
			}
		})
	}
}
