package checks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
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
}

func TestRuleMTUMismatch(t *testing.T) {
	two := func(f func(a, b *facts.Host)) func() []facts.Host {
		return func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			addPings(&a, "192.168.50.12", true, true)
			addPings(&b, "192.168.50.11", true, true)
			f(&a, &b)
			return []facts.Host{a, b}
		}
	}
	setVmkMTU := func(h *facts.Host, mtu string) {
		h.Vmknics[1].MTU, _ = strconv.Atoi(mtu)
		h.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "VDS Name", "rdma-dvs", "MTU", mtu)
	}
	runCases(t, "MTU_MISMATCH", []ruleCase{
		{name: "vmknic below vDS, peers higher, jumbo probes fail locally (warning)", hosts: two(func(a, _ *facts.Host) {
			setVmkMTU(a, "1500")
			a.Pings = nil
			addPings(a, "192.168.50.12", true, false)
		}), want: []want{
			{"esx01", "vmk1", StatusFail, Warning, "vmk1 (on rdma-dvs) has MTU 1500 but rdma-dvs has MTU 9000", "MTU: 1500"},
			{host: "esx02", subject: "vmk1", status: StatusPass},
		}, exact: true},
		// Safer reading: a jumbo probe failing from a jumbo vmknic while
		// small probes work proves the network drops jumbo frames: critical.
		{name: "network drops jumbo (critical)", hosts: two(func(a, _ *facts.Host) {
			a.Pings = nil
			addPings(a, "192.168.50.12", true, false)
		}), want: []want{
			{"esx01", "vmk1", StatusFail, Critical, "vmkping -d -s 8972 from vmk1 to 192.168.50.12 (esx02 vmk1) gets no reply while 1472-byte probes do: the packets left esx01 and the network between the hosts drops jumbo frames", "0 packets received"},
		}},
		{name: "peer path MTU lower", hosts: two(func(_, b *facts.Host) {
			b.DVSwitches[0].MTU = 1500
			b.Vmknics[1].MTU = 1500
		}), want: []want{
			{"esx02", "vmk1", StatusFail, Warning, "esx02's PVRDMA data path MTU is 1500 (rdma-dvs MTU 1500, vmnic4 MTU 9000)", "MTU"},
			{host: "esx01", subject: "vmk1", status: StatusPass},
		}, exact: true},
		{name: "passes", hosts: two(func(_, _ *facts.Host) {}), want: []want{
			{host: "esx01", subject: "vmk1", status: StatusPass}, {host: "esx02", subject: "vmk1", status: StatusPass},
		}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdIfList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdIfList}}, exact: true},
	})
}

func TestRulePFCDisabled(t *testing.T) {
	pfcOff := func(h *facts.Host) {
		h.DCB[0].PFCEnabled = false
		h.DCB[0].PFCPriorities = []int{}
		h.DCB[0].Record = rec(cmdDCB4, "Nic Name", "vmnic4", "PFC Enabled", "false", "PFC Configuration", "0 0 0 0 0 0 0 0")
	}
	runCases(t, "PFC_DISABLED", []ruleCase{
		// Sources disagree (warning; critical if drops seen): warning...
		{name: "fires (warning)", hosts: one(pfcOff),
			want: []want{{"esx01", "vmnic4", StatusFail, Warning, "PFC is disabled and global pause is off", "PFC Enabled: false"}}, exact: true},
		// ...critical when the RDMA device counts errors.
		{name: "fires (critical with errors)", hosts: one(func(h *facts.Host) {
			pfcOff(h)
			h.RDMAStats[0].Counters["Error packets received"] = 48213
			h.RDMAStats[0].Record = rec(cmdStats0, "Packets received", "100", "Error packets received", "48213")
		}), want: []want{{"esx01", "vmnic4", StatusFail, Critical, "vmrdma0 already counts errors (Error packets received)", "Error packets received: 48213"}}, exact: true},
		{name: "passes with global pause", hosts: one(func(h *facts.Host) {
			pfcOff(h)
			h.NICDetails[0].PauseRX, h.NICDetails[0].PauseTX = true, true
		}), want: []want{{host: "esx01", subject: "vmnic4", status: StatusPass}}, exact: true},
		{name: "passes with PFC", hosts: one(nil), want: []want{{host: "esx01", subject: "vmnic4", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) {
			missing(h, cmdDCB4)
			h.DCB = nil
		}), want: []want{{host: "esx01", subject: "vmnic4", status: StatusNotEvaluated, msg: cmdDCB4}}, exact: true},
	})
	h := goodHost("esx01", "192.168.50.11")
	pfcOff(&h)
	got := runRule(t, "PFC_DISABLED", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "esxcli network nic pauseParams set -n vmnic4 -r true -t true") ||
		!strings.Contains(got[0].Fix, "-m nmlx5_core") {
		t.Errorf("fix should name vmnic4 and the nmlx5 parameters: %+v", got)
	}
}

func TestRuleRDMAErrors(t *testing.T) {
	runCases(t, "RDMA_ERRORS", []ruleCase{
		{name: "fires and names the counters", hosts: one(func(h *facts.Host) {
			h.RDMAStats[0].Counters["Error packets received"] = 48213
			h.RDMAStats[0].Counters["Queue pairs in ERR state"] = 2
			h.RDMAStats[0].Record = rec(cmdStats0, "Packets received", "100", "Error packets received", "48213", "Queue pairs in ERR state", "2")
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Warning, "Error packets received 48213, Queue pairs in ERR state 2", "Error packets received: 48213"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdStats0); h.RDMAStats = nil }),
			want: []want{{host: "esx01", subject: "vmrdma0", status: StatusNotEvaluated, msg: cmdStats0}}, exact: true},
	})
}

func TestRuleVmkpingUnreachable(t *testing.T) {
	runCases(t, "VMKPING_UNREACHABLE", []ruleCase{
		{name: "fires", hosts: func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			addPings(&a, "192.168.50.12", false, false)
			addPings(&b, "192.168.50.11", true, true)
			return []facts.Host{a, b}
		}, want: []want{
			{"esx01", "vmk1 -> 192.168.50.12 (esx02 vmk1)", StatusFail, Critical, "gets no reply from 192.168.50.12", "0 packets received"},
			{host: "esx02", subject: "vmk1 -> 192.168.50.11 (esx01 vmk1)", status: StatusPass},
		}, exact: true},
		{name: "partial loss is a warning", hosts: one(func(h *facts.Host) {
			addPings(h, "192.168.50.12", true, true)
			h.Pings[0].Received, h.Pings[0].LossPercent = 2, 33
		}), want: []want{{"esx01", "vmk1 -> 192.168.50.12", StatusFail, Warning, "loses 33% of probes", "packets"}}, exact: true},
		{name: "passes", hosts: one(func(h *facts.Host) { addPings(h, "192.168.50.12", true, true) }),
			want: []want{{host: "esx01", subject: "vmk1 -> 192.168.50.12", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdPingSmall) }),
			want: []want{{host: "esx01", subject: cmdPingSmall, status: StatusNotEvaluated, msg: "probe failed"}}, exact: true},
		{name: "not evaluated without probes to peers", hosts: func() []facts.Host {
			return []facts.Host{goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")}
		}, want: []want{
			{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "no vmkping probes were run"},
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no vmkping probes were run"},
		}, exact: true},
		{name: "single host: nothing to probe", hosts: one(nil), want: nil, exact: true},
	})
}

func TestRuleRoCEVersionMismatch(t *testing.T) {
	v1 := func(h *facts.Host) {
		h.PVRDMADevices[0].RoCEVersion = 1
		h.PVRDMADevices[0].Props = rec(cmdProps, "Physical HCA available", "1", "RoCE version", "1", "Active MTU", "4096")
	}
	runCases(t, "ROCE_VERSION_MISMATCH", []ruleCase{
		{name: "fires on the v1 adapter", hosts: func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			v1(&b)
			return []facts.Host{a, b}
		}, want: []want{
			{"esx02", "hpc-esx02 (PVRDMA adapter 0)", StatusFail, Warning, "uses RoCE v1 while 1 other PVRDMA adapter(s) use RoCE v2", "RoCE version: 1"},
			{host: "esx01", subject: "hpc-esx01 (PVRDMA adapter 0)", status: StatusPass},
		}, exact: true},
		{name: "passes", hosts: func() []facts.Host {
			return []facts.Host{goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")}
		}, want: []want{
			{host: "esx01", subject: "hpc-esx01 (PVRDMA adapter 0)", status: StatusPass},
			{host: "esx02", subject: "hpc-esx02 (PVRDMA adapter 0)", status: StatusPass},
		}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) {
			h.PVRDMADevices[0].Props = rec(cmdProps, "Physical HCA available", "1")
			h.PVRDMADevices[0].RoCEVersion = 0
		}), want: []want{{host: "esx01", subject: "hpc-esx01 (PVRDMA adapter 0)", status: StatusNotEvaluated, msg: "`RoCE version` missing"}}, exact: true},
	})
}

// Every rule carries the metadata `rules explain` shows.
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
