package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// withPorts gives a host's rdma-dvs DVPort clients on their port groups.
func withPorts(h *facts.Host, clientPG ...string) {
	r := &h.DVSwitches[0].Record
	if r.Nested == nil {
		r.Nested = map[string][]parse.Record{}
	}
	for i := 0; i+1 < len(clientPG); i += 2 {
		r.Nested["DVPort"] = append(r.Nested["DVPort"], rec(cmdDVS, "Client", clientPG[i], "DVPortgroup ID", clientPG[i+1]))
	}
}

func TestRuleVMXNET3OnPVRDMAPortgroup(t *testing.T) {
	pvrdmaPort := []string{"hpc-esx01.eth1", "dvportgroup-1005"}
	runCases(t, "VMXNET3_ON_PVRDMA_PORTGROUP", []ruleCase{
		// The expert review's case: a Bitfusion server whose data NIC is
		// VMXNET3 on the PVRDMA port group, beside an Active RNIC: info,
		// naming it and recommending a PVRDMA adapter.
		{name: "a Bitfusion server's VMXNET3 on the PVRDMA port group: info", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "bitfusion-server-01.eth1", "dvportgroup-1005")...)
		}), want: []want{{"esx01", "bitfusion-server-01 (eth1)", StatusFail, Info,
			"bitfusion-server-01 (a Bitfusion server by its name) has a network adapter that is not PVRDMA", "bitfusion-server-01.eth1"}}, exact: true},
		{name: "any VM: info without the Bitfusion words", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "etl-01.eth1", "dvportgroup-1005")...)
		}), want: []want{{"esx01", "etl-01 (eth1)", StatusFail, Info, "etl-01 has a network adapter that is not PVRDMA (VMXNET3 unless set otherwise", ""}}, exact: true},
		// Near misses: another port group (the vmknic's), and no Active
		// RDMA device (nothing to use).
		{name: "another port group passes", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "bitfusion-server-01.eth0", "dvportgroup-1004")...)
		}), want: []want{{host: "esx01", subject: "rdma-dvs", status: StatusPass}}, exact: true},
		{name: "silent without an Active RDMA device", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "bitfusion-server-01.eth1", "dvportgroup-1005")...)
			h.RDMADevices[0].State = "Down"
		}), want: nil, exact: true},
		// Without the adapters' properties, which VMs have PVRDMA is not
		// known: every VM's port could be one.
		{name: "not evaluated without the PVRDMA adapters' properties", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "bitfusion-server-01.eth1", "dvportgroup-1005")...)
			missing(h, cmdProps)
			h.PVRDMADevices = nil
		}), want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdProps}}, exact: true},
		{name: "not evaluated when an adapter's properties are not in the input", hosts: one(func(h *facts.Host) {
			withPorts(h, append(pvrdmaPort, "bitfusion-server-01.eth1", "dvportgroup-1005")...)
			h.PVRDMADevices = nil
		}), want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "vsish lists 1 PVRDMA adapters but the properties of only 0 were read"}}, exact: true},
		{name: "not evaluated without the vDS list", hosts: one(func(h *facts.Host) { missing(h, cmdDVS) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
}
