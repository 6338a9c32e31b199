package collect

import (
	"context"
	"errors"
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Replay is an in-memory Runner that answers from earlier captures: the
// same Runner interface as the SSH transport, with no network. Report and
// TUI tests, and anything that re-runs the collector over a recorded scan,
// use it instead of starting SSH servers.
//
// A host whose result is not_collected refuses to open with its recorded
// reason; a command answers with its recorded output, exit code and error
// (a failed capture's error is its Err; a timed-out one hangs until
// the collector's command timeout); a command with
// no capture fails as not recorded. Every line is checked against the
// allowlist first, as every transport does.
type Replay struct {
	hosts map[string]hostio.HostResult
}

// NewReplay returns a Replay runner serving the given host results, by
// host name.
func NewReplay(results []hostio.HostResult) *Replay {
	r := &Replay{hosts: make(map[string]hostio.HostResult, len(results))}
	for _, h := range results {
		r.hosts[h.Host] = h
	}
	return r
}

// ErrNotRecorded is the error of a command the replayed host never ran.
var ErrNotRecorded = errors.New("not in the recorded captures")

// Name implements hostio.Runner.
func (r *Replay) Name() string { return "replay" }

// Open implements hostio.Runner.
func (r *Replay) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, ok := r.hosts[t.Name]
	if !ok {
		return nil, fmt.Errorf("%s: no recorded captures for this host", t.Name)
	}
	if h.Status == hostio.StatusNotCollected {
		return nil, errors.New(h.Reason)
	}
	byLine := make(map[string]hostio.Capture, len(h.Captures))
	for _, c := range h.Captures {
		if _, dup := byLine[c.Command]; !dup {
			byLine[c.Command] = c
		}
	}
	return &replayConn{caps: byLine, notes: h.Notes, role: h.Role}, nil
}

type replayConn struct {
	role  string
	caps  map[string]hostio.Capture
	notes []string
}

func (c *replayConn) Run(ctx context.Context, line string) hostio.Result {
	if err := CheckAllowedFor(c.role, line); err != nil {
		return hostio.Result{Err: err}
	}
	if err := ctx.Err(); err != nil {
		return hostio.Result{Err: err}
	}
	cp, ok := c.caps[line]
	if !ok {
		return hostio.Result{Err: ErrNotRecorded}
	}
	if cp.Status == hostio.StatusTimedOut {
		// It hung when recorded: hang again, until the collector's own
		// command timeout (or the scan's end) gives up on it.
		<-ctx.Done()
		return hostio.Result{ExitCode: cp.ExitCode, Err: ctx.Err()}
	}
	res := hostio.Result{Stdout: []byte(cp.Stdout), Stderr: []byte(cp.Stderr), ExitCode: cp.ExitCode}
	if cp.Status != hostio.StatusCollected && cp.Error != "" && cp.ExitCode == 0 {
		res.Err = errors.New(cp.Error)
	}
	return res
}

func (c *replayConn) Notes() []string { return append([]string(nil), c.notes...) }
func (c *replayConn) Close() error    { return nil }
