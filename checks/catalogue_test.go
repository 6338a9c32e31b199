package checks

import (
	"strings"
	"testing"
)

func TestCatalogueMetadata(t *testing.T) {
	required := []string{"PHYSICAL_HCA_UNAVAILABLE", "LOW_MTU", "TCP_FALLBACK", "COLLECTION_FAILED", "NO_RDMA_DEVICE",
		"RDMA_DEVICE_DOWN", "RDMA_UPLINK_NOT_ON_DVS", "DVS_MULTIPLE_UPLINKS", "PVRDMA_VMKNIC_UNSET", "PVRDMA_FIREWALL_CLOSED",
		"MTU_MISMATCH", "PFC_DISABLED", "RDMA_ERRORS"}
	for _, id := range required {
		if _, ok := Lookup(id); !ok {
			t.Errorf("rule %s missing", id)
		}
	}
	for _, r := range Rules() {
		if len(r.Docs) == 0 || r.Applies == "" {
			t.Errorf("%s: no docs or applies", r.ID)
		}
		if strings.ToUpper(r.ID) != r.ID || strings.ContainsAny(r.ID, " -") {
			t.Errorf("%s: ID must be UPPER_SNAKE", r.ID)
		}
	}
}
