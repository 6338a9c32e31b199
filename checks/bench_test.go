package checks

import (
	"fmt"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// benchFleet is a fleet of n healthy hosts on one vDS, each probing the
// next host, every third one with a lower path MTU (so the peer comparisons
// of MTU_MISMATCH and LOW_MTU have work to do).
func benchFleet(n int) *facts.Fleet {
	hosts := make([]facts.Host, n)
	for i := range n {
		h := goodHost(fmt.Sprintf("esx%04d", i), fmt.Sprintf("192.168.%d.%d", 50+i/200, 10+i%200))
		if i%3 == 0 {
			h.Vmknics[1].MTU = 1500
			h.DVSwitches[0].MTU = 1500
		}
		j := (i + 1) % n
		addPings(&h, fmt.Sprintf("192.168.%d.%d", 50+j/200, 10+j%200), true, i%2 == 0)
		hosts[i] = h
	}
	return &facts.Fleet{Hosts: hosts}
}

// BenchmarkRun1000Hosts is checks.Run on a 1,000-host fleet of hand-built
// facts (no parsing): the rule engine and the data-path model alone.
func BenchmarkRun1000Hosts(b *testing.B) {
	fleet := benchFleet(1000)
	b.ReportAllocs()
	for b.Loop() {
		Run(fleet)
	}
}
