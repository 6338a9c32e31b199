package checks

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A fix plan is what an ESXi/RoCE engineer would do on one host (or in one
// guest) to clear its findings. Every step is a typed action on an object
// with parameters (Action), rendered to prose and to the exact command in
// one place (plan_render.go), with a read-only check that shows it is
// already done and a verify read that shows it took effect. Each rule
// contributes the actions its findings need (Rule.Plan) in named phases;
// merging and ordering are generic: identical actions merge, the VMs that
// must be off are powered off once before the phases that need them and on
// once after, a driver change brings the host into maintenance mode and
// through one reboot, and nothing powers on in maintenance mode. The
// effects of the actions are modelled in the lab's host model
// (fixtures/internal/scenariogen/model), where a test proves every plan of
// every scenario and of random fault combinations: applied to a simulated
// copy of the host, each step changes something, what it says it resolves
// is gone, no new problem appears and its verify reads hold.

// Plan is one host's (or guest's) ordered fix plan.
type Plan struct {
	Host  string     `json:"host"`
	Steps []PlanStep `json:"steps"`
	// Rescan is the scan that shows the plan worked.
	Rescan string `json:"rescan,omitempty"`
	// Unresolved are the host's warning and critical findings no step
	// resolves (an investigate step says what to look at).
	Unresolved []Cause `json:"unresolved,omitempty"`
}

// PlanStep is one step of a plan: a typed action and how to carry it out.
type PlanStep struct {
	// N numbers the steps from 1.
	N int `json:"step"`
	// Phase is the named phase the step belongs to (plan.PhaseOrder).
	Phase plan.Phase `json:"phase"`
	// Action is what the step does, Params what it does it to (the
	// value of its kind, docs/report-schema.md).
	Action plan.Kind  `json:"action"`
	Params plan.Value `json:"params"`
	// On is where a person carries it out: esxi (the host's shell),
	// vcenter (vSphere Client or govc), guest (the Linux guest's shell),
	// switch (the physical switch) or hardware (the server itself).
	On string `json:"on"`
	// Text says what to do and why, with the real names filled in.
	Text string `json:"text"`
	// Command is the exact command, when there is one (shell-quoted).
	Command string `json:"command,omitempty"`
	// Warnings are what to know before running it.
	Warnings []string `json:"warnings,omitempty"`
	// Pause marks a step a person carries out (a reboot, a power action,
	// vSphere Client, the switch, the hardware): a runbook stops there.
	Pause bool `json:"pause,omitempty"`
	// Require must hold before the step can work (else the step says what
	// to do first); Check holds when the step is already done.
	Require *plan.Read `json:"require,omitempty"`
	Check   *plan.Read `json:"check,omitempty"`
	// Verify are the reads that show the step took effect, once the
	// whole plan is done.
	Verify []plan.Read `json:"verify,omitempty"`
	// Resolves cites the findings that are gone (or no more than
	// information) once this step is done.
	Resolves []Cause `json:"resolves,omitempty"`
	// Sets lists the objects the step changes and the state it leaves
	// them in; two steps of one plan never set one object to different
	// states (Contradictions).
	Sets []plan.Effect `json:"sets,omitempty"`
	// Optional steps are not needed for PVRDMA to work.
	Optional bool `json:"optional,omitempty"`
}

// Plans builds one fix plan per host and guest that has findings at
// warning or above (info findings are advice, not work; HOST_NOT_READY
// at any severity). Suppressed and
// not-evaluated findings are left out, and so is COLLECTION_FAILED.
func Plans(fleet *facts.Fleet, fs []Finding) []Plan {
	plans, _ := PlansChecked(fleet, fs)
	return plans
}

// Planned reports whether a failing finding is planned: warning and
// above, and a host not ready at any severity (preparing it is work,
// plan_readiness.go).
func Planned(f Finding) bool {
	return f.Severity.Rank() >= Warning.Rank() || f.RuleID == "HOST_NOT_READY"
}

// PlansChecked is Plans that also returns what failed while planning: a
// rule's contribution that panicked (its finding gets its own fix as a
// step instead), or a plan whose assembly panicked (the findings' own
// fixes instead); each is an InternalError of the run (recover.go), which
// the report shows as incomplete.
func PlansChecked(fleet *facts.Fleet, fs []Finding) ([]Plan, []InternalError) {
	if fleet == nil {
		return nil, nil
	}
	var errs []InternalError
	idx := newFindingIndex(fs)
	bySubject := map[string][]Finding{}
	for _, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.RuleID == CollectionFailed {
			continue
		}
		if Planned(f) {
			bySubject[f.Host] = append(bySubject[f.Host], f)
		}
	}
	for _, f := range safeEscalations(fleet, fs, idx.byKey) {
		bySubject[f.Host] = append(bySubject[f.Host], f)
	}
	// Every host and guest gets a planner; each rule contributes, then
	// what the fleet's plans change together is anticipated (adapters
	// below the RoCE MTU their path will carry), actions inside a scanned
	// guest with a plan move to that plan, and each plan is assembled.
	paths := fleet.DataPath()
	var planners []*planner
	byGuest := map[string]*planner{}
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		planners = append(planners, &planner{host: h, path: paths.Host(i), fleet: fleet, subject: h.Host, mine: bySubject[h.Host], idx: idx, errs: &errs})
	}
	for i := range fleet.Guests {
		g := &fleet.Guests[i]
		p := &planner{guest: g, fleet: fleet, subject: g.Guest, mine: bySubject[g.Guest], idx: idx, errs: &errs}
		planners = append(planners, p)
		byGuest[g.Guest] = p
	}
	for _, p := range planners {
		p.contribute()
	}
	for _, p := range planners {
		if p.host != nil {
			p.guard(p.anticipateSwitch)
		}
	}
	fixed := switchFixes(planners)
	for _, p := range planners {
		if p.host != nil {
			p.guard(func() { p.anticipateMTU(fixed) })
		}
	}
	for _, p := range planners {
		if p.host == nil {
			continue
		}
		keep := p.props[:0]
		for _, pr := range p.props {
			// A guest with a plan of its own gets the host's steps inside
			// it (one reload, in order with its own steps); else they stay
			// in the host's plan, where the report shows them.
			if ga, ok := pr.action.(plan.GuestAction); ok && byGuest[ga.TargetVM()] != nil && len(byGuest[ga.TargetVM()].mine) > 0 {
				g := byGuest[ga.TargetVM()]
				pr.action = ga.Inside()
				g.props = append(g.props, pr)
				continue
			}
			keep = append(keep, pr)
		}
		p.props = keep
	}
	var out []Plan
	for _, p := range planners {
		if pl := p.safePlan(); len(pl.Steps) > 0 {
			out = append(out, pl)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, errs
}

// PlanFor returns the plan of one host from a list of plans.
func PlanFor(plans []Plan, host string) *Plan {
	for i := range plans {
		if plans[i].Host == host {
			return &plans[i]
		}
	}
	return nil
}

// planner gathers the proposals of one plan and assembles them.
type planner struct {
	host  *facts.Host  // nil for a guest's plan
	guest *facts.Guest // nil for a host's plan
	path  *facts.HostPath
	fleet *facts.Fleet
	// subject is the host or guest the plan is for.
	subject string
	// mine are the plan subject's findings at warning or above.
	mine []Finding
	// idx are every failing, unsuppressed finding of the fleet, by key
	// and by cause (plan_index.go).
	idx   *findingIndex
	props []*proposal
	// atReboot are the findings a reboot resolves (error counters), with
	// the action that stands in when the plan has no reboot.
	atReboot []rebootFix
	// failed lists the rules whose contribution failed (a panic): their
	// findings get the finding's own fix instead.
	failed []string
	// errs collects the panics recovered while planning (PlansChecked).
	errs *[]InternalError
}

// recordPanic records a panic recovered while planning.
func (p *planner) recordPanic(v any, ruleID, lost string) {
	if p.errs == nil {
		return
	}
	*p.errs = append(*p.errs, recovered(v, InPlan, ruleID, p.subject,
		fmt.Sprintf("internal error in the fix plan of %s (%s): %s", p.subject, pleaseReport, lost)))
}

type rebootFix struct {
	f        Finding
	fallback plan.Value
}

// proposal is one action a rule's contribution asks for.
type proposal struct {
	phase plan.Phase
	// action is what it does (nil: a power cycle only).
	action plan.Value
	// resolves are the findings that are gone once the action is done.
	resolves []Finding
	// cycle are the VMs that must be powered off before the action and
	// on after it (resolvesAtPowerOn: the findings the power-on resolves).
	cycle             []string
	resolvesAtPowerOn []Finding
	// reboot: the action takes effect at the host's next boot.
	reboot   bool
	optional bool
}

// add proposes an action in a phase, resolving fs.
func (p *planner) add(phase plan.Phase, a plan.Value, fs ...Finding) *proposal {
	pr := &proposal{phase: phase, action: a, resolves: fs}
	p.props = append(p.props, pr)
	return pr
}

// powerCycle makes the proposal need vms powered off before it and on
// after it.
func (pr *proposal) powerCycle(vms ...string) *proposal {
	pr.cycle = append(pr.cycle, vms...)
	return pr
}

// atReboot makes the action take effect at the next boot.
func (pr *proposal) atReboot() *proposal { pr.reboot = true; return pr }

// cycleVMs asks for vms to be power-cycled (an adapter binds to the HCA at
// power-on), resolving fs at the power-on.
func (p *planner) cycleVMs(vms []string, fs ...Finding) {
	p.props = append(p.props, &proposal{phase: plan.PhasePowerOn, cycle: vms, resolvesAtPowerOn: fs})
}

// resolveAtReboot makes f resolved by the plan's reboot (a reboot clears
// error counters); without a reboot, fallback stands in for it.
func (p *planner) resolveAtReboot(f Finding, fallback plan.Value) {
	p.atReboot = append(p.atReboot, rebootFix{f, fallback})
}

// has returns the fleet's failing finding of a rule on a host about
// subject, if any.
func (p *planner) has(rule, host, subject string) (Finding, bool) {
	f, ok := p.idx.byKey[Cause{RuleID: rule, Host: host, Subject: subject}]
	return f, ok
}

// causeElsewhere reports whether f follows from a finding of another
// plan (whose steps resolve it).
func (p *planner) causeElsewhere(f Finding) bool {
	seen := map[Cause]bool{}
	for c := f.CausedBy; c != nil && !seen[*c]; {
		seen[*c] = true
		cf, ok := p.idx.byKey[*c]
		if !ok {
			return false
		}
		if cf.Host != p.subject {
			return true
		}
		c = cf.CausedBy
	}
	return false
}

// causePresent reports whether f's cause is a finding of the fleet.
func (p *planner) causePresent(f Finding) bool {
	if f.CausedBy == nil {
		return false
	}
	_, ok := p.idx.byKey[*f.CausedBy]
	return ok
}

// contribute asks each finding's rule for its actions. A consequence of
// another finding is resolved with its cause, unless its rule plans its
// consequences too (an adapter binds to the HCA only at its next
// power-on); a consequence of another plan's finding is that plan's. A
// rule without a contribution, or whose contribution fails, gets its
// finding's own fix as a step.
func (p *planner) contribute() {
	for _, f := range p.mine {
		if p.causeElsewhere(f) {
			continue
		}
		rule := catalogue[f.RuleID]
		if p.causePresent(f) && (rule == nil || !rule.PlanConsequences) {
			continue // resolved with its cause (consequencesOf)
		}
		if rule == nil || rule.Plan == nil {
			p.add(plan.PhaseInvestigate, plan.FollowFix{Note: f.Fix}, f)
			continue
		}
		if !p.safeContribute(rule, f) {
			p.failed = append(p.failed, f.RuleID)
			p.add(plan.PhaseInvestigate, plan.FollowFix{Note: f.Fix}, f)
		}
	}
}

// guard runs f; a panic drops what f proposed (a plan never fails for
// facts it did not expect).
func (p *planner) guard(f func()) {
	n := len(p.props)
	defer func() {
		if r := recover(); r != nil {
			p.props = p.props[:n]
			p.recordPanic(r, "", "some steps the fleet's other plans imply are left out")
		}
	}()
	f()
}

// safePlan assembles the plan; should that panic, the plan is the
// findings' own fixes, one follow_fix step each.
func (p *planner) safePlan() (pl Plan) {
	defer func() {
		if r := recover(); r != nil {
			p.recordPanic(r, "", "its plan is the findings' own fixes, unordered")
			pl = Plan{Host: p.subject}
			for i, f := range p.mine {
				pl.Steps = append(pl.Steps, PlanStep{N: i + 1, Phase: plan.PhaseInvestigate, Action: plan.KindFollowFix, On: "esxi", Pause: true,
					Text: f.Fix, Params: plan.FollowFix{Note: f.Fix}, Resolves: []Cause{causeOf(f)}})
			}
		}
	}()
	return p.plan()
}

// safeContribute runs one rule's contribution for one finding; a panic
// drops what it proposed and reports false (the engine's recovery does
// the same for checks: a failing rule fails alone).
func (p *planner) safeContribute(rule *Rule, f Finding) (ok bool) {
	n, m := len(p.props), len(p.atReboot)
	defer func() {
		if r := recover(); r != nil {
			p.props, p.atReboot = p.props[:n], p.atReboot[:m]
			p.recordPanic(r, rule.ID, rule.ID+"'s step is its finding's own fix")
			ok = false
		}
	}()
	rule.Plan(p, f)
	return true
}

// consequencesOf returns f's consequences across the fleet (depth first)
// that are resolved with it: those whose rule does not plan its
// consequences itself.
func (p *planner) consequencesOf(f Finding) []Finding {
	var out []Finding
	seen := map[Cause]bool{causeOf(f): true}
	var walk func(key Cause)
	walk = func(key Cause) {
		for _, c := range p.idx.effects[key] {
			k := causeOf(c)
			if seen[k] || c.Severity.Rank() < Warning.Rank() {
				continue
			}
			seen[k] = true
			if r := catalogue[c.RuleID]; r != nil && r.PlanConsequences {
				continue
			}
			if p.otherCauses(c, f.Host) {
				continue // nested under f, but not resolved by f alone
			}
			out = append(out, c)
			walk(k)
		}
	}
	walk(causeOf(f))
	return out
}

// plan contributes, merges, orders and renders.
func (p *planner) plan() Plan {
	// Merge identical actions.
	var props []*proposal
	idx := map[string]*proposal{}
	for _, pr := range p.props {
		if pr.action == nil {
			props = append(props, pr) // a power cycle only
			continue
		}
		k := plan.Key(p.subject, pr.action)
		if q, ok := idx[k]; ok {
			if m, ok := q.action.(plan.Merging); ok {
				q.action = m.Merge(pr.action)
			}
			q.resolves = append(q.resolves, pr.resolves...)
			q.cycle = append(q.cycle, pr.cycle...)
			q.reboot = q.reboot || pr.reboot
			q.optional = q.optional && pr.optional
			if plan.PhaseRank(pr.phase) < plan.PhaseRank(q.phase) {
				q.phase = pr.phase
			}
			continue
		}
		idx[k] = pr
		props = append(props, pr)
	}
	steps := p.envelope(props)
	p.cite(steps)
	pl := Plan{Host: p.subject}
	for i := range steps {
		st := steps[i].render(p.subject)
		st.N = len(pl.Steps) + 1
		pl.Steps = append(pl.Steps, st)
	}
	if len(pl.Steps) == 0 {
		return pl
	}
	resolved := map[string]bool{}
	for _, st := range pl.Steps {
		for _, c := range st.Resolves {
			resolved[c.Key()] = true
		}
	}
	for _, f := range p.mine {
		if !resolved[f.Key()] && !p.causeElsewhere(f) {
			pl.Unresolved = append(pl.Unresolved, causeOf(f))
		}
	}
	if p.guest != nil {
		pl.Rescan = "pvrdma-doctor scan --guests " + shellArg(p.subject, "GUEST") + " (with its host)"
	} else {
		pl.Rescan = "pvrdma-doctor scan --hosts " + shellArg(p.subject, "HOST") + " (and its peers)"
	}
	return pl
}

// step is a proposal placed in the plan, before rendering.
type step struct {
	phase    plan.Phase
	action   plan.Value
	resolves []Finding
	optional bool
}

// envelope orders the proposals by phase and wraps them: the VMs that
// must be off are powered off first and on after the phases that need
// them; a hardware or driver change puts the host in maintenance mode
// (the other running VMs migrated first), a driver change reboots it, and
// the host leaves maintenance mode before anything powers on.
func (p *planner) envelope(props []*proposal) []step {
	var off []string
	var onRes []Finding
	needMM, reboot := false, false
	for _, pr := range props {
		off = append(off, pr.cycle...)
		onRes = append(onRes, pr.resolvesAtPowerOn...)
		if pr.phase == plan.PhaseHardware || pr.phase == plan.PhaseDriver {
			needMM = true
		}
		reboot = reboot || pr.reboot
	}
	needMM = needMM || reboot
	var others []string
	if needMM && p.host != nil {
		off = append(off, runningPVRDMAVMs(p.host)...)
		others = runningOtherVMs(p.host)
	}
	off = dedupe(off)
	sort.SliceStable(props, func(i, j int) bool {
		a, b := props[i], props[j]
		if plan.PhaseRank(a.phase) != plan.PhaseRank(b.phase) {
			return plan.PhaseRank(a.phase) < plan.PhaseRank(b.phase)
		}
		return plan.RankOf(a.action) < plan.RankOf(b.action)
	})
	var out []step
	emit := func(ph plan.Phase) {
		for _, pr := range props {
			if pr.phase == ph && pr.action != nil {
				out = append(out, step{phase: ph, action: pr.action, resolves: pr.resolves, optional: pr.optional})
			}
		}
	}

	if len(off) > 0 {
		out = append(out, step{phase: plan.PhasePrepare, action: plan.PowerOffVMs{VMs: off}})
	}
	if len(others) > 0 {
		out = append(out, step{phase: plan.PhasePrepare, action: plan.MigrateVMs{VMs: others}})
	}
	if needMM {
		out = append(out, step{phase: plan.PhasePrepare, action: plan.EnterMaintenance{}})
	}
	emit(plan.PhaseHardware)
	emit(plan.PhaseDriver)
	var rebootRes []Finding
	if reboot {
		for _, r := range p.atReboot {
			rebootRes = append(rebootRes, r.f)
		}
		changes := false
		for _, st := range out {
			changes = changes || st.phase == plan.PhaseHardware || st.phase == plan.PhaseDriver
		}
		out = append(out, step{phase: plan.PhaseReboot, action: plan.Reboot{Pending: !changes}, resolves: rebootRes})
	} else {
		for _, r := range p.atReboot {
			props = append(props, &proposal{phase: plan.PhaseInvestigate, action: r.fallback, resolves: nil})
		}
	}
	if needMM {
		out = append(out, step{phase: plan.PhaseReboot, action: plan.ExitMaintenance{}})
	}
	for _, ph := range []plan.Phase{plan.PhaseUplinks, plan.PhaseSwitch, plan.PhaseHost, plan.PhaseVM} {
		emit(ph)
	}
	if len(off) > 0 {
		out = append(out, step{phase: plan.PhasePowerOn, action: plan.PowerOnVMs{VMs: off, BindHCA: bindVMs(onRes, off)},
			resolves: onRes})
	}
	emit(plan.PhaseGuest)
	emit(plan.PhaseInvestigate)
	return out
}

// bindVMs are the VMs among off whose power-on binds an adapter to the
// HCA (a finding about them is resolved at the power-on).
func bindVMs(fs []Finding, off []string) []string {
	var out []string
	for _, f := range fs {
		for _, vm := range off {
			if vmOfSubject(f.Subject) == vm || (f.RuleID == "TCP_FALLBACK" && strings.Contains(f.Subject, vm)) {
				out = append(out, vm)
			}
		}
	}
	return dedupe(out)
}

// cite fills each step's findings with the consequences resolved with
// them, and cites every finding at the last step that resolves it only.
func (p *planner) cite(steps []step) {
	last := map[Cause]int{}
	for i := range steps {
		var all []Finding
		for _, f := range steps[i].resolves {
			all = append(all, f)
			all = append(all, p.consequencesOf(f)...)
		}
		steps[i].resolves = all
		for _, f := range all {
			last[causeOf(f)] = i
		}
	}
	for i := range steps {
		var keep []Finding
		seen := map[Cause]bool{}
		for _, f := range steps[i].resolves {
			if k := causeOf(f); last[k] == i && !seen[k] {
				seen[k] = true
				keep = append(keep, f)
			}
		}
		steps[i].resolves = keep
	}
}

func causeOf(f Finding) Cause { return Cause{RuleID: f.RuleID, Host: f.Host, Subject: f.Subject} }

// runningPVRDMAVMs are the host's running VMs with a PVRDMA adapter.
func runningPVRDMAVMs(h *facts.Host) []string {
	var out []string
	for _, d := range h.PVRDMADevices {
		if d.VMName != "" {
			out = append(out, d.VMName)
		}
	}
	if len(h.PVRDMADevices) == 0 {
		// vsish was not read (a host read through vCenter): vCenter's
		// powered-on VMs with a PVRDMA adapter.
		for _, c := range vcenterPVRDMA(h) {
			out = append(out, c.Name)
		}
	}
	return dedupe(out)
}

// runningOtherVMs are the host's running VMs without a PVRDMA adapter
// (maintenance mode needs them off the host).
func runningOtherVMs(h *facts.Host) []string {
	pv := map[string]bool{}
	for _, n := range runningPVRDMAVMs(h) {
		pv[n] = true
	}
	var out []string
	for _, v := range h.VMs {
		if v.DisplayName != "" && !pv[v.DisplayName] {
			out = append(out, v.DisplayName)
		}
	}
	return dedupe(out)
}

// vmOfSubject turns "hpc-node02 (PVRDMA adapter 0)" into "hpc-node02".
func vmOfSubject(s string) string {
	if i := strings.LastIndex(s, " (PVRDMA adapter "); i > 0 {
		return s[:i]
	}
	if i := strings.LastIndex(s, " (ethernet"); i > 0 {
		return s[:i]
	}
	return s
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Contradictions returns, for a plan, every pair of steps that set one
// object to different states ("step 2 and step 5 disagree about X").
func Contradictions(p Plan) []string {
	type at struct {
		step  int
		state string
	}
	seen := map[string]at{}
	var out []string
	for _, s := range p.Steps {
		for _, e := range s.Sets {
			if prev, ok := seen[e.Object]; ok && prev.state != e.State && prev.step != s.N {
				out = append(out, fmt.Sprintf("%s: step %d sets %s to %q, step %d to %q", p.Host, prev.step, e.Object, prev.state, s.N, e.State))
				continue
			}
			seen[e.Object] = at{s.N, e.State}
		}
	}
	return out
}

// escalations are the information findings that the fleet's plans turn
// into problems, which the plans therefore fix too: a path that drops
// jumbo frames outside the RDMA fabric becomes part of it once a host at
// either end gets its RDMA device; an adapter whose RoCE MTU is lower
// than the data path allows slows every connection once adapters that run
// higher bind to their HCA.
func escalations(fleet *facts.Fleet, fs []Finding, byKey map[Cause]Finding) []Finding {
	// The hosts whose plan puts their PVRDMA vmknic on the RDMA fabric
	// (an RDMA device, its link, the vDS's only uplink, the tag).
	gets := map[string]bool{}
	for _, f := range byKey {
		switch f.RuleID {
		case "NO_RDMA_DEVICE", "RDMA_DEVICE_DOWN", "RDMA_UPLINK_NOT_ON_DVS", "DVS_MULTIPLE_UPLINKS", "TCP_FALLBACK", "ROCE_NOT_SUPPORTED",
			"PVRDMA_VMKNIC_UNSET", "PVRDMA_VMKNIC_NO_IPV4":
			if f.Severity.Rank() >= Warning.Rank() {
				gets[f.Host] = true
			}
		}
	}
	paths := fleet.DataPath()
	// The highest RoCE MTU of the adapters of each vDS, bound or not
	// (the plans bind them).
	top := map[string]int{}
	for i := range fleet.Hosts {
		if sw := paths.Host(i).Switch; sw != nil {
			for _, d := range fleet.Hosts[i].PVRDMADevices {
				top[sw.Name] = max(top[sw.Name], d.ActiveMTU)
			}
		}
	}
	var out []Finding
	for _, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.Severity != Info {
			continue
		}
		switch f.RuleID {
		case "PATH_MTU_BLOCKED":
			to := ""
			if i := strings.LastIndex(f.Subject, " -> "); i >= 0 {
				to = f.Subject[i+4:]
			}
			if gets[f.Host] || gets[to] {
				out = append(out, f)
			}
		case "LOW_MTU":
			h := hostNamed(fleet, f.Host)
			if h == nil {
				continue
			}
			hp := paths.For(h)
			for _, d := range h.PVRDMADevices {
				if vmLabel(d) == f.Subject && hp.Switch != nil && top[hp.Switch.Name] > d.ActiveMTU {
					out = append(out, f)
					// Its cause in the guest (the interface's MTU) is
					// what the plan changes.
					if f.CausedBy != nil {
						if c, ok := byKey[*f.CausedBy]; ok && c.Severity == Info {
							out = append(out, c)
						}
					}
				}
			}
		}
	}
	return out
}

func hostNamed(fleet *facts.Fleet, name string) *facts.Host {
	for i := range fleet.Hosts {
		if fleet.Hosts[i].Host == name {
			return &fleet.Hosts[i]
		}
	}
	return nil
}

// switchFixes are the hosts whose physical switch ports a plan sets to
// jumbo frames.
func switchFixes(planners []*planner) map[string]bool {
	out := map[string]bool{}
	for _, p := range planners {
		for _, pr := range p.props {
			if sw, ok := pr.action.(plan.SetSwitchMTU); ok {
				for _, h := range sw.Hosts {
					out[h] = true
				}
			}
		}
	}
	return out
}

// anticipateMTU: an adapter whose RoCE MTU is below what its data path
// will carry once the plans are done (the switch ports fixed, the HCA
// bound) slows every connection with an adapter that runs higher: its
// guest's interface goes to the path's MTU and vmw_pvrdma is reloaded.
// Today no finding says so (the path carries less, or the adapter falls
// back to TCP); once the plans are done, LOW_MTU would.
func (p *planner) anticipateMTU(fixed map[string]bool) {
	hp := p.path
	if hp == nil || hp.Switch == nil || !hp.MTU.Known {
		return
	}
	future := hp.MTU.MTU
	if hp.MTU.Proved {
		for i := range hp.Pairs {
			if pp := &hp.Pairs[i]; pp.Blocked() && (fixed[p.host.Host] || fixed[pp.To]) {
				future = configuredMTU(p.host, hp)
			}
		}
	}
	want := facts.RDMAMTUFor(future)
	top := topActiveMTUAny(p.fleet, hp.Switch.Name)
	for _, d := range p.host.PVRDMADevices {
		if d.ActiveMTU == 0 || d.VMName == "" || d.ActiveMTU >= min(want, top) {
			continue
		}
		if f, ok := p.has("LOW_MTU", p.host.Host, vmLabel(d)); ok && f.Severity.Rank() >= Warning.Rank() || ok && slices.ContainsFunc(p.mine, func(m Finding) bool { return m.Key() == f.Key() }) {
			continue // its own finding plans it
		}
		g, a := guestSide(p.fleet, p.host, d)
		if a != nil {
			if gf, ok := p.has("GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", g.Guest, guestLabel(*a)); ok && gf.Severity.Rank() >= Warning.Rank() {
				continue // the guest's plan raises it
			}
		}
		netdev, dev := guestNetdev(p.fleet, p.host, d), "vmw_pvrdma0"
		if a != nil {
			dev = a.Device
		}
		if a == nil || a.NetdevMTU == 0 || facts.RDMAMTUFor(a.NetdevMTU) < want {
			p.add(plan.PhaseGuest, plan.GuestSetMTU{VM: d.VMName, Netdev: netdev, MAC: d.MAC, MTU: future})
		}
		if sg := scannedGuestOf(p.fleet, d); sg != nil && a == nil {
			continue // its guest has no PVRDMA device yet: its own plan loads the driver, after the MTU
		}
		p.add(plan.PhaseGuest, plan.GuestReloadDriver{VM: d.VMName, Device: dev, MTU: min(want, top)})
	}
}

// joinsFabric are the actions that put a host's PVRDMA vmknic on the
// RDMA fabric, or give it what its probes need (an address, the tag).
var joinsFabric = []plan.Kind{plan.KindInstallNIC, plan.KindEnableModule, plan.KindSetModuleParams, plan.KindSetUplinks, plan.KindNICUp, plan.KindRepairLink, plan.KindTagVmknic,
	plan.KindSetVmknicIPv4}

// anticipateSwitch: a host whose plan puts its vmknic on the RDMA fabric
// while no probe measured the fabric's MTU from or to it (it had no RDMA
// uplink, no tag or no address, so nothing probed) gets the switch step
// that applies if its jumbo probe to a peer then fails: the switch ports
// were never measured (a runbook skips the step when the probe passes).
func (p *planner) anticipateSwitch() {
	hp := p.path
	if hp == nil || hp.Switch == nil || hp.Switch.MTU <= 1500 || hp.MTU.Measured {
		return
	}
	vmk := ""
	joins := false
	for _, pr := range p.props {
		if pr.action == nil {
			continue
		}
		sw, isSwitch := pr.action.(plan.SetSwitchMTU)
		tag, isTag := pr.action.(plan.TagVmknic)
		mp, isParams := pr.action.(plan.SetModuleParams)
		switch k := pr.action.Kind(); {
		case isSwitch && slices.Contains(sw.Hosts, p.host.Host):
			return // its own step already
		case isTag && hp.TaggedVmknic != nil:
			// A tag moved from one existing vmknic to another
			// (PVRDMA_VMKNIC_OTHER_SUBNET): the RDMA uplink and its
			// fabric are what they were; the next scan probes them.
			vmk = tag.Vmknic
		case isTag:
			vmk, joins = tag.Vmknic, true
		case slices.Contains(joinsFabric, k) && (!isParams || slices.ContainsFunc(mp.Set, func(x plan.Setting) bool { return x.Name == "RDMA" })):
			joins = true
		}
	}
	if !joins {
		return
	}
	if vmk == "" && hp.Vmknic != nil {
		vmk = hp.Vmknic.Name
	}
	v := p.host.VmknicNamed(vmk)
	if v == nil || v.VDSName != hp.Switch.Name {
		return // not on the PVRDMA vDS: its probes would not cross the fabric
	}
	if p.jumboProbed(min(hp.Switch.MTU, 9000), nil) != nil {
		return // a jumbo probe through its RDMA port got every reply: the switch ports carry jumbo frames
	}
	paths := p.fleet.DataPath()
	for i := range p.fleet.Hosts {
		peer := &p.fleet.Hosts[i]
		pp := paths.Host(i)
		if peer.Host == p.host.Host || pp.DataVmknic == nil {
			continue
		}
		ip := ipv4Of(peer, pp.DataVmknic.Name)
		if ip == nil || ip.Address == "" || ip.Address == "0.0.0.0" {
			continue
		}
		spec, ok := catalog.Lookup(catalog.KindVmkping)
		if !ok {
			return
		}
		c, err := spec.Command(vmk, v.Netstack, strconv.Itoa(min(hp.Switch.MTU, 9000)-28), ip.Address)
		if err != nil {
			return
		}
		p.add(plan.PhaseSwitch, plan.SetSwitchMTU{Hosts: []string{p.host.Host, peer.Host}, MTU: 9216, Probe: c.Line, Unmeasured: true})
		return
	}
}

// configuredMTU is the Ethernet MTU the host's PVRDMA vDS and its RDMA
// uplinks are configured for (what the path carries once the switch
// ports do).
func configuredMTU(h *facts.Host, hp *facts.HostPath) int {
	m := hp.Switch.MTU
	for _, u := range hp.RDMAUplinks {
		if n := h.NICNamed(u); n != nil && n.MTU > 0 {
			m = min(m, n.MTU)
		}
	}
	return m
}

// scannedGuestOf returns the scanned guest of a host-side adapter: the
// guest with its device, or with an interface of its MAC (the vmxnet3
// half, present without vmw_pvrdma); nil when it was not scanned.
func scannedGuestOf(fleet *facts.Fleet, d parse.PVRDMADevice) *facts.Guest {
	for i := range fleet.Guests {
		g := &fleet.Guests[i]
		for _, l := range g.Links {
			if l.MAC != "" && strings.EqualFold(l.MAC, d.MAC) {
				return g
			}
		}
	}
	return nil
}

// guestNetdev is the guest interface of a host-side adapter ("" when its
// guest was not scanned): the netdev of its PVRDMA device, else the
// interface with its MAC.
func guestNetdev(fleet *facts.Fleet, h *facts.Host, d parse.PVRDMADevice) string {
	if _, a := guestSide(fleet, h, d); a != nil {
		return a.Netdev
	}
	if g := scannedGuestOf(fleet, d); g != nil {
		for _, l := range g.Links {
			if strings.EqualFold(l.MAC, d.MAC) {
				return l.Name
			}
		}
	}
	return ""
}

// safeEscalations is escalations, or none should it panic.
func safeEscalations(fleet *facts.Fleet, fs []Finding, byKey map[Cause]Finding) (out []Finding) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
		}
	}()
	return escalations(fleet, fs, byKey)
}

// topActiveMTUAny is the largest active MTU of the PVRDMA adapters (with an
// HCA or not) of the fleet's hosts on the vDS named sw: derived once per
// fleet and switch.
func topActiveMTUAny(fleet *facts.Fleet, sw string) int {
	paths := fleet.DataPath()
	return paths.Memo("checks.topActiveMTUAny\x00"+sw, func() any {
		top := 0
		for i := range fleet.Hosts {
			if s := paths.Host(i).Switch; s != nil && s.Name == sw {
				for _, d := range fleet.Hosts[i].PVRDMADevices {
					top = max(top, d.ActiveMTU)
				}
			}
		}
		return top
	}).(int)
}
