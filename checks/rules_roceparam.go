package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// RoCE off below a running RDMA driver (issue 39): the RDMA driver of a
// PVRDMA uplink is enabled (loaded, or loading at the next boot) and the
// NIC has no RDMA device, because a parameter of its LAN driver switches
// RoCE off for the port (a bnxtnet RoCE switch such as disable_roce). The
// parameter is recognised from the host's own parameter list and
// descriptions (facts.RoCESwitchOf), not by one name per vendor. Intel's
// RDMA parameter (the family's EnableParam) has INTEL_RDMA_DISABLED.

// roceOff is what the driver chain says about one PVRDMA uplink without an
// RDMA device whose RDMA driver is enabled: the switch that turns RoCE off
// (nil when none does), and whether the LAN driver's parameters were read.
type roceOff struct {
	nic    string
	family facts.NICFamily
	module facts.ModuleState
	sw     *facts.RoCESwitch
	read   bool
}

// roceOffOf walks a RoCE NIC's chain to its LAN driver's parameters: nil
// when the chain breaks earlier (no RDMA driver, or not enabled: the
// driver rule's) or the family turns RoCE on elsewhere (Intel's RDMA
// parameter, Cisco's vNIC property).
func roceOffOf(h *facts.Host, nic string) *roceOff {
	fam := h.FamilyOf(nic)
	if !fam.RoCE || fam.RDMADriver == "" || fam.EnableParam != "" || fam.EnabledOutside != "" {
		return nil
	}
	m := h.Module(fam.RDMADriver)
	if !m.Read || !m.Listed || !m.Enabled {
		return nil
	}
	o := &roceOff{nic: nic, family: fam, module: m, read: h.ParamsRead(fam.LANDriver)}
	if o.read {
		if s := h.RoCESwitchOf(nic); s != nil && s.Off {
			o.sw = s
		}
	}
	return o
}

// roceSwitchSet is the setting that turns RoCE back on.
func (o *roceOff) set() []plan.Setting {
	return []plan.Setting{{Name: o.sw.Param.Name, Value: o.sw.Set}}
}

func checkRoCEOffInLANDriver(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	nics, used := pvrdmaUplinks(h, hp)
	any := false
	for _, nic := range nics {
		if rdmaDeviceOn(h, nic) != nil || len(h.RDMADevices) > 0 {
			continue // a device, or the device and uplink rules say what PVRDMA lacks
		}
		o := roceOffOf(h, nic)
		if o == nil {
			continue
		}
		any = true
		if !o.read {
			r.NotEvaluated(nic, "`esxcli system module parameters list -m "+o.family.LANDriver+"` was not read")
			continue
		}
		if o.sw == nil {
			r.Pass(nic) // no parameter explains it: NO_RDMA_DEVICE says the cause is not determined
			continue
		}
		p := o.sw.Param
		val := o.sw.Value
		if val == "" {
			val = "unset"
		}
		desc := ""
		if p.Description != "" {
			desc = fmt.Sprintf(" (%q)", p.Description)
		}
		msg := fmt.Sprintf("%s (%s) has no RDMA device although %s, its RDMA driver, is %s: %s's %s parameter%s switches RoCE off for it (%s=%s)",
			nic, o.family.Name, o.module.Name, o.module.State(), o.family.LANDriver, p.Name, desc, p.Name, orPlaceholder(p.Value, val))
		fix := fmt.Sprintf("Turn RoCE back on in %s's %s parameter keeping its other options: %s, then reboot %s in maintenance mode "+
			"and check `esxcli rdma device list` shows %s's device.", o.family.LANDriver, p.Name,
			plan.MergeCommand(o.family.LANDriver, lanOptions(h, o.family.LANDriver), o.set()), h.Host, nic)
		sev, why := driverSeverity(in, used && hasPVRDMA(h))
		ev := []Evidence{Ev(h.Host, p.Ref)}
		ev = append(ev, moduleEv(h, o.module)...)
		r.FailSeverity(sev, h.Host, nic, msg+why, fix+powerOnAfter(h), ev...)
	}
	if !any {
		r.Pass(h.Host)
	}
}

// undeterminedText says, for a host whose RoCE NIC's RDMA driver is
// enabled and loaded while no parameter explains the missing device, that
// the cause is not determined and what to check next; "" when the chain
// breaks somewhere the data shows.
func undeterminedText(h *facts.Host, nic string) string {
	o := roceOffOf(h, nic)
	if o == nil || !o.read || o.sw != nil || !o.module.Loaded {
		return ""
	}
	if e := h.ENSOf(nic); e != nil && e.Driven {
		return ""
	}
	params := "no " + o.family.LANDriver + " parameter switches RoCE off"
	if s := h.RoCESwitchOf(nic); s != nil {
		params = fmt.Sprintf("%s's %s parameter leaves RoCE on (%s=%s)", o.family.LANDriver, s.Param.Name, s.Param.Name, orPlaceholder(s.Param.Value, "unset"))
	}
	return fmt.Sprintf("%s (%s) has no RDMA device although %s is enabled and loaded and %s: the cause is not determined from what "+
		"ESXi shows. Check next %s, and that %s's firmware and driver releases match the vendor's support matrix for this ESXi release; "+
		"no driver change or reboot is proposed until one of them shows what is off",
		nic, o.family.Name, o.module.Name, params, o.family.NVMCheck(), nic)
}

// rdmaUndetermined reports whether the remedy of a host without an RDMA
// device is the next check, not a change (undeterminedText of the NIC the
// remedy picks).
func rdmaUndetermined(h *facts.Host, hp *facts.HostPath) bool {
	var sw *parse.DVSwitch
	if hp != nil {
		sw = hp.Switch
	}
	cands := roceCandidates(h, sw)
	return len(h.RDMADevices) == 0 && len(cands) > 0 && undeterminedText(h, cands[0].nic) != ""
}

// roceAlsoOff says, for a NIC whose RDMA driver is not enabled, that its
// LAN driver's parameter switches RoCE off too (the next link of the
// chain, which the same reboot fixes); "" when it does not or was not read.
func roceAlsoOff(h *facts.Host, nic string) string {
	fam := h.FamilyOf(nic)
	if fam.EnableParam != "" || fam.EnabledOutside != "" || !h.ParamsRead(fam.LANDriver) {
		return ""
	}
	s := h.RoCESwitchOf(nic)
	if s == nil || !s.Off {
		return ""
	}
	return fmt.Sprintf(" %s's %s parameter switches RoCE off for %s too: before the reboot, %s (the other options kept).", fam.LANDriver,
		s.Param.Name, nic, plan.MergeCommand(fam.LANDriver, lanOptions(h, fam.LANDriver), []plan.Setting{{Name: s.Param.Name, Value: s.Set}}))
}

// checkNICIdentity notes a NIC whose PCI IDs name another family than the
// driver bound to it: the bound driver is its identity (FamilyOf), the
// PCI IDs a note (a stale PCI table, a rebranded card, a wrong driver).
func checkNICIdentity(in *Input, r *Reporter) {
	h := in.Host
	any := false
	for _, n := range h.NICs {
		note := h.IdentityConflict(n.Name)
		if note == "" {
			continue
		}
		any = true
		ev := []Evidence{Ev(h.Host, n.Ref)}
		if p := h.PCIDeviceOf(n.Name); p != nil {
			ev = append(ev, Ev(h.Host, p.Ref))
		}
		r.FailSeverity(Info, h.Host, n.Name, note,
			fmt.Sprintf("Nothing to change for PVRDMA: %s is judged by its bound driver. If the PCI IDs are right, the wrong driver is "+
				"bound: compare `esxcli hardware pci list` (Vendor ID, Device ID, Module Name) with the driver VIBs installed "+
				"(`esxcli software vib list`).", n.Name), ev...)
	}
	if !any {
		r.Pass(h.Host)
	}
}
