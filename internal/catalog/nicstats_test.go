package catalog_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/diff"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// esxcli network nic stats get: planned for each RDMA uplink, read into
// facts.Host.NICStats, and diff shows a change in drops or errors (never
// in traffic, which grows between any two scans).
func TestNICStatsFactAndDiff(t *testing.T) {
	b, err := os.ReadFile("../../parse/testdata/nic_stats_get_kb341594.txt")
	if err != nil {
		t.Fatal(err)
	}
	const line = "esxcli network nic stats get -n vmnic2"
	side := func(out string) *facts.Fleet {
		fl := facts.Build([]hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
			{Host: "esx01", Command: line, Stdout: out, Status: hostio.StatusCollected}}}})
		return &fl
	}
	before := side(string(b))
	if h := before.Hosts[0]; len(h.NICStats) != 1 || h.NICStats[0].Nic != "vmnic2" || h.NICStats[0].ReceiveDropped != 2452783244 ||
		h.NICStats[0].Record.Lookup("Receive packets dropped").Command != line {
		t.Fatalf("facts: %+v", h.NICStats)
	}
	after := strings.Replace(string(b), "Receive packets dropped: 2452783244", "Receive packets dropped: 2452790000", 1)
	after = strings.Replace(after, "Packets received: 701280499176", "Packets received: 701290499176", 1)
	d := diff.Compare(diff.Side{Label: "old", Fleet: before}, diff.Side{Label: "new", Fleet: side(after)})
	var texts []string
	for _, c := range d.Changes {
		texts = append(texts, c.Text)
	}
	if len(texts) != 1 || texts[0] != "esx01 counters of vmnic2 Receive Dropped 2452783244 -> 2452790000" {
		t.Errorf("diff: %q", texts)
	}
}
