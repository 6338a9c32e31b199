package diff_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/diff"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

func TestCompare(t *testing.T) {
	results := mixed(t)
	old := analyze(results)
	changed := redact.Clone(results)
	for i := range changed {
		for j := range changed[i].Captures {
			c := &changed[i].Captures[j]
			switch {
			case changed[i].Host == "esx01" && c.Kind == catalog.KindIPInterfaceList:
				c.Stdout = strings.Replace(c.Stdout, "MTU: 9000", "MTU: 1500", 1)
			case changed[i].Host == "esx01" && c.Kind == catalog.KindRDMADeviceList:
				c.Stdout = strings.Replace(c.Stdout, "Active", "Down  ", 1)
			case changed[i].Host == "esx01" && strings.Contains(c.Command, "2101721_0"):
				c.Stdout = strings.Replace(c.Stdout, "Active MTU:1024", "Active MTU:4096", 1)
			}
		}
	}
	neu := analyze(changed)
	d := diff.Compare(diff.Side{"old", old.Fleet, old.Checks.Findings}, diff.Side{"new", neu.Fleet, neu.Checks.Findings})
	var buf bytes.Buffer
	if err := d.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	testutil.ContainsAll(t, "diff", out,
		"esx01 vmk1 MTU 9000 -> 1500",
		"esx01 vmrdma0 State Active -> Down",
		"esx01 VM hpc-node03 adapter 0 Active MTU 1024 -> 4096",
		"finding LOW_MTU resolved on esx01: hpc-node03 (PVRDMA adapter 0)",
		"finding RDMA_DEVICE_DOWN new on esx01",
	)
	same := diff.Compare(diff.Side{"a", old.Fleet, old.Checks.Findings}, diff.Side{"b", old.Fleet, old.Checks.Findings})
	if len(same.Changes) != 0 {
		t.Errorf("identical analyses differ: %+v", same.Changes)
	}
}

// Findings of a host that is on one side only are not new or resolved:
// the host was added or removed.
func TestCompareHostAddedRemoved(t *testing.T) {
	results := mixed(t)
	old := analyze(results)
	var kept []hostio.HostResult
	for _, hr := range redact.Clone(results) {
		switch hr.Host {
		case "esx03":
			continue // removed
		case "esx02":
			hr.Host = "esx09" // esx02 leaves, esx09 arrives with the same problems
			for i := range hr.Captures {
				hr.Captures[i].Host = "esx09"
			}
		}
		kept = append(kept, hr)
	}
	neu := analyze(kept)
	d := diff.Compare(diff.Side{"old", old.Fleet, old.Checks.Findings}, diff.Side{"new", neu.Fleet, neu.Checks.Findings})
	var buf bytes.Buffer
	d.WriteText(&buf)
	out := buf.String()
	testutil.ContainsAll(t, "diff", out, "host esx03 removed (not in NEW", "host esx09 added (not in OLD", "not in NEW (host esx03 removed)", "not in OLD (host esx09 added)")
	for _, c := range d.Changes {
		if c.Kind != "finding" {
			continue
		}
		if (c.Change == "resolved" || c.Change == "new") && regexp.MustCompile(`\besx0[239]\b`).MatchString(c.Text) {
			t.Errorf("finding about an added/removed host reported as %s: %s", c.Change, c.Text)
		}
	}
}

// mixed is the mixed scenario, read as analyze reads it.
func mixed(t *testing.T) []hostio.HostResult {
	in, err := offline.Load("../../fixtures/scenarios/mixed")
	if err != nil {
		t.Fatal(err)
	}
	return in.Results
}

func analyze(rs []hostio.HostResult) *analysis.Analysis {
	return analysis.Run(rs, analysis.Options{})
}
