package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func TestRuleNoRDMADevice(t *testing.T) {
	noDev := func(h *facts.Host) { h.RDMADevices = nil }
	runCases(t, "NO_RDMA_DEVICE", []ruleCase{
		// Sources disagree (critical cross-host / info same-host): critical
		// when another scanned host runs PVRDMA VMs...
		{name: "critical with PVRDMA peers", hosts: two(func(_, b *facts.Host) { noDev(b) }), want: []want{
			{"esx02", "esx02", StatusFail, Critical, "while esx01 also runs PVRDMA VMs", "2100788_0/"},
			{host: "esx01", subject: "esx01", status: StatusPass},
		}, exact: true},
		// ...info when this host is the only one with PVRDMA VMs.
		{name: "info without PVRDMA peers", hosts: two(func(a, b *facts.Host) {
			noDev(a)
			b.PVRDMAListing, b.PVRDMADevices = nil, nil
		}), want: []want{{"esx01", "esx01", StatusFail, Info, "same host only", "2100788_0/"}}, exact: true},
		{name: "passes without PVRDMA VMs", hosts: one(func(h *facts.Host) { noDev(h); h.PVRDMAListing, h.PVRDMADevices = nil, nil }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdRDMAList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "`esxcli rdma device list` failed"}}, exact: true},
	})
}

func TestRuleRDMADeviceDown(t *testing.T) {
	runCases(t, "RDMA_DEVICE_DOWN", []ruleCase{
		{name: "fires", hosts: one(func(h *facts.Host) {
			h.RDMADevices[0].State = "Down"
			h.RDMADevices[0].Ref.Text = "vmrdma0  nmlx5_rdma  Down    4096  0 Mbps    vmnic4"
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "vmrdma0 (paired with vmnic4) is Down", "Down    4096"}}, exact: true},
		{name: "admin down suggests nic up", hosts: one(func(h *facts.Host) {
			h.RDMADevices[0].State = "Down"
			h.NICs[0].AdminStatus = "Down"
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "is Down", "vmnic4"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdRDMAList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "esxcli rdma device list"}}, exact: true},
	})
	// The admin-down fix names the exact command.
	h := goodHost("esx01", "192.168.50.11")
	h.RDMADevices[0].State = "Down"
	h.NICs[0].AdminStatus = "Down"
	got := runRule(t, "RDMA_DEVICE_DOWN", h)
	if len(got) != 1 || got[0].Fix == "" || !strings.Contains(got[0].Fix, "esxcli network nic up -n vmnic4") {
		t.Errorf("admin down fix: %+v", got)
	}
}

func TestRuleRoCENotSupported(t *testing.T) {
	runCases(t, "ROCE_NOT_SUPPORTED", []ruleCase{
		{name: "fires on iWARP only", hosts: one(func(h *facts.Host) {
			h.RDMAProtocols[0] = parse.RDMAProtocol{Device: "vmrdma0", IWARP: true, Ref: ref(cmdProto, 3, "vmrdma0    false    false   true")}
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "supports neither RoCE v1 nor RoCE v2", "false    false   true"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated: missing row", hosts: one(func(h *facts.Host) { h.RDMAProtocols = nil }),
			want: []want{{host: "esx01", subject: "vmrdma0", status: StatusNotEvaluated, msg: "missing from `esxcli rdma device protocol list`"}}, exact: true},
		{name: "not evaluated: command failed", hosts: one(func(h *facts.Host) { missing(h, cmdProto) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdProto}}, exact: true},
	})
}
