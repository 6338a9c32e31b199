package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// switchSteps are the set_switch_mtu steps of host's plan.
func switchSteps(t *testing.T, hosts []facts.Host, host string) []PlanStep {
	t.Helper()
	fleet := &facts.Fleet{Hosts: hosts}
	res := Run(fleet)
	p := PlanFor(Plans(fleet, res.Findings), host)
	if p == nil {
		t.Fatalf("no plan for %s:\n%s", host, dump(res.Findings))
	}
	var out []PlanStep
	for _, s := range p.Steps {
		if s.Action == plan.KindSetSwitchMTU {
			out = append(out, s)
		}
	}
	if c := Contradictions(*p); len(c) > 0 {
		t.Errorf("contradictions %v", c)
	}
	return out
}

// notReadyOnVmnic4 is the idle esx02 without its RDMA driver, tag and
// ruleset, whose rdma-dvs keeps its one uplink vmnic4 (the ConnectX-5
// port the driver gives RDMA to).
func notReadyOnVmnic4(h *facts.Host) {
	unset(h)
	h.DVSwitches[0].Uplinks = []string{"vmnic4"}
	h.DVSwitches[0].Record = rec(cmdDVS, "Name", "rdma-dvs", "MTU", "9000", "Uplinks", "vmnic4")
}

// A host whose plan puts it on the RDMA fabric gets the anticipated
// switch step ("no probe measured them yet") only when no
// jumbo probe through its RDMA port got its replies: an 8972-byte
// don't-fragment vmkping over that very uplink with 3/3 replies shows the
// ports carry jumbo frames, and a step would target the observed state.
func TestAnticipatedSwitchStepNotWhereAJumboProbePassed(t *testing.T) {
	const unmeasured = "no probe measured them yet"
	cases := []struct {
		name  string
		setup func(h []facts.Host)
		want  bool // a switch step, saying nothing measured the ports
	}{
		{"nothing probed", func([]facts.Host) {}, true},
		{"8972 bytes from esx02's vmk1 over vmnic4, 3/3 replies", func(h []facts.Host) {
			probePath(&h[1], "192.168.50.11", 8972, 0, 0.030)
		}, false},
		{"8972 bytes from esx01 to esx02's vmk1, 3/3 replies", func(h []facts.Host) {
			probePath(&h[0], "192.168.50.12", 8972, 0, 0.030)
		}, false},
		// Near misses: the text stays.
		{"the jumbo probe over vmnic4 failed", func(h []facts.Host) {
			probePath(&h[1], "192.168.50.11", 1472, 0, 0.030)
		}, true},
		{"the jumbo probe left through the management vmk0", func(h []facts.Host) {
			probePathFrom(&h[1], "vmk0", "192.168.50.11", 8972, 0, 0.030)
		}, true},
		{"the jumbo probe went over vmnic2, which the plan replaces with vmnic4", func(h []facts.Host) {
			unset(&h[1]) // rdma-dvs on vmnic2
			probePath(&h[1], "192.168.50.11", 8972, 0, 0.030)
		}, true},
		{"the vDS teams vmnic2 and vmnic4: either carried it", func(h []facts.Host) {
			h[1].DVSwitches[0].Uplinks = []string{"vmnic2", "vmnic4"}
			probePath(&h[1], "192.168.50.11", 8972, 0, 0.030)
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosts := idles(both(notReadyOnVmnic4, inCluster("gpu-a", on, on)))()
			c.setup(hosts)
			steps := switchSteps(t, hosts, "esx02")
			if !c.want {
				if len(steps) > 0 {
					t.Errorf("a switch step where a jumbo probe through the RDMA port got every reply: %s", steps[0].Text)
				}
				return
			}
			if len(steps) != 1 || !strings.Contains(steps[0].Text, unmeasured) {
				t.Errorf("switch steps %+v, want the anticipated one", steps)
			}
		})
	}
}

// A vmknic below its vDS's MTU refuses its own jumbo probes, so the plan
// raises it and anticipates the switch ports; a peer's jumbo probe to it
// that got every reply through both RDMA ports shows them carrying jumbo
// frames: then no switch step. Its near miss: that probe lost.
func TestMismatchSwitchStepNotWhereAPeerJumboProbePassed(t *testing.T) {
	for _, peerPass := range []int{8972, 1472} {
		hosts := fleetOf(2, func(i, j int) (int, int, float64) {
			if i == 1 {
				return 1472, 1472, 0.030 // esx02's vmk1 at 1500 refuses 8972
			}
			return peerPass, 0, 0.030
		})()
		hosts[1].Vmknics[1].MTU = 1500
		hosts[1].Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "Portset", "DvsPortset-0", "VDS Name", "rdma-dvs", "MTU", "1500")
		fleet := &facts.Fleet{Hosts: hosts}
		res := Run(fleet)
		var acts []string
		for _, p := range Plans(fleet, res.Findings) {
			for _, s := range p.Steps {
				acts = append(acts, p.Host+":"+string(s.Action))
				if s.Action == plan.KindSetSwitchMTU && peerPass > 8972-1 && strings.Contains(s.Text, "no probe measured") {
					t.Errorf("esx01's 8972-byte probe to esx02 got every reply, yet: %s", s.Text)
				}
			}
		}
		got := strings.Join(acts, " ")
		if !strings.Contains(got, "esx02:set_vmknic_mtu") {
			t.Errorf("peer passes %d: no vmknic MTU step: %s\n%s", peerPass, got, dump(res.Findings))
		}
		if peerPass < 8972 && !strings.Contains(got, "set_switch_mtu") {
			t.Errorf("peer's jumbo probe lost: no switch step: %s", got)
		}
		if peerPass == 8972 && strings.Contains(got, "set_switch_mtu") {
			t.Errorf("peer's jumbo probe passed: a switch step: %s", got)
		}
	}
}
