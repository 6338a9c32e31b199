package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `rules explain` shows, per rule, what it can cause and what can cause it.
func TestRulesExplainShowsTheCauseGraph(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules", "explain", "NO_RDMA_DEVICE")
	flat := strings.Join(strings.Fields(out), " ")
	if code != ExitOK || !strings.Contains(flat, "Can cause (reported nested under it, \"and therefore ...\"): - GUEST_PORT_DOWN:") ||
		!strings.Contains(flat, "- PHYSICAL_HCA_UNAVAILABLE: without an RDMA device") ||
		!strings.Contains(flat, "- TCP_FALLBACK: without an RDMA device, cross-host PVRDMA traffic falls back to TCP") ||
		!strings.Contains(flat, "Can be caused by (then reported under that root cause): - ESXI_VERSION_UNSUPPORTED") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "rules", "explain", "RDMA_ERRORS", "--output", "json")
	var doc RuleDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(doc.CanCause) != 0 || strings.Join(doc.CausedBy, ",") != "PFC_DISABLED" {
		t.Errorf("can_cause %v, can_be_caused_by %v", doc.CanCause, doc.CausedBy)
	}
}
