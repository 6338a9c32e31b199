package cli

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The analysis limit follows what was collected (every host's output
// counted, repeated or not) and the hosts, never the caps: the bench's
// 1,000 hosts of 24 KB get about 180 MiB; 70 hosts flooding to the caps
// get more than the scan's own limit, which then stays.
func TestAnalysisMemoryLimit(t *testing.T) {
	out := strings.Repeat("x", 24<<10)
	results := make([]hostio.HostResult, 1000)
	for i := range results {
		results[i].Captures = []hostio.Capture{{Stdout: out}}
	}
	if got, want := analysisMemoryLimit(results), int64(64<<20+4*1000*(24<<10)+1000*(32<<10)); got != want {
		t.Errorf("1,000 hosts of 24 KiB: %d, want %d", got, want)
	}
	if mib := analysisMemoryLimit(results) >> 20; mib < 150 || mib > 200 {
		t.Errorf("1,000 hosts of 24 KiB: %d MiB", mib)
	}
	flood := make([]hostio.HostResult, 70)
	for i := range flood {
		flood[i].Captures = []hostio.Capture{{Stdout: strings.Repeat("y", 1<<20)}, {Stderr: strings.Repeat("z", 14<<20)}}
	}
	if analysisMemoryLimit(flood) <= scanMemoryLimit(70) {
		t.Error("flooding hosts: the analysis limit is below the scan's")
	}
	if analysisMemoryLimit(nil) != analysisMemoryBase {
		t.Error("no results")
	}
}
