package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// A guest's fix plan: what to do inside one Linux guest, in order (the
// host side first when a host finding causes a guest one, then the
// kernel, the verbs libraries, the driver, the interface, the port), each
// step citing the findings it resolves. Steps never undo each other: the
// driver is reloaded once, after everything that needs a reload.

// guestPlans builds one plan per guest with findings at warning or above.
func guestPlans(fleet *facts.Fleet, byHost map[string][]Finding, errs *[]InternalError) []Plan {
	var out []Plan
	for gi := range fleet.Guests {
		g := &fleet.Guests[gi]
		var serious []Finding
		for _, f := range byHost[g.Guest] {
			if f.Severity.Rank() >= Warning.Rank() {
				serious = append(serious, f)
			}
		}
		if len(serious) == 0 {
			continue
		}
		var p Plan
		if ie := guarded(InPlan, g.Guest, planLost(g.Guest), func() { p = guestPlan(g, serious) }); ie != nil {
			*errs = append(*errs, *ie)
			continue
		}
		if len(p.Steps) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func buildGuestPlan(g *facts.Guest, fs []Finding) Plan {
	b := &planBuilder{fs: fs, done: map[string]bool{}}
	reload := false
	var reloadFor []Finding
	// 1. The host side first: a guest finding caused by a host finding is
	// fixed on the host (its own plan), not in the guest.
	for _, f := range fs {
		if f.CausedBy != nil && f.CausedBy.Host != g.Guest {
			b.add(PlanStep{Action: "host_side", Text: fmt.Sprintf("Fix the host side first: %s on %s (%s) causes %s here; follow %s's plan, then reload the driver in %s (below).",
				f.CausedBy.RuleID, f.CausedBy.Host, f.CausedBy.Subject, f.RuleID, f.CausedBy.Host, g.Guest), Resolves: cite(f)})
			reload = true
		}
	}
	// 2. Kernel.
	b.oneStepFor("GUEST_KERNEL_TOO_OLD", "upgrade_guest_kernel", Effect{g.Guest + " kernel", ">= 4.6"})
	// 3. Verbs libraries: MOFED out, rdma-core in.
	b.oneStepFor("GUEST_MOFED_CONFLICT", "remove_mofed", Effect{g.Guest + " verbs libraries", "rdma-core"})
	b.oneStepFor("GUEST_RDMA_CORE_MISSING", "install_rdma_core", Effect{g.Guest + " verbs libraries", "rdma-core"})
	b.oneStepFor("GUEST_VERBS_ABI_MISMATCH", "match_rdma_core", Effect{g.Guest + " verbs libraries", "rdma-core"})
	// 4. The driver module.
	b.oneStepFor("GUEST_NO_PVRDMA_DEVICE", "load_pvrdma", Effect{g.Guest + " vmw_pvrdma", "loaded after the InfiniBand modules"})
	// 5. Interfaces: MTU and address (each needs the reload below).
	for _, f := range b.of("GUEST_NETDEV_MTU_LIMITS_RDMA_MTU") {
		b.add(PlanStep{Action: "guest_mtu", Text: f.Fix, Resolves: cite(f)})
		reload = true
	}
	for _, f := range b.of("GUEST_NO_ROCEV2_GID") {
		b.add(PlanStep{Action: "guest_ip", Text: f.Fix, Resolves: cite(f)})
		reload = true
	}
	// 6. The port: the module reload order of seeds 000/001, made
	// persistent, once for everything above.
	for _, f := range b.of("GUEST_PORT_DOWN") {
		if f.CausedBy == nil {
			reloadFor = append(reloadFor, f)
		}
	}
	if len(reloadFor) > 0 || reload {
		text := "Reload vmw_pvrdma after the other InfiniBand modules, in the order of seeds 000/001."
		step := PlanStep{Action: "reload_pvrdma", Text: text, Command: guestModuleReload, Resolves: cite(reloadFor...),
			Sets: []Effect{{g.Guest + " vmw_pvrdma", "loaded after the InfiniBand modules"}}}
		b.add(step)
		if len(reloadFor) > 0 {
			b.add(PlanStep{Action: "persist_module_order", Text: guestModulePersist,
				Sets: []Effect{{g.Guest + " module order at boot", "vmw_pvrdma last"}}})
		}
	}
	// Anything left: its own fix.
	for _, f := range b.fs {
		if f.Severity.Rank() >= Warning.Rank() && !b.done[f.Key()] {
			b.add(PlanStep{Action: "check_guest", Text: f.Fix, Resolves: cite(f)})
		}
	}
	for _, a := range g.Adapters {
		b.steps = append(b.steps, PlanStep{Action: "verify", Command: "ibv_devinfo -d " + a.Device, Expect: "state: PORT_ACTIVE (4) on port 1",
			Text: fmt.Sprintf("Verify: `ibv_devinfo -d %s` shows state PORT_ACTIVE (4) on port 1.", a.Device)})
	}
	return b.finish(g.Guest, "pvrdma-doctor scan --guests "+g.Guest+" (with its host)", g.Guest+" and its host")
}

// oneStepFor adds one step for all the findings of a rule about the whole
// guest (the first one's fix serves them all), leaving set.
func (b *planBuilder) oneStepFor(rule, action string, set Effect) {
	if fs := b.of(rule); len(fs) > 0 {
		b.add(PlanStep{Action: action, Text: fs[0].Fix, Resolves: cite(fs...), Sets: []Effect{set}})
	}
}
