package cli

import (
	"runtime/debug"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A scan holds the outputs of its hosts (at most 16 MiB a host, 1 GiB in
// all: hostio's caps) and needs a bounded amount besides (parsing one
// output, the analysis, one bundle file at a time). Left alone, Go's
// collector lets the heap grow to twice what is live before it collects,
// and keeps freed pages a while: 70 hosts holding 0.98 GB of output peaked
// at 3.06 GB. So a live scan tells the runtime how much it may use: the
// most its hosts can make it hold plus a fixed margin. The collector then
// works harder as the heap nears that limit (it is a target, not a cap: a
// scan that needs more gets it, more slowly).

// scanMemoryMargin is what a scan may use besides the output it holds.
const scanMemoryMargin = 256 << 20

// limitScanMemory is set by Main: only a real process sets the runtime's
// memory limit (tests run many scans in one process).
var limitScanMemory bool

// scanMemoryLimit is the memory limit of a scan of n hosts and guests.
func scanMemoryLimit(n int) int64 {
	return min(int64(n)*hostio.DefaultMaxHostOutput, hostio.DefaultMaxScanOutput) + scanMemoryMargin
}

// setScanMemoryLimit sets the runtime's memory limit for a scan of n
// hosts, unless the user set one (GOMEMLIMIT) or a higher one is in force.
func setScanMemoryLimit(n int, getenv func(string) string) {
	if !limitScanMemory || getenv != nil && getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit := scanMemoryLimit(n); limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// While results are analysed, what the analysis holds grows with their
// output (parsed into records that point into it) and with the hosts
// (facts, findings and report entries of each), not with the caps: the
// limit then follows what was collected, so that the collector does not
// let the heap grow to twice the live set (for the 1,000 hosts of the
// bench: about 100 MB live, a 180 MiB limit instead of 1.28 GiB).
const (
	analysisMemoryBase    = 64 << 20
	analysisPerOutputByte = 4
	analysisPerHost       = 32 << 10
)

// analysisMemoryLimit is the memory limit while results are analysed:
// the output counted as collected (a repeated output once per host).
func analysisMemoryLimit(results []hostio.HostResult) int64 {
	var out int64
	for i := range results {
		for j := range results[i].Captures {
			c := &results[i].Captures[j]
			out += int64(len(c.Stdout) + len(c.Stderr))
		}
	}
	return analysisMemoryBase + analysisPerOutputByte*out + analysisPerHost*int64(len(results))
}

// setAnalysisMemoryLimit lowers the runtime's memory limit to
// analysisMemoryLimit, unless the user set one (GOMEMLIMIT) or a lower one
// is in force.
func setAnalysisMemoryLimit(results []hostio.HostResult, getenv func(string) string) {
	if !limitScanMemory || getenv != nil && getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit := analysisMemoryLimit(results); limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}
