package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A fix plan is what an ESXi/RoCE engineer would do on one host to clear
// its findings: ordered, deduplicated steps that never undo each other
// (power off the PVRDMA VMs once, change the uplinks, tag the vmknic, open
// the firewall, set MTUs, power on, verify). Each step cites the findings
// it resolves. Findings keep their own fix text for `rules explain` and
// the evidence view; the plan is the headline.

// Plan is one host's ordered fix plan.
type Plan struct {
	Host  string     `json:"host"`
	Steps []PlanStep `json:"steps"`
}

// PlanStep is one step of a plan.
type PlanStep struct {
	// N numbers the steps from 1.
	N int `json:"step"`
	// Action is the kind of step: install_rdma, upgrade_esxi, power_off,
	// set_uplinks, repair_link, tag_vmknic, set_ipv4, open_firewall,
	// set_mtu, enable_pfc, set_roce_version, vm_settings, check_path,
	// power_on, guest_mtu, verify.
	Action string `json:"action"`
	// Text says what to do, with the real names filled in.
	Text string `json:"text"`
	// Command is the exact command to run, when there is one.
	Command string `json:"command,omitempty"`
	// Expect is, for verify steps, the value the command must show.
	Expect string `json:"expect,omitempty"`
	// Resolves cites the findings this step resolves.
	Resolves []Cause `json:"resolves,omitempty"`
	// Sets lists the objects the step changes and the state it leaves
	// them in ("rdma-dvs uplink vmnic4" -> "removed"); two steps of one
	// plan never set one object to different states.
	Sets []Effect `json:"sets,omitempty"`
	// Optional steps are not needed for PVRDMA to work.
	Optional bool `json:"optional,omitempty"`
}

// Effect is one object a step changes and the state it leaves it in.
type Effect struct {
	Object string `json:"object"`
	State  string `json:"state"`
}

// Plans builds one fix plan per host that has findings at warning or above
// (info findings are advice, not work). Suppressed and not-evaluated
// findings are left out.
func Plans(fleet *facts.Fleet, fs []Finding) []Plan {
	plans, _ := PlansChecked(fleet, fs)
	return plans
}

// PlansChecked is Plans that also returns the plans that could not be
// built: a host whose plan builder panicked gets no plan and an
// InternalError (recover.go); the other plans are built.
func PlansChecked(fleet *facts.Fleet, fs []Finding) ([]Plan, []InternalError) {
	var errs []InternalError
	byHost := map[string][]Finding{}
	for _, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.RuleID == CollectionFailed {
			continue
		}
		byHost[f.Host] = append(byHost[f.Host], f)
	}
	var out []Plan
	paths := fleet.DataPath()
	for i := range fleet.Hosts {
		h := &fleet.Hosts[i]
		hf := byHost[h.Host]
		serious := false
		for _, f := range hf {
			if f.Severity.Rank() >= Warning.Rank() || f.RuleID == "HOST_NOT_READY" {
				serious = true
			}
		}
		if !serious {
			continue
		}
		var p Plan
		if ie := guarded(InPlan, h.Host, planLost(h.Host), func() { p = hostPlan(h, paths.Host(i), fleet, hf) }); ie != nil {
			errs = append(errs, *ie)
			continue
		}
		if len(p.Steps) > 0 {
			out = append(out, p)
		}
	}
	out = append(out, guestPlans(fleet, byHost, &errs)...)
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, errs
}

// hostPlan and guestPlan build one plan (variables so that a test can
// make one fail).
var (
	hostPlan  = buildPlan
	guestPlan = buildGuestPlan
)

// planLost is the message of a plan that could not be built.
func planLost(host string) string {
	return fmt.Sprintf("internal error in the fix plan of %s (%s): its findings are shown without a plan", host, pleaseReport)
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

type planBuilder struct {
	h     *facts.Host
	fleet *facts.Fleet
	fs    []Finding
	steps []PlanStep
	done  map[string]bool // finding keys already cited by a step
}

func (b *planBuilder) of(rule string) []Finding {
	var out []Finding
	for _, f := range b.fs {
		if f.RuleID == rule && f.Severity.Rank() >= Warning.Rank() {
			out = append(out, f)
		}
	}
	return out
}

func cite(fs ...Finding) []Cause {
	var out []Cause
	for _, f := range fs {
		out = append(out, Cause{RuleID: f.RuleID, Host: f.Host, Subject: f.Subject})
	}
	return out
}

func (b *planBuilder) add(s PlanStep) {
	for _, c := range s.Resolves {
		b.done[c.Key()] = true
	}
	b.steps = append(b.steps, s)
}

// consequencesOf returns the findings of the host caused by any of fs.
func (b *planBuilder) consequencesOf(fs ...Finding) []Finding {
	keys := map[string]bool{}
	for _, f := range fs {
		keys[f.Key()] = true
	}
	var out []Finding
	for _, f := range b.fs {
		if f.CausedBy != nil && keys[f.CausedBy.Key()] {
			out = append(out, f)
		}
	}
	return out
}

func buildPlan(h *facts.Host, hp *facts.HostPath, fleet *facts.Fleet, fs []Finding) Plan {
	b := &planBuilder{h: h, fleet: fleet, fs: fs, done: map[string]bool{}}
	vms := pvrdmaVMNames(h)
	sw := hp.Switch
	swName := "the PVRDMA vDS"
	if sw != nil {
		swName = sw.Name
	}
	var powerOffAll bool
	var cycleVMs []string // VMs to power-cycle when not all of them
	var verify []PlanStep

	// 0. A host that is not ready (it runs no PVRDMA VM): the seeds'
	// host setup.
	verify = append(verify, b.readinessPlan(readinessOf(fleet, fleet.DataPath()).row(h.Host))...)

	// 1. ESXi release.
	if v := b.of("ESXI_VERSION_UNSUPPORTED"); len(v) > 0 {
		b.add(PlanStep{Action: "upgrade_esxi", Text: fmt.Sprintf("Upgrade %s to ESXi 6.5 or later (8.0 recommended) with vSphere Lifecycle Manager; "+
			"the other steps need a release with PVRDMA.", h.Host), Resolves: cite(append(v, b.consequencesOf(v...)...)...),
			Sets: []Effect{{h.Host + " ESXi release", ">= 6.5"}}})
		powerOffAll = true
	}

	// 2. The RDMA device and the vDS uplinks: decide which uplink PVRDMA
	// uses, once, so that no two steps disagree about it.
	noDev := b.of("NO_RDMA_DEVICE")
	notOn := b.of("RDMA_UPLINK_NOT_ON_DVS")
	multi := b.of("DVS_MULTIPLE_UPLINKS")
	down := b.of("RDMA_DEVICE_DOWN")
	noRoCE := b.of("ROCE_NOT_SUPPORTED")
	chosen, chosenDev := chooseUplink(h, hp)
	var uplinkStep *PlanStep
	var installStep *PlanStep
	if len(noDev) > 0 {
		installStep = &PlanStep{Action: "install_rdma", Text: fmt.Sprintf("Put %s in maintenance mode and install an RoCE-capable NIC listed in the VMware "+
			"Compatibility Guide with its ESXi RDMA driver (nmlx5_rdma, bnxtroce, irdman); `esxcli rdma device list` must then show it Active.", h.Host),
			Resolves: cite(append(noDev, b.consequencesOf(noDev...)...)...), Sets: []Effect{{h.Host + " RDMA device", "installed"}}}
		powerOffAll = true
	}
	if sw != nil && (len(notOn) > 0 || len(multi) > 0 || (chosen != "" && !hasString(sw.Uplinks, chosen))) {
		target := chosen
		if target == "" && len(noDev) == 0 {
			target = "the HCA's vmnic"
		}
		if len(noDev) > 0 {
			target = "the new RoCE NIC's vmnic"
		}
		var remove []string
		var sets []Effect
		for _, u := range sw.Uplinks {
			if u != chosen {
				remove = append(remove, u)
				sets = append(sets, Effect{fmt.Sprintf("%s uplink %s on %s", sw.Name, u, h.Host), "removed"})
			}
		}
		if chosen != "" {
			sets = append(sets, Effect{fmt.Sprintf("%s uplink %s on %s", sw.Name, chosen, h.Host), "present"})
		}
		text := fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: on %s assign %s to an uplink",
			sw.Name, h.Host, target)
		if len(remove) > 0 {
			text += " and unassign " + strings.Join(remove, ", ")
		}
		text += fmt.Sprintf(", so that %s is the only uplink of %s (no LAG, no teaming).", target, sw.Name)
		if chosenDev != nil && !hasString(sw.Uplinks, chosen) {
			for _, d := range h.RDMADevices {
				if hasString(sw.Uplinks, d.PairedUplink) && !strings.EqualFold(d.State, "active") {
					text += fmt.Sprintf(" %s (%s) is %s while %s (%s) is Active: PVRDMA uses the working port now.", d.PairedUplink, d.Name, d.State, chosen, chosenDev.Name)
					break
				}
			}
		}
		res := append(append([]Finding{}, notOn...), multi...)
		res = append(res, b.consequencesOf(notOn...)...)
		uplinkStep = &PlanStep{Action: "set_uplinks", Text: text, Resolves: cite(res...), Sets: sets}
		powerOffAll = true
	}
	// A device that is down: repair its link when PVRDMA keeps using it; when
	// the uplink step moves PVRDMA to another port, the repair is optional.
	var linkSteps []PlanStep
	for _, f := range down {
		d := rdmaDevice(h, f.Subject)
		if d == nil {
			continue
		}
		leaves := uplinkStep != nil && chosen != "" && d.PairedUplink != chosen
		s := PlanStep{Action: "repair_link", Resolves: cite(f), Sets: []Effect{{"link of " + d.PairedUplink + " on " + h.Host, "up"}}}
		if n := h.NICNamed(d.PairedUplink); n != nil && strings.EqualFold(n.AdminStatus, "down") {
			s.Command = "esxcli network nic up -n " + shellArg(d.PairedUplink, "vmnicN")
			s.Text = fmt.Sprintf("%s is administratively down: bring it up.", d.PairedUplink)
		} else {
			s.Text = fmt.Sprintf("Repair the link of %s (%s is %s): check `esxcli network nic get -n %s` (Link Status), the cable or optic and the switch port.",
				d.PairedUplink, d.Name, d.State, d.PairedUplink)
		}
		if leaves {
			s.Optional = true
			s.Text += fmt.Sprintf(" After the uplink step %s no longer carries PVRDMA: repair it when convenient, and leave it out of %s.", d.PairedUplink, swName)
		} else {
			s.Resolves = cite(append([]Finding{f}, b.consequencesOf(f)...)...)
			powerOffAll = true
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli rdma device list",
				Expect: fmt.Sprintf("%s Active, Paired Uplink %s", d.Name, d.PairedUplink)})
		}
		linkSteps = append(linkSteps, s)
	}
	for _, f := range noRoCE {
		linkSteps = append(linkSteps, PlanStep{Action: "install_rdma", Text: fmt.Sprintf("%s supports neither RoCE v1 nor v2: enable RoCE in its driver's module "+
			"parameters (esxcli system module parameters list -m DRIVER) and reboot, or replace the NIC with an RoCE-capable one.", f.Subject),
			Resolves: cite(append([]Finding{f}, b.consequencesOf(f)...)...), Sets: []Effect{{f.Subject + " on " + h.Host + " RoCE", "enabled"}}})
		powerOffAll = true
	}
	// VMs whose adapter has no HCA although the host has a usable device:
	// a power cycle rebinds them.
	for _, f := range b.of("PHYSICAL_HCA_UNAVAILABLE") {
		if f.CausedBy == nil {
			cycleVMs = append(cycleVMs, vmOfSubject(f.Subject))
		}
	}
	for _, f := range b.of("TCP_FALLBACK") {
		if f.CausedBy == nil && len(hp.Usable) > 0 {
			cycleVMs = append(cycleVMs, vms...) // adapters powered on before the HCA was usable
		}
	}
	roce := b.of("ROCE_VERSION_MISMATCH")
	for _, f := range roce {
		cycleVMs = append(cycleVMs, vmOfSubject(f.Subject))
	}
	vmSteps, vmVMs := b.vmPlanSteps()
	cycleVMs = append(cycleVMs, vmVMs...)
	offVMs := cycleVMs
	if powerOffAll {
		offVMs = vms
	}
	offVMs = dedupe(offVMs)
	if len(offVMs) > 0 {
		var res []Finding
		for _, f := range b.of("PHYSICAL_HCA_UNAVAILABLE") {
			if f.CausedBy == nil {
				res = append(res, f)
			}
		}
		// Why the VMs go off: the RDMA uplink and its device change only
		// with the PVRDMA VMs powered off (KB 328676), and an adapter
		// binds to the HCA when its VM powers on (a power cycle rebinds it).
		var whys []string
		if uplinkStep != nil || installStep != nil || len(linkSteps) > 0 {
			whys = append(whys, "PVRDMA's RDMA uplink and its device can only be changed while the PVRDMA VMs are powered off")
		}
		if len(whys) > 0 || len(res) > 0 || len(b.of("TCP_FALLBACK")) > 0 {
			whys = append(whys, "an adapter binds to the HCA when its VM powers on")
		}
		why := strings.Join(whys, ", and ")
		switch {
		case len(vmVMs) > 0 && !powerOffAll && len(dedupe(cycleVMs)) == len(vmVMs):
			why = "their settings below change only while they are off"
		case len(vmVMs) > 0 && why != "":
			why += "; the VM settings below change only while it is off"
		case why == "":
			why = "their adapters' settings below change only while they are off"
		}
		b.add(PlanStep{Action: "power_off", Text: fmt.Sprintf("Power off the PVRDMA VMs on %s: %s (%s).", h.Host, joinNames(offVMs), why),
			Resolves: cite(res...)})
	}
	if installStep != nil {
		b.add(*installStep)
	}
	if uplinkStep != nil {
		b.add(*uplinkStep)
		if chosen != "" {
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network vswitch dvs vmware list",
				Expect: fmt.Sprintf("%s: Uplinks: %s", swName, chosen)})
		}
	}
	for _, s := range linkSteps {
		b.add(s)
	}
	if chosenDev != nil && (uplinkStep != nil || len(noDev) > 0) {
		verify = append(verify, PlanStep{Action: "verify", Command: "esxcli rdma device list",
			Expect: fmt.Sprintf("%s Active, Paired Uplink %s", chosenDev.Name, chosenDev.PairedUplink)})
	}
	for _, s := range vmSteps {
		b.add(s)
	}
	for _, f := range roce {
		if b.done[f.Key()] {
			continue // its VM's device protocol step resolves it
		}
		b.add(PlanStep{Action: "set_roce_version", Text: fmt.Sprintf("Set the device protocol of %s's PVRDMA adapter to the version the other "+
			"adapters use (vSphere Client: Edit Settings > network adapter > Device protocol).", vmOfSubject(f.Subject)),
			Resolves: cite(f), Sets: []Effect{{"device protocol of " + f.Subject, "the fleet's RoCE version"}}})
	}

	// 3. The PVRDMA vmknic: tag, address.
	for _, f := range b.of("PVRDMA_VMKNIC_UNSET") {
		target := ""
		if sw != nil {
			target = dvsVmknic(h, sw.Name)
		}
		cmd := "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s " + shellArg(target, "vmkN")
		text := "Tag the PVRDMA vmknic."
		if target == "" {
			text = fmt.Sprintf("Create a vmknic that reaches the peers' PVRDMA vmknics (on %s, or vmk0 as in VMware's guides) and tag it.", swName)
		}
		b.add(PlanStep{Action: "tag_vmknic", Text: text, Command: cmd, Resolves: cite(f),
			Sets: []Effect{{"/Net/PVRDMAVmknic on " + h.Host, orPlaceholder(target, "vmkN")}}})
		verify = append(verify, PlanStep{Action: "verify", Command: "esxcli system settings advanced list -o /Net/PVRDMAVmknic",
			Expect: "String Value: " + orPlaceholder(target, "vmkN")})
	}
	for _, f := range b.of("PVRDMA_VMKNIC_NO_IPV4") {
		b.add(PlanStep{Action: "set_ipv4", Text: "Give the PVRDMA vmknic an address in the peers' PVRDMA subnet.",
			Command:  fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK", shellArg(f.Subject, "vmkN")),
			Resolves: cite(f), Sets: []Effect{{"IPv4 of " + f.Subject + " on " + h.Host, "static"}}})
	}

	// 4. Firewall.
	for _, f := range b.of("PVRDMA_FIREWALL_CLOSED") {
		b.add(PlanStep{Action: "open_firewall", Text: "Enable the pvrdma firewall ruleset (TCP 28250-28761 in and out).",
			Command: "esxcli network firewall ruleset set -e true -r pvrdma", Resolves: cite(f),
			Sets: []Effect{{"pvrdma ruleset on " + h.Host, "enabled"}}})
		verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network firewall ruleset list", Expect: "pvrdma  true"})
	}

	// 5. MTU along the data path.
	for _, f := range b.of("MTU_MISMATCH") {
		s := PlanStep{Action: "set_mtu", Resolves: cite(append([]Finding{f}, b.consequencesOf(f)...)...)}
		v := hp.DataVmknic
		if v != nil && sw != nil && v.MTU > 0 && sw.MTU > 0 && v.MTU < sw.MTU {
			s.Text = fmt.Sprintf("Raise %s (on %s) to the vDS MTU.", v.Name, sw.Name)
			s.Command = fmt.Sprintf("esxcli network ip interface set -i %s -m %d", shellArg(v.Name, "vmkN"), sw.MTU)
			s.Sets = []Effect{{"MTU of " + v.Name + " on " + h.Host, fmt.Sprint(sw.MTU)}}
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network ip interface list", Expect: fmt.Sprintf("%s MTU: %d", v.Name, sw.MTU)})
		} else if f.Severity != Critical {
			s.Text = "Align the MTU of the PVRDMA data path: " + strings.TrimSuffix(strings.TrimPrefix(f.Fix, "On "+h.Host+": "), ".") + "."
			s.Sets = []Effect{{"MTU of the PVRDMA data path of " + h.Host, "9000 end to end"}}
		}
		if f.Severity == Critical {
			// Jumbo probes left the host and were lost: the physical network.
			s.Text = strings.TrimSpace(s.Text + " The network between the hosts drops jumbo frames: set MTU 9216 on every physical " +
				"switch port on the PVRDMA path (the uplink's port on this host and on its peers).")
			s.Sets = append(s.Sets, Effect{"MTU of the switch ports on the PVRDMA path of " + h.Host, "9216"})
		}
		b.add(s)
		if v != nil {
			for _, pp := range hp.Probes {
				if pp.Jumbo != nil {
					verify = append(verify, PlanStep{Action: "verify", Command: pp.Jumbo.Command, Expect: "3 packets transmitted, 3 packets received"})
					break
				}
			}
		}
	}

	// 5b. Measured paths below the configured MTU: one step for the
	// host's blocked links (their consequences on the adapters with it).
	if blocked := b.of("PATH_MTU_BLOCKED"); len(blocked) > 0 {
		pairs, lowest := blockedPairsOf(hp)
		var subjects []string
		for _, f := range blocked {
			subjects = append(subjects, f.Subject)
		}
		hop := "the link the findings name"
		if len(pairs) > 0 {
			hop = likelyHop(fleet.DataPath(), pairs[0]).name
		}
		s := PlanStep{Action: "fix_path_mtu", Resolves: cite(append(blocked, b.consequencesOf(blocked...)...)...),
			Text: fmt.Sprintf("Set MTU 9216 on the switch ports and inter-switch links between %s and its peers (%s: the path carries %d "+
				"bytes; likely hop: %s). Until then the PVRDMA adapters must run at RDMA MTU %d.", h.Host, strings.Join(subjects, ", "),
				lowest, hop, facts.RDMAMTUFor(lowest)),
			Sets: []Effect{{"MTU of the switch ports on the PVRDMA path of " + h.Host, "9216"}}}
		b.add(s)
		if len(pairs) > 0 && pairs[0].First != nil {
			verify = append(verify, PlanStep{Action: "verify", Command: pairs[0].First.Command, Expect: "3 packets transmitted, 3 packets received"})
		}
	}
	for _, f := range append(b.of("PATH_UNREACHABLE"), b.of("HIGH_LATENCY")...) {
		b.add(PlanStep{Action: "check_path", Text: f.Subject + ": " + f.Fix, Resolves: cite(f)})
	}

	// 6. Lossless Ethernet and errors.
	for _, f := range b.of("PFC_DISABLED") {
		fixed := append([]Finding{f}, b.consequencesOf(f)...)
		s := PlanStep{Action: "enable_pfc", Resolves: cite(fixed...), Sets: []Effect{{"lossless Ethernet on " + f.Subject + " of " + h.Host, "on"}}}
		if h.NMLX5(f.Subject) {
			s.Text = fmt.Sprintf("Enable PFC for the RoCE priority (3) on %s: on its switch port, and on the host with the nmlx5 module "+
				"parameters, then reboot %s (with its VMs off or migrated).", f.Subject, h.Host)
			s.Command = nmlx5PFC
		} else {
			s.Text = fmt.Sprintf("Enable PFC for the RoCE priority (3) on %s's switch port and on the host (DCBX or the driver's PFC parameter); "+
				"without PFC, enable global pause instead.", f.Subject)
			s.Command = fmt.Sprintf("esxcli network nic pauseParams set -n %s -r true -t true", shellArg(f.Subject, "vmnicN"))
		}
		b.add(s)
		verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network nic dcb status get -n " + shellArg(f.Subject, "vmnicN"), Expect: "PFC Enabled: true"})
	}
	for _, f := range b.of("RDMA_ERRORS") {
		if b.done[f.Key()] {
			continue
		}
		up := pairedUplink(h, f.Subject)
		b.add(PlanStep{Action: "check_path", Text: fmt.Sprintf("Check the cable, optic and switch port of %s (esxcli network nic stats get -n %s) for the errors %s counts.",
			up, up, f.Subject), Resolves: cite(f)})
	}
	for _, f := range b.of("VMKPING_UNREACHABLE") {
		b.add(PlanStep{Action: "check_path", Text: fmt.Sprintf("%s: compare the PVRDMA vmknics' addresses, netmasks and VLANs on both hosts "+
			"(esxcli network ip interface ipv4 get) and the switch ports' VLAN.", f.Subject), Resolves: cite(f)})
	}

	// 7. Power on, then what to do in the guests.
	if len(offVMs) > 0 {
		var res []Finding
		if len(noDev) == 0 {
			for _, f := range b.fs {
				if (f.RuleID == "TCP_FALLBACK" || f.RuleID == "PHYSICAL_HCA_UNAVAILABLE") && !b.done[f.Key()] {
					res = append(res, f)
				}
			}
		}
		b.add(PlanStep{Action: "power_on", Text: fmt.Sprintf("Power on %s: PVRDMA adapters bind to the HCA at power-on.", joinNames(offVMs)),
			Resolves: cite(res...)})
		for i, vm := range offVMs {
			if i == maxListed {
				vm = fmt.Sprintf("each of the %d other VMs", len(offVMs)-maxListed)
			}
			verify = append(verify, PlanStep{Action: "verify",
				Command: "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/WORLDID_0/properties",
				Expect:  "Physical HCA available:1 for " + vm + " (WORLDID: its World ID in `esxcli vm process list`, new after the power-on)"})
			if i == maxListed {
				break
			}
		}
	}
	for _, f := range append(b.of("LOW_MTU"), b.of("ACTIVE_MTU_ABOVE_PATH")...) {
		if b.done[f.Key()] {
			continue
		}
		vm := vmOfSubject(f.Subject)
		b.add(PlanStep{Action: "guest_mtu", Text: f.Fix, Resolves: cite(f),
			Sets: []Effect{{"MTU of the PVRDMA interface in " + vm, "path MTU"}}})
		verify = append(verify, PlanStep{Action: "verify", Command: "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/WORLDID_0/properties",
			Expect: fmt.Sprintf("Active MTU:%d for %s (WORLDID: its World ID in `esxcli vm process list`)", expectedActiveMTU(hp), vm)})
	}
	// TCP fallback the other steps do not resolve (e.g. sources disagree).
	for _, rule := range []string{"TCP_FALLBACK", "PHYSICAL_HCA_UNAVAILABLE"} {
		for _, f := range b.of(rule) {
			if !b.done[f.Key()] {
				b.add(PlanStep{Action: "check_path", Text: f.Fix, Resolves: cite(f)})
			}
		}
	}
	// Anything left: its own fix, so no finding is without a step (a
	// consequence of another host's finding is resolved by that host's
	// plan).
	for _, f := range b.fs {
		if f.CausedBy != nil && f.CausedBy.Host != f.Host {
			continue
		}
		if f.Severity.Rank() >= Warning.Rank() && !b.done[f.Key()] && !citedAsOptional(b.steps, f) {
			b.add(PlanStep{Action: "check_path", Text: f.Fix, Resolves: cite(f)})
		}
	}
	// 8. Verify.
	seen := map[string]bool{}
	for _, v := range verify {
		k := v.Command + "\x00" + v.Expect
		if seen[k] {
			continue
		}
		seen[k] = true
		v.Text = fmt.Sprintf("Verify: `%s` shows %s.", v.Command, v.Expect)
		b.steps = append(b.steps, v)
	}
	return b.finish(h.Host, "pvrdma-doctor scan --hosts "+h.Host+" (and its peers)", h.Host+" and its peers")
}

// finish ends the plan of subject (a host or a guest): when it has steps,
// a last one runs scan, the command that scans what again, to show that
// no critical or warning finding remains; then it numbers the steps from 1.
func (b *planBuilder) finish(subject, scan, what string) Plan {
	if len(b.steps) > 0 {
		b.steps = append(b.steps, PlanStep{Action: "verify", Command: scan,
			Expect: "no critical or warning finding", Text: "Scan " + what + " again: no critical or warning finding should remain."})
	}
	for i := range b.steps {
		b.steps[i].N = i + 1
	}
	return Plan{Host: subject, Steps: b.steps}
}

func citedAsOptional(steps []PlanStep, f Finding) bool {
	for _, s := range steps {
		for _, c := range s.Resolves {
			if c.Key() == f.Key() {
				return true
			}
		}
	}
	return false
}

// chooseUplink decides which uplink PVRDMA should use on the host: an
// Active RDMA device already on the PVRDMA vDS, else any Active RDMA device
// (the working port of the same card beats a port whose link is down), else
// an RDMA device on the vDS (its link gets repaired).
func chooseUplink(h *facts.Host, hp *facts.HostPath) (string, *parse.RDMADevice) {
	sw := hp.Switch
	active := hp.Active
	if sw != nil {
		for i := range active {
			if hasString(sw.Uplinks, active[i].PairedUplink) {
				return active[i].PairedUplink, &active[i]
			}
		}
	}
	if len(active) > 0 {
		return active[0].PairedUplink, &active[0]
	}
	if sw != nil {
		for i := range h.RDMADevices {
			if hasString(sw.Uplinks, h.RDMADevices[i].PairedUplink) {
				return h.RDMADevices[i].PairedUplink, &h.RDMADevices[i]
			}
		}
	}
	return "", nil
}

func rdmaDevice(h *facts.Host, name string) *parse.RDMADevice {
	return find(h.RDMADevices, func(d *parse.RDMADevice) bool { return d.Name == name })
}

// vmOfSubject turns "hpc-node02 (PVRDMA adapter 0)" into "hpc-node02".
func vmOfSubject(s string) string {
	if i := strings.LastIndex(s, " (PVRDMA adapter "); i > 0 {
		return s[:i]
	}
	return s
}

// expectedActiveMTU is the RoCE MTU the host's data path allows.
func expectedActiveMTU(hp *facts.HostPath) int {
	if hp.MTU.Known {
		return facts.RDMAMTUFor(hp.MTU.MTU)
	}
	return 4096
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
