package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Readiness: every host of the scan against the seeds' host setup ("repeat
// for each ESXi host", seeds 000 and 002), whether or not it runs PVRDMA
// VMs today. DRS, vSphere HA and vMotion put PVRDMA VMs on any host of the
// PVRDMA vDS (seed 002 sells PVRDMA on them); on a host that is not ready,
// they silently fall back to TCP. The readiness table (hosts x setup
// steps) is what reports and the TUI show; HOST_NOT_READY is the finding
// of a host without PVRDMA VMs that is not ready (a host with PVRDMA VMs
// gets the steps' own findings instead).

// Readiness is every host checked against the seeds' host setup.
type Readiness struct {
	// Switch is the PVRDMA vDS ("" when it could not be told), and
	// SwitchWhy how it was chosen.
	Switch    string `json:"pvrdma_vds,omitempty"`
	SwitchWhy string `json:"pvrdma_vds_why,omitempty"`
	// Steps are the setup steps, in the seeds' order (the table's columns).
	Steps []ReadinessStep `json:"steps"`
	// Hosts are the scanned hosts, in scan order (the table's rows).
	Hosts []HostReadiness `json:"hosts"`
	// index finds a host's row (rules ask for one per host).
	index map[string]int
	// vds is the PVRDMA vDS (nil when it could not be told).
	vds *vdsInfo
}

// ReadinessStep is one step of the seeds' host setup.
type ReadinessStep struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Seed says what the seeds (or vendor documents) ask for.
	Seed string `json:"seed"`
}

// HostReadiness is one host's row.
type HostReadiness struct {
	Host string `json:"host"`
	// Role is "pvrdma" (runs PVRDMA VMs), "member" (on the PVRDMA vDS,
	// runs none), "outside" (not on it), "no_vds" (runs none, and no
	// PVRDMA vDS could be told) or "unknown" (its VMs were not read).
	Role string `json:"role"`
	// Device is the RDMA device its readiness judges ("" if none).
	Device string `json:"rdma_device,omitempty"`
	// VMs are its PVRDMA VMs (Role "pvrdma"), at most MaxReadinessVMs
	// (MoreVMs counts the rest); VMsFrom says who listed them: "vsish" or
	// "vcenter".
	VMs     []string `json:"pvrdma_vms,omitempty"`
	MoreVMs int      `json:"more_pvrdma_vms,omitempty"`
	VMsFrom string   `json:"pvrdma_vms_from,omitempty"`
	// Cluster is its vCenter cluster ("" when unknown or none).
	Cluster string `json:"cluster,omitempty"`
	// Placement says whether DRS or HA can place PVRDMA VMs on it, in
	// words; Placeable is nil when unknown (no vCenter data).
	Placement string `json:"placement"`
	Placeable *bool  `json:"placeable,omitempty"`
	// State is "ready", "not_ready" or "unknown" (a step that decides it
	// could not be read).
	State string          `json:"state"`
	Cells []ReadinessCell `json:"cells"`
	// placementEv is the evidence of Placement; parked are powered-off
	// PVRDMA VMs registered on the host.
	placementEv []Evidence
	parked      []string
	// why says why the role is unknown.
	why string
}

// ReadinessCell is one step on one host: a tick with what was found, or
// the reason it is not done.
type ReadinessCell struct {
	Step string `json:"step"`
	// State is "ok", "fail", "unknown" (not read) or "n/a".
	State    string     `json:"state"`
	Text     string     `json:"text"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// fix is the step's remediation on this host (fail only).
	fix string
}

// Judged reports whether HOST_NOT_READY judges the host: it runs no
// PVRDMA VM (the steps' own rules judge a host that does).
func (r *HostReadiness) Judged() bool {
	return r.Role == "member" || r.Role == "outside" || r.Role == "no_vds"
}

// Readiness cell and row states.
const (
	CellOK      = "ok"
	CellFail    = "fail"
	CellUnknown = "unknown"
	CellNA      = "n/a"

	StateReady    = "ready"
	StateNotReady = "not_ready"
	StateUnknown  = "unknown"
)

// The steps, in the seeds' order.
const (
	stepRDMA     = "rdma_nic"
	stepUplink   = "vds_uplink"
	stepVmknic   = "vmknic_tag"
	stepFirewall = "firewall"
	stepMTU      = "mtu"
	stepLossless = "lossless"
)

// ReadinessSteps are the seeds' host setup steps.
var ReadinessSteps = []ReadinessStep{
	{stepRDMA, "RDMA NIC", "an RoCE-capable NIC with its ESXi RDMA driver, Active (VMware's “PVRDMA Setup and Performance Study”: the vmnic supports RoCE v1 or v2)"},
	{stepUplink, "vDS uplink", "a member of the PVRDMA vDS with the RoCE NIC as its only uplink (“Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA Setup and Performance Study”: Add and Manage Hosts)"},
	{stepVmknic, "vmknic tag", "Net.PVRDMAVmknic names a vmknic with an IPv4 address (“Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA Setup and Performance Study”: repeat for each ESXi host)"},
	{stepFirewall, "pvrdma ruleset", "the pvrdma firewall ruleset enabled (“Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA Setup and Performance Study”: repeat for each ESXi host)"},
	{stepMTU, "MTU", "the vDS, its RoCE uplink and vmknic at one MTU, 9000 for jumbo frames (“Setting up a 100GbE PVRDMA Network on vCenter 7”: Set up Jumbo Frames)"},
	{stepLossless, "lossless", "PFC or global pause on the RoCE uplink (the vSphere documentation's “Remote Direct Memory Access for Virtual Machines”: RoCE needs a lossless network)"},
}

// MaxReadinessVMs is the most VM names a row holds: a host that lists
// 300,000 devices must not make a report of megabytes.
const MaxReadinessVMs = 64

// decisive are the steps without which a host's readiness cannot be told.
var decisive = map[string]bool{stepRDMA: true, stepUplink: true, stepVmknic: true, stepFirewall: true}

// ReadinessOf checks every host of the fleet against the seeds' host setup.
func ReadinessOf(fleet *facts.Fleet) *Readiness {
	if fleet == nil {
		return &Readiness{Steps: ReadinessSteps, Hosts: []HostReadiness{}}
	}
	return readinessOf(fleet, fleet.DataPath())
}

// readinessOf is ReadinessOf on the run's data-path model, derived once
// per model.
func readinessOf(fleet *facts.Fleet, paths *facts.DataPath) *Readiness {
	return paths.Memo("checks.readiness", func() any {
		rd := &Readiness{Steps: ReadinessSteps, Hosts: make([]HostReadiness, 0, len(fleet.Hosts))}
		vds, why := pvrdmaVDS(fleet, paths)
		if vds != nil {
			rd.Switch, rd.SwitchWhy, rd.vds = vds.Name, why, vds
		}
		rd.index = make(map[string]int, len(fleet.Hosts))
		peak := pvrdmaPeakMTU(fleet, vds)
		for i := range fleet.Hosts {
			rd.Hosts = append(rd.Hosts, hostReadiness(fleet, paths, i, vds, peak))
			if _, dup := rd.index[fleet.Hosts[i].Host]; !dup {
				rd.index[fleet.Hosts[i].Host] = i
			}
		}
		return rd
	}).(*Readiness)
}

// ReadinessChecked is ReadinessOf that recovers a panic: the report then
// leaves the table out and says why (an InternalError).
func ReadinessChecked(fleet *facts.Fleet) (rd *Readiness, ie *InternalError) {
	ie = guarded(InReadiness, "", fmt.Sprintf("internal error in the readiness table (%s): it is left out", pleaseReport),
		func() { rd = ReadinessOf(fleet) })
	return rd, ie
}

// readinessFor returns a host's row of the run's readiness.
func readinessFor(in *Input, host string) *HostReadiness {
	return readinessOf(in.Fleet, in.Paths).row(host)
}

// row returns a host's row (nil if none).
func (rd *Readiness) row(host string) *HostReadiness {
	if i, ok := rd.index[host]; ok {
		return &rd.Hosts[i]
	}
	for i := range rd.Hosts {
		if rd.Hosts[i].Host == host {
			return &rd.Hosts[i]
		}
	}
	return nil
}

// Cell returns the row's cell of a step (nil if none).
func (r *HostReadiness) Cell(step string) *ReadinessCell {
	for i := range r.Cells {
		if r.Cells[i].Step == step {
			return &r.Cells[i]
		}
	}
	return nil
}

// peakMTU is the largest MTU of the PVRDMA vDS on a host that runs PVRDMA
// VMs, where it was read.
type peakMTU struct {
	host string
	sw   *parse.DVSwitch
}

// pvrdmaPeakMTU finds the PVRDMA vDS's largest MTU among the hosts that
// run PVRDMA VMs (sw nil when none).
func pvrdmaPeakMTU(fleet *facts.Fleet, vds *vdsInfo) peakMTU {
	var p peakMTU
	if vds == nil {
		return p
	}
	for j := range fleet.Hosts {
		o := &fleet.Hosts[j]
		if !hasPVRDMA(o) {
			continue
		}
		if sw := vdsOf(o, vds.Key); sw != nil && (p.sw == nil || sw.MTU > p.sw.MTU) {
			p = peakMTU{o.Host, sw}
		}
	}
	return p
}

// hostReadiness checks host i.
func hostReadiness(fleet *facts.Fleet, paths *facts.DataPath, i int, vds *vdsInfo, peak peakMTU) HostReadiness {
	h := &fleet.Hosts[i]
	hp := paths.Host(i)
	row := HostReadiness{Host: h.Host, Role: "unknown"}
	row.Cluster, row.Placement, row.Placeable, row.placementEv = placement(h)
	for _, c := range h.VCenterPVRDMAVMs(false) {
		if c.PowerState != "" && c.PowerState != "poweredOn" {
			row.parked = append(row.parked, c.Name)
		}
	}
	k := pvrdmaOn(h)
	var sw *parse.DVSwitch
	if vds != nil {
		sw = vdsOf(h, vds.Key)
	}
	swKnown, swWhy := h.Available(catalog.KindDVSList)
	switch {
	case hasPVRDMA(h):
		row.Role, row.VMs, row.VMsFrom = "pvrdma", pvrdmaVMNames(h), "vsish"
		if n := len(row.VMs); n > MaxReadinessVMs {
			row.VMs, row.MoreVMs = row.VMs[:MaxReadinessVMs:MaxReadinessVMs], n-MaxReadinessVMs
		}
		if k.VCenter {
			row.VMsFrom = "vcenter"
		}
	case !k.Known:
		row.why = unreadVMs(h, k.Why)
	case h.Status == hostio.StatusNotCollected:
		row.why = "host not collected: " + h.Reason
	case sw != nil:
		row.Role = "member"
	case vds != nil && swKnown:
		row.Role = "outside"
	case vds == nil:
		row.Role = "no_vds"
	default:
		row.why = fmt.Sprintf("whether it is on %s, the PVRDMA vDS, was not read: %s", vds.Name, swWhy)
	}
	if h.Status == hostio.StatusNotCollected {
		// Nothing was read: every step unknown, the reason said once (the
		// host's own line has the whole of it).
		for _, st := range ReadinessSteps {
			row.Cells = append(row.Cells, ReadinessCell{Step: st.ID, State: CellUnknown, Text: "not read: host not collected"})
		}
		row.State = StateUnknown
		return row
	}
	dev := readinessDevice(h, hp, sw)
	if dev != nil {
		row.Device = dev.Name
	}
	row.Cells = []ReadinessCell{
		rdmaCell(h, hp, sw, dev),
		uplinkCell(h, vds, sw, swKnown, dev),
		vmknicCell(fleet, h, hp, sw),
		firewallCell(h),
		mtuCell(h, sw, vds, dev, peak),
		losslessCell(h, dev),
	}
	row.State = StateReady
	for _, c := range row.Cells {
		switch {
		case c.State == CellFail:
			row.State = StateNotReady
		case c.State == CellUnknown && decisive[c.Step] && row.State == StateReady:
			row.State = StateUnknown
		}
	}
	return row
}

// readinessDevice is the RDMA device the host's readiness judges: one
// paired with an uplink of the PVRDMA vDS (an Active one first), else an
// Active one, else any (nil if the host has none).
func readinessDevice(h *facts.Host, hp *facts.HostPath, sw *parse.DVSwitch) *parse.RDMADevice {
	var onSwitch, active *parse.RDMADevice
	for i := range h.RDMADevices {
		d := &h.RDMADevices[i]
		isActive := strings.EqualFold(strings.TrimSpace(d.State), "active")
		if sw != nil && hasString(sw.Uplinks, d.PairedUplink) && (onSwitch == nil || isActive && !strings.EqualFold(onSwitch.State, "active")) {
			onSwitch = d
		}
		if isActive && active == nil {
			active = d
		}
	}
	switch {
	case onSwitch != nil:
		return onSwitch
	case active != nil:
		return active
	case len(h.RDMADevices) > 0:
		return &h.RDMADevices[0]
	}
	return nil
}

func unknownCell(step, why string) ReadinessCell {
	return ReadinessCell{Step: step, State: CellUnknown, Text: "not read: " + why}
}

func rdmaCell(h *facts.Host, hp *facts.HostPath, sw *parse.DVSwitch, d *parse.RDMADevice) ReadinessCell {
	const step = stepRDMA
	if ok, why := h.Available(catalog.KindRDMADeviceList); !ok {
		return unknownCell(step, why)
	}
	if d == nil {
		ev := rdmaListEvidence(h)
		if vc := h.VCenterHost; vc != nil && len(h.Sources[catalog.KindRDMADeviceList]) > 0 && h.Sources[catalog.KindRDMADeviceList][0].Command == vc.RDMADeviceList.Command {
			ev = []Evidence{Ev(h.Host, vc.RDMADeviceList)}
		}
		// The remedy of the NICs it has (plan_driver.go), on the PVRDMA vDS.
		var onVDS facts.HostPath
		if hp != nil {
			onVDS = *hp
		}
		onVDS.Switch = sw
		return ReadinessCell{Step: step, State: CellFail, Text: "no RDMA device", Evidence: ev, fix: rdmaRemedyText(h, &onVDS)}
	}
	ev := []Evidence{Ev(h.Host, d.Ref)}
	if !strings.EqualFold(strings.TrimSpace(d.State), "active") {
		return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("%s %s", d.Name, orPlaceholder(d.State, "not Active")), Evidence: ev,
			fix: fmt.Sprintf("repair the link of %s (%s): `esxcli network nic get -n %s`, the cable or optic and the switch port", d.PairedUplink, d.Name, shellArg(d.PairedUplink, "vmnicN"))}
	}
	for _, p := range h.RDMAProtocols {
		if p.Device == d.Name && !p.RoCEv1 && !p.RoCEv2 {
			return ReadinessCell{Step: step, State: CellFail, Text: d.Name + " has no RoCE", Evidence: []Evidence{Ev(h.Host, p.Ref)},
				fix: fmt.Sprintf("enable RoCE in %s's driver (esxcli system module parameters list -m %s) and reboot, or use an RoCE-capable NIC", d.Name, orPlaceholder(d.Driver, "DRIVER"))}
		}
	}
	return ReadinessCell{Step: step, State: CellOK, Text: fmt.Sprintf("%s (%s) Active", d.Name, orPlaceholder(d.Driver, d.Description)), Evidence: ev}
}

func uplinkCell(h *facts.Host, vds *vdsInfo, sw *parse.DVSwitch, swKnown bool, d *parse.RDMADevice) ReadinessCell {
	const step = stepUplink
	switch {
	case vds == nil:
		return ReadinessCell{Step: step, State: CellUnknown, Text: "no PVRDMA vDS found (no VM uses one, and no single vDS has an Active RDMA uplink)"}
	case !swKnown:
		_, why := h.Available(catalog.KindDVSList)
		return unknownCell(step, why)
	case sw == nil:
		ev := sourceEv(h, catalog.KindDVSList, "no "+vds.Name+" listed")
		fix := fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts: add %s", vds.Name, h.Host)
		if d != nil {
			fix += fmt.Sprintf(" with %s (%s) as its only uplink", d.PairedUplink, d.Name)
		} else {
			fix += " with its RoCE NIC as its only uplink"
		}
		return ReadinessCell{Step: step, State: CellFail, Text: "not on " + vds.Name, Evidence: ev, fix: fix}
	}
	ev := []Evidence{Ev(h.Host, sw.Record.RefOf("Uplinks"))}
	if d == nil {
		return ReadinessCell{Step: step, State: CellNA, Text: fmt.Sprintf("on %s; no RoCE NIC to uplink (uplinks: %s)", sw.Name, orPlaceholder(strings.Join(sw.Uplinks, ", "), "none")), Evidence: ev}
	}
	if !hasString(sw.Uplinks, d.PairedUplink) {
		return ReadinessCell{Step: step, State: CellFail, Evidence: append(ev, Ev(h.Host, d.Ref)),
			Text: fmt.Sprintf("%s (%s) not an uplink of %s (uplinks: %s)", d.PairedUplink, d.Name, sw.Name, orPlaceholder(strings.Join(sw.Uplinks, ", "), "none")),
			fix:  fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: on %s assign %s to an uplink and unassign the others", sw.Name, h.Host, d.PairedUplink)}
	}
	var others []string
	for _, u := range sw.Uplinks {
		if u != d.PairedUplink {
			others = append(others, u)
		}
	}
	if len(others) > 0 {
		return ReadinessCell{Step: step, State: CellFail, Evidence: ev,
			Text: fmt.Sprintf("%s and also %s (one uplink only)", d.PairedUplink, strings.Join(others, ", ")),
			fix:  fmt.Sprintf("vSphere Client > Networking > %s > Add and Manage Hosts > Manage physical adapters: on %s unassign %s, so that %s is the only uplink", sw.Name, h.Host, strings.Join(others, ", "), d.PairedUplink)}
	}
	return ReadinessCell{Step: step, State: CellOK, Text: d.PairedUplink + " on " + sw.Name, Evidence: ev}
}

func vmknicCell(fleet *facts.Fleet, h *facts.Host, hp *facts.HostPath, sw *parse.DVSwitch) ReadinessCell {
	const step = stepVmknic
	if ok, why := h.Available(catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList); !ok || h.PVRDMAVmknic == nil {
		if why == "" {
			why = "the /Net/PVRDMAVmknic setting was not found in the output"
		}
		return unknownCell(step, why)
	}
	target, none := tagTarget(fleet, h, hp, sw)
	tagFix := "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s " + shellArg(target, "vmkN")
	switch {
	case none != "":
		tagFix = none + ", so no existing vmknic is proposed: create one on the PVRDMA vDS with an address in that subnet, then tag it: " + tagFix
	case target == "":
		tagFix = "create a vmknic that reaches the other hosts' PVRDMA vmknics (on the PVRDMA vDS, or vmk0 as “Setting up a 100GbE PVRDMA Network on vCenter 7” does), then " + tagFix
	}
	ev := []Evidence{Ev(h.Host, hp.TaggedRef)}
	switch {
	case hp.Tagged == "":
		return ReadinessCell{Step: step, State: CellFail, Text: "Net.PVRDMAVmknic unset", Evidence: ev, fix: tagFix}
	case hp.TaggedVmknic == nil:
		return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("names %s, which does not exist", hp.Tagged),
			Evidence: append(ev, sourceEv(h, catalog.KindIPInterfaceList, "no "+hp.Tagged+" listed")...), fix: tagFix}
	}
	v := hp.TaggedVmknic
	if ok, _ := h.Available(catalog.KindIPv4Get); ok {
		if ip := ipv4Of(h, v.Name); ip == nil || ip.Address == "" || ip.Address == "0.0.0.0" {
			return ReadinessCell{Step: step, State: CellFail, Text: v.Name + " has no IPv4 address", Evidence: append(ev, Ev(h.Host, v.Ref)),
				fix: fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK (an address in the other hosts' PVRDMA subnet)", shellArg(v.Name, "vmkN"))}
		}
	}
	if o, ok := otherSubnetOf(&Input{Fleet: fleet, Host: h, Path: hp}); ok && o.blamed {
		fix := fmt.Sprintf("no vmknic of %s has an address in %s, so no existing vmknic is proposed: create one on the PVRDMA vDS with an address in that subnet, then tag it", h.Host, o.subnet)
		if a := o.instead; a.vmknic != nil {
			fix = "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s " + shellArg(a.vmknic.Name, "vmkN")
		}
		return ReadinessCell{Step: step, State: CellFail, Evidence: append(ev, Ev(h.Host, o.me.ip.Ref)), fix: fix,
			Text: fmt.Sprintf("%s in %s, the other hosts' PVRDMA vmknics in %s (no route known)", v.Name, o.me.subnet, o.subnet)}
	}
	return ReadinessCell{Step: step, State: CellOK, Text: v.Name, Evidence: ev}
}

func firewallCell(h *facts.Host) ReadinessCell {
	const step = stepFirewall
	if ok, why := h.Available(catalog.KindFirewallRulesets); !ok {
		return unknownCell(step, why)
	}
	if ok, why := h.Covers(catalog.KindFirewallRulesets, "pvrdma"); !ok {
		return unknownCell(step, why)
	}
	var rs *parse.FirewallRuleset
	for i := range h.Rulesets {
		if h.Rulesets[i].Name == "pvrdma" {
			rs = &h.Rulesets[i]
		}
	}
	if ok, _ := h.Available(catalog.KindFirewallGlobal); ok && h.Firewall != nil && !h.Firewall.Enabled {
		return ReadinessCell{Step: step, State: CellOK, Text: "firewall off", Evidence: []Evidence{Ev(h.Host, h.Firewall.Record.RefOf("Enabled"))}}
	}
	switch {
	case rs == nil:
		return ReadinessCell{Step: step, State: CellFail, Text: "no pvrdma ruleset", Evidence: sourceEv(h, catalog.KindFirewallRulesets, "no pvrdma ruleset listed"),
			fix: "upgrade " + h.Host + " to ESXi 6.5 or later (its release has no pvrdma ruleset), then esxcli network firewall ruleset set -e true -r pvrdma"}
	case !rs.Enabled:
		return ReadinessCell{Step: step, State: CellFail, Text: "pvrdma ruleset disabled", Evidence: []Evidence{Ev(h.Host, rs.Ref)},
			fix: "esxcli network firewall ruleset set -e true -r pvrdma"}
	}
	return ReadinessCell{Step: step, State: CellOK, Text: "enabled", Evidence: []Evidence{Ev(h.Host, rs.Ref)}}
}

func mtuCell(h *facts.Host, sw *parse.DVSwitch, vds *vdsInfo, d *parse.RDMADevice, peak peakMTU) ReadinessCell {
	const step = stepMTU
	if ok, why := h.Available(catalog.KindDVSList); !ok {
		return unknownCell(step, why)
	}
	if sw == nil {
		if vds == nil {
			return ReadinessCell{Step: step, State: CellUnknown, Text: "no PVRDMA vDS found"}
		}
		return ReadinessCell{Step: step, State: CellNA, Text: "not on " + vds.Name}
	}
	if sw.MTU <= 0 {
		return ReadinessCell{Step: step, State: CellUnknown, Text: "not read: " + sw.Name + "'s MTU"}
	}
	swEv := Ev(h.Host, sw.Record.RefOf("MTU"))
	if v := vmknicOn(h, sw); v != nil && v.MTU > 0 && v.MTU < sw.MTU {
		return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("%s MTU %d on %s at %d", v.Name, v.MTU, sw.Name, sw.MTU),
			Evidence: []Evidence{Ev(h.Host, v.Record.RefOf("MTU")), swEv},
			fix:      fmt.Sprintf("esxcli network ip interface set -i %s -m %d", shellArg(v.Name, "vmkN"), sw.MTU)}
	}
	if d != nil && hasString(sw.Uplinks, d.PairedUplink) {
		if n := h.NICNamed(d.PairedUplink); n != nil && n.MTU > 0 && n.MTU < sw.MTU {
			return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("%s MTU %d on %s at %d", n.Name, n.MTU, sw.Name, sw.MTU),
				Evidence: []Evidence{Ev(h.Host, n.Ref), swEv},
				fix:      fmt.Sprintf("set %s's MTU to %s's %d (it follows the vDS: remove and re-add it as the uplink if it does not)", n.Name, sw.Name, sw.MTU)}
		}
	}
	// The PVRDMA hosts' data path: a host whose switch carries less than
	// theirs caps their RoCE MTU with it.
	if osw := peak.sw; osw != nil && peak.host != h.Host && osw.MTU > sw.MTU {
		return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("%s at %d here, %d on %s", sw.Name, sw.MTU, osw.MTU, peak.host),
			Evidence: []Evidence{swEv, Ev(peak.host, osw.Record.RefOf("MTU"))},
			fix:      fmt.Sprintf("set %s's MTU on %s to %d, as on the hosts that run PVRDMA VMs", sw.Name, h.Host, osw.MTU)}
	}
	text := fmt.Sprint(sw.MTU)
	if sw.MTU < 9000 {
		text += " (no jumbo frames)"
	}
	return ReadinessCell{Step: step, State: CellOK, Text: text, Evidence: []Evidence{swEv}}
}

// vmknicOn is the host's PVRDMA vmknic when it sits on sw, else another
// vmknic of sw (nil if none).
func vmknicOn(h *facts.Host, sw *parse.DVSwitch) *parse.Vmknic {
	if h.PVRDMAVmknic != nil {
		if v := h.VmknicNamed(strings.TrimSpace(h.PVRDMAVmknic.StringValue)); v != nil && v.VDSName == sw.Name {
			return v
		}
	}
	return h.VmknicNamed(dvsVmknic(h, sw.Name))
}

func losslessCell(h *facts.Host, d *parse.RDMADevice) ReadinessCell {
	const step = stepLossless
	if ok, why := h.Available(catalog.KindRDMADeviceList); !ok {
		return unknownCell(step, why)
	}
	if d == nil || d.PairedUplink == "" {
		return ReadinessCell{Step: step, State: CellNA, Text: "no RoCE NIC"}
	}
	nic := d.PairedUplink
	okNIC, whyNIC := sourceFor(h, catalog.KindNICGet, nic)
	okDCB, whyDCB := sourceFor(h, catalog.KindDCBStatus, nic)
	det, dcb := nicDetail(h, nic), dcbFor(h, nic)
	if okDCB && dcb != nil && dcb.PFCEnabled && len(dcb.PFCPriorities) > 0 {
		return ReadinessCell{Step: step, State: CellOK, Text: fmt.Sprintf("PFC on %s (priority %s)", nic, joinInts(dcb.PFCPriorities)),
			Evidence: []Evidence{Ev(h.Host, dcb.Record.RefOf("PFC Enabled"))}}
	}
	if okNIC && det != nil && det.PauseRX && det.PauseTX {
		return ReadinessCell{Step: step, State: CellOK, Text: "global pause on " + nic, Evidence: []Evidence{Ev(h.Host, det.Record.RefOf("Pause RX"))}}
	}
	if !okNIC || det == nil || !okDCB || dcb == nil {
		var why []string
		for _, w := range []string{whyNIC, whyDCB} {
			if w != "" && !hasString(why, w) {
				why = append(why, w)
			}
		}
		if len(why) == 0 {
			why = append(why, "no pause or DCB data for "+nic)
		}
		return unknownCell(step, strings.Join(why, "; "))
	}
	fix := fmt.Sprintf("enable PFC for the RoCE priority (3) on %s's switch port and on the host", nic)
	if strings.HasPrefix(det.Driver, "nmlx5") || strings.HasPrefix(d.Driver, "nmlx5") {
		fix += " (esxcli system module parameters set -m nmlx5_core -p \"pfctx=0x08 pfcrx=0x08\", then reboot)"
	}
	fix += fmt.Sprintf(", or global pause: esxcli network nic pauseParams set -n %s -r true -t true", shellArg(nic, "vmnicN"))
	return ReadinessCell{Step: step, State: CellFail, Text: fmt.Sprintf("PFC off, no pause on %s", nic),
		Evidence: []Evidence{Ev(h.Host, dcb.Record.RefOf("PFC Enabled")), Ev(h.Host, det.Record.RefOf("Pause RX"))}, fix: fix}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// placement says whether DRS or vSphere HA can place PVRDMA VMs on the
// host, from its vCenter cluster's configuration: DRS places VMs at power-on
// and moves them (as recommendations in manual mode), HA restarts a failed
// host's VMs on the others; with both off only an admin moves VMs there.
func placement(h *facts.Host) (cluster, words string, placeable *bool, ev []Evidence) {
	yes, no := true, false
	cl, standalone := h.Cluster()
	switch {
	case h.VCenterHost == nil:
		return "", "unknown: the host was not read through vCenter (scan with --vcenter to know whether DRS or HA can place PVRDMA VMs on it)", nil, nil
	case standalone:
		return "", "in no cluster, so neither DRS nor HA places VMs on it, only a manual vMotion or power-on", &no,
			[]Evidence{Ev(h.Host, h.VCenterHost.Ref)}
	case cl == nil:
		return "", "unknown: vCenter did not say the host's cluster", nil, nil
	}
	drs, ha := cl.DRS != nil && *cl.DRS, cl.HA != nil && *cl.HA
	ev = []Evidence{Ev(h.Host, cl.DRSRef), Ev(h.Host, cl.HARef)}
	var on []string
	if drs {
		switch cl.DRSBehavior {
		case "manual":
			on = append(on, "DRS (manual) recommends placing and moving VMs on it")
		case "partiallyAutomated":
			on = append(on, "DRS (partiallyAutomated) places VMs on it at power-on and recommends moves")
		case "":
			on = append(on, "DRS places and moves VMs on it")
		default:
			on = append(on, "DRS ("+cl.DRSBehavior+") places and moves VMs on it")
		}
	}
	if ha {
		on = append(on, "HA restarts a failed host's VMs on it")
	}
	switch {
	case len(on) > 0:
		return cl.Name, "cluster " + cl.Name + ": " + strings.Join(on, ", and "), &yes, ev
	case cl.DRS == nil || cl.HA == nil:
		return cl.Name, "cluster " + cl.Name + ": DRS or HA not reported", nil, ev
	}
	return cl.Name, "cluster " + cl.Name + ": DRS and HA are off, so only a manual vMotion or power-on puts VMs on it", &no, ev
}
