package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A vmkping result says what it proves: refused by the sending host
// (sendto() Message too long), unreachable (sendto() says so), or no reply.
func TestVmkpingRefusalUnreachableAndSilence(t *testing.T) {
	fail := func(p *parse.Ping, line string) {
		p.Received, p.LossPercent = 0, 100
		p.Failures = []string{line, line, line}
		p.FailureRef = parse.Ref{Line: 2, Text: line} // the facts builder leaves its command empty
		p.Ref = ref(p.Ref.Command, 6, "3 packets transmitted, 0 packets received, 100% packet loss")
	}
	const subj = "vmk1 -> 192.168.50.12 (esx02 vmk1)"
	peer := want{host: "esx02", subject: "vmk1 -> 192.168.50.11 (esx01 vmk1)", status: StatusPass}
	runCases(t, "VMKPING_UNREACHABLE", []ruleCase{
		{name: "refused locally: warning, quoting sendto", hosts: probed(func(a, _ *facts.Host) {
			fail(&a.Pings[0], "sendto() failed (Message too long)")
			a.Pings[0].MessageTooLong = true
		}), want: []want{{"esx01", subj, StatusFail, Warning, "refused its own 1472-byte probe", "sendto() failed (Message too long)"}, peer}, exact: true},
		{name: "unreachable: critical, quoting sendto", hosts: probed(func(a, _ *facts.Host) { fail(&a.Pings[0], "sendto() failed (Host is down)") }),
			want: []want{{"esx01", subj, StatusFail, Critical, "cannot reach", "sendto() failed (Host is down)"}, peer}, exact: true},
		{name: "silent loss: critical, no reply", hosts: probed(func(a, _ *facts.Host) {
			a.Pings[0].Received, a.Pings[0].LossPercent = 0, 100
		}), want: []want{{"esx01", subj, StatusFail, Critical, "gets no reply from", ""}, peer}, exact: true},
		{name: "replies: pass", hosts: probed(nil), want: []want{{host: "esx01", subject: subj, status: StatusPass}, peer}, exact: true},
		// Only jumbo probes, as an admin saves them: `-s 9000` refused by
		// the host (9028 bytes), `-s 8972` answered 3/3: reachable.
		{name: "an admin's 9000 refused beside 8972 answered: pass", hosts: probed(func(a, _ *facts.Host) {
			a.Pings = nil
			addProbe(a, "192.168.50.12", 3, 9000, "refused")
			addProbe(a, "192.168.50.12", 3, 8972, "ok")
		}), want: []want{{host: "esx01", subject: subj, status: StatusPass}, peer}, exact: true},
	})
	// The quoted sendto() line carries its command.
	a := probed(func(a, _ *facts.Host) { fail(&a.Pings[0], "sendto() failed (Host is down)") })()
	for _, f := range runRule(t, "VMKPING_UNREACHABLE", a...) {
		if f.Status == StatusFail && (f.Evidence[0].Command != cmdPingSmall || f.Evidence[0].Line != 2) {
			t.Errorf("sendto evidence %+v", f.Evidence[0])
		}
	}
}

func TestRuleVmkpingUnreachable(t *testing.T) {
	runCases(t, "VMKPING_UNREACHABLE", []ruleCase{
		{name: "fires", hosts: two(func(a, b *facts.Host) {
			addPings(a, "192.168.50.12", false, false)
			addPings(b, "192.168.50.11", true, true)
		}), want: []want{
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
		{name: "not evaluated without probes to peers", hosts: two(nil), want: []want{
			{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "no vmkping probes were run from this host (probes off: --probes off, or"},
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no vmkping probes were run"},
		}, exact: true},
		// The scan planned no probe from esx01, and said why in its notes
		// (a hostile mix of peers, issue 38.3): that is the reason, not
		// --probes off.
		{name: "not evaluated: the scan's reason", hosts: two(func(a, _ *facts.Host) {
			a.Notes = []string{"path to esx02 not probed: its PVRDMA vmknic address 192.168.50.255 is the broadcast address of this host's subnet 192.168.50.0/24"}
		}), want: []want{
			{host: "esx01", subject: "esx01", status: StatusNotEvaluated,
				msg: "no vmkping probes were run from this host: path to esx02 not probed: its PVRDMA vmknic address 192.168.50.255 is the broadcast address"},
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated, msg: "no vmkping probes were run"},
		}, exact: true},
		// Reached through vCenter only (SSH refused): vmkping needs SSH,
		// which is the reason, not a deprecated flag.
		{name: "not evaluated: SSH refused, data from vCenter", hosts: two(func(_, b *facts.Host) {
			b.Sources[catalog.KindSystemVersion] = []facts.Source{{Command: cmdVersion, Status: hostio.StatusSkipped,
				Error: hostio.CauseHostUnreached.Error("cannot connect to 10.0.0.2:22: connection refused"), Cause: hostio.CauseHostUnreached}}
		}), want: []want{
			{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "no vmkping probes were run"},
			{host: "esx02", subject: "esx02", status: StatusNotEvaluated,
				msg: "vmkping runs only over SSH, and esx02 was not reached over SSH (cannot connect to 10.0.0.2:22: connection refused)"},
		}, exact: true},
		{name: "single host: nothing to probe", hosts: one(nil), want: nil, exact: true},
	})
}
