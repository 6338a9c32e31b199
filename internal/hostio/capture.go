// Package hostio holds what goes in and out of a host scan, with no
// transport behind it: the targets, the Runner/Conn interfaces a transport
// implements, the command kinds, and the captures and host results every
// later stage reads. It imports the standard library only, so parsers,
// facts, checks and reports never pull in SSH.
package hostio

import (
	"fmt"
	"time"
)

// Status is the outcome of one command or one host.
type Status string

const (
	// StatusCollected: the command ran and exited 0 (or the host was fully collected).
	StatusCollected Status = "collected"
	// StatusFailed: the command ran and failed, or could not be started.
	StatusFailed Status = "failed"
	// StatusTimedOut: the command did not finish within its timeout and was abandoned.
	StatusTimedOut Status = "timed_out"
	// StatusSkipped: the command was not run (its host failed earlier, or nothing to run).
	StatusSkipped Status = "skipped"
	// StatusPartial: a host where some commands failed or timed out.
	StatusPartial Status = "partial"
	// StatusNotCollected: a host that could not be reached or logged into.
	StatusNotCollected Status = "not_collected"
)

// Capture is one command's raw result on one host.
type Capture struct {
	Host     string        `json:"host"`
	Command  string        `json:"command"`
	Kind     Kind          `json:"kind"`
	Stdout   string        `json:"stdout"`
	Stderr   string        `json:"stderr,omitempty"`
	ExitCode int           `json:"exit_code"`
	Status   Status        `json:"status"`
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	Error    string        `json:"error,omitempty"`
	// Cause says why the capture holds no output when that is not the
	// command's own failure (a damaged or partial input, a host not
	// reached): rules read it, the Error says it to people.
	Cause Cause `json:"cause,omitempty"`
	// Filter is set on a capture read from an offline input whose command
	// was a filtered form of a catalogue command (`ipv4 get -i vmk1`,
	// `ruleset list -r pvrdma`, `| grep ...`): what it covers.
	Filter string `json:"filter,omitempty"`
	// Transport names how this capture was obtained when it differs from
	// its host's (TransportVCenter, TransportVSphereAPI); empty: the
	// host result's Transport.
	Transport string `json:"transport,omitempty"`
	// Round is, for a path probe's one-packet try, the round of the path
	// MTU search it was sent in (collect.SearchRounds: the tries of a round
	// are in flight together); 0 for every other capture.
	Round int `json:"round,omitempty"`
}

// OK reports whether the capture holds usable output.
func (c Capture) OK() bool { return c.Status == StatusCollected }

// HostResult is everything collected from one host.
type HostResult struct {
	// Host is the name the user gave (or the scenario's host name).
	Host string `json:"host"`
	// Address is the host:port that was dialled, if any.
	Address string `json:"address,omitempty"`
	// Transport names how captures were obtained: "ssh", "replay", ...
	Transport string `json:"transport"`
	// Role is "" for an ESXi host, RoleGuest for a Linux guest.
	Role   string `json:"role,omitempty"`
	Status Status `json:"status"`
	// Reason explains a not_collected or partial status in one line.
	Reason string `json:"reason,omitempty"`
	// Start is when the host's own work began (a concurrency slot was
	// free), Duration how long it took from there: the time the host
	// itself cost, which the host timeout bounds.
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	// QueueWait is how long the host waited for a concurrency slot
	// (--concurrency) before Start: the scan's time, not the host's.
	QueueWait time.Duration `json:"queue_wait_ns,omitempty"`
	Captures  []Capture     `json:"captures"`
	// Notes are transport remarks the report must show (e.g. host key not verified).
	Notes []string `json:"notes,omitempty"`
}

// Find returns the first capture of the given command line.
func (h *HostResult) Find(command string) (Capture, bool) {
	for _, c := range h.Captures {
		if c.Command == command {
			return c, true
		}
	}
	return Capture{}, false
}

// Finalize sets the host status from its captures when it was reached.
func (h *HostResult) Finalize() {
	if h.Status == StatusNotCollected {
		return
	}
	h.Status = StatusCollected
	bad := 0
	for _, c := range h.Captures {
		if c.Status == StatusFailed || c.Status == StatusTimedOut {
			bad++
		}
	}
	if bad > 0 {
		h.Status = StatusPartial
		if h.Reason == "" && bad == len(h.Captures) && bad > 1 && sameError(h.Captures) {
			h.Reason = fmt.Sprintf("none of the %d commands could be collected: %s", bad, h.Captures[0].Error)
		}
		if h.Reason == "" {
			h.Reason = fmt.Sprintf("%d of %d commands failed or timed out", bad, len(h.Captures))
		}
	}
}

// sameError reports whether every capture failed with the same message.
func sameError(caps []Capture) bool {
	for _, c := range caps {
		if c.Error != caps[0].Error {
			return false
		}
	}
	return caps[0].Error != ""
}
