package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func failing(res Result, rule, host string) []Finding {
	var out []Finding
	for _, f := range res.Findings {
		if f.Status == StatusFail && f.RuleID == rule && f.Host == host {
			out = append(out, f)
		}
	}
	return out
}

func one1(t *testing.T, res Result, rule, host string) Finding {
	t.Helper()
	fs := failing(res, rule, host)
	if len(fs) != 1 {
		t.Fatalf("%s on %s: %d findings, want 1:\n%s", rule, host, len(fs), dump(res.Findings))
	}
	return fs[0]
}

// No RDMA device: TCP_FALLBACK and every PHYSICAL_HCA_UNAVAILABLE nest under
// NO_RDMA_DEVICE, which is the host's only root cause.
func TestCausesNoRDMADevice(t *testing.T) {
	a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
	b.RDMADevices = nil
	setProp(&b, "Physical HCA available", "0")
	fleet := &facts.Fleet{Hosts: []facts.Host{a, b}}
	res := Run(fleet)
	root := one1(t, res, "NO_RDMA_DEVICE", "esx02")
	if root.CausedBy != nil || root.Severity != Critical {
		t.Fatalf("root %+v", root)
	}
	for _, rule := range []string{"TCP_FALLBACK", "PHYSICAL_HCA_UNAVAILABLE"} {
		f := one1(t, res, rule, "esx02")
		if f.CausedBy == nil || f.CausedBy.Key() != root.Key() {
			t.Errorf("%s caused by %+v, want %s", rule, f.CausedBy, root.Key())
		}
	}
	roots := RootCauses(failing(res, "NO_RDMA_DEVICE", "esx02"))
	if len(roots) != 1 || len(Consequences(res.Findings, root.Key())) != 2 {
		t.Errorf("roots %d, consequences %d", len(roots), len(Consequences(res.Findings, root.Key())))
	}
}

// A consequence is never more severe than its cause: alone in the scan,
// NO_RDMA_DEVICE is info, and so are the adapters without HCA under it.
func TestCausesCapSeverity(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	h.RDMADevices = nil
	setProp(&h, "Physical HCA available", "0")
	res := Run(&facts.Fleet{Hosts: []facts.Host{h}})
	root := one1(t, res, "NO_RDMA_DEVICE", "esx01")
	hca := one1(t, res, "PHYSICAL_HCA_UNAVAILABLE", "esx01")
	if root.Severity != Info || hca.Severity != Info || hca.CausedBy == nil {
		t.Errorf("root %s, consequence %s caused by %+v", root.Severity, hca.Severity, hca.CausedBy)
	}
	for _, f := range res.Findings {
		if f.CausedBy == nil || f.Status != StatusFail {
			continue
		}
		for _, c := range res.Findings {
			if c.Key() == f.CausedBy.Key() && f.Severity.Rank() > c.Severity.Rank() {
				t.Errorf("%s (%s) is more severe than its cause %s (%s)", f.Key(), f.Severity, c.Key(), c.Severity)
			}
		}
	}
}

// RDMA errors on an uplink without lossless Ethernet follow from it.
func TestCausesPFCErrors(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	h.DCB[0].PFCEnabled = false
	h.DCB[0].PFCPriorities = nil
	h.RDMAStats[0].Counters["Error packets received"] = 10
	h.RDMAStats[0].Record = rec(cmdStats0, "Error packets received", "10")
	res := Run(&facts.Fleet{Hosts: []facts.Host{h}})
	pfc := one1(t, res, "PFC_DISABLED", "esx01")
	errs := one1(t, res, "RDMA_ERRORS", "esx01")
	if errs.CausedBy == nil || errs.CausedBy.Key() != pfc.Key() || pfc.CausedBy != nil {
		t.Errorf("RDMA_ERRORS caused by %+v, PFC_DISABLED by %+v", errs.CausedBy, pfc.CausedBy)
	}
	if got := CanCause("PFC_DISABLED"); len(got) != 1 || got[0] != "RDMA_ERRORS" {
		t.Errorf("CanCause(PFC_DISABLED) = %v", got)
	}
	if got := CanBeCausedBy("TCP_FALLBACK"); !strings.Contains(strings.Join(got, ","), "NO_RDMA_DEVICE") {
		t.Errorf("CanBeCausedBy(TCP_FALLBACK) = %v", got)
	}
}

// The demo's esx04: the vDS's port (vmnic4) is down, the other port of the
// same card (vmnic5) is Active but not on the vDS, which also teams vmnic2.
// The plan uses the working port once: no step keeps vmnic4 while another
// removes it, the VMs are powered off once, before the uplink change.
func TestPlanDualPortOneUplinkDecision(t *testing.T) {
	a := goodHost("esx01", "192.168.50.11")
	h := goodHost("esx04", "192.168.50.14")
	h.RDMADevices[0].State = "Down"
	h.RDMADevices = append(h.RDMADevices, parse.RDMADevice{Name: "vmrdma1", Driver: "nmlx5_rdma", State: "Active", MTU: 4096, PairedUplink: "vmnic5",
		Ref: ref(cmdRDMAList, 4, "vmrdma1  nmlx5_rdma  Active  4096  100 Gbps  vmnic5")})
	h.DVSwitches[0].Uplinks = []string{"vmnic4", "vmnic2"}
	setProp(&h, "Physical HCA available", "0")
	fleet := &facts.Fleet{Hosts: []facts.Host{a, h}}
	res := Run(fleet)
	plans := Plans(fleet, res.Findings)
	p := PlanFor(plans, "esx04")
	if p == nil {
		t.Fatalf("no plan for esx04; findings:\n%s", dump(res.Findings))
	}
	if c := Contradictions(*p); len(c) > 0 {
		t.Errorf("contradictions: %v", c)
	}
	var actions []string
	for _, s := range p.Steps {
		actions = append(actions, string(s.Action))
	}
	got := strings.Join(actions, " ")
	if strings.Count(got, "power_off") != 1 || strings.Count(got, "set_uplinks") != 1 || strings.Count(got, "power_on") != 1 ||
		strings.Index(got, "power_off") > strings.Index(got, "set_uplinks") || strings.Index(got, "set_uplinks") > strings.Index(got, "power_on") {
		t.Errorf("steps %s", got)
	}
	// The working port carries PVRDMA: the down one is then off its path
	// (information), so its repair is no step of the plan, and the uplink
	// step resolves RDMA_DEVICE_DOWN.
	for _, s := range p.Steps {
		if s.Action == plan.KindSetUplinks {
			if up := s.Params.(plan.SetUplinks); fmt.Sprint(up.Uplinks) != "[vmnic5]" || !strings.Contains(s.Text, "Make vmnic5 the only uplink") {
				t.Errorf("uplink step %q %v", s.Text, up.Uplinks)
			}
			if !strings.Contains(ResolvesKeys(s), "RDMA_DEVICE_DOWN|esx04|vmrdma0") {
				t.Errorf("the uplink step does not resolve RDMA_DEVICE_DOWN: %v", s.Resolves)
			}
		}
		if s.Action == plan.KindRepairLink || s.Action == plan.KindNICUp {
			t.Errorf("a repair of vmnic4, which PVRDMA no longer uses: %+v", s)
		}
	}
	// Every finding at warning or above is cited by a step.
	cited := map[string]bool{}
	for _, s := range p.Steps {
		for _, c := range s.Resolves {
			cited[c.Key()] = true
		}
	}
	for _, f := range res.Findings {
		if f.Host == "esx04" && f.Status == StatusFail && f.Severity.Rank() >= Warning.Rank() && !cited[f.Key()] {
			t.Errorf("no step resolves %s", f.Key())
		}
	}
	// The healthy peer has no plan.
	if PlanFor(plans, "esx01") != nil {
		t.Error("esx01 has a plan")
	}
}

func TestContradictionsDetected(t *testing.T) {
	p := Plan{Host: "h", Steps: []PlanStep{
		{N: 1, Sets: []plan.Effect{{Object: "dvs uplink vmnic4", State: "present"}}},
		{N: 2, Sets: []plan.Effect{{Object: "dvs uplink vmnic4", State: "removed"}}},
	}}
	if c := Contradictions(p); len(c) != 1 {
		t.Errorf("Contradictions = %v", c)
	}
}

// The host's PVRDMA vmknic at 1500 on a 9000 vDS and its adapter at RDMA
// MTU 1024: RDMA frames do not cross the vmknic (VMware's reference setup
// tags vmk0 at 1500 and runs its adapters through the HCA), so the
// vmknic's MTU does not explain the adapter's: no link, whatever the
// Active MTU, and LOW_MTU says what the usual cause is; the plan raises
// the vmknic and fixes the guest interface.
func TestCausesVmknicMTUDoesNotCapLowMTU(t *testing.T) {
	for _, active := range []string{"1024", "2048"} {
		a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
		b.Vmknics[1].MTU = 1500
		b.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "Portset", "DvsPortset-0", "VDS Name", "rdma-dvs", "MTU", "1500")
		setProp(&b, "Active MTU", active)
		res := Run(&facts.Fleet{Hosts: []facts.Host{a, b}})
		low := one1(t, res, "LOW_MTU", "esx02")
		one1(t, res, "MTU_MISMATCH", "esx02")
		if low.CausedBy != nil {
			t.Errorf("Active MTU %s: LOW_MTU caused by %+v: the vmknic's MTU is not on the RDMA data path", active, low.CausedBy)
		}
		if !strings.Contains(low.Message, "the usual cause is the MTU of the guest's PVRDMA interface (the guest was not scanned") {
			t.Errorf("Active MTU %s: message %q", active, low.Message)
		}
		var actions []string
		for _, p := range Plans(&facts.Fleet{Hosts: []facts.Host{a, b}}, res.Findings) {
			if p.Host == "esx02" {
				for _, s := range p.Steps {
					actions = append(actions, string(s.Action))
				}
			}
		}
		if got := strings.Join(actions, ","); !strings.Contains(got, "set_vmknic_mtu") || !strings.Contains(got, "guest_set_mtu") {
			t.Errorf("Active MTU %s: plan %v (raise the vmknic and fix the guest interface)", active, actions)
		}
	}
}

// ResolvesKeys is a step's resolved findings as "RULE|host|subject" keys.
func ResolvesKeys(s PlanStep) string {
	var out []string
	for _, c := range s.Resolves {
		out = append(out, c.Key())
	}
	return strings.Join(out, " ")
}
