package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The plan contributions of the host-side rules: the actions each finding
// needs, in their phases (plan.go merges and orders them).

func planESXiVersion(p *planner, f Finding) {
	p.add(plan.PhaseHardware, plan.UpgradeESXi{Version: "6.5"}, f)
}

func planNoRDMADevice(p *planner, f Finding) { p.rdmaRemedy(f) }

// planRDMADeviceDown: a device PVRDMA uses is down. When another port of
// the host is Active the plan moves PVRDMA to it (the uplink step
// resolves this finding: the port it leaves is no longer on PVRDMA's
// path, so what remains is information); else its link comes up.
func planRDMADeviceDown(p *planner, f Finding) {
	h := p.host
	d := rdmaDevice(h, f.Subject)
	if d == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	if keep, _ := chooseUplink(h, p.path); keep != "" && keep != d.PairedUplink && p.path.Switch != nil {
		p.add(plan.PhaseUplinks, plan.SetUplinks{Switch: p.path.Switch.Name, Uplinks: []string{keep}}, f).
			powerCycle(runningPVRDMAVMs(h)...)
		return
	}
	if n := h.NICNamed(d.PairedUplink); n != nil && strings.EqualFold(n.AdminStatus, "down") {
		p.add(plan.PhaseUplinks, plan.NICUp{NIC: d.PairedUplink, Device: d.Name}, f)
		return
	}
	p.add(plan.PhaseUplinks, plan.RepairLink{NIC: d.PairedUplink, Device: d.Name}, f)
}

func planRoCENotSupported(p *planner, f Finding) {
	h := p.host
	d := rdmaDevice(h, f.Subject)
	if d != nil && h.FamilyOf(d.PairedUplink).IWARPOnly {
		// X722: iWARP only. Another RoCE NIC of the host, or a new one.
		p.rdmaRemedy(f)
		return
	}
	p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
}

// planUplinks: the PVRDMA vDS must have the Active RDMA port as its only
// uplink (RDMA_UPLINK_NOT_ON_DVS, DVS_MULTIPLE_UPLINKS); its VMs are off
// while it changes (KB 328676).
func planUplinks(p *planner, f Finding) {
	h, sw := p.host, p.path.Switch
	keep, _ := chooseUplink(h, p.path)
	if sw == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	if keep == "" {
		if len(h.RDMADevices) == 0 {
			p.rdmaRemedy(f) // which NIC gets RDMA decides the uplink
			return
		}
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	p.add(plan.PhaseUplinks, plan.SetUplinks{Switch: sw.Name, Uplinks: []string{keep}}, f).
		powerCycle(runningPVRDMAVMs(h)...)
}

func planVmknicUnset(p *planner, f Finding) {
	h := p.host
	// The vmknic in the other hosts' PVRDMA subnet, never one they cannot
	// reach (reach.go).
	target, _ := tagTarget(p.fleet, h, p.path, p.path.Switch)
	if target == "" {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	p.add(plan.PhaseHost, plan.TagVmknic{Vmknic: target}, f)
	// A vmknic on the PVRDMA vDS carries its frames: at the vDS's MTU.
	if sw := p.path.Switch; sw != nil {
		if v := h.VmknicNamed(target); v != nil && v.VDSName == sw.Name && v.MTU > 0 && sw.MTU > v.MTU {
			p.add(plan.PhaseHost, plan.SetVmknicMTU{Vmknic: target, MTU: sw.MTU})
		}
	}
}

func planVmknicNoIPv4(p *planner, f Finding) {
	p.add(plan.PhaseHost, plan.SetVmknicIPv4{Vmknic: f.Subject}, f)
}

// planFirewall: a disabled ruleset is enabled; an enabled one whose rules
// lack a direction gets its definition back (enabling it changes
// nothing); a release without the ruleset is upgraded.
func planFirewall(p *planner, f Finding) {
	h := p.host
	rs := find(h.Rulesets, func(r *parse.FirewallRuleset) bool { return r.Name == "pvrdma" })
	switch {
	case rs == nil:
		p.add(plan.PhaseHardware, plan.UpgradeESXi{Version: "6.5"}, f)
	case !rs.Enabled:
		p.add(plan.PhaseHost, plan.EnableRuleset{Ruleset: rs.Name}, f)
	default:
		p.add(plan.PhaseHost, plan.RestoreRules{Ruleset: rs.Name}, f)
	}
}

// planMTUMismatch: the vmknic below its vDS is raised; a vDS below its
// vmknic is raised (vDS-wide); jumbo frames lost on the way are the
// physical switch ports'.
func planMTUMismatch(p *planner, f Finding) {
	h, hp := p.host, p.path
	sw, v := hp.Switch, hp.DataVmknic
	did := false
	if v != nil && sw != nil && v.MTU > 0 && sw.MTU > 0 && v.MTU != sw.MTU {
		if v.MTU < sw.MTU {
			p.add(plan.PhaseHost, plan.SetVmknicMTU{Vmknic: v.Name, MTU: min(sw.MTU, facts.MaxVmknicMTU)}, f)
			// Its jumbo probes never left the host, so nothing measured
			// the switch ports: once they leave, the probe tells (the
			// switch step is skipped when it passes).
			hosts := []string{h.Host}
			probe := ""
			// A peer whose jumbo probe with this host got every reply
			// through both RDMA ports proved those switch ports: no step
			// for them (jumboProbed).
			for _, pp := range hp.Probes {
				if jumboRefused(pp, v) {
					o, ok := p.fleet.DataPath().Owner(pp.Target)
					if ok && p.jumboProbed(pp.Jumbo.Payload+28, []string{o.Host}) != nil {
						continue
					}
					if ok {
						hosts = append(hosts, o.Host)
					}
					if probe == "" {
						probe = pp.Jumbo.Command
					}
				}
			}
			if probe != "" && f.Severity != Critical {
				p.add(plan.PhaseSwitch, plan.SetSwitchMTU{Hosts: dedupe(hosts), MTU: 9216, Probe: probe, Unmeasured: true})
			}
		} else {
			p.add(plan.PhaseHost, plan.SetVDSMTU{Switch: sw.Name, MTU: v.MTU}, f)
		}
		did = true
	}
	if f.Severity == Critical && v != nil {
		hosts := []string{h.Host}
		probe := ""
		for _, pp := range hp.Probes {
			if pp.JumboLost(v) {
				if o, ok := p.fleet.DataPath().Owner(pp.Target); ok {
					hosts = append(hosts, o.Host)
				}
				if probe == "" && pp.Jumbo != nil {
					probe = pp.Jumbo.Command
				}
			}
		}
		p.add(plan.PhaseSwitch, plan.SetSwitchMTU{Hosts: dedupe(hosts), MTU: 9216, Probe: probe}, f)
		did = true
	}
	if !did {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
	}
}

// planPathBlocked: the switch ports of the hop the measurements point at,
// on both ends of the host's blocked pairs.
func planPathBlocked(p *planner, f Finding) {
	h, hp := p.host, p.path
	hosts := []string{h.Host}
	probe := ""
	for i := range hp.Pairs {
		pp := &hp.Pairs[i]
		if pairSubject(pp) != f.Subject {
			continue
		}
		if pp.To != "" {
			hosts = append(hosts, pp.To)
		}
		if pp.First != nil {
			probe = pp.First.Command
		}
	}
	p.add(plan.PhaseSwitch, plan.SetSwitchMTU{Hosts: dedupe(hosts), MTU: 9216, Probe: probe}, f)
}

// planLowMTU: the guest's interface MTU caps the adapter's RoCE MTU; the
// port takes the interface's MTU when vmw_pvrdma loads, so the driver is
// reloaded after the MTU is set (or, when the interface is already there,
// only reloaded).
func planLowMTU(p *planner, f Finding) {
	h, hp := p.host, p.path
	d := find(h.PVRDMADevices, func(d *parse.PVRDMADevice) bool { return vmLabel(*d) == f.Subject })
	if d == nil || d.VMName == "" || !hp.MTU.Known {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	want := facts.RDMAMTUFor(hp.MTU.MTU)
	_, a := guestSide(p.fleet, h, *d)
	netdev, dev := guestNetdev(p.fleet, h, *d), "vmw_pvrdma0"
	if a != nil {
		dev = a.Device
	}
	if a == nil || a.NetdevMTU == 0 || facts.RDMAMTUFor(a.NetdevMTU) < want {
		p.add(plan.PhaseGuest, plan.GuestSetMTU{VM: d.VMName, Netdev: netdev, MAC: d.MAC, MTU: hp.MTU.MTU}, f)
	}
	if a == nil && scannedGuestOf(p.fleet, *d) != nil {
		return // its guest has no PVRDMA device yet: the driver loads after the MTU (its own plan)
	}
	p.add(plan.PhaseGuest, plan.GuestReloadDriver{VM: d.VMName, Device: dev, MTU: want}, f)
}

// planPFC: PFC on priority 3, on the host and its switch port: ConnectX
// in the LAN driver's options (merged: -p replaces the string; every port
// of the module, at the next boot), other drivers global pause.
func planPFC(p *planner, f Finding) { p.lossless(f.Subject, f) }

// lossless proposes lossless Ethernet on the host's uplink nic, resolving
// fs.
func (p *planner) lossless(nic string, fs ...Finding) {
	h := p.host
	if mod := h.PFCModule(nic); mod != "" {
		fam := h.FamilyOf(nic)
		if cur := lanOptions(h, mod); optionOn(cur, "pfctx", "0x08") && optionOn(cur, "pfcrx", "0x08") {
			p.rebootFor(fs...) // configured already: it runs after the next boot
			p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: nic, Mode: "pfc", Priority: 3})
			return
		}
		p.add(plan.PhaseDriver, plan.SetModuleParams{Module: mod, NICs: portsOf(h, mod), NIC: nic, Family: fam.Name,
			Set: nmlxPFCSet, Current: driverFactsOf(h, fam).LANOptions}, fs...).atReboot()
		p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: nic, Mode: "pfc", Priority: 3})
		return
	}
	// E810, Broadcom and the other families take PFC from the switch port
	// by DCBX (willing mode); global pause is the stated fallback, never
	// set beside it.
	p.add(plan.PhaseSwitch, plan.SetSwitchFlow{NIC: nic, Mode: "pfc", Priority: 3, DCBX: true}, fs...)
}

// planRDMAErrors: the counters count since boot. Caused by missing
// lossless Ethernet, they stop growing once it is on and start from zero
// at the plan's reboot; without a reboot, or without that cause, what
// grows them is to be looked at.
func planRDMAErrors(p *planner, f Finding) {
	look := plan.Investigate{Note: f.Fix}
	if f.CausedBy != nil && f.CausedBy.RuleID == "PFC_DISABLED" {
		p.resolveAtReboot(f, look)
		return
	}
	p.add(plan.PhaseInvestigate, look)
}

// planInvestigate is the contribution of rules whose cause nothing
// collected can tell (reachability, latency): what to look at.
func planInvestigate(p *planner, f Finding) {
	p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
}

// planRebind: an adapter binds to the HCA only when its VM powers on. A
// root cause (nothing collected explains it) or a consequence of a
// device, uplink or driver this plan fixes: the VMs whose adapters have
// no HCA are power-cycled. Where the cause is a device without RoCE,
// nothing this plan does gives them one.
func planRebind(p *planner, f Finding) {
	// A root the plan cannot fix (ENS mode set in NSX, ESXi on Arm): no
	// power cycle would bind the adapters.
	for c, n := f.CausedBy, 0; c != nil && n < 8; n++ {
		if c.RuleID == "INTEL_ENS_ACTIVE" || c.RuleID == "ESXI_ARM" {
			return
		}
		if c.RuleID == "NO_RDMA_DEVICE" && rdmaUndetermined(p.host, p.path) {
			return // what is off is not determined (rdmaRemedy): nothing to bind to yet
		}
		cf, ok := p.idx.byKey[*c]
		if !ok {
			break
		}
		c = cf.CausedBy
	}
	if f.CausedBy != nil && f.CausedBy.RuleID == "ROCE_NOT_SUPPORTED" {
		if c, ok := p.idx.byKey[*f.CausedBy]; ok && !p.host.FamilyOf(pairedUplink(p.host, c.Subject)).IWARPOnly {
			return
		}
	}
	if f.CausedBy != nil && f.CausedBy.RuleID == "NO_RDMA_DEVICE" && !nicsRead(p.host) {
		return // the remedy is unknown (rdmaRemedy): nothing to bind to yet
	}
	vms := unboundVMs(p.host, f)
	if len(vms) == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	if f.CausedBy == nil && bindableDevice(p.host, p.path) == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	p.cycleVMs(vms, f)
}

// unboundVMs are the VMs a PHYSICAL_HCA_UNAVAILABLE or TCP_FALLBACK
// finding is about whose adapters have no HCA.
func unboundVMs(h *facts.Host, f Finding) []string {
	var out []string
	if f.RuleID == "TCP_FALLBACK" && len(h.PVRDMADevices) == 0 {
		// vsish was not read (a host read through vCenter): its running
		// PVRDMA VMs, whose adapters bind at their power-on.
		return runningPVRDMAVMs(h)
	}
	for _, d := range h.PVRDMADevices {
		if d.PhysicalHCA != 0 || d.VMName == "" {
			continue
		}
		if f.RuleID == "TCP_FALLBACK" || vmLabel(d) == f.Subject {
			out = append(out, d.VMName)
		}
	}
	return dedupe(out)
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
