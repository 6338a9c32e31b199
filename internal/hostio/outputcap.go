package hostio

import (
	"errors"
	"fmt"
)

// Output caps: what a host may make the scanner hold in memory. Output is
// counted as it streams in; a command that passes a cap is stopped at once
// (its session closed) and its output discarded, so memory is bounded by
// construction, not by how much a host chooses to send.
const (
	// DefaultMaxCommandOutput caps one command's stdout plus stderr. The
	// largest real outputs (`esxcli vm process list` on a full host, a
	// vsish listing of every PVRDMA device) stay well under 1 MiB.
	DefaultMaxCommandOutput = 4 << 20
	// DefaultMaxHostOutput caps everything one host's commands return.
	DefaultMaxHostOutput = 16 << 20
	// DefaultMaxScanOutput caps the output held for the whole scan, so
	// that a fleet of hostile hosts cannot add up either.
	DefaultMaxScanOutput = 1 << 30
	// MaxCommandLines caps the lines of one command's output: parsing
	// costs memory per line (tens of bytes), so 4 MiB of newlines must not
	// reach a parser. The longest real outputs have a few thousand lines.
	MaxCommandLines = 500_000
)

// OutputCapError reports a command stopped because its output passed a cap.
type OutputCapError struct {
	// Scope is the cap that was reached: "command", "host" or "scan".
	Scope string
	// Limit is that cap in bytes.
	Limit int64
}

func (e *OutputCapError) Error() string {
	switch e.Scope {
	case "command":
		return fmt.Sprintf("output over the cap: the command sent more than %s; it was stopped and its output discarded", ByteSize(e.Limit))
	case "lines":
		return fmt.Sprintf("output over the cap: the command sent more than %d lines; it was stopped and its output discarded", e.Limit)
	case "host":
		return fmt.Sprintf("output over the cap: the host's commands sent more than %s in all; this one was stopped and its output discarded", ByteSize(e.Limit))
	}
	return fmt.Sprintf("output over the cap: the scan holds %s of output, its limit; the command was stopped and its output discarded", ByteSize(e.Limit))
}

// IsOutputCap reports whether err is (or wraps) an OutputCapError.
func IsOutputCap(err error) bool {
	var oc *OutputCapError
	return errors.As(err, &oc)
}

// ByteSize renders a byte count for messages ("4 MiB", "1000 bytes").
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
