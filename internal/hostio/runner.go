package hostio

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// Target is one host to scan.
type Target struct {
	// Name is how the host is shown in reports (as given by the user, or the
	// scenario's host name in the demo lab).
	Name string `json:"name"`
	// Addr is what to dial, host:port. Empty means Name on port 22.
	Addr string `json:"addr,omitempty"`
	// Role is "" for an ESXi host, RoleGuest for a Linux guest.
	Role string `json:"role,omitempty"`
}

// Runner opens connections to hosts. Implementations: SSH (this package),
// and anything that can answer allowlisted commands (replay, vSphere API).
type Runner interface {
	// Name identifies the transport in reports ("ssh", "replay", ...).
	Name() string
	// Open connects and authenticates to one host.
	Open(ctx context.Context, t Target) (Conn, error)
}

// Conn runs commands over one open connection to one host. Run must be safe
// for concurrent use; the collector caps concurrency itself.
type Conn interface {
	// Run executes one allowlisted command line and returns its result.
	// It returns when the command ends or ctx is done.
	Run(ctx context.Context, line string) Result
	// Notes returns remarks the report must show for this connection
	// (e.g. "host key not verified").
	Notes() []string
	Close() error
}

// Result is what a transport returns for one command. Stdout and Stderr
// are given up by the transport: it never writes them again, so the
// collector keeps them as strings without copying them (a 4 MiB output
// is held once, not twice while it is converted).
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	// Err is set when the command could not run to completion (session
	// refused, connection lost, ctx done). A non-zero exit is not an Err.
	Err error
}

// Phase is a step of one host's collection, reported through Progress.
type Phase string

// The phases a host goes through.
const (
	PhaseQueued     Phase = "queued"
	PhaseConnecting Phase = "connecting"
	PhaseCollecting Phase = "collecting"
	PhaseWaiting    Phase = "waiting for peers"
	PhaseProbing    Phase = "probing paths"
	PhaseDone       Phase = "done"
	PhaseFailed     Phase = "failed"
)

// Event reports progress of one host. Done and Total count commands.
type Event struct {
	Host   string
	Phase  Phase
	Done   int
	Total  int
	Err    string
	Time   time.Time
	Result *HostResult // set with PhaseDone and PhaseFailed
}

// DialAddr returns the address to dial for a target (port 22 by default).
func (t Target) DialAddr() string {
	if t.Addr != "" {
		if _, _, err := net.SplitHostPort(t.Addr); err == nil {
			return t.Addr
		}
		return net.JoinHostPort(t.Addr, "22")
	}
	if _, _, err := net.SplitHostPort(t.Name); err == nil {
		return t.Name
	}
	return net.JoinHostPort(strings.Trim(t.Name, "[]"), "22")
}

// StallError says which step of a command the server never answered.
type StallError struct {
	// What is the step: "the session open", "the exec request".
	What string
	Err  error
}

func (e *StallError) Error() string { return "no answer to " + e.What + ": " + e.Err.Error() }
func (e *StallError) Unwrap() error { return e.Err }

// RefusedError is how every transport reports a host whose SSH port
// refuses connections, with the way to fix it.
func RefusedError(addr string) error {
	return fmt.Errorf("cannot connect to %s: connection refused (is SSH enabled on the host? Host > Configure > Services > SSH)", addr)
}
