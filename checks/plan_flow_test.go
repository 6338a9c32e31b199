package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// withFlow gives esx02's vmnic2 its `dcb status` (PFC on prios, none:
// off) and `nic get` (pause on or off) outputs.
func withFlow(pause bool, prios ...int) func(b *facts.Host) {
	return func(b *facts.Host) {
		const get2, dcb2 = "esxcli network nic get -n vmnic2", "esxcli network nic dcb status get -n vmnic2"
		collected(b, get2, dcb2)
		tf := map[bool]string{true: "true", false: "false"}
		b.NICDetails = append(b.NICDetails, parse.NICDetail{Name: "vmnic2", Driver: "icen", LinkStatus: "Up", PauseRX: pause, PauseTX: pause,
			Record: rec(get2, "Name", "vmnic2", "Pause RX", tf[pause], "Pause TX", tf[pause]), Ref: ref(get2, 1, "")})
		b.DCB = append(b.DCB, parse.DCBStatus{Nic: "vmnic2", DCBEnabled: true, PFCEnabled: len(prios) > 0, PFCPriorities: prios,
			Record: rec(dcb2, "Nic Name", "vmnic2", "PFC Enabled", tf[len(prios) > 0]), Ref: ref(dcb2, 1, "")})
	}
}

// The plan that turns RDMA on for an E810 port proposes flow control
// from what runs there: nothing beside running PFC (DCBX) or pause; PFC
// from the switch by DCBX where neither runs, never pause; no change at
// all where the state was not read, the commands that read it instead.
func TestFlowControlFromTheRunningState(t *testing.T) {
	cases := []struct {
		name     string
		flow     func(b *facts.Host)
		want     []plan.Kind // flow-control kinds the plan must hold
		noteWant string      // an investigate note's words, "" for none about flow
	}{
		{name: "PFC runs on priority 3 (DCBX)", flow: withFlow(false, 3)},
		{name: "global pause runs", flow: withFlow(true)},
		{name: "neither runs", flow: withFlow(false), want: []plan.Kind{plan.KindSetSwitchFlow}},
		{name: "not read", flow: func(*facts.Host) {}, noteWant: "was not read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fleet := pair(func(b *facts.Host) { e810Off(b); c.flow(b) })()
			res := Run(fleet)
			p := PlanFor(Plans(fleet, res.Findings), "esx02")
			if p == nil {
				t.Fatalf("no plan:\n%s", dump(res.Findings))
			}
			var got []plan.Kind
			note := ""
			for _, s := range p.Steps {
				switch s.Action {
				case plan.KindSetPause, plan.KindSetSwitchFlow:
					got = append(got, s.Action)
					if s.Action == plan.KindSetSwitchFlow && !strings.Contains(s.Text, "PFC on priority 3, advertised by DCBX") {
						t.Errorf("switch step %q: want PFC on priority 3 by DCBX", s.Text)
					}
				case plan.KindSetModuleParams:
					if strings.Contains(s.Command, "pfctx") {
						t.Errorf("an E810 gets no ConnectX PFC parameters: %q", s.Command)
					}
				case plan.KindInvestigate:
					if strings.Contains(s.Text, "flow control") {
						note = s.Text
					}
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("flow-control steps %v, want %v", got, c.want)
			}
			if (note != "") != (c.noteWant != "") || !strings.Contains(note, c.noteWant) {
				t.Errorf("flow note %q, want one with %q", note, c.noteWant)
			}
		})
	}
}

// prio4 makes esx02's vmnic4 run PFC on priority 4 (DCBX).
func prio4(b *facts.Host) {
	b.DCB[0].PFCPriorities = []int{4}
	b.DCB[0].Record = rec(cmdDCB4, "Nic Name", "vmnic4", "PFC Enabled", "true", "PFC Configuration", "0 0 0 0 1 0 0 0")
}

func TestRulePFCPriorityMismatch(t *testing.T) {
	runCases(t, "PFC_PRIORITY_MISMATCH", []ruleCase{
		{name: "priority 4 beside 3", hosts: hostsOf(pair(prio4)),
			want: []want{{"esx02", "vmnic4", StatusFail, Warning, "runs PFC on priority 4, while the PVRDMA uplinks of esx01 run it on priority 3", "0 0 0 0 1 0 0 0"},
				{host: "esx01", subject: "vmnic4", status: StatusPass}}},
		{name: "the same priority: near miss", hosts: hostsOf(pair(func(*facts.Host) {})),
			want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
		{name: "priority 3 among others: near miss", hosts: hostsOf(pair(func(b *facts.Host) { b.DCB[0].PFCPriorities = []int{3, 4} })),
			want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
		{name: "static pfctx: NMLX5_PFC_PARAMS's, near miss", hosts: hostsOf(pair(func(b *facts.Host) {
			prio4(b)
			withParams(b, "nmlx5_core", "pfctx=0x10", "pfcrx=0x10")
		})), want: []want{{host: "esx02", subject: "vmnic4", status: StatusPass}}},
	})
}

// Its plan is the switch port's priority, by DCBX; nothing on the host,
// no reboot.
func TestPFCPriorityPlan(t *testing.T) {
	fleet := pair(prio4)()
	res := Run(fleet)
	p := PlanFor(Plans(fleet, res.Findings), "esx02")
	if p == nil {
		t.Fatalf("no plan:\n%s", dump(res.Findings))
	}
	var acts []string
	for _, s := range p.Steps {
		acts = append(acts, string(s.Action))
		if s.Action == plan.KindSetSwitchFlow && !strings.Contains(s.Text, "PFC on priority 3, advertised by DCBX") {
			t.Errorf("switch step %q", s.Text)
		}
	}
	if strings.Join(acts, " ") != "set_switch_flow" {
		t.Errorf("plan %v, want the switch step only", acts)
	}
}
