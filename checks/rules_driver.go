package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesDriver are this area's rules in the catalogue (catalogueList): the
// layer under the RDMA devices (issue 28): RDMA drivers loaded and
// enabled, Intel's RDMA parameter and ENS, the CPU architecture, the
// Mellanox PFC and trust parameters configured against what runs, the
// pvrdma ruleset's allowed addresses.
var rulesDriver = []*Rule{
	{ID: "RDMA_DRIVER_NOT_LOADED", Plan: planDriverRemedy, Severity: Critical, Check: checkRDMADriverNotLoaded,
		Needs: []hostio.Kind{catalog.KindModuleList, catalog.KindNICList}, ListedBy: []hostio.Kind{catalog.KindDVSList}},
	{ID: "INTEL_RDMA_DISABLED", Plan: planDriverRemedy, Severity: Critical, Check: checkIntelRDMADisabled,
		Needs: []hostio.Kind{catalog.KindNICList, catalog.KindRDMADeviceList}, ListedBy: []hostio.Kind{catalog.KindDVSList}},
	{ID: "ROCE_OFF_IN_LAN_DRIVER", Plan: planDriverRemedy, Severity: Critical, Check: checkRoCEOffInLANDriver,
		Needs: []hostio.Kind{catalog.KindNICList, catalog.KindRDMADeviceList, catalog.KindModuleList}, ListedBy: []hostio.Kind{catalog.KindDVSList}},
	{ID: "NIC_IDENTITY_CONFLICT", Severity: Info, Check: checkNICIdentity,
		Needs: []hostio.Kind{catalog.KindNICList, catalog.KindHardwarePCI}},
	{ID: "INTEL_ENS_ACTIVE", Plan: planInvestigate, Severity: Critical, Check: checkIntelENS,
		Needs: []hostio.Kind{catalog.KindENSList, catalog.KindNICList}},
	{ID: "ESXI_ARM", Plan: planInvestigate, Severity: Critical, Check: checkESXiArm,
		Needs: []hostio.Kind{catalog.KindMachine}},
	{ID: "NMLX5_PFC_PARAMS", Plan: planNMLX5PFC, Severity: Warning, Check: checkNMLX5PFCBitmaps,
		Needs: []hostio.Kind{catalog.KindNICList}, ListedBy: []hostio.Kind{catalog.KindDVSList}},
	{ID: "DSCP_TRUST", Plan: planDSCPTrust, Severity: Warning, Check: checkDSCPTrust,
		Needs: []hostio.Kind{catalog.KindNICList, catalog.KindIPv4Get}},
	{ID: "PFC_DISABLES_PAUSE", Severity: Info, Check: checkPFCDisablesPause,
		Needs: []hostio.Kind{catalog.KindRDMADeviceList}, ListedBy: []hostio.Kind{catalog.KindDVSList}},
	{ID: "MODULE_PARAM_PENDING_REBOOT", Plan: planPendingReboot, Severity: Info, Check: checkPendingReboot,
		Needs: []hostio.Kind{catalog.KindModuleList}, ListedBy: []hostio.Kind{catalog.KindNICList, catalog.KindDVSList}},
	{ID: "FIREWALL_ALLOWED_IPS", Plan: planAllowedIPs, Severity: Critical, NeedsSubject: "pvrdma", Check: checkAllowedIPs,
		Needs: []hostio.Kind{catalog.KindFirewallAllowedIP}},
}

// The checks of this area (prose: catalogue.yaml).

// pvrdmaUplinks are the NICs PVRDMA uses or could use on a host: the
// uplinks of the PVRDMA vDS, else the uplinks paired with RDMA devices;
// used reports whether PVRDMA uses them (the host runs PVRDMA and the vDS
// is known).
func pvrdmaUplinks(h *facts.Host, hp *facts.HostPath) (nics []string, used bool) {
	use, known, _ := pvrdmaInUse(h, hp)
	if hp != nil && hp.Switch != nil {
		return slices.Clone(hp.Switch.Uplinks), use || !known
	}
	for _, d := range h.RDMADevices {
		if d.PairedUplink != "" && !slices.Contains(nics, d.PairedUplink) {
			nics = append(nics, d.PairedUplink)
		}
	}
	return nics, false
}

// rdmaDeviceOn returns the RDMA device paired with a NIC (nil when none).
func rdmaDeviceOn(h *facts.Host, nic string) *parse.RDMADevice {
	return find(h.RDMADevices, func(d *parse.RDMADevice) bool { return d.PairedUplink == nic })
}

// driverSeverity is the severity of a driver that gives a PVRDMA uplink
// no RDMA device: critical where it is why the host has none (as
// NO_RDMA_DEVICE is: PVRDMA VMs here and on another scanned host), else
// information with the reason.
func driverSeverity(in *Input, used bool) (Severity, string) {
	h := in.Host
	switch {
	case !used:
		return Info, "; PVRDMA does not run here, so this is information only"
	}
	for i := range in.Fleet.Hosts {
		if o := &in.Fleet.Hosts[i]; o.Host != h.Host && hasPVRDMA(o) {
			return Critical, ""
		}
	}
	return Info, "; no other scanned host runs PVRDMA VMs, so this is information only (scan the peers' hosts too if they exist)"
}

// moduleEv is the evidence of a module's row (or that the list lacks it).
func moduleEv(h *facts.Host, m facts.ModuleState) []Evidence {
	if m.Listed {
		return []Evidence{Ev(h.Host, m.Ref)}
	}
	return sourceEv(h, catalog.KindModuleList, m.Name+" not listed")
}

func checkRDMADriverNotLoaded(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	nics, used := pvrdmaUplinks(h, hp)
	seen := map[string]bool{}
	for _, nic := range nics {
		fam := h.FamilyOf(nic)
		mod := fam.RDMADriver
		if !fam.RoCE || mod == "" || fam.EnableParam != "" || fam.EnabledOutside != "" || seen[mod] {
			continue // Intel's RDMA parameter and Cisco's vNIC property have rules of their own
		}
		seen[mod] = true
		if d := rdmaDeviceOn(h, nic); d != nil {
			r.Pass(mod)
			continue
		}
		m := h.Module(mod)
		if m.Loaded || len(h.RDMADevices) > 0 {
			// Loaded and still no device, or the host has other RDMA
			// devices: the device and uplink rules say what PVRDMA lacks.
			r.Pass(mod)
			continue
		}
		var ports []string
		for _, n := range nics {
			if h.FamilyOf(n).RDMADriver == mod && rdmaDeviceOn(h, n) == nil {
				ports = append(ports, n)
			}
		}
		where := "an uplink of the PVRDMA vDS"
		if hp != nil && hp.Switch != nil {
			where = "an uplink of " + hp.Switch.Name
		}
		msg := fmt.Sprintf("%s, the RDMA driver of %s (%s, %s), is %s: %s no RDMA device", mod, strings.Join(ports, ", "), fam.Name, where,
			m.State(), map[bool]string{true: "they have", false: "it has"}[len(ports) > 1])
		var fix string
		switch {
		case !m.Listed:
			fix = fmt.Sprintf("Install %s (%s) from the vendor's driver component for this ESXi release (esxcli software component apply -d BUNDLE.zip) "+
				"in maintenance mode, reboot, then check `esxcli rdma device list`.", mod, fam.Package)
		case m.Enabled:
			fix = fmt.Sprintf("%s is enabled and loads at the next boot: reboot %s in maintenance mode, then check `esxcli rdma device list`.", mod, h.Host)
		default:
			fix = fmt.Sprintf("esxcli system module set -m %s -e true, then reboot %s in maintenance mode and check `esxcli rdma device list`.",
				shellArg(mod, "MODULE"), h.Host)
		}
		if len(ports) > 0 {
			fix += roceAlsoOff(h, ports[0])
		}
		sev, why := driverSeverity(in, used && hasPVRDMA(h))
		r.FailSeverity(sev, h.Host, mod, msg+why, fix+powerOnAfter(h), moduleEv(h, m)...)
	}
	if len(seen) == 0 {
		r.Pass(h.Host)
	}
}

func checkIntelRDMADisabled(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	nics, used := pvrdmaUplinks(h, hp)
	for _, nic := range nics {
		fam := h.FamilyOf(nic)
		if fam.EnableParam == "" || !fam.RoCE {
			continue
		}
		if rdmaDeviceOn(h, nic) != nil {
			r.Pass(nic)
			continue
		}
		if e := h.ENSOf(nic); e != nil && e.Driven || len(h.RDMADevices) > 0 {
			r.Pass(nic) // ENS explains it (INTEL_ENS_ACTIVE), or the device and uplink rules say what PVRDMA lacks
			continue
		}
		if !h.ParamsRead(fam.LANDriver) {
			r.NotEvaluated(nic, "`esxcli system module parameters list -m "+fam.LANDriver+"` was not read")
			continue
		}
		p := h.ModuleParam(fam.LANDriver, fam.EnableParam)
		val := ""
		var ev []Evidence
		if p != nil {
			val = facts.PortValue(p.Value, h.PortIndex(nic))
			ev = append(ev, Ev(h.Host, p.Ref))
		}
		rd := h.Module(fam.RDMADriver)
		if rd.Read {
			ev = append(ev, moduleEv(h, rd)...)
		}
		var msg, fix string
		switch {
		case rd.Read && !rd.Listed:
			msg = fmt.Sprintf("%s (%s) has no RDMA device: %s, its RDMA driver, is not installed", nic, fam.Name, fam.RDMADriver)
			fix = fmt.Sprintf("Install Intel's %s component for this ESXi release in maintenance mode, turn RDMA on in %s's %s parameter, reboot.",
				fam.RDMADriver, fam.LANDriver, fam.EnableParam)
		case val == "1":
			msg = fmt.Sprintf("%s (%s) has no RDMA device although %s's %s parameter turns RDMA on for it (%s=%s): the host has not rebooted since",
				nic, fam.Name, fam.LANDriver, fam.EnableParam, fam.EnableParam, p.Value)
			fix = fmt.Sprintf("Reboot %s in maintenance mode (module parameters load at boot), then check `esxcli rdma device list`.", h.Host)
		default:
			msg = fmt.Sprintf("%s (%s) has no RDMA device: RDMA is off in %s's %s parameter (%q), as %s ships",
				nic, fam.Name, fam.LANDriver, fam.EnableParam, orPlaceholder(pValue(p), "unset"), fam.LANDriver)
			fix = fmt.Sprintf("Turn RDMA on for %s's ports keeping the other options (esxcfg-module -g %s shows them): %s, then reboot %s in maintenance mode.",
				fam.LANDriver, fam.LANDriver, plan.MergeCommand(fam.LANDriver, lanOptions(h, fam.LANDriver), []plan.Setting{{Name: fam.EnableParam, Value: onForPorts(h, fam.LANDriver)}}), h.Host)
		}
		sev, why := driverSeverity(in, used && hasPVRDMA(h))
		r.FailSeverity(sev, h.Host, nic, msg+why, fix+powerOnAfter(h), ev...)
	}
}

// powerOnAfter asks to power the host's PVRDMA VMs on after the reboot
// (an adapter binds to the HCA at power-on); "" without PVRDMA VMs.
func powerOnAfter(h *facts.Host) string {
	vms := fixVMNames(h)
	if len(vms) == 0 {
		return ""
	}
	return fmt.Sprintf(" Power the PVRDMA VMs (%s) on after the reboot: an adapter binds to the HCA at power-on.", joinNames(vms))
}

func pValue(p *parse.ModuleParam) string {
	if p == nil {
		return ""
	}
	return p.Value
}

// onForPorts is a per-port parameter value turning a feature on for every
// port of a LAN driver ("1,1").
func onForPorts(h *facts.Host, driver string) string {
	n := max(len(portsOf(h, driver)), 1)
	return strings.TrimSuffix(strings.Repeat("1,", n), ",")
}

// lanOptions is a module's configured option string, from its parameters
// (nil when they were not read).
func lanOptions(h *facts.Host, module string) *string {
	if !h.ParamsRead(module) {
		return nil
	}
	var out []string
	for _, p := range h.ModuleParams {
		if p.Module == module && p.Value != "" {
			out = append(out, p.Name+"="+p.Value)
		}
	}
	s := strings.Join(out, " ")
	return &s
}

func checkIntelENS(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	nics, used := pvrdmaUplinks(h, hp)
	intel := false
	defer func() {
		if !intel {
			r.Pass(h.Host)
		}
	}()
	for _, e := range h.ENS {
		fam := h.FamilyOf(e.Name)
		if fam.RDMADriver != "irdman" {
			continue
		}
		intel = true
		if !e.Driven {
			r.Pass(e.Name)
			continue
		}
		msg := fmt.Sprintf("%s (%s) runs in ENS (Enhanced Data Path) mode, in which Intel's irdman gives it no RDMA device", e.Name, fam.Name)
		sev, why := driverSeverity(in, used && hasPVRDMA(h) && slices.Contains(nics, e.Name))
		msg += why
		r.FailSeverity(sev, h.Host, e.Name, msg,
			fmt.Sprintf("Give PVRDMA an uplink on a switch that is not in Enhanced Data Path mode (NSX: the host switch's mode Standard), "+
				"or move %s to one, with the PVRDMA VMs powered off; then reboot %s and check `esxcli rdma device list`.", e.Name, h.Host),
			Ev(h.Host, e.Ref))
	}
}

func checkESXiArm(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	m := h.Machine
	if m == nil {
		r.NotEvaluated(h.Host, "`uname -m` gave no machine name")
		return
	}
	if !onArm(h) {
		r.Pass(h.Host)
		return
	}
	msg := fmt.Sprintf("%s runs ESXi on Arm (%s), which has no PVRDMA", h.Host, m.Arch)
	sev := Critical
	if use, _, _ := pvrdmaInUse(h, hp); !use {
		sev = Info
		msg += "; it runs no PVRDMA VM, so this is information only"
	}
	r.FailSeverity(sev, h.Host, h.Host, msg,
		fmt.Sprintf("Run the PVRDMA VMs on x86 ESXi hosts; on %s use VMXNET3 adapters (or passthrough) instead.", h.Host), Ev(h.Host, m.Ref))
}

// pfcBitmap reads a pfctx/pfcrx value (0x08, 8) as a bitmap of priorities.
func pfcBitmap(v string) (int, bool) {
	v = strings.TrimSpace(v)
	base := 10
	if s, ok := strings.CutPrefix(strings.ToLower(v), "0x"); ok {
		v, base = s, 16
	}
	n, err := strconv.ParseInt(v, base, 32)
	return int(n), err == nil && n >= 0 && n < 256
}

// prioritiesOf lists the priorities of a bitmap.
func prioritiesOf(bits int) []int {
	var out []int
	for p := 0; p < 8; p++ {
		if bits&(1<<p) != 0 {
			out = append(out, p)
		}
	}
	return out
}

// nmlx5Uplinks are the PVRDMA uplinks whose driver sets PFC with pfctx and
// pfcrx (nmlx5_core).
func nmlx5Uplinks(h *facts.Host, hp *facts.HostPath) []string {
	nics, _ := pvrdmaUplinks(h, hp)
	var out []string
	for _, n := range nics {
		if h.NMLX5(n) {
			out = append(out, n)
		}
	}
	return out
}

// pfcUse is the PFC priorities the fleet's PVRDMA uplinks run (dcb
// status), with the hosts that run them in fleet order: derived once per
// fleet (DataPath.Memo), not once per host.
type pfcUse struct {
	hosts map[int][]string
	on    map[int]map[string]bool
}

// fleetPFC is the fleet's pfcUse.
func fleetPFC(in *Input) *pfcUse {
	paths := in.Fleet.DataPath()
	return paths.Memo("checks.fleetPFC", func() any {
		u := &pfcUse{hosts: map[int][]string{}, on: map[int]map[string]bool{}}
		for i := range in.Fleet.Hosts {
			o := &in.Fleet.Hosts[i]
			nics, _ := pvrdmaUplinks(o, paths.Host(i))
			for _, n := range nics {
				if d := dcbFor(o, n); d != nil && d.PFCEnabled {
					for _, p := range d.PFCPriorities {
						if u.on[p] == nil {
							u.on[p] = map[string]bool{}
						}
						if !u.on[p][o.Host] {
							u.on[p][o.Host] = true
							u.hosts[p] = append(u.hosts[p], o.Host)
						}
					}
				}
			}
		}
		return u
	}).(*pfcUse)
}

// others counts the hosts other than host that run PFC on priority p.
func (u *pfcUse) others(p int, host string) int {
	n := len(u.hosts[p])
	if u.on[p][host] {
		n--
	}
	return n
}

// otherHosts are the hosts other than host that run PFC on priority p.
func (u *pfcUse) otherHosts(p int, host string) []string {
	var out []string
	for _, h := range u.hosts[p] {
		if h != host {
			out = append(out, h)
		}
	}
	return out
}

func checkNMLX5PFCBitmaps(in *Input, r *Reporter) {
	h := in.Host
	ups := nmlx5Uplinks(h, in.Path)
	if len(ups) == 0 {
		r.Pass(h.Host)
		return
	}
	const mod = "nmlx5_core"
	if !h.ParamsRead(mod) {
		r.NotEvaluated(mod, "`esxcli system module parameters list -m nmlx5_core` was not read")
		return
	}
	tx, rx := h.ModuleParam(mod, "pfctx"), h.ModuleParam(mod, "pfcrx")
	if pValue(tx) == "" && pValue(rx) == "" {
		r.Pass(mod) // PFC from the switch (DCBX) or none: PFC_DISABLED says which
		return
	}
	var ev []Evidence
	for _, p := range []*parse.ModuleParam{tx, rx} {
		if p != nil {
			ev = append(ev, Ev(h.Host, p.Ref))
		}
	}
	tb, okT := pfcBitmap(pValue(tx))
	rb, okR := pfcBitmap(pValue(rx))
	fix := fmt.Sprintf("%s, then reboot %s in maintenance mode (PFC on priority 3 both ways, as on the switch ports).", nmlx5PFCCommand(h), h.Host)
	if !okT || !okR || tb != rb {
		r.Fail(mod, fmt.Sprintf("nmlx5_core's PFC parameters differ (pfctx %q, pfcrx %q): PFC pauses one direction of %s's RoCE traffic "+
			"and not the other", pValue(tx), pValue(rx), strings.Join(ups, ", ")), fix, ev...)
		return
	}
	use := fleetPFC(in)
	anyOther := false
	for p := range use.hosts {
		anyOther = anyOther || use.others(p, h.Host) > 0
	}
	if !anyOther || tb == 0 {
		r.Pass(mod)
		return
	}
	for _, p := range prioritiesOf(tb) {
		if use.others(p, h.Host) > 0 {
			r.Pass(mod)
			return
		}
	}
	var theirs []string
	for p := 0; p < 8; p++ {
		if use.others(p, h.Host) > 0 {
			theirs = append(theirs, fmt.Sprintf("%d (%s)", p, joinNames(use.otherHosts(p, h.Host))))
		}
	}
	r.Fail(mod, fmt.Sprintf("nmlx5_core sets PFC on priority %v (pfctx=pfcrx=%s), which no other host's PVRDMA uplink uses: they run PFC on "+
		"priority %s, so RoCE traffic between them is not lossless", prioritiesOf(tb), pValue(tx), strings.Join(theirs, ", ")), fix, ev...)
}

// nmlx5PFCCommand sets PFC on priority 3 in nmlx5_core's options, merged
// into the configured ones when they were read.
func nmlx5PFCCommand(h *facts.Host) string {
	return plan.MergeCommand("nmlx5_core", lanOptions(h, "nmlx5_core"), nmlxPFCSet)
}

// routedPeers are the peers whose PVRDMA vmknic is outside this host's
// PVRDMA subnet and joined to it by a route the data shows (a gateway on
// the vmknic's netstack and a probe between the two that got a reply,
// reach.go): RoCE v2 between them crosses a router. A peer in another
// subnet with no route known is PVRDMA_VMKNIC_OTHER_SUBNET's, never a
// router invented here.
// ev is the evidence: this host's PVRDMA vmknic address, theirs, the
// gateway and the probe.
func routedPeers(in *Input) (out []string, ev []Evidence) {
	me, ok := pvrdmaAddr(in.Host, in.Path)
	if !ok {
		return nil, nil
	}
	for _, p := range reachOf(in.Fleet).outside(in.Host, me.subnet) {
		if !hasPVRDMA(p.host) {
			continue
		}
		if shown, rev, _ := route(in.Fleet, me, p); shown {
			if len(out) == 0 {
				ev = append(ev, Ev(in.Host.Host, me.ip.Ref))
			}
			out = append(out, p.host.Host)
			ev = append(ev, Ev(p.host.Host, p.ip.Ref))
			ev = append(ev, rev...)
		}
	}
	return out, ev
}

func checkDSCPTrust(in *Input, r *Reporter) {
	h := in.Host
	ups := nmlx5Uplinks(h, in.Path)
	if len(ups) == 0 {
		r.Pass(h.Host)
		return
	}
	const mod = "nmlx5_core"
	routed, routedEv := routedPeers(in)
	if len(routed) == 0 {
		r.Pass(mod)
		return
	}
	if !h.ParamsRead(mod) {
		r.NotEvaluated(mod, "`esxcli system module parameters list -m nmlx5_core` was not read")
		return
	}
	ts := h.ModuleParam(mod, "trust_state")
	if pValue(ts) == "2" {
		r.Pass(mod)
		return
	}
	var ev []Evidence
	if ts != nil {
		ev = append(ev, Ev(h.Host, ts.Ref))
	}
	ev = append(ev, routedEv...)
	r.Fail(mod, fmt.Sprintf("%s's RoCE v2 traffic to %s crosses a router (their PVRDMA vmknics are in another subnet, reached through a gateway, as a probe shows), but nmlx5_core trusts the "+
		"VLAN priority (trust_state %s, PCP), which routers do not carry: PFC does not protect the routed traffic", h.Host, joinNames(routed),
		orPlaceholder(pValue(ts), "unset")),
		fmt.Sprintf("Classify RoCE by DSCP: %s, then reboot %s in maintenance mode; mark RoCE with DSCP 26 on the switches (VMware's lossless Ethernet for NVMe over RDMA).",
			plan.MergeCommand(mod, lanOptions(h, mod), dscpTrustSet), h.Host), ev...)
}

// dscpTrustSet classifies traffic by DSCP on nmlx5 (NVIDIA's manual:
// trust_state 2, TRUST_DSCP).
var dscpTrustSet = []plan.Setting{{Name: "trust_state", Value: "2"}}

func checkPFCDisablesPause(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	nics, _ := pvrdmaUplinks(h, hp)
	for _, nic := range nics {
		det, dcb := nicDetail(h, nic), dcbFor(h, nic)
		if det == nil || dcb == nil {
			okN, whyN := sourceFor(h, catalog.KindNICGet, nic)
			okD, whyD := sourceFor(h, catalog.KindDCBStatus, nic)
			if !okN || !okD {
				r.NotEvaluated(nic, strings.TrimPrefix(whyN+"; "+whyD, "; "))
			}
			continue
		}
		pfc := dcb.PFCEnabled && len(dcb.PFCPriorities) > 0
		pause := det.PauseRX || det.PauseTX
		ev := []Evidence{Ev(h.Host, dcb.Record.RefOf("PFC Enabled")), Ev(h.Host, det.Record.RefOf("Pause RX")), Ev(h.Host, det.Record.RefOf("Pause TX"))}
		switch {
		case pfc && pause:
			r.FailSeverity(Info, h.Host, nic, fmt.Sprintf("%s runs PFC (priority %v) and has global pause configured on (RX %t, TX %t): with PFC on, "+
				"the NIC sends and honours no global pause frames, so the pause setting has no effect", nic, dcb.PFCPriorities, det.PauseRX, det.PauseTX),
				fmt.Sprintf("Nothing is needed; to make the configuration say what runs: esxcli network nic pauseParams set -n %s -r false -t false.", shellArg(nic, "vmnicN")), ev...)
		default:
			r.Pass(nic)
		}
	}
}

func checkPendingReboot(in *Input, r *Reporter) {
	h := in.Host
	// A module disabled while loaded: the next boot removes it.
	nics, used := pvrdmaUplinks(h, in.Path)
	for _, m := range h.Modules {
		if !m.Loaded || m.Enabled {
			continue
		}
		drives := false
		for _, n := range nics {
			f := h.FamilyOf(n)
			drives = drives || f.RDMADriver == m.Name || f.LANDriver == m.Name
		}
		if !drives {
			continue
		}
		sev := Warning
		msg := fmt.Sprintf("%s is loaded but disabled: the next reboot of %s leaves %s without it", m.Name, h.Host, strings.Join(nics, ", "))
		if !used {
			sev = Info
			msg += "; PVRDMA does not run here, so this is information only"
		}
		r.FailSeverity(sev, h.Host, m.Name, msg, fmt.Sprintf("If that is not meant: esxcli system module set -m %s -e true.", shellArg(m.Name, "MODULE")), Ev(h.Host, m.Ref))
	}
	// PFC configured in nmlx5_core, not running on its ports (a module
	// parameter applies to every port the module drives).
	var ups []string
	for _, n := range h.NICs {
		if h.NMLX5(n.Name) {
			ups = append(ups, n.Name)
		}
	}
	const mod = "nmlx5_core"
	if len(ups) == 0 {
		return
	}
	if !h.ParamsRead(mod) {
		r.NotEvaluated(mod, "`esxcli system module parameters list -m nmlx5_core` was not read")
		return
	}
	tx, rx := h.ModuleParam(mod, "pfctx"), h.ModuleParam(mod, "pfcrx")
	tb, okT := pfcBitmap(pValue(tx))
	rb, okR := pfcBitmap(pValue(rx))
	if !okT || !okR || tb != rb || tb == 0 {
		return
	}
	var off []string
	ev := []Evidence{Ev(h.Host, tx.Ref), Ev(h.Host, rx.Ref)}
	for _, n := range ups {
		d := dcbFor(h, n)
		if d == nil {
			continue
		}
		if !d.PFCEnabled || !slices.Equal(d.PFCPriorities, prioritiesOf(tb)) {
			off = append(off, n)
			ev = append(ev, Ev(h.Host, d.Record.RefOf("PFC Enabled")))
		}
	}
	if len(off) == 0 {
		r.Pass(mod)
		return
	}
	r.FailSeverity(Info, h.Host, mod, fmt.Sprintf("nmlx5_core is configured for PFC on priority %v (pfctx=pfcrx=%s), but %s %s not run it "+
		"(dcb status): module parameters load at boot, and %s has not rebooted since they were set", prioritiesOf(tb), pValue(tx),
		strings.Join(off, ", "), map[bool]string{true: "do", false: "does"}[len(off) > 1], h.Host),
		fmt.Sprintf("Reboot %s in maintenance mode (PVRDMA VMs off or migrated first), then check `esxcli network nic dcb status get -n %s`.",
			h.Host, shellArg(off[0], "vmnicN")), ev...)
}

func checkAllowedIPs(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	const subject = "pvrdma"
	a := find(h.AllowedIPs, func(x *parse.AllowedIPs) bool { return x.Ruleset == subject })
	if a == nil || a.All {
		r.Pass(subject)
		return
	}
	if use, _, _ := pvrdmaInUse(h, hp); !use {
		r.Pass(subject)
		return
	}
	var missing, peers, unknown, unread []string
	var unreadWhy string
	admitsKnown := false
	// The claim rests on the list and on each left-out peer's address.
	ev := []Evidence{Ev(h.Host, a.Ref)}
	if hp != nil && hp.Vmknic != nil {
		if ip := ipv4Of(h, hp.Vmknic.Name); usableIPv4(ip) && allowed(a.IPs, ip.Address) {
			admitsKnown = true // the list admits this host's own PVRDMA address (its subnet, as a rule)
		}
	}
	paths := in.Fleet.DataPath()
	for i := range in.Fleet.Hosts {
		o := &in.Fleet.Hosts[i]
		op := paths.Host(i)
		if o.Host == h.Host || op == nil || !hasPVRDMA(o) {
			continue
		}
		var ip *parse.IPv4Interface
		if op.Vmknic != nil {
			ip = ipv4Of(o, op.Vmknic.Name)
		}
		switch {
		case !usableIPv4(ip):
			// No address where it was read; where it was not, nothing is
			// known about it.
			if ok, why := o.Available(catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList, catalog.KindIPv4Get); !ok {
				unread = append(unread, o.Host)
				unreadWhy = o.Host + ": " + why
				continue
			}
			unknown = append(unknown, o.Host)
		case !allowed(a.IPs, ip.Address):
			missing = append(missing, ip.Address)
			peers = append(peers, o.Host)
			ev = append(ev, Ev(o.Host, ip.Ref))
		default:
			admitsKnown = true
		}
	}
	if len(missing) == 0 && (len(unknown) == 0 || admitsKnown) {
		if len(unread) > 0 && !admitsKnown {
			r.NotEvaluated(subject, fmt.Sprintf("the pvrdma ruleset admits only %s, and the PVRDMA vmknic address of %s was not read (%s)",
				strings.Join(a.IPs, ", "), joinNames(unread), unreadWhy))
			return
		}
		r.Pass(subject)
		return
	}
	if len(missing) == 0 {
		// Peers run PVRDMA VMs but their PVRDMA vmknic has no address yet,
		// and the list admits no PVRDMA address that is known: whatever
		// address they get is most likely left out.
		r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("the pvrdma ruleset admits only %s, none of the known PVRDMA vmknic addresses, and "+
			"the PVRDMA vmknics of %s have no IPv4 address yet to compare: unless their addresses are added, PVRDMA from them is blocked",
			strings.Join(a.IPs, ", "), joinNames(unknown)),
			fmt.Sprintf("Once the PVRDMA vmknics of %s have their addresses, on %s: esxcli network firewall ruleset allowedip add -r pvrdma -i ADDRESS "+
				"for each (or esxcli network firewall ruleset set -r pvrdma --allowed-all true).", joinNames(unknown), h.Host), ev...)
		return
	}
	sev := Critical
	msg := fmt.Sprintf("the pvrdma ruleset admits only %s, not the PVRDMA vmknic addresses of %s (%s): PVRDMA between them is blocked even with the ruleset enabled",
		strings.Join(a.IPs, ", "), joinNames(peers), strings.Join(missing, ", "))
	if h.Firewall != nil && !h.Firewall.Enabled {
		sev = Info
		msg += "; the firewall is disabled now, so this is information until it is enabled"
	}
	var cmds []string
	for _, ip := range missing {
		cmds = append(cmds, "esxcli network firewall ruleset allowedip add -r pvrdma -i "+shellArg(ip, "IP"))
	}
	r.FailSeverity(sev, h.Host, subject, msg, fmt.Sprintf("On %s: %s (or esxcli network firewall ruleset set -r pvrdma --allowed-all true).",
		h.Host, strings.Join(cmds, " && ")), ev...)
}

// usableIPv4 reports whether an interface has an address to compare.
func usableIPv4(ip *parse.IPv4Interface) bool {
	return ip != nil && ip.Address != "" && ip.Address != "0.0.0.0"
}

// allowed reports whether an address is in a list of addresses and CIDR
// networks.
func allowed(list []string, ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, x := range list {
		if p, err := netip.ParsePrefix(x); err == nil && p.Contains(a) {
			return true
		}
		if b, err := netip.ParseAddr(x); err == nil && b == a {
			return true
		}
	}
	return false
}

// onArm reports whether `uname -m` says the host runs ESXi on Arm.
func onArm(h *facts.Host) bool {
	if h.Machine == nil {
		return false
	}
	a := strings.ToLower(h.Machine.Arch)
	return a == "aarch64" || a == "arm64"
}
