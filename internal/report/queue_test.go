package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A host's own time and its wait for a concurrency slot are reported
// apart (schema 1.4).
func TestQueueWaitReportedApart(t *testing.T) {
	r := buildWith([]hostio.HostResult{
		{Host: "esx01", Status: hostio.StatusNotCollected, Reason: "refused", Duration: 2300 * time.Millisecond, QueueWait: 11665 * time.Millisecond},
		{Host: "esx02", Status: hostio.StatusNotCollected, Reason: "refused", Duration: time.Second}})
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Hosts []map[string]any }
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if h := doc.Hosts[0]; h["duration_ms"] != float64(2300) || h["queue_ms"] != float64(11665) {
		t.Errorf("esx01: duration_ms %v, queue_ms %v", h["duration_ms"], h["queue_ms"])
	}
	if _, ok := doc.Hosts[1]["queue_ms"]; ok {
		t.Errorf("esx02 never waited, yet has queue_ms")
	}
}
