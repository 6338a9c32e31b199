package checks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// MTU advice is conditional on a jumbo test across the RDMA fabric when no
// probe measured it.
func TestLowMTUAdviceNeedsAMeasuredFabric(t *testing.T) {
	for _, c := range []struct {
		name        string
		hosts       func() []facts.Host
		conditional bool
	}{
		{"not measured", two(func(a, _ *facts.Host) { setProp(a, "Active MTU", "1024") }), true},
		{"measured", probed(func(a, _ *facts.Host) { setProp(a, "Active MTU", "1024") }), false},
	} {
		var f *Finding
		for _, x := range runRule(t, "LOW_MTU", c.hosts()...) {
			if x.Status == StatusFail {
				f = &x
			}
		}
		if f == nil {
			t.Fatalf("%s: no LOW_MTU", c.name)
		}
		if got := strings.HasPrefix(f.Fix, "Only if a jumbo test across the RDMA fabric passes"); got != c.conditional ||
			(c.conditional && !strings.Contains(f.Fix, "vmkping -I vmkN -d -s 8972 PEER") && !strings.Contains(f.Fix, "ping -M do -s 8972")) {
			t.Errorf("%s: fix %q", c.name, f.Fix)
		}
	}
}

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
		}), want: []want{{"esx01", vm01, StatusFail, Warning, "its data path is configured for 9000-byte frames (rdma-dvs MTU 9000; the RDMA fabric's path MTU is not measured: no probe crossed its RDMA uplink)", "Active MTU:1024"}}},
		// Probes across the fabric at 9000: the path carries it, the advice
		// is plain.
		{name: "probed across the fabric: the path carries 9000", hosts: probed(func(a, _ *facts.Host) { setProp(a, "Active MTU", "1024") }),
			want: []want{{"esx01", vm01, StatusFail, Warning, "its data path carries 9000-byte frames (rdma-dvs MTU 9000)", "Active MTU:1024"}}, exact: true},
		// Seed 002's setup: the probes run from vmk0 on vSwitch0, the
		// management network, which says nothing about the RDMA fabric.
		{name: "probed from vmk0 on vSwitch0: not measured", hosts: two(func(a, b *facts.Host) {
			for _, h := range []*facts.Host{a, b} {
				setProp(h, "Active MTU", "1024")
				h.PVRDMAVmknic.StringValue = "vmk0"
				h.StandardSwitches = []parse.StandardSwitch{{Name: "vSwitch0", MTU: 1500, Uplinks: []string{"vmnic0"}}}
			}
			probePathFrom(a, "vmk0", "10.10.0.12", 1472, 1472, 0.030)
			b.IPv4[0].Address = "10.10.0.12"
		}), want: []want{
			{"esx01", vm01, StatusFail, Info, "the RDMA fabric's path MTU is not measured: the probes ran from vmk0 on vSwitch0 (uplinks vmnic0), not across an RDMA uplink", ""},
			{"esx02", "hpc-esx02 (PVRDMA adapter 0)", StatusFail, Info, "the RDMA fabric's path MTU is not measured: no probe crossed its RDMA uplink", ""},
		}, exact: true},
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
			want: []want{{"esx01", vm01, StatusFail, Warning, "probes proved the data path carries at least 1500-byte frames but not 9000", "Active MTU: 4096"}}, exact: true},
		// A path measured at 8982 bytes (a switch whose MTU 9000 counts
		// the Ethernet header: 8954 passes, 8955 is lost) carries RDMA MTU
		// 4096 (4192-byte frames): PATH_MTU_BLOCKED reports the path, and
		// no adapter is told to drop to 1024.
		{name: "passes at 4096 on a path measured at 8982", hosts: one(func(h *facts.Host) {
			addProbe(h, "192.168.50.12", 3, 1472, "ok")
			addProbe(h, "192.168.50.12", 3, 8972, "lost")
			addProbe(h, "192.168.50.12", 1, 8954, "ok")
			addProbe(h, "192.168.50.12", 1, 8955, "lost")
		}), want: []want{{host: "esx01", subject: vm01, status: StatusPass}}, exact: true},
		{name: "fires at 4096 on a path measured at 4000", hosts: one(func(h *facts.Host) {
			addProbe(h, "192.168.50.12", 3, 1472, "ok")
			addProbe(h, "192.168.50.12", 3, 8972, "lost")
			addProbe(h, "192.168.50.12", 1, 3972, "ok")
			addProbe(h, "192.168.50.12", 1, 3973, "lost")
		}), want: []want{{"esx01", vm01, StatusFail, Warning, "probes proved the data path carries only 4000-byte frames (rdma-dvs MTU 9000, path MTU 4000 measured to 192.168.50.12), which allows 2048", "Active MTU: 4096"}}, exact: true},
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
		// An admin's saved `vmkping -d -s 9000` from vmk1 at MTU 9000: a
		// 9028-byte frame its own host refuses (the max-MTU script of the
		// 100GbE PVRDMA setup guide), beside an 8972-byte probe that
		// passed: nothing is wrong, and no MTU above 9000 is proposed.
		{name: "an admin's refused 9000-byte probe beside a passing 8972 passes", hosts: probed(func(a, _ *facts.Host) {
			a.Pings = nil
			addProbe(a, "192.168.50.12", 3, 9000, "refused")
			addProbe(a, "192.168.50.12", 3, 8972, "ok")
		}), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}, {host: "esx02", subject: "vmk1", status: StatusPass}}, exact: true},
		// A jumbo probe lost from a jumbo vmknic while small probes work:
		// the pair's path MTU is PATH_MTU_BLOCKED's (critical), the one
		// headline; the configuration agrees with itself.
		{name: "network drops jumbo: PATH_MTU_BLOCKED's, not a second headline", hosts: probed(func(a, _ *facts.Host) {
			a.Pings = nil
			addPings(a, "192.168.50.12", true, false)
		}), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}, {host: "esx02", subject: "vmk1", status: StatusPass}}, exact: true},
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

func TestRuleJumboFramesNotConfigured(t *testing.T) {
	at := func(mtu int) func(h *facts.Host) {
		return func(h *facts.Host) {
			h.DVSwitches[0].MTU = mtu
			h.DVSwitches[0].Record = rec(cmdDVS, "Name", "rdma-dvs", "MTU", strconv.Itoa(mtu), "Uplinks", "vmnic4")
			h.NICs[0].MTU = mtu
			h.Vmknics[1].MTU = mtu
		}
	}
	runCases(t, "JUMBO_FRAMES_NOT_CONFIGURED", []ruleCase{
		{name: "everything at 1500: info, RoCE capped at 1024", hosts: one(at(1500)), want: []want{{"esx01", "rdma-dvs", StatusFail, Info,
			"jumbo frames are not configured on esx01's PVRDMA data path (rdma-dvs at MTU 1500, its RDMA uplink vmnic4 at 1500, vmk1 at 1500): RoCE is capped at RDMA MTU 1024",
			"MTU: 1500"}}, exact: true},
		{name: "4000: capped at 2048", hosts: one(at(4000)), want: []want{{"esx01", "rdma-dvs", StatusFail, Info, "capped at RDMA MTU 2048", ""}}, exact: true},
		{name: "9000: passes", hosts: one(nil), want: []want{{host: "esx01", subject: "rdma-dvs", status: StatusPass}}, exact: true},
		// The reference setup: vmk0 at 1500 is tagged, the vDS is at 9000.
		{name: "a 1500 vmknic on a 9000 vDS: passes", hosts: one(func(h *facts.Host) { h.Vmknics[1].MTU = 1500 }),
			want: []want{{host: "esx01", subject: "rdma-dvs", status: StatusPass}}, exact: true},
		{name: "the uplink left at 1500 under a 9000 vDS: capped", hosts: one(func(h *facts.Host) { h.NICs[0].MTU = 1500 }),
			want: []want{{"esx01", "rdma-dvs", StatusFail, Info, "its RDMA uplink vmnic4 at 1500", ""}}, exact: true},
		{name: "no PVRDMA on the host: silent", hosts: one(func(h *facts.Host) {
			at(1500)(h)
			h.PVRDMADevices, h.PVRDMAListing, h.PVRDMAVmknic.StringValue = nil, nil, ""
		}), want: nil, exact: true},
		{name: "not evaluated without the vDS list", hosts: one(func(h *facts.Host) { missing(h, cmdDVS); h.DVSwitches = nil }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
}
