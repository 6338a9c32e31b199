package bundle

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
)

// results.json, written a host at a time, is what one json.MarshalIndent
// of the results without their stdout gives.
func TestSlimResultsAsOneMarshal(t *testing.T) {
	for _, rs := range [][]hostio.HostResult{nil, {}, {
		{Host: "esx01", Status: hostio.StatusCollected, Notes: []string{"n"}, Captures: []hostio.Capture{
			{Command: "esxcli rdma device list", Stdout: "out", Stderr: "err\x1b", Status: hostio.StatusCollected}}},
		{Host: "esx02", Status: hostio.StatusNotCollected, Reason: "refused"},
	}} {
		slim := redact.Clone(rs)
		for i := range slim {
			for j := range slim[i].Captures {
				slim[i].Captures[j].Stdout = ""
			}
		}
		if rs == nil {
			slim = nil
		}
		want, _ := json.MarshalIndent(slim, "", "  ")
		var got bytes.Buffer
		if err := writeSlimResults(&got, rs); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("got\n%s\nwant\n%s", got.String(), want)
		}
		if len(rs) > 0 && rs[0].Captures[0].Stdout != "out" {
			t.Error("the results were changed")
		}
	}
}
