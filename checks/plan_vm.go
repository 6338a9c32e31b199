package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The plan contributions of the VM, native-endpoint and GPU rules: each
// finding is a change to a VM's settings, made while the VM is powered
// off (its power cycle joins the plan's one power-off and power-on).

// viewOf returns the host's VM a VM finding is about.
func (p *planner) viewOf(f Finding) (vmView, bool) {
	name := vmSettingsSubject(f.Subject)
	for _, v := range vmViews(p.host) {
		if v.Name == name {
			return v, true
		}
	}
	return vmView{}, false
}

// vmxCommand is the command that read a VM's .vmx ("" when none did).
func vmxCommand(v vmView) string {
	for _, c := range v.Configs {
		if c.Source != "vmx" {
			continue
		}
		for _, r := range c.Refs {
			if r.Command != "" {
				return r.Command
			}
		}
	}
	return ""
}

// vmAction proposes a VM setting for f's VM, with the VM power-cycled
// around it when cycle.
func (p *planner) vmAction(f Finding, setting plan.VMSetting, cycle bool) {
	v, ok := p.viewOf(f)
	if !ok {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	pr := p.add(plan.PhaseVM, setting.ForVM(v.Name, vmxCommand(v)), f)
	if cycle && v.Proc != nil {
		pr.powerCycle(v.Name)
	}
}

// pvrdmaAdapter is the label of a VM's first PVRDMA adapter (as the .vmx
// names it).
func pvrdmaAdapter(v vmView) string {
	for _, c := range v.Configs {
		for _, a := range c.PVRDMA() {
			return a.Label
		}
	}
	return ""
}

// adapterOfSubject is the adapter label of "vm (ethernet1)".
func adapterOfSubject(s string) string {
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		return s[i+2 : len(s)-1]
	}
	return ""
}

func planVMMemory(p *planner, f Finding) { p.vmAction(f, plan.VMMemoryPin{}, true) }

func planVMHardware(p *planner, f Finding) {
	p.vmAction(f, plan.VMUpgradeHardware{Version: strconv.Itoa(minHWPVRDMA)}, true)
}

// planVMGuestOS: a guest PVRDMA has no driver for (Windows, another OS,
// 32-bit Linux) keeps its workload off PVRDMA: its adapter becomes a
// VMXNET3 one (or the workload moves to a Linux VM); a generic type on
// what is likely a Linux guest gets its real type.
func planVMGuestOS(p *planner, f Finding) {
	v, ok := p.viewOf(f)
	if !ok {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	fam, id := "unknown", ""
	for _, c := range v.Configs {
		if c.GuestOS != "" {
			fam, id = guestFamily(c.GuestOS), c.GuestOS
			break
		}
	}
	if fam == "unknown" {
		p.vmAction(f, plan.VMSetGuestOS{Value: p.guestIDOf(p.host.Host, v.Name, id)}, true)
		return
	}
	a := pvrdmaAdapter(v)
	vc, _ := vcenterAdapter(v, a)
	p.vmAction(f, plan.VMReplaceAdapter{Adapter: a, Device: vc.Device, Portgroup: vc.Network}, true)
}

func planVMNetwork(p *planner, f Finding) {
	sw := "the PVRDMA vDS"
	if p.path != nil && p.path.Switch != nil {
		sw = p.path.Switch.Name
	}
	p.vmSetNetwork(f, sw)
}

// vmSetNetwork puts f's adapter on sw's PVRDMA port group.
func (p *planner) vmSetNetwork(f Finding, sw string) {
	a := adapterOfSubject(f.Subject)
	v, _ := p.viewOf(f)
	p.vmAction(f, plan.VMSetNetwork{Adapter: a, Switch: sw, Device: govcDeviceOf(v, a), Portgroup: p.pvrdmaPortgroup(sw)}, true)
}

func planVMPeersDVS(p *planner, f Finding) {
	sw := "the vDS of its RDMA peers"
	if p.path != nil && p.path.Switch != nil {
		sw = p.path.Switch.Name
	}
	p.vmSetNetwork(f, sw)
}

// planVMConnect: connecting an adapter needs no power cycle.
func planVMConnect(p *planner, f Finding) {
	a := adapterOfSubject(f.Subject)
	v, _ := p.viewOf(f)
	p.vmAction(f, plan.VMConnectAdapter{Adapter: a, Device: govcDeviceOf(v, a)}, false)
}

// planVMProtocol: the adapter speaks the RoCE version the host's device
// supports (v2 unless only v1 is there).
func planVMProtocol(p *planner, f Finding) {
	want := p.supportedRoCE()
	if want == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	v, _ := p.viewOf(f)
	p.vmAction(f, plan.VMSetProtocol{Adapter: pvrdmaAdapter(v), Value: strconv.Itoa(want)}, true)
}

// supportedRoCE is the RoCE version the host's usable devices support (2
// first), 0 when none.
func (p *planner) supportedRoCE() int {
	v1 := false
	for _, d := range p.path.Usable {
		for _, pr := range p.host.RDMAProtocols {
			if pr.Device != d.Name {
				continue
			}
			if pr.RoCEv2 {
				return 2
			}
			v1 = v1 || pr.RoCEv1
		}
	}
	if v1 {
		return 1
	}
	return 0
}

// planRoCEVersion: an adapter whose RoCE version differs from its peers'
// takes theirs.
func planRoCEVersion(p *planner, f Finding) {
	top := 0
	for i := range p.fleet.Hosts {
		for _, d := range p.fleet.Hosts[i].PVRDMADevices {
			top = max(top, d.RoCEVersion)
		}
	}
	if top == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	v, _ := p.viewOf(f)
	p.vmAction(f, plan.VMSetProtocol{Adapter: pvrdmaAdapter(v), Value: strconv.Itoa(top)}, true)
}

// planNative: each missing prerequisite of native endpoints that a
// setting gives (hardware 18, the right vrdmaX index, ESXi 7.0 U1); PVRDMA
// namespaces are the RDMA hardware vendor's, to look up.
func planNative(p *planner, f Finding) {
	v, ok := p.viewOf(f)
	if !ok || len(v.Configs) == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	c := v.Configs[0]
	open := false // a prerequisite no action here gives
	var fixes []func()
	keys, idx := nativeKeys(c)
	for _, k := range keys {
		if _, found, known := nativeAdapter(c, idx[k]); known && !found {
			if a := pvrdmaAdapter(v); adapterIndex(a) >= 0 {
				x := adapterIndex(a)
				fixes = append(fixes, func() {
					p.vmAction(f, plan.VMSetExtraConfig{Set: []plan.Setting{{Name: "vrdma" + strconv.Itoa(x) + ".nativeEndpointSupport", Value: "TRUE"},
						{Name: k, Value: "FALSE"}}}, true)
				})
			} else {
				open = true
			}
		}
	}
	if c.HWVersion > 0 && c.HWVersion < minHWNative {
		fixes = append(fixes, func() {
			p.vmAction(f, plan.VMUpgradeHardware{Version: strconv.Itoa(minHWNative)}, true)
		})
	}
	if ok, known := esxiAtLeast70U1(p.host); known && !ok {
		fixes = append(fixes, func() {
			p.add(plan.PhaseHardware, plan.UpgradeESXi{Version: "7.0 Update 1"}, f)
		})
	}
	for _, d := range p.host.PVRDMADevices {
		for _, a := range c.PVRDMA() {
			if d.MAC != "" && strings.EqualFold(d.MAC, a.MAC) {
				// vsish's 0 means no namespaces only where hardware and
				// release allow native endpoints.
				if fld := d.Props.Lookup("Native endpoints supported"); fld.Line > 0 && strings.TrimSpace(fld.Value) == "0" &&
					c.HWVersion >= minHWNative && esxi70U1(p.host) {
					open = true
				}
			}
		}
	}
	if open || len(fixes) == 0 {
		// Not everything is in reach of a setting: the steps that are
		// still help, but the finding stays until the rest is done.
		n := len(p.props)
		for _, fx := range fixes {
			fx()
		}
		for _, pr := range p.props[n:] {
			pr.resolves = nil
		}
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	for _, fx := range fixes {
		fx()
	}
}

// planGPUFirmware, planGPUMMIO, planGPUDuplicate: the VM's advanced
// settings and passthrough devices (seed 003).
func planGPUFirmware(p *planner, f Finding) {
	p.vmAction(f, plan.VMSetFirmware{Value: "efi"}, true)
}

func planGPUMMIO(p *planner, f Finding) {
	v, ok := p.viewOf(f)
	if !ok || len(v.Configs) == 0 {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	var gs []gpuOf
	for _, c := range v.Configs {
		if gs = gpus(p.host, c); len(gs) > 0 {
			break
		}
	}
	m := mmioFor(gs)
	if !m.Known {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	set := []plan.Setting{{Name: "pciPassthru.64bitMMIOSizeGB", Value: strconv.Itoa(m.Tested)}}
	if f.RuleID == "GPU_64BIT_MMIO_OFF" {
		set = append([]plan.Setting{{Name: "pciPassthru.use64bitMMIO", Value: "TRUE"}}, set...)
	}
	p.vmAction(f, plan.VMSetExtraConfig{Set: set}, true)
}

func planGPUDuplicate(p *planner, f Finding) {
	_, id, _ := strings.Cut(strings.TrimSuffix(f.Subject, ")"), " (")
	p.vmAction(f, plan.VMRemoveDevice{Device: parse.NormalizePCIAddress(id)}, true)
}

// esxi70U1 reports whether the host is known to run ESXi 7.0 U1 or later.
func esxi70U1(h *facts.Host) bool {
	ok, known := esxiAtLeast70U1(h)
	return ok && known
}
