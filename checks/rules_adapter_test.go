package checks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func TestRulePhysicalHCAUnavailable(t *testing.T) {
	runCases(t, "PHYSICAL_HCA_UNAVAILABLE", []ruleCase{
		// The host's device is Active on the vDS: the cause is unknown, and
		// the finding says so.
		{name: "fires on Physical HCA available:0", hosts: one(func(h *facts.Host) { setProp(h, "Physical HCA available", "0") }),
			want: []want{{"esx01", vm01, StatusFail, Critical, "has no physical HCA behind its PVRDMA adapter; cross-host RDMA falls back to TCP. " +
				"vmrdma0 (paired with vmnic4) is Active on rdma-dvs, so nothing collected explains it", "Physical HCA available:0"}}, exact: true},
		// A device without RoCE explains it (ROCE_NOT_SUPPORTED): no "unknown".
		{name: "the device has no RoCE: not unknown", hosts: one(func(h *facts.Host) {
			setProp(h, "Physical HCA available", "0")
			noRoCE(h)
		}), want: []want{{"esx01", vm01, StatusFail, Critical, "cross-host RDMA falls back to TCP", ""}}, exact: true},
		{name: "passes on 1", hosts: one(nil),
			want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
		{name: "nothing to check without PVRDMA VMs", hosts: one(func(h *facts.Host) {
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			h.Sources[catalog.KindPVRDMAProperties] = nil
		}), exact: true},
		{name: "the adapter whose properties are missing is not evaluated, by name", hosts: one(func(h *facts.Host) {
			missing(h, cmdProps)
			h.PVRDMADevices = nil
		}), want: []want{{host: "esx01", subject: "world 2100788 (PVRDMA adapter 0)", status: StatusNotEvaluated, msg: cmdProps + "` failed"}}, exact: true},
		// Issue 23: the properties prove the adapter's HCA state without
		// `vsish -e ls` or the VM process list (the world ID is in the
		// command line and in `VMM leader ID`).
		{name: "properties alone, without the listing: evaluated", hosts: one(func(h *facts.Host) {
			setProp(h, "Physical HCA available", "0")
			missing(h, cmdLs)
			h.PVRDMAListing = nil
			missing(h, cmdVMList)
		}), want: []want{{"esx01", vm01, StatusFail, Critical, "has no physical HCA", "Physical HCA available:0"}}, exact: true},
		{name: "neither the listing nor properties: not evaluated, with why", hosts: one(func(h *facts.Host) {
			missing(h, cmdLs)
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			h.Sources[catalog.KindPVRDMAProperties] = nil
		}), want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "`" + cmdLs + "` failed"}}, exact: true},
		{name: "not evaluated when the key is absent", hosts: one(func(h *facts.Host) {
			h.PVRDMADevices[0].Props = rec(cmdProps, "Active MTU", "4096")
		}), want: []want{{host: "esx01", subject: vm01, status: StatusNotEvaluated, msg: "Physical HCA available"}}, exact: true},
	})

	// The fix is tailored to why the HCA is missing.
	fixFor := func(f func(h *facts.Host)) string {
		h := goodHost("esx01", "192.168.50.11")
		setProp(&h, "Physical HCA available", "0")
		f(&h)
		for _, r := range runRule(t, "PHYSICAL_HCA_UNAVAILABLE", h) {
			if r.Status == StatusFail {
				return r.Fix
			}
		}
		t.Fatal("rule did not fire")
		return ""
	}
	if fix := fixFor(func(h *facts.Host) { h.RDMADevices = nil }); !strings.Contains(fix, "no RDMA device") {
		t.Errorf("no device: fix %q", fix)
	}
	if fix := fixFor(func(h *facts.Host) { h.RDMADevices[0].State = "Down" }); !strings.Contains(fix, "vmrdma0 is Down") {
		t.Errorf("device down: fix %q", fix)
	}
	if fix := fixFor(func(h *facts.Host) { h.RDMADevices[0].PairedUplink = "vmnic5" }); !strings.Contains(fix, "vmnic5 is not an uplink of rdma-dvs") {
		t.Errorf("uplink not on the vDS: fix %q", fix)
	}
}

func TestRuleTCPFallback(t *testing.T) {
	noHCA := func(h *facts.Host) { setProp(h, "Physical HCA available", "0") }
	runCases(t, "TCP_FALLBACK", []ruleCase{
		{name: "fires when a peer host has no RDMA device", hosts: two(func(_, b *facts.Host) { b.RDMADevices = nil; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "reach their peers on esx01 over TCP: esx02 has no RDMA device", "Physical HCA available"}}, exact: true},
		{name: "fires when its device is Down", hosts: two(func(_, b *facts.Host) { b.RDMADevices[0].State = "Down"; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "esx02 has no Active RDMA device", "vmrdma0"}}, exact: true},
		{name: "fires when the Active device is not on the PVRDMA switch", hosts: two(func(_, b *facts.Host) { b.RDMADevices[0].PairedUplink = "vmnic5"; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "paired with vmnic5, which is not an uplink of rdma-dvs", "Uplinks: vmnic4"}}, exact: true},
		// vsish is the primary evidence: adapters without HCA fall back even
		// though the device list looks fine, and the finding says so.
		{name: "vsish says no HCA while the device is usable: fires, sources disagree", hosts: two(func(_, b *facts.Host) { noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "the sources disagree", "Physical HCA available"}}, exact: true},
		// vsish says HCA while the device list shows none: no fallback, info.
		{name: "vsish says HCA while no device is listed: info, sources disagree", hosts: two(func(_, b *facts.Host) { b.RDMADevices = nil }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Info, "the sources disagree on esx02", "Physical HCA available"}}, exact: true},
		// Without vsish properties, the device list decides.
		{name: "device list decides without vsish", hosts: two(func(_, b *facts.Host) {
			b.RDMADevices = nil
			b.PVRDMADevices[0].Props = rec(cmdProps, "RoCE version", "2")
		}), want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "esx02 has no RDMA device", ""}}, exact: true},
		{name: "passes with RDMA on both hosts", hosts: two(nil),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}, {host: "esx02", subject: "esx02", status: StatusPass}}, exact: true},
		// A single-host scan cannot see the peers: info, "scan the peer hosts".
		{name: "single host: info, scan the peers", hosts: one(func(h *facts.Host) { h.RDMADevices = nil; noHCA(h) }),
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusFail, Info, "scan the peer hosts", "Physical HCA available"}}, exact: true},
		{name: "single healthy host passes", hosts: one(nil), want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		// Issue 23: a pasted session without the vDS list (no PVRDMA
		// switch known) crashed here; every Active device counts then,
		// and the finding says the vDS is unknown.
		{name: "vsish says no HCA, device Active, vDS list missing", hosts: two(func(_, b *facts.Host) {
			noHCA(b)
			missing(b, cmdDVS)
			b.DVSwitches = nil
		}), want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical,
			"although vmrdma0 on vmnic4 (which vDS it serves is unknown: `esxcli network vswitch dvs vmware list` was not read) is Active", "Physical HCA available"}}, exact: true},
		{name: "not evaluated without the device list and vsish", hosts: two(func(_, b *facts.Host) {
			missing(b, cmdRDMAList)
			b.PVRDMADevices[0].Props = rec(cmdProps, "RoCE version", "2")
		}), want: []want{{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "`esxcli rdma device list` failed"}}, exact: true},
	})
}

func TestTCPFallbackEvidenceWithoutDevices(t *testing.T) {
	a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
	b.RDMADevices = []parse.RDMADevice{}
	setProp(&b, "Physical HCA available", "0")
	for _, f := range runRule(t, "TCP_FALLBACK", a, b) {
		if f.Status != StatusFail {
			continue
		}
		if len(f.Evidence) != 2 || f.Evidence[0].Command != cmdProps || f.Evidence[1].Command != cmdRDMAList || f.Evidence[1].Note == "" {
			t.Errorf("evidence %+v", f.Evidence)
		}
		return
	}
	t.Fatal("TCP_FALLBACK did not fire")
}

// With a working RNIC that is not the vDS uplink, the fix is to make it the
// uplink, not to buy one.

func TestTCPFallbackFixForUplinkNotOnSwitch(t *testing.T) {
	a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
	b.RDMADevices[0].PairedUplink = "vmnic5"
	setProp(&b, "Physical HCA available", "0")
	for _, f := range runRule(t, "TCP_FALLBACK", a, b) {
		if f.Status == StatusFail {
			if strings.Contains(f.Fix, "install an RoCE NIC") || !strings.Contains(f.Fix, "make vmnic5 (paired with vmrdma0) the only uplink of rdma-dvs") {
				t.Errorf("fix %q", f.Fix)
			}
			return
		}
	}
	t.Fatal("TCP_FALLBACK did not fire")
}

// Not-evaluated reasons name the command a user can run, never an internal kind.

func TestRuleRoCEVersionMismatch(t *testing.T) {
	v1 := func(h *facts.Host) {
		h.PVRDMADevices[0].RoCEVersion = 1
		h.PVRDMADevices[0].Props = rec(cmdProps, "Physical HCA available", "1", "RoCE version", "1", "Active MTU", "4096")
	}
	runCases(t, "ROCE_VERSION_MISMATCH", []ruleCase{
		{name: "fires on the v1 adapter", hosts: two(func(_, b *facts.Host) { v1(b) }), want: []want{
			{"esx02", "hpc-esx02 (PVRDMA adapter 0)", StatusFail, Warning, "uses RoCE v1 while 1 other PVRDMA adapter(s) use RoCE v2", "RoCE version: 1"},
			{host: "esx01", subject: "hpc-esx01 (PVRDMA adapter 0)", status: StatusPass},
		}, exact: true},
		{name: "passes", hosts: two(nil), want: []want{
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

func TestPhysicalHCAUnknownCauseOnlyWhenNothingExplainsIt(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	setProp(&h, "Physical HCA available", "0")
	noRoCE(&h)
	for _, f := range runRule(t, "PHYSICAL_HCA_UNAVAILABLE", h) {
		if f.Status == StatusFail && strings.Contains(f.Message, "nothing collected explains it") {
			t.Errorf("a device without RoCE explains it: %s", f.Message)
		}
	}
}

// A listing past the per-host cap of stage 2 (hundreds of thousands of
// adapters, a hostile host) gives one "not evaluated" for the adapters
// whose properties were not read, not one each.
func TestPhysicalHCAUnreadAdaptersAreOneResultWhenMany(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	for i := 0; i < 5000; i++ {
		h.PVRDMAListing = append(h.PVRDMAListing, parse.VsishEntry{Name: strconv.Itoa(3000000+i) + "_0", IsDir: true})
	}
	var ne []Finding
	for _, f := range runRule(t, "PHYSICAL_HCA_UNAVAILABLE", h) {
		if f.Status == StatusNotEvaluated {
			ne = append(ne, f)
		}
	}
	if len(ne) != 1 || ne[0].Subject != "esx01" || !strings.Contains(ne[0].Message, "the vsish properties of 5000 listed adapters were not read") ||
		!strings.Contains(ne[0].Message, "and 4997 more") {
		t.Errorf("%d results: %+v", len(ne), ne[:min(len(ne), 2)])
	}
}
