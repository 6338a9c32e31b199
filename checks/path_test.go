package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// withUnusedPort adds a second port (vmnic5, vmrdma1) that is on no vDS:
// down, without PFC, counting errors. PVRDMA does not use it.
func withUnusedPort(h *facts.Host) {
	const cmdDCB5, cmdNICGet5, cmdStats1 = "esxcli network nic dcb status get -n vmnic5", "esxcli network nic get -n vmnic5", "esxcli rdma device stats get -d vmrdma1"
	collected(h, cmdDCB5, cmdNICGet5, cmdStats1)
	h.RDMADevices = append(h.RDMADevices, parse.RDMADevice{Name: "vmrdma1", Driver: "nmlx5_rdma", State: "Down", MTU: 4096, PairedUplink: "vmnic5",
		Ref: ref(cmdRDMAList, 4, "vmrdma1  nmlx5_rdma  Down  4096  0 Mbps  vmnic5")})
	h.NICDetails = append(h.NICDetails, parse.NICDetail{Name: "vmnic5", Driver: "nmlx5_core", Record: rec(cmdNICGet5, "Name", "vmnic5", "Pause RX", "false", "Pause TX", "false")})
	h.DCB = append(h.DCB, parse.DCBStatus{Nic: "vmnic5", Record: rec(cmdDCB5, "Nic Name", "vmnic5", "PFC Enabled", "false")})
	h.RDMAStats = append(h.RDMAStats, parse.RDMAStats{Device: "vmrdma1", Counters: map[string]int64{"Error packets received": 7},
		Record: rec(cmdStats1, "Error packets received", "7")})
}

// Severity follows relevance: a port PVRDMA does not use is at most info;
// the same faults on the PVRDMA vDS's uplink keep their severity.
func TestRelevanceUnusedPortIsInfo(t *testing.T) {
	runCases(t, "RDMA_DEVICE_DOWN", []ruleCase{
		{name: "unused port down: info", hosts: one(withUnusedPort),
			want: []want{{"esx01", "vmrdma1", StatusFail, Info, "PVRDMA does not use it", "vmrdma1"}}, exact: true},
		{name: "vDS port down: critical", hosts: one(func(h *facts.Host) { h.RDMADevices[0].State = "Down" }),
			want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "is Down", "vmrdma0"}}, exact: true},
	})
	runCases(t, "PFC_DISABLED", []ruleCase{
		{name: "unused port without PFC: info", hosts: one(withUnusedPort),
			want: []want{{"esx01", "vmnic5", StatusFail, Info, "PVRDMA does not use vmnic5", "PFC Enabled: false"}}, exact: true},
	})
	runCases(t, "RDMA_ERRORS", []ruleCase{
		{name: "errors on an unused port: info", hosts: one(withUnusedPort),
			want: []want{{"esx01", "vmrdma1", StatusFail, Info, "PVRDMA does not use vmrdma1", "Error packets received: 7"}}, exact: true},
	})
}

func TestRelevanceRoCEUnsupportedOffPath(t *testing.T) {
	noRoCE := func(h *facts.Host) {
		withUnusedPort(h)
		h.RDMAProtocols = append(h.RDMAProtocols, parse.RDMAProtocol{Device: "vmrdma1", Ref: ref(cmdProto, 4, "vmrdma1  false  false  true")})
	}
	runCases(t, "ROCE_NOT_SUPPORTED", []ruleCase{
		{name: "unused iWARP port: info", hosts: one(noRoCE),
			want: []want{{"esx01", "vmrdma1", StatusFail, Info, "PVRDMA does not use it", "vmrdma1  false  false  true"},
				{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
	})
}
