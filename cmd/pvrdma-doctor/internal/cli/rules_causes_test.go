package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `rules explain` shows, per rule, what it can cause and what can cause it,
// each link with the documents that say so.
func TestRulesExplainShowsTheCauseGraph(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules", "explain", "NO_RDMA_DEVICE")
	flat := strings.Join(strings.Fields(out), " ")
	if code != ExitOK || !strings.Contains(flat, "Can cause (reported nested under it, \"and therefore ...\"): - PHYSICAL_HCA_UNAVAILABLE: without an RDMA device") ||
		strings.Contains(flat, "GUEST_PORT_DOWN") ||
		!strings.Contains(flat, "falls back to TCP source: VMware vSphere documentation, \"Remote Direct Memory Access for Virtual Machines\"") ||
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
	if len(doc.Edges) != 1 || doc.Edges[0].Cause != "PFC_DISABLED" || doc.Edges[0].Effect != "RDMA_ERRORS" || len(doc.Edges[0].Sources) == 0 {
		t.Errorf("cause_edges %+v", doc.Edges)
	}
	// No rule claims a cause of a guest port DOWN: nothing documents one
	// on the host side.
	code, out, _ = runCLI(t, "", "rules", "explain", "GUEST_PORT_DOWN")
	if flat := strings.Join(strings.Fields(out), " "); code != ExitOK || !strings.Contains(flat, "Can be caused by: no other rule's findings (always a root cause).") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
