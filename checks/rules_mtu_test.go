package checks

import (
	"strconv"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

func TestRuleLowMTU(t *testing.T) {
	runCases(t, "LOW_MTU", []ruleCase{
		// Below the other adapters on the vDS: connections negotiate down.
		{name: "warning at 1024 when peers run 4096", hosts: two(func(a, _ *facts.Host) { setProp(a, "Active MTU", "1024") }),
			want: []want{{"esx01", vm01, StatusFail, Warning, "other adapters on rdma-dvs run at 4096", "Active MTU:1024"}}, exact: true},
		// Seed 002's reference: every adapter at 1024 on a 9000 vDS: info.
		{name: "info at 1024 when every adapter runs 1024", hosts: two(func(a, b *facts.Host) {
			setProp(a, "Active MTU", "1024")
			setProp(b, "Active MTU", "1024")
		}), want: []want{
			{"esx01", vm01, StatusFail, Info, "every adapter on rdma-dvs runs at 1024", "Active MTU:1024"},
			{"esx02", "hpc-esx02 (PVRDMA adapter 0)", StatusFail, Info, "4 times as many packets per message", "Active MTU:1024"},
		}, exact: true},
		{name: "passes at 4096 on a 9000 path", hosts: one(nil),
			want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
		// The tagged vmknic's MTU is not the data path: RDMA frames go through the HCA.
		{name: "a 1500 vmknic does not lower the data path", hosts: two(func(a, _ *facts.Host) {
			setProp(a, "Active MTU", "1024")
			a.Vmknics[1].MTU = 1500
			a.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "MTU", "1500")
		}), want: []want{{"esx01", vm01, StatusFail, Warning, "its data path carries 9000-byte frames (rdma-dvs MTU 9000)", "Active MTU:1024"}}},
		// A jumbo probe lost on the network proves the physical path is 1500.
		{name: "passes at 1024 when the jumbo probe is lost", hosts: one(func(h *facts.Host) {
			setProp(h, "Active MTU", "1024")
			addPings(h, "192.168.50.12", true, false)
		}), want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
		// Never where traffic falls back to TCP anyway.
		{name: "silent without a physical HCA", hosts: two(func(a, _ *facts.Host) {
			setProp(a, "Active MTU", "1024")
			setProp(a, "Physical HCA available", "0")
		}), want: nil, exact: true},
		{name: "silent without an RDMA device", hosts: two(func(a, _ *facts.Host) {
			setProp(a, "Active MTU", "1024")
			a.RDMADevices = nil
		}), want: nil, exact: true},
		{name: "fires at 2048 on a 9000 path", hosts: two(func(a, _ *facts.Host) { setProp(a, "Active MTU", "2048") }),
			want: []want{{"esx01", vm01, StatusFail, Warning, "allows 4096", "Active MTU:2048"}}, exact: true},
		{name: "not evaluated without the path", hosts: one(func(h *facts.Host) {
			missing(h, cmdDVS)
			h.DVSwitches = nil
		}), want: []want{{host: "esx01", subject: vm01, status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
	runCases(t, "ACTIVE_MTU_ABOVE_PATH", []ruleCase{
		{name: "fires at 4096 when the jumbo probe is lost", hosts: one(func(h *facts.Host) { addPings(h, "192.168.50.12", true, false) }),
			want: []want{{"esx01", vm01, StatusFail, Warning, "probes proved the data path carries only 1500-byte frames", "Active MTU: 4096"}}, exact: true},
		// A local refusal proves nothing about the path.
		{name: "silent when the jumbo probe is refused locally", hosts: one(func(h *facts.Host) {
			addPings(h, "192.168.50.12", true, false)
			h.Pings[1].MessageTooLong = true
		}), want: nil, exact: true},
		{name: "passes at 1024 when the jumbo probe is lost", hosts: one(func(h *facts.Host) {
			setProp(h, "Active MTU", "1024")
			addPings(h, "192.168.50.12", true, false)
		}), want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
	})
}

func TestRuleMTUMismatch(t *testing.T) {
	setVmkMTU := func(h *facts.Host, mtu string) {
		h.Vmknics[1].MTU, _ = strconv.Atoi(mtu)
		h.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "VDS Name", "rdma-dvs", "MTU", mtu)
	}
	runCases(t, "MTU_MISMATCH", []ruleCase{
		{name: "vmknic below vDS, peers higher, jumbo probes fail locally (warning)", hosts: probed(func(a, _ *facts.Host) {
			setVmkMTU(a, "1500")
			a.Pings = nil
			addPings(a, "192.168.50.12", true, false)
		}), want: []want{
			{"esx01", "vmk1", StatusFail, Warning, "vmk1 (on rdma-dvs) has MTU 1500 but rdma-dvs has MTU 9000", "MTU: 1500"},
			{host: "esx02", subject: "vmk1", status: StatusPass},
		}, exact: true},
		// Safer reading: a jumbo probe failing from a jumbo vmknic while
		// small probes work proves the network drops jumbo frames: critical.
		{name: "network drops jumbo (critical)", hosts: probed(func(a, _ *facts.Host) {
			a.Pings = nil
			addPings(a, "192.168.50.12", true, false)
		}), want: []want{
			{"esx01", "vmk1", StatusFail, Critical, "vmkping -d -s 8972 from vmk1 to 192.168.50.12 (esx02 vmk1) gets no reply while 1472-byte probes do: the packets left esx01 and the network between the hosts drops jumbo frames", "0 packets received"},
		}},
		{name: "peer path MTU lower", hosts: probed(func(_, b *facts.Host) {
			b.DVSwitches[0].MTU = 1500
			b.Vmknics[1].MTU = 1500
		}), want: []want{
			{"esx02", "vmk1", StatusFail, Warning, "esx02's PVRDMA data path MTU is 1500 (rdma-dvs MTU 1500, vmnic4 MTU 9000)", "MTU"},
			{host: "esx01", subject: "vmk1", status: StatusPass},
		}, exact: true},
		{name: "passes", hosts: probed(nil), want: []want{
			{host: "esx01", subject: "vmk1", status: StatusPass}, {host: "esx02", subject: "vmk1", status: StatusPass},
		}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdIfList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdIfList}}, exact: true},
	})
}
