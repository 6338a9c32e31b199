package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The remedy of a host without an RDMA device, derived from the NICs it
// has (internal/facts/nicfamily.go): where a NIC can carry RoCE, its RDMA
// driver (enabled, or turned on in the LAN driver's parameter) and a
// reboot; a new NIC only where none can (X710, X550, BCM5719; X722 has
// iWARP only, which PVRDMA does not use).

// driverFacts is what the host's driver layer says about one NIC family's
// RDMA driver and its LAN driver's options: each field nil when it was not
// read (`esxcli system module list`, `esxcli system module parameters list
// -m <LAN driver>`). Unread, the steps say what to check first (Require)
// and merge the LAN driver's options on the host; read, the remedy names
// the missing piece and shows the merged option string.
type driverFacts struct {
	Installed, Enabled, Loaded *bool
	// LANOptions is the LAN driver's configured option string.
	LANOptions *string
}

// driverFactsOf returns what the host's facts say about fam's drivers.
func driverFactsOf(h *facts.Host, fam facts.NICFamily) driverFacts {
	var df driverFacts
	if fam.RDMADriver != "" {
		if m := h.Module(fam.RDMADriver); m.Read {
			df.Installed, df.Enabled, df.Loaded = &m.Listed, &m.Enabled, &m.Loaded
		}
	}
	if fam.LANDriver != "" {
		df.LANOptions = lanOptions(h, fam.LANDriver)
	}
	return df
}

// rebootFor makes the plan reboot the host (in maintenance mode) for
// findings that only a reboot resolves: a module enabled, or parameters
// set, since the last boot.
func (p *planner) rebootFor(fs ...Finding) {
	for _, f := range fs {
		p.resolveAtReboot(f, plan.Investigate{Note: f.Fix})
	}
	p.props = append(p.props, &proposal{phase: plan.PhaseDriver, reboot: true})
}

// optionOn reports whether a module option string already sets name to
// value.
func optionOn(opts *string, name, value string) bool {
	if opts == nil {
		return false
	}
	for _, f := range strings.Fields(*opts) {
		if k, v, _ := strings.Cut(f, "="); k == name && v == value {
			return true
		}
	}
	return false
}

// roceCandidate is a NIC of the host that can carry RoCE once its RDMA
// driver runs.
type roceCandidate struct {
	nic    string
	family facts.NICFamily
}

// roceCandidates lists the host's RoCE-capable NICs: the PVRDMA vDS's
// uplinks first, then those with their link up, in the NIC list's order.
func roceCandidates(h *facts.Host, sw *parse.DVSwitch) []roceCandidate {
	var on, up, down []roceCandidate
	for _, n := range h.NICs {
		fam := h.FamilyOf(n.Name)
		if !fam.RoCE {
			continue
		}
		c := roceCandidate{n.Name, fam}
		switch {
		case sw != nil && hasString(sw.Uplinks, n.Name):
			on = append(on, c)
		case strings.EqualFold(n.LinkStatus, "up"):
			up = append(up, c)
		default:
			down = append(down, c)
		}
	}
	return append(append(on, up...), down...)
}

// portsOf are the host's NICs a LAN driver drives (a module parameter
// applies to all of them).
func portsOf(h *facts.Host, driver string) []string {
	var out []string
	for _, n := range h.NICs {
		if h.FamilyOf(n.Name).LANDriver == driver {
			out = append(out, n.Name)
		}
	}
	return out
}

// rdmaRemedy proposes what gives the host an RDMA device on the PVRDMA
// vDS, resolving fs.
func (p *planner) rdmaRemedy(fs ...Finding) {
	h := p.host
	sw := p.path.Switch
	swName := "the PVRDMA vDS"
	if sw != nil {
		swName = sw.Name
	}
	cands := roceCandidates(h, sw)
	if len(cands) == 0 && !nicsRead(h) {
		// Its NICs were not read (a host read through vCenter alone):
		// whether one of them carries RoCE once its driver runs is
		// unknown, and so is the remedy.
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: "On " + h.Host + ": " + rdmaRemedyText(h, p.path) + "."})
		return
	}
	if len(cands) == 0 {
		p.add(plan.PhaseHardware, plan.InstallNIC{Switch: swName}, fs...)
		// Which NIC the admin fits is not known here: its driver, RoCE
		// and lossless steps differ per vendor and come from the next scan.
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: "Once the new NIC is in, scan " + h.Host + " again: its RDMA driver, RoCE and " +
			"lossless Ethernet steps depend on its vendor and come from what that scan shows."})
		if sw != nil {
			p.add(plan.PhaseUplinks, plan.SetUplinks{Switch: sw.Name, NewNIC: true}, fs...).
				powerCycle(runningPVRDMAVMs(h)...)
		}
		return
	}
	c := cands[0]
	fam := c.family
	ports := portsOf(h, fam.LANDriver)
	df := driverFactsOf(h, fam)
	vals := make([]string, len(ports))
	for i := range vals {
		vals[i] = "1"
	}
	// RoCE switched off in the LAN driver's parameters (read from the
	// host's own list), below an RDMA driver that is installed.
	var off *facts.RoCESwitch
	if fam.EnableParam == "" && fam.EnabledOutside == "" && h.ParamsRead(fam.LANDriver) && !(df.Installed != nil && !*df.Installed) {
		if s := h.RoCESwitchOf(c.nic); s != nil && s.Off {
			off = s
		}
	}
	switch {
	case fam.EnabledOutside != "":
		// Cisco VIC: RoCE is a property of the vNIC, set outside ESXi.
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: "Turn RoCE on for " + c.nic + " (" + fam.Name + "): " +
			fam.EnabledOutside + ", with a no-drop QoS class for it; then reboot the host and check `esxcli rdma device list`."})
		return
	case df.Installed != nil && !*df.Installed:
		// Not installed: what to install is the vendor's bundle for this
		// release; nothing here can name its file.
		p.add(plan.PhaseDriver, plan.Investigate{Note: "Install " + fam.RDMADriver + " (" + fam.Package +
			"), the RDMA driver of " + c.nic + "'s " + fam.Name + ", from the vendor's driver component for this ESXi release " +
			"(esxcli software component apply -d BUNDLE.zip)."}).atReboot()
	case fam.EnableParam != "" && optionOn(df.LANOptions, fam.EnableParam, strings.Join(vals, ",")):
		// RDMA is on in the LAN driver's options already: they load at
		// the next boot.
		p.rebootFor(fs...)
	case fam.EnableParam != "":
		// RDMA is turned on in the LAN driver's parameter, one value per
		// port (irdman's release notes), at the next boot.
		p.add(plan.PhaseDriver, plan.SetModuleParams{Module: fam.LANDriver, NICs: ports, Family: fam.Name,
			Package: fam.Package, Set: []plan.Setting{{Name: fam.EnableParam, Value: strings.Join(vals, ",")}}, Current: df.LANOptions}, fs...).atReboot()
	case off != nil:
		// The LAN driver's parameter switches RoCE off: the parameter
		// turned back on, the other options kept, at one reboot; a
		// disabled RDMA driver (the link before it) enabled at the same
		// reboot.
		if df.Enabled != nil && !*df.Enabled {
			p.add(plan.PhaseDriver, plan.EnableModule{Module: fam.RDMADriver, Package: fam.Package, NICs: ports,
				Family: fam.Name}, fs...).atReboot()
		}
		p.add(plan.PhaseDriver, plan.SetModuleParams{Module: fam.LANDriver, NICs: ports, Family: fam.Name, Package: fam.Package,
			Set: []plan.Setting{{Name: off.Param.Name, Value: off.Set}}, Current: df.LANOptions, RoCE: c.nic}, fs...).atReboot()
	case df.Enabled != nil && *df.Enabled && df.Loaded != nil && !*df.Loaded:
		// Enabled since the last boot: it loads at the next one.
		p.rebootFor(fs...)
	case undeterminedText(h, c.nic) != "":
		// Enabled and loaded, and no parameter explains the missing
		// device: nothing ESXi shows says what is off, so no driver step
		// and no reboot, the next check instead.
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: "On " + h.Host + ": " + undeterminedText(h, c.nic) + "."})
		return
	default:
		p.add(plan.PhaseDriver, plan.EnableModule{Module: fam.RDMADriver, Package: fam.Package, NICs: ports,
			Family: fam.Name}, fs...).atReboot()
	}
	// RoCE needs lossless Ethernet on the port PVRDMA will use, read
	// from what runs there before anything is proposed (flowPlan).
	p.flowForNewRDMA(c.nic, fam, df.LANOptions)
	if sw != nil && !(len(sw.Uplinks) == 1 && sw.Uplinks[0] == c.nic) {
		p.add(plan.PhaseUplinks, plan.SetUplinks{Switch: sw.Name, Uplinks: []string{c.nic}}, fs...).
			powerCycle(runningPVRDMAVMs(h)...)
	}
}

// nmlxPFCSet enables PFC on priority 3, the RoCE traffic class, in both
// directions (equal bitmaps; S6b, S27).
var nmlxPFCSet = []plan.Setting{{Name: "pfctx", Value: "0x08"}, {Name: "pfcrx", Value: "0x08"}}

// nmlx5PFC sets PFC on priority 3 in nmlx5_core's options, keeping the
// others (-p replaces the whole string), for a finding's fix.
var nmlx5PFC = plan.MergeCommand("nmlx5_core", nil, nmlxPFCSet)

// rdmaRemedyText says in a sentence what gives the host an RDMA device,
// from its NICs (the plan's steps in words, for a finding's fix).
func rdmaRemedyText(h *facts.Host, hp *facts.HostPath) string {
	var sw *parse.DVSwitch
	if hp != nil {
		sw = hp.Switch
	}
	cands := roceCandidates(h, sw)
	if len(cands) == 0 && !nicsRead(h) {
		_, why := h.Available(catalog.KindNICList)
		return "which of its NICs can carry RoCE is unknown (" + why + "; vCenter does not list their drivers): check `esxcli network nic list` " +
			"for an RoCE-capable NIC (ConnectX-4 or later, E810, BCM574xx/575xx, FastLinQ) and turn its RDMA driver on, else install an " +
			"RoCE NIC listed for this ESXi release, and make its port the only uplink of the PVRDMA vDS"
	}
	if len(cands) == 0 {
		var fams []string
		for _, n := range h.NICs {
			if f := h.FamilyOf(n.Name); f.Known() && !slices.Contains(fams, f.Name) {
				fams = append(fams, f.Name)
			}
		}
		what := "none of its NICs can carry RoCE"
		if len(fams) > 0 {
			what = fmt.Sprintf("none of its NICs (%s) can carry RoCE", strings.Join(fams, ", "))
		}
		return what + " (X722 and other iWARP-only NICs: PVRDMA does not use iWARP): install an RoCE NIC listed for this ESXi release " +
			"(a ConnectX-4 or later runs the inbox nmlx5_rdma), make its port the only uplink of the PVRDMA vDS"
	}
	c := cands[0]
	fam := c.family
	if t := undeterminedText(h, c.nic); t != "" {
		return t
	}
	if o := roceOffOf(h, c.nic); o != nil && o.sw != nil {
		return fmt.Sprintf("%s is a %s (%s) whose RDMA driver %s is %s, but %s's %s parameter switches RoCE off for it: %s "+
			"(the other options kept), and reboot in maintenance mode", c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, o.module.State(),
			fam.LANDriver, o.sw.Param.Name, plan.MergeCommand(fam.LANDriver, lanOptions(h, fam.LANDriver), o.set()))
	}
	if fam.EnableParam != "" {
		return fmt.Sprintf("%s is an %s (%s), which carries RoCE v2 once %s runs: check `esxcli software vib list` shows %s (else install "+
			"the vendor's component first), turn RDMA on in %s's %s parameter keeping its other options (esxcfg-module -g %s shows them), "+
			"and reboot in maintenance mode", c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, fam.Package, fam.LANDriver, fam.EnableParam, fam.LANDriver)
	}
	if m := h.Module(fam.RDMADriver); m.Read && m.Listed && m.Enabled && !m.Loaded {
		// Enabled since the last boot: enabling it again would change
		// nothing; the reboot loads it.
		return fmt.Sprintf("%s is a %s (%s), which carries RoCE once its RDMA driver %s runs; %s is enabled and loads at the next boot: "+
			"reboot in maintenance mode", c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, fam.RDMADriver)
	}
	also := ""
	if s := roceAlsoOff(h, c.nic); s != "" {
		also = "," + strings.TrimSuffix(strings.Replace(s, " too: before the reboot,", " too:", 1), ".")
	}
	return fmt.Sprintf("%s is a %s (%s), which carries RoCE once its RDMA driver %s runs: check `esxcli software vib list` shows %s "+
		"(else install the vendor's component first), `esxcli system module set -m %s -e true`%s, and reboot in maintenance mode",
		c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, fam.Package, fam.RDMADriver, also)
}

// planDriverRemedy: an RDMA driver not loaded, Intel's RDMA parameter
// off: the remedy of a host without an RDMA device, which reads the
// driver layer.
func planDriverRemedy(p *planner, f Finding) { p.rdmaRemedy(f) }

// planNMLX5PFC: PFC on priority 3 in nmlx5_core's options, merged, at one
// reboot, and on the switch port; when the options say so already, the
// reboot alone.
func planNMLX5PFC(p *planner, f Finding) {
	h := p.host
	ups := nmlx5Uplinks(h, p.path)
	if len(ups) == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	cur := lanOptions(h, "nmlx5_core")
	if optionOn(cur, "pfctx", "0x08") && optionOn(cur, "pfcrx", "0x08") {
		p.rebootFor(f)
		return
	}
	p.add(plan.PhaseDriver, plan.SetModuleParams{Module: "nmlx5_core", NICs: portsOf(h, "nmlx5_core"), NIC: ups[0],
		Family: h.FamilyOf(ups[0]).Name, Set: nmlxPFCSet, Current: cur}, f).atReboot()
	for _, n := range ups {
		// A port that runs PFC on priority 3 now has it from its switch
		// port (DCBX): nothing to do there.
		if d := dcbFor(h, n); d != nil && d.PFCEnabled && slices.Contains(d.PFCPriorities, 3) {
			continue
		}
		p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: n, Mode: "pfc", Priority: 3})
	}
}

// planDSCPTrust: DSCP trust in nmlx5_core's options, merged, at one reboot.
func planDSCPTrust(p *planner, f Finding) {
	h := p.host
	p.add(plan.PhaseDriver, plan.SetModuleParams{Module: "nmlx5_core", NICs: portsOf(h, "nmlx5_core"),
		Set: dscpTrustSet, Current: lanOptions(h, "nmlx5_core")}, f).atReboot()
}

// planPendingReboot: a module disabled while loaded is enabled again (the
// warning); PFC configured, not running, is information (no plan).
func planPendingReboot(p *planner, f Finding) {
	if m := p.host.Module(f.Subject); m.Listed && m.Loaded && !m.Enabled {
		p.add(plan.PhaseDriver, plan.EnableModule{Module: m.Name, NICs: portsOf(p.host, m.Name)}, f)
		return
	}
	p.rebootFor(f)
}

// planAllowedIPs: the peers' PVRDMA vmknic addresses added to the pvrdma
// ruleset's allowed list (the plan that enables the ruleset fixes the
// list too: both are the host's phase).
func planAllowedIPs(p *planner, f Finding) {
	h := p.host
	a := find(h.AllowedIPs, func(x *parse.AllowedIPs) bool { return x.Ruleset == "pvrdma" })
	var missing []string
	paths := p.fleet.DataPath()
	for i := range p.fleet.Hosts {
		o := &p.fleet.Hosts[i]
		op := paths.Host(i)
		if o.Host == h.Host || op == nil || op.Vmknic == nil || !hasPVRDMA(o) || a == nil {
			continue
		}
		if ip := ipv4Of(o, op.Vmknic.Name); ip != nil && ip.Address != "" && ip.Address != "0.0.0.0" && !allowed(a.IPs, ip.Address) {
			missing = append(missing, ip.Address)
		}
	}
	if len(missing) == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	p.add(plan.PhaseHost, plan.AllowIP{Ruleset: "pvrdma", IPs: missing}, f)
}

// nicsRead reports whether the host's NIC list was read (the NIC
// families, and so the RDMA remedy, come from it).
func nicsRead(h *facts.Host) bool {
	ok, _ := h.Available(catalog.KindNICList)
	return ok || len(h.NICs) > 0
}

// flowState is what runs on an uplink for lossless Ethernet, as the host
// shows it: PFC (DCBX or static) on some priorities, global pause, or
// neither; read says whether both the DCB state and the pause parameters
// were collected.
type flowState struct {
	read  bool
	pfc   []int
	pause bool
}

// flowOf reads nic's running flow control from its `dcb status` and `nic
// get` outputs.
func flowOf(h *facts.Host, nic string) flowState {
	okDCB, _ := sourceFor(h, catalog.KindDCBStatus, nic)
	okNIC, _ := sourceFor(h, catalog.KindNICGet, nic)
	d, det := dcbFor(h, nic), nicDetail(h, nic)
	var st flowState
	if okDCB && d != nil && d.PFCEnabled {
		st.pfc = d.PFCPriorities
	}
	st.pause = okNIC && det != nil && det.PauseRX && det.PauseTX
	st.read = okDCB && d != nil && okNIC && det != nil
	return st
}

// lossless says whether PFC or global pause runs on the uplink.
func (s flowState) lossless() bool { return len(s.pfc) > 0 || s.pause }

// flowForNewRDMA proposes lossless Ethernet for the port a plan turns
// RDMA on for, from its running state: PFC or pause running already,
// nothing (never pause beside PFC); not read, no change but the commands
// that read it; neither running, PFC on the RoCE priority (3, VMware's
// and NVIDIA's examples), switch side first: ConnectX in its LAN driver's
// options at the plan's reboot, the other families (E810, Broadcom: DCBX
// in willing mode) from the switch port; global pause is the stated
// fallback, not a step.
func (p *planner) flowForNewRDMA(nic string, fam facts.NICFamily, lanOptions *string) {
	st := flowOf(p.host, nic)
	switch {
	case st.lossless():
		return
	case !st.read:
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: fmt.Sprintf("The flow control running on %s was not read, so no change to it "+
			"is proposed: `esxcli network nic dcb status get -n %s` (PFC Enabled, PFC Configuration) and `esxcli network nic get -n %s` "+
			"(Pause RX, Pause TX) show it; RoCE needs PFC on its priority (3) or, where PFC is not used, global pause, the same on the "+
			"switch port; scan again after the reboot to have it checked.", nic, shellArg(nic, "vmnicN"), shellArg(nic, "vmnicN"))})
		return
	}
	p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: nic, Mode: "pfc", Priority: 3, DCBX: !fam.PFCParams})
	if fam.PFCParams && (!optionOn(lanOptions, "pfctx", "0x08") || !optionOn(lanOptions, "pfcrx", "0x08")) {
		p.add(plan.PhaseDriver, plan.SetModuleParams{Module: fam.LANDriver, NICs: portsOf(p.host, fam.LANDriver), NIC: nic,
			Family: fam.Name, Set: nmlxPFCSet, Current: lanOptions}).atReboot()
	}
}
