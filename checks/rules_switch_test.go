package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func TestRuleRDMAUplinkNotOnDVS(t *testing.T) {
	runCases(t, "RDMA_UPLINK_NOT_ON_DVS", []ruleCase{
		{name: "fires", hosts: one(func(h *facts.Host) {
			h.DVSwitches[0].Uplinks = []string{"vmnic2"}
			h.DVSwitches[0].Record = rec(cmdDVS, "Name", "rdma-dvs", "MTU", "9000", "Uplinks", "vmnic2")
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "paired uplink vmnic4 is not an uplink of rdma-dvs (uplinks: vmnic2)", "Uplinks: vmnic2"}}, exact: true},
		{name: "storage RNIC off the vDS is fine when another serves it", hosts: one(func(h *facts.Host) {
			h.RDMADevices = append(h.RDMADevices, parse.RDMADevice{Name: "vmrdma1", State: "Active", PairedUplink: "vmnic6", Ref: ref(cmdRDMAList, 4, "vmrdma1")})
		}), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}, {host: "esx01", subject: "vmrdma1", status: StatusPass}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdDVS) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
}

func TestRuleDVSMultipleUplinks(t *testing.T) {
	runCases(t, "DVS_MULTIPLE_UPLINKS", []ruleCase{
		{name: "fires", hosts: one(func(h *facts.Host) {
			h.DVSwitches[0].Uplinks = []string{"vmnic4", "vmnic2"}
			h.DVSwitches[0].Record = rec(cmdDVS, "Name", "rdma-dvs", "MTU", "9000", "Uplinks", "vmnic4, vmnic2")
		}), want: []want{{"esx01", "rdma-dvs", StatusFail, Warning, "has 2 uplinks on esx01 (vmnic4, vmnic2)", "Uplinks: vmnic4, vmnic2"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "rdma-dvs", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdDVS) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
	h := goodHost("esx01", "192.168.50.11")
	h.DVSwitches[0].Uplinks = []string{"vmnic2", "vmnic4"}
	got := runRule(t, "DVS_MULTIPLE_UPLINKS", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "unassign vmnic2, leaving vmnic4 (the HCA)") {
		t.Errorf("fix should keep the HCA's vmnic: %+v", got)
	}

	// The vDS's RDMA port is down while the host's other RDMA port is
	// Active and off the vDS: the fix keeps the Active one, as the fix plan
	// does, never the port that is down.
	h = goodHost("esx01", "192.168.50.11")
	h.DVSwitches[0].Uplinks = []string{"vmnic4", "vmnic2"}
	h.RDMADevices[0].State = "Down"
	h.RDMADevices = append(h.RDMADevices, parse.RDMADevice{Name: "vmrdma1", Driver: "nmlx5_rdma", State: "Active", MTU: 4096, PairedUplink: "vmnic5"})
	got = runRule(t, "DVS_MULTIPLE_UPLINKS", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "unassign vmnic4, vmnic2, and assign vmnic5") {
		t.Errorf("fix should keep the Active HCA's port vmnic5: %+v", got)
	}
}
