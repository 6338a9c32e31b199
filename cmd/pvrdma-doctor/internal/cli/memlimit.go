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
// (facts, findings and report entries of each), not with the caps.
//
// The collector's work per allocated byte is what is live over the room
// the heap has to grow: that room must grow with the fleet, or a large
// fleet costs more per host than a small one. A memory limit a fixed
// margin above the live set did that: the bench's 1,000 faulty hosts
// (about 120 MB live) were collected 48 times instead of 11, in 8.5 s of
// CPU instead of 4.7 (8.5 ms a host, against 4.7 at 100 hosts). So the
// heap may grow by analysisHeadroom or by half of what is live, whichever
// is more (a GC percentage from 100 for small fleets down to 50 for large
// ones: the room is then proportional to the live set, and so is the
// collector's work), which keeps the 1,000 hosts under 250 MB; the memory
// limit, at twice the estimated live set plus the headroom, is a backstop
// that binds only when the estimate is far off.
const (
	analysisHeadroom      = 64 << 20
	analysisPerOutputByte = 4
	analysisPerHost       = 32 << 10
	minAnalysisGCPercent  = 50
	maxAnalysisGCPercent  = 100
)

// analysisLive estimates what the analysis of results holds at its peak:
// the output counted as collected (a repeated output once per host) and
// each host's facts, findings and report entries.
func analysisLive(results []hostio.HostResult) int64 {
	var out int64
	for i := range results {
		for j := range results[i].Captures {
			c := &results[i].Captures[j]
			out += int64(len(c.Stdout) + len(c.Stderr))
		}
	}
	return analysisPerOutputByte*out + analysisPerHost*int64(len(results))
}

// analysisGCPercent is the collector's GC percentage while results are
// analysed: analysisHeadroom over the estimated live set, between 50 and
// 100.
func analysisGCPercent(results []hostio.HostResult) int {
	live := analysisLive(results)
	if live <= 0 {
		return maxAnalysisGCPercent
	}
	return int(min(max(100*analysisHeadroom/live, minAnalysisGCPercent), maxAnalysisGCPercent))
}

// analysisMemoryLimit is the memory limit while results are analysed: a
// backstop above what analysisGCPercent lets the heap reach.
func analysisMemoryLimit(results []hostio.HostResult) int64 {
	return analysisHeadroom + 2*analysisLive(results)
}

// setAnalysisMemoryLimit sets the collector's GC percentage for the
// analysis of results (unless the user set GOGC) and lowers the runtime's
// memory limit to analysisMemoryLimit (unless the user set GOMEMLIMIT or
// a lower one is in force).
func setAnalysisMemoryLimit(results []hostio.HostResult, getenv func(string) string) {
	if !limitScanMemory {
		return
	}
	if getenv == nil || getenv("GOGC") == "" {
		debug.SetGCPercent(analysisGCPercent(results))
	}
	if getenv != nil && getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit := analysisMemoryLimit(results); limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}
