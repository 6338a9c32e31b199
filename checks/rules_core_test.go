package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const vm01 = "hpc-esx01 (PVRDMA adapter 0)"

// setProp changes one vsish property of the host's first PVRDMA device.
func setProp(h *facts.Host, key, value string) {
	d := &h.PVRDMADevices[0]
	props := rec(cmdProps, "Physical HCA available", "1", "RoCE version", "2", "Active MTU", "4096")
	f := props.Fields[key]
	f.Value = value
	f.Text = key + ":" + value
	props.Fields[key] = f
	d.Props = props
	switch key {
	case "Physical HCA available":
		d.PhysicalHCA = atoi(value)
	case "Active MTU":
		d.ActiveMTU = atoi(value)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestRulePhysicalHCAUnavailable(t *testing.T) {
	runCases(t, "PHYSICAL_HCA_UNAVAILABLE", []ruleCase{
		{name: "fires on Physical HCA available:0", hosts: one(func(h *facts.Host) { setProp(h, "Physical HCA available", "0") }),
			want: []want{{"esx01", vm01, StatusFail, Critical, "has no physical HCA", "Physical HCA available:0"}}, exact: true},
		{name: "passes on 1", hosts: one(nil),
			want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
		{name: "nothing to check without PVRDMA VMs", hosts: one(func(h *facts.Host) {
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			h.Sources[hostio.KindPVRDMAProperties] = nil
		}), exact: true},
		{name: "not evaluated when the properties are missing", hosts: one(func(h *facts.Host) {
			missing(h, cmdProps)
			h.PVRDMADevices = nil
		}), want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdProps}}, exact: true},
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

func TestRuleLowMTU(t *testing.T) {
	two := func(f func(a, b *facts.Host)) func() []facts.Host {
		return func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			if f != nil {
				f(&a, &b)
			}
			return []facts.Host{a, b}
		}
	}
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
	for eth, want := range map[int]int{1500: 1024, 2200: 2048, 4191: 2048, 4192: 4096, 9000: 4096, 1100: 512} {
		if got := rdmaMTUFor(eth); got != want {
			t.Errorf("rdmaMTUFor(%d) = %d, want %d", eth, got, want)
		}
	}
}

func TestRuleTCPFallback(t *testing.T) {
	two := func(f func(b *facts.Host)) func() []facts.Host {
		return func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			if f != nil {
				f(&b)
			}
			return []facts.Host{a, b}
		}
	}
	noHCA := func(h *facts.Host) { setProp(h, "Physical HCA available", "0") }
	runCases(t, "TCP_FALLBACK", []ruleCase{
		{name: "fires when a peer host has no RDMA device", hosts: two(func(b *facts.Host) { b.RDMADevices = nil; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "reach their peers on esx01 over TCP: esx02 has no RDMA device", "Physical HCA available"}}, exact: true},
		{name: "fires when its device is Down", hosts: two(func(b *facts.Host) { b.RDMADevices[0].State = "Down"; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "esx02 has no Active RDMA device", "vmrdma0"}}, exact: true},
		{name: "fires when the Active device is not on the PVRDMA switch", hosts: two(func(b *facts.Host) { b.RDMADevices[0].PairedUplink = "vmnic5"; noHCA(b) }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "paired with vmnic5, which is not an uplink of rdma-dvs", "Uplinks: vmnic4"}}, exact: true},
		// vsish is the primary evidence: adapters without HCA fall back even
		// though the device list looks fine, and the finding says so.
		{name: "vsish says no HCA while the device is usable: fires, sources disagree", hosts: two(noHCA),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "the sources disagree", "Physical HCA available"}}, exact: true},
		// vsish says HCA while the device list shows none: no fallback, info.
		{name: "vsish says HCA while no device is listed: info, sources disagree", hosts: two(func(b *facts.Host) { b.RDMADevices = nil }),
			want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Info, "the sources disagree on esx02", "Physical HCA available"}}, exact: true},
		// Without vsish properties, the device list decides.
		{name: "device list decides without vsish", hosts: two(func(b *facts.Host) {
			b.RDMADevices = nil
			b.PVRDMADevices[0].Props = rec(cmdProps, "RoCE version", "2")
		}), want: []want{{"esx02", "esx02 (hpc-esx02)", StatusFail, Critical, "esx02 has no RDMA device", ""}}, exact: true},
		{name: "passes with RDMA on both hosts", hosts: two(nil),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}, {host: "esx02", subject: "esx02", status: StatusPass}}, exact: true},
		// A single-host scan cannot see the peers: info, "scan the peer hosts".
		{name: "single host: info, scan the peers", hosts: one(func(h *facts.Host) { h.RDMADevices = nil; noHCA(h) }),
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusFail, Info, "scan the peer hosts", "Physical HCA available"}}, exact: true},
		{name: "single healthy host passes", hosts: one(nil), want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		{name: "not evaluated without the device list and vsish", hosts: two(func(b *facts.Host) {
			missing(b, cmdRDMAList)
			b.PVRDMADevices[0].Props = rec(cmdProps, "RoCE version", "2")
		}), want: []want{{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "`esxcli rdma device list` failed"}}, exact: true},
	})
}

func TestRuleCollectionFailed(t *testing.T) {
	runCases(t, "COLLECTION_FAILED", []ruleCase{
		{name: "fires for a host not collected", hosts: func() []facts.Host {
			return []facts.Host{{Host: "esx05", Status: hostio.StatusNotCollected, Reason: "connection refused", Sources: map[hostio.Kind][]facts.Source{}}}
		}, want: []want{{host: "esx05", subject: "esx05", status: StatusFail, severity: Warning, msg: "connection refused"}}},
		{name: "fires for a failed command", hosts: one(func(h *facts.Host) { missing(h, cmdDCB4) }),
			want: []want{{"esx01", cmdDCB4, StatusFail, Warning, "exit status 1", ""}}, exact: true},
		{name: "fires for output that could not be parsed", hosts: one(func(h *facts.Host) {
			k := collect.KindOf(cmdNICList)
			h.Sources[k] = []facts.Source{{Command: cmdNICList, Status: hostio.StatusCollected, Error: "line 3: expected a dash line"}}
		}), want: []want{{"esx01", cmdNICList, StatusFail, Warning, "could not be parsed: line 3", ""}}, exact: true},
		{name: "passes when everything was collected", hosts: one(nil),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
	})
}

// A finding's evidence for the TCP fallback of a host without devices names
// the (empty) listing, so a user can look at it.
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
func TestSourceForNamesTheCommand(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	for kind, want := range map[hostio.Kind]string{
		hostio.KindNICGet:    "`esxcli network nic get -n vmnic9` was not run",
		hostio.KindDCBStatus: "`esxcli network nic dcb status get -n vmnic9` was not run",
		hostio.KindRDMAStats: "`esxcli rdma device stats get -d vmnic9` was not run",
	} {
		if ok, why := sourceFor(&h, kind, "vmnic9"); ok || why != want {
			t.Errorf("%s: %v %q, want %q", kind, ok, why, want)
		}
	}
}
