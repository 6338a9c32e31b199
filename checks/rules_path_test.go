package checks

import (
	"context"
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// probePath adds what the collector records for one pair: the configured
// size (8972, three packets), then, if it got no reply, the search's
// one-packet tries, on a path that carries frames up to pass+28 and whose
// sender refuses payloads above refuse (0: never); replies take rttMs.
func probePath(h *facts.Host, target string, pass, refuse int, rttMs float64) {
	probePathFrom(h, "vmk1", target, pass, refuse, rttMs)
}

// probePathFrom is probePath from another vmknic.
func probePathFrom(h *facts.Host, vmknic, target string, pass, refuse int, rttMs float64) {
	mk := func(payload, count int) parse.Ping {
		line, _ := collect.ProbeLine(collect.ProbeEnd{Vmknic: vmknic}, target, payload, count)
		cmd := line.Line
		p := parse.Ping{Target: target, Payload: payload, Transmitted: count, HasStats: true}
		p.Command = cmd
		switch {
		case refuse > 0 && payload > refuse:
			p.LossPercent, p.MessageTooLong = 100, true
			p.Failures = []string{"sendto() failed (Message too long)"}
			p.FailureRef = parse.Ref{Command: cmd, Line: 2, Text: "sendto() failed (Message too long)"}
			p.Ref = ref(cmd, 4, fmt.Sprintf("%d packets transmitted, 0 packets received, 100%% packet loss", count))
		case payload > pass:
			p.LossPercent = 100
			p.Ref = ref(cmd, 3, fmt.Sprintf("%d packets transmitted, 0 packets received, 100%% packet loss", count))
		default:
			p.Received = count
			p.MinMs, p.AvgMs, p.MaxMs = rttMs*0.9, rttMs, rttMs*1.1
			p.Ref = ref(cmd, 3+count, fmt.Sprintf("%d packets transmitted, %d packets received, 0%% packet loss", count, count))
		}
		collected(h, cmd)
		h.Pings = append(h.Pings, p)
		return p
	}
	first := mk(8972, 3)
	if first.Received > 0 {
		return
	}
	collect.SearchPathMTU(context.Background(), 8972, func(_ context.Context, payload int) (collect.Try, error) {
		p := mk(payload, 1)
		return collect.Try{Passed: p.Received > 0, TooLong: p.MessageTooLong}, nil
	})
}

// fleetOf builds n good hosts esx01.. on 192.168.50.11.. whose every
// ordered pair is probed on the path path(i, j) gives.
func fleetOf(n int, path func(i, j int) (pass, refuse int, rtt float64)) func() []facts.Host {
	return func() []facts.Host {
		var hosts []facts.Host
		for i := 0; i < n; i++ {
			hosts = append(hosts, goodHost(fmt.Sprintf("esx%02d", i+1), fmt.Sprintf("192.168.50.%d", 11+i)))
		}
		for i := range hosts {
			for j := range hosts {
				if i != j {
					pass, refuse, rtt := path(i, j)
					probePath(&hosts[i], fmt.Sprintf("192.168.50.%d", 11+j), pass, refuse, rtt)
				}
			}
		}
		return hosts
	}
}

func healthyPath(int, int) (int, int, float64) { return 8972, 0, 0.030 }

// fromFirst: esx01's probes find pass, refuse and rtt on every path, the
// other hosts' paths are healthy.
func fromFirst(pass, refuse int, rtt float64) func(i, j int) (int, int, float64) {
	return func(i, j int) (int, int, float64) {
		if i == 0 {
			return pass, refuse, rtt
		}
		return healthyPath(i, j)
	}
}

func TestRulePathMTUBlocked(t *testing.T) {
	// esx03's switch port carries 1500: every path from and to it.
	badPort := func(i, j int) (int, int, float64) {
		if i == 2 || j == 2 {
			return 1472, 0, 0.030
		}
		return 8972, 0, 0.030
	}
	runCases(t, "PATH_MTU_BLOCKED", []ruleCase{
		{name: "a host's own link, named", hosts: fleetOf(3, badPort), want: []want{
			{"esx01", "vmk1 -> esx03", StatusFail, Critical, "carries 1500-byte frames (a 1472-byte don't-fragment payload passes, 1473 is lost)", "1 packets received"},
			{"esx03", "vmk1 -> esx01", StatusFail, Critical, "Likely hop: esx03's own link", ""},
			{"esx03", "vmk1 -> esx02", StatusFail, Critical, "allows RDMA MTU 1024", ""},
			{"esx02", "vmk1 -> esx03", StatusFail, Critical, "", ""},
			{host: "esx01", subject: "vmk1 -> esx02", status: StatusPass},
		}, exact: true},
		{name: "one link between two hosts at 4000", hosts: fleetOf(3, func(i, j int) (int, int, float64) {
			if i+j == 1 { // esx01 <-> esx02
				return 3972, 0, 0.030
			}
			return 8972, 0, 0.030
		}), want: []want{
			{"esx01", "vmk1 -> esx02", StatusFail, Critical, "Likely hop: a link between esx01 and esx02: each of them has other measured paths that are not blocked", ""},
			{"esx02", "vmk1 -> esx01", StatusFail, Critical, "allows RDMA MTU 2048", ""},
		}, exact: true},
		{name: "two hosts: which link cannot be told", hosts: fleetOf(2, func(int, int) (int, int, float64) { return 1472, 0, 0.030 }),
			want: []want{{"esx01", "vmk1 -> esx02", StatusFail, Critical, "Likely hop: the links between esx01 and esx02: they have no other measured path", ""},
				{"esx02", "vmk1 -> esx01", StatusFail, Critical, "", ""}}, exact: true},
		// Probes from vmk0 on vSwitch0 (a management network at 9000 whose
		// switch drops jumbo frames): not the RDMA fabric, information only.
		{name: "another network than the RDMA fabric: info", hosts: func() []facts.Host {
			hosts := fleetOf(2, func(int, int) (int, int, float64) { return 0, 0, 0 })()
			for i := range hosts {
				hosts[i].Pings = nil
				hosts[i].IPv4[0].Address = fmt.Sprintf("10.10.0.%d", 11+i)
				hosts[i].Vmknics[0].MTU = 9000
				hosts[i].StandardSwitches = []parse.StandardSwitch{{Name: "vSwitch0", MTU: 9000, Uplinks: []string{"vmnic0"}}}
			}
			probePathFrom(&hosts[0], "vmk0", "10.10.0.12", 1472, 0, 0.030)
			return hosts
		}, want: []want{{"esx01", "vmk0 -> esx02", StatusFail, Info, "(probed from vmk0 on vSwitch0 (uplinks vmnic0), not across an RDMA uplink: " +
			"another network than the RDMA fabric)", ""},
			// esx02 probed nothing although esx01 has an address.
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no path probe (vmkping) from esx02 was run or read"}}, exact: true},
		// esx01's vmknic MTU is 1500: its jumbo probes are refused.
		{name: "refused by the sender: not a blocked path", hosts: fleetOf(2, fromFirst(8972, 1472, 0.030)),
			want: []want{{host: "esx02", subject: "vmk1 -> esx01", status: StatusPass}}, exact: true},
		{name: "healthy", hosts: fleetOf(3, healthyPath), want: []want{{host: "esx01", subject: "vmk1 -> esx02", status: StatusPass}}, exact: true},
		{name: "older fixed-size probes still bound the path", hosts: two(func(a, _ *facts.Host) { addPings(a, "192.168.50.12", true, false) }), want: []want{{"esx01", "vmk1 -> esx02", StatusFail, Critical, "carries at least 1500-byte frames but not 9000", ""},
			// esx02 probed nothing although esx01 has an address: its paths are not evaluated.
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no path probe (vmkping) from esx02 was run or read"}}, exact: true},
	})
}

func TestRulePathUnreachable(t *testing.T) {
	runCases(t, "PATH_UNREACHABLE", []ruleCase{
		{name: "no size passes", hosts: fleetOf(2, fromFirst(0, 0, 0)), want: []want{
			{"esx01", "vmk1 -> esx02", StatusFail, Critical, "gets no reply from 192.168.50.12 (esx02 vmk1) at any size (3 probes from 8972 down to 56 bytes", "0 packets received"},
			{host: "esx02", subject: "vmk1 -> esx01", status: StatusPass},
		}, exact: true},
		{name: "older probes are VMKPING_UNREACHABLE's", hosts: two(func(a, _ *facts.Host) { addPings(a, "192.168.50.12", false, false) }),
			want: []want{{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no path probe (vmkping) from esx02 was run or read"}}, exact: true},
	})
	// One headline: VMKPING_UNREACHABLE leaves a searched pair to it.
	hosts := fleetOf(2, func(i, j int) (int, int, float64) { return 0, 0, 0 })()
	for _, f := range runRule(t, "VMKPING_UNREACHABLE", hosts...) {
		if f.Status == StatusFail {
			t.Errorf("VMKPING_UNREACHABLE repeats PATH_UNREACHABLE: %s", f.Message)
		}
	}
}

// vmkping is an upper bound of the network's latency, not the RDMA
// latency: a round trip within a vmkernel's normal RTT (0.11 ms between
// two vmkernel stacks) is no finding; above 1 ms it is information,
// worded as such.
func TestRuleHighLatency(t *testing.T) {
	runCases(t, "HIGH_LATENCY", []ruleCase{
		{name: "slow pair: info, an upper bound", hosts: fleetOf(2, fromFirst(8972, 0, 1.200)), want: []want{
			{"esx01", "vmk1 -> esx02", StatusFail, Info, "round trip 1.080/1.200/1.320 ms (min/avg/max), average above 1 ms", "3 packets received"},
			{host: "esx02", subject: "vmk1 -> esx01", status: StatusPass},
		}, exact: true},
		{name: "says what it is and what was probed", hosts: fleetOf(2, fromFirst(8972, 0, 1.112)), want: []want{
			{"esx01", "vmk1 -> esx02", StatusFail, Info, "This is an upper bound, not the RDMA latency: vmkping's ICMP echo crosses both hosts' vmkernel " +
				"network stacks (probed from vmk1 on rdma-dvs (RDMA uplink vmnic4), across the RDMA fabric)", ""},
		}},
		{name: "1 ms is within", hosts: fleetOf(2, func(int, int) (int, int, float64) { return 8972, 0, 1.0 }), want: nil, exact: true},
		{name: "0.11 ms, two vmkernel stacks: a near miss", hosts: fleetOf(2, fromFirst(8972, 0, 0.112)), want: []want{
			{host: "esx01", subject: "vmk1 -> esx02", status: StatusPass}}},
		{name: "RTT of the search's tries when the configured size is lost", hosts: fleetOf(2, func(i, j int) (int, int, float64) {
			return 1472, 0, 2.000
		}), want: []want{{"esx01", "vmk1 -> esx02", StatusFail, Info, "1.800/2.000/2.200", ""}}},
	})
	got := runRule(t, "HIGH_LATENCY", fleetOf(2, fromFirst(8972, 0, 1.112))()...)
	for _, f := range got {
		if f.Status == StatusFail && (!strings.HasPrefix(f.Fix, "Nothing on this evidence alone. Measure the RDMA latency") || !strings.Contains(f.Fix, "ib_send_lat")) {
			t.Errorf("fix %q", f.Fix)
		}
	}
}

// A blocked path is the one headline of the lost jumbo frames: the
// adapters above it nest under it, MTU_MISMATCH does not repeat it, and
// the plan fixes the switch ports once.
func TestBlockedPathIsTheRootCause(t *testing.T) {
	hosts := fleetOf(2, func(int, int) (int, int, float64) { return 1472, 0, 0.030 })()
	fleet := &facts.Fleet{Hosts: hosts}
	res := Run(fleet)
	var blocked, above int
	for _, f := range res.Findings {
		switch f.RuleID {
		case "PATH_MTU_BLOCKED":
			blocked++
		case "ACTIVE_MTU_ABOVE_PATH":
			above++
			if f.CausedBy == nil || f.CausedBy.RuleID != "PATH_MTU_BLOCKED" {
				t.Errorf("ACTIVE_MTU_ABOVE_PATH not caused by the blocked path: %+v", f.CausedBy)
			}
		case "MTU_MISMATCH":
			if strings.Contains(f.Message, "drops jumbo frames") {
				t.Errorf("MTU_MISMATCH repeats the blocked path: %s", f.Message)
			}
		}
	}
	if blocked != 2 || above != 2 {
		t.Fatalf("blocked %d, above %d:\n%s", blocked, above, dump(res.Findings))
	}
	// One hop, one step: the plan of the root cause's host sets the
	// switch ports of both ends; the other host's findings follow from it
	// (no plan of its own).
	plans := Plans(fleet, res.Findings)
	if len(plans) != 1 {
		t.Errorf("%d plans, want one", len(plans))
	}
	for _, p := range plans {
		if len(p.Steps) == 0 {
			t.Errorf("%s: no steps", p.Host)
			continue
		}
		if sw, ok := p.Steps[0].Params.(plan.SetSwitchMTU); !ok || len(sw.Hosts) != 2 || len(p.Steps[0].Verify) != 1 {
			t.Errorf("%s: plan %+v", p.Host, p.Steps)
		}
		if c := Contradictions(p); len(c) > 0 {
			t.Errorf("%s: contradictions %v", p.Host, c)
		}
	}
	if m, _ := fleet.DataPath().MinPathMTU(); m != 1500 {
		t.Errorf("fleet minimum %d", m)
	}
}
