package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

func TestRulePVRDMAVmknicUnset(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_UNSET", []ruleCase{
		{name: "fires when empty", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = ""
			h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "String Value", "")
		}), want: []want{{"esx01", "/Net/PVRDMAVmknic", StatusFail, Critical, "is empty on esx01", "String Value"}}, exact: true},
		{name: "fires when naming a missing vmknic", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = "vmk7"
			h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "String Value", "vmk7")
		}), want: []want{{"esx01", "/Net/PVRDMAVmknic", StatusFail, Critical, "names vmk7, which does not exist", "String Value: vmk7"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusPass}}, exact: true},
		{name: "passes empty without PVRDMA VMs", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = ""
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
		}), want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdTag); h.PVRDMAVmknic = nil }),
			want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusNotEvaluated, msg: "/Net/PVRDMAVmknic"}}, exact: true},
	})
	h := goodHost("esx01", "192.168.50.11")
	h.PVRDMAVmknic.StringValue = ""
	got := runRule(t, "PVRDMA_VMKNIC_UNSET", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1") {
		t.Errorf("fix should name vmk1 (on rdma-dvs, bound to vmrdma0): %+v", got)
	}
}

func TestRulePVRDMAVmknicNotOnDVS(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_NOT_ON_DVS", []ruleCase{
		{name: "fires on a standard switch", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = "vmk0"
			h.Vmknics[0].Record = rec(cmdIfList, "Name", "vmk0", "Portset", "vSwitch0", "VDS Name", "N/A")
		}), want: []want{{"esx01", "vmk0", StatusFail, Info, "is on standard switch vSwitch0, not on the PVRDMA vDS rdma-dvs: this is the setup VMware's PVRDMA guides use", "VDS Name: N/A"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdDVS) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
}

func TestRulePVRDMAVmknicNoIPv4(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_NO_IPV4", []ruleCase{
		{name: "fires on 0.0.0.0", hosts: one(func(h *facts.Host) {
			h.IPv4[1].Address = "0.0.0.0"
			h.IPv4[1].Ref = ref(cmdIPv4, 4, "vmk1  0.0.0.0")
		}), want: []want{{"esx01", "vmk1", StatusFail, Critical, "has no IPv4 address", "vmk1  0.0.0.0"}}, exact: true},
		{name: "fires without a row", hosts: one(func(h *facts.Host) { h.IPv4 = h.IPv4[:1] }),
			want: []want{{"esx01", "vmk1", StatusFail, Critical, "has no IPv4 address", "vmk1"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdIPv4) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdIPv4}}, exact: true},
	})
}
