package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The topology view model: each host's PVRDMA data path (VM adapters ->
// vmknic -> distributed switch -> uplinks -> RDMA devices), with a mark
// on every part saying whether it is fine, degrades the path or breaks it.
// It is derived once from the facts and the data-path model the rules
// reason about (facts.Fleet.DataPath); the TUI's topology page and the
// HTML report's SVG both draw this, neither reads facts itself.

// Mark levels.
const (
	MarkOK   = "ok"
	MarkWarn = "warning"
	MarkBad  = "critical"
)

// Mark is one verdict on a part of the path: its level and, unless fine,
// why in words.
type Mark struct {
	Level string `json:"level"`
	Text  string `json:"text,omitempty"`
}

// Topology is one host's PVRDMA data path.
type Topology struct {
	Host string `json:"host"`
	// NotCollected is the reason, when the host was not collected (the
	// rest is then empty).
	NotCollected string `json:"not_collected,omitempty"`
	// PathMTU is the MTU the data path allows (0: unknown), from
	// PathParts; RDMAMTU the RoCE MTU that allows.
	PathMTU   int      `json:"path_mtu,omitempty"`
	PathParts []string `json:"path_parts,omitempty"`
	RDMAMTU   int      `json:"rdma_mtu,omitempty"`
	// Adapters are the host's PVRDMA adapters, at most MaxTopoAdapters (the
	// findings list them all); MoreAdapters counts the rest.
	Adapters     []TopoAdapter `json:"adapters"`
	MoreAdapters int           `json:"more_adapters,omitempty"`
	// AdaptersUnknown says why the host's PVRDMA adapters are not known
	// (neither vsish nor vCenter listed them; since 2.2).
	AdaptersUnknown string `json:"adapters_unknown,omitempty"`
	// Vmknic is the vmknic PVRDMA uses (nil: none found; Marks say why).
	Vmknic      *TopoVmknic `json:"vmknic,omitempty"`
	VmknicMarks []Mark      `json:"vmknic_marks,omitempty"`
	// Switch is the PVRDMA distributed switch (nil: none found).
	Switch      *TopoSwitch `json:"switch,omitempty"`
	SwitchMarks []Mark      `json:"switch_marks,omitempty"`
	// HostMarks are remarks about the host as a whole (no RDMA device, RDMA
	// devices off the switch).
	HostMarks []Mark `json:"host_marks,omitempty"`
}

// TopoAdapter is one VM's PVRDMA adapter.
type TopoAdapter struct {
	VM      string `json:"vm"`
	WorldID string `json:"world_id"`
	Index   string `json:"index"`
	// Read is false when only the listing was collected (no properties).
	Read bool `json:"read"`
	// FromVCenter: vsish was not read; vCenter's configuration lists the
	// adapter (Index is then its label; since 2.2).
	FromVCenter bool   `json:"from_vcenter,omitempty"`
	ActiveMTU   int    `json:"active_mtu,omitempty"`
	RoCEVersion int    `json:"roce_version,omitempty"`
	PhysicalHCA bool   `json:"physical_hca"`
	Marks       []Mark `json:"marks,omitempty"`
}

// TopoVmknic is the vmknic on the path.
type TopoVmknic struct {
	Name    string `json:"name"`
	MTU     int    `json:"mtu"`
	Switch  string `json:"switch,omitempty"`
	Tagged  bool   `json:"tagged"`
	Enabled bool   `json:"enabled"`
	// OffSwitch: on another switch than the PVRDMA vDS (valid: control
	// data only, as VMware's guides set up vmk0).
	OffSwitch bool `json:"off_switch,omitempty"`
}

// TopoSwitch is the distributed switch and its uplinks.
type TopoSwitch struct {
	Name    string       `json:"name"`
	MTU     int          `json:"mtu"`
	Uplinks []TopoUplink `json:"uplinks"`
}

// TopoUplink is one uplink of the switch and the RDMA device paired with it.
type TopoUplink struct {
	Name string `json:"name"`
	// Link and MTU of the vmnic (empty/0: not listed).
	Link   string      `json:"link,omitempty"`
	MTU    int         `json:"mtu,omitempty"`
	Device *TopoDevice `json:"device,omitempty"`
	// DeviceMarks judge the device (or its absence).
	DeviceMarks []Mark `json:"device_marks,omitempty"`
}

// TopoDevice is an RDMA device.
type TopoDevice struct {
	Name  string `json:"name"`
	State string `json:"state"`
	MTU   int    `json:"mtu"`
	Speed string `json:"speed,omitempty"`
}

// Worst is the most severe level among marks ("" when there are none).
func Worst(marks []Mark) string {
	w := ""
	for _, m := range marks {
		switch {
		case m.Level == MarkBad:
			return MarkBad
		case m.Level == MarkWarn:
			w = MarkWarn
		case w == "":
			w = m.Level
		}
	}
	return w
}

func ok() []Mark { return []Mark{{Level: MarkOK}} }

// MaxTopoAdapters is the most adapters a topology holds: a host that
// lists 300,000 devices must not make a report of 45 MB.
const MaxTopoAdapters = 64

// BuildTopology derives the data path of every host of the fleet (nil
// when there are no hosts). findings are not read yet: the marks come
// from the facts, the same reading as the rules'.
func BuildTopology(fleet *facts.Fleet, _ []checks.Finding) []Topology {
	if fleet == nil {
		return nil
	}
	var out []Topology
	for i := range fleet.Hosts {
		out = append(out, topologyOf(fleet, &fleet.Hosts[i]))
	}
	return out
}

// TopologyOf returns the topology of one host of the report (nil: none).
func (r *Report) TopologyOf(host string) *Topology {
	for i := range r.Topology {
		if r.Topology[i].Host == host {
			return &r.Topology[i]
		}
	}
	return nil
}

func topologyOf(fleet *facts.Fleet, h *facts.Host) Topology {
	t := Topology{Host: h.Host, Adapters: []TopoAdapter{}}
	if h.Status == hostio.StatusNotCollected {
		t.NotCollected = h.Reason
		return t
	}
	path := fleet.DataPath().For(h)
	if path.MTU.Known {
		t.PathMTU, t.PathParts = path.MTU.MTU, append([]string(nil), path.MTU.Parts...)
		t.RDMAMTU = facts.RDMAMTUFor(path.MTU.MTU)
	}
	t.addAdapters(h, path)
	t.setVmknic(path)
	onSwitch := t.setSwitch(h, path)
	t.setHostMarks(h, path, onSwitch)
	return t
}

// addAdapters adds the host's PVRDMA adapters: those vsish read, then the
// device folders listed without their properties, else (vsish not read)
// vCenter's, up to MaxTopoAdapters.
func (t *Topology) addAdapters(h *facts.Host, path *facts.HostPath) {
	vmName := map[string]string{}
	for _, vm := range h.VMs {
		vmName[vm.WorldID] = vm.DisplayName
	}
	seen := map[string]bool{}
	devs := append(h.PVRDMADevices[:0:0], h.PVRDMADevices...)
	sort.SliceStable(devs, func(i, j int) bool { return devs[i].WorldID+"_"+devs[i].Index < devs[j].WorldID+"_"+devs[j].Index })
	for _, d := range devs {
		seen[d.WorldID+"_"+d.Index] = true
		vm := d.VMName
		if vm == "" {
			vm = vmName[d.WorldID]
		}
		t.addAdapter(func() TopoAdapter {
			return t.markRead(TopoAdapter{VM: vm, WorldID: d.WorldID, Index: d.Index, Read: true, ActiveMTU: d.ActiveMTU, RoCEVersion: d.RoCEVersion,
				PhysicalHCA: d.PhysicalHCA == 1})
		})
	}
	for _, e := range h.PVRDMAListing {
		if !e.IsDir || seen[e.Name] {
			continue
		}
		t.addAdapter(func() TopoAdapter {
			wid, idx, _ := e.DeviceID()
			return TopoAdapter{VM: vmName[wid], WorldID: wid, Index: idx}
		})
	}
	if ok, why := h.Available(catalog.KindPVRDMADeviceLs); !ok {
		// vsish was not read (SSH refused): vCenter's powered-on PVRDMA
		// VMs, as the rules count them, else say they are unknown.
		if okVC, _ := h.Available(catalog.KindVCenterVMs); okVC {
			t.addVCenterAdapters(h, path)
		} else {
			t.AdaptersUnknown = why
		}
	}
}

// addAdapter appends the adapter made, or counts it in MoreAdapters once
// MaxTopoAdapters are shown.
func (t *Topology) addAdapter(build func() TopoAdapter) {
	if len(t.Adapters) == MaxTopoAdapters {
		t.MoreAdapters++
		return
	}
	t.Adapters = append(t.Adapters, build())
}

// markRead marks an adapter whose properties vsish read against its
// physical HCA and the RDMA MTU the path allows.
func (t *Topology) markRead(a TopoAdapter) TopoAdapter {
	if !a.PhysicalHCA {
		a.Marks = append(a.Marks, Mark{MarkBad, "no physical HCA: traffic to other hosts falls back to TCP"})
	}
	if t.RDMAMTU > 0 && a.ActiveMTU > 0 && a.ActiveMTU < t.RDMAMTU {
		a.Marks = append(a.Marks, Mark{MarkWarn, fmt.Sprintf("MTU %d below the %d the path allows", a.ActiveMTU, t.RDMAMTU)})
	}
	if len(a.Marks) == 0 {
		a.Marks = ok()
	}
	return a
}

// addVCenterAdapters adds the PVRDMA adapters of vCenter's powered-on
// PVRDMA VMs, marked bad when the RDMA devices were read and none on the
// PVRDMA vDS is usable.
func (t *Topology) addVCenterAdapters(h *facts.Host, path *facts.HostPath) {
	for _, c := range h.VCenterPVRDMAVMs(true) {
		for _, ad := range c.PVRDMA() {
			t.addAdapter(func() TopoAdapter {
				a := TopoAdapter{VM: c.Name, Index: ad.Label, FromVCenter: true}
				if okDev, _ := h.Available(catalog.KindRDMADeviceList); okDev && len(path.Usable) == 0 {
					a.Marks = []Mark{{MarkBad, "no Active RDMA device on the PVRDMA vDS (vCenter): traffic to other hosts falls back to TCP"}}
				}
				return a
			})
		}
	}
}

// setVmknic sets the PVRDMA vmknic and its marks: tagged or not, enabled,
// its MTU against its switch's, or off the PVRDMA vDS.
func (t *Topology) setVmknic(path *facts.HostPath) {
	tagged, vmk, sw := path.Tagged, path.Vmknic, path.Switch
	switch {
	case vmk == nil && tagged != "":
		t.VmknicMarks = []Mark{{MarkBad, "tagged in /Net/PVRDMAVmknic as " + tagged + ", but no such vmknic"}}
		return
	case vmk == nil:
		t.VmknicMarks = []Mark{{MarkBad, "no vmknic tagged in /Net/PVRDMAVmknic or bound to an RDMA device"}}
		return
	}
	v := &TopoVmknic{Name: vmk.Name, MTU: vmk.MTU, Switch: vmk.VDSName, Tagged: tagged == vmk.Name, Enabled: vmk.Enabled}
	switch tagged {
	case vmk.Name:
	case "":
		t.VmknicMarks = append(t.VmknicMarks, Mark{MarkBad, "/Net/PVRDMAVmknic is not set"})
	default:
		t.VmknicMarks = append(t.VmknicMarks, Mark{MarkWarn, "/Net/PVRDMAVmknic names " + tagged})
	}
	if !vmk.Enabled {
		t.VmknicMarks = append(t.VmknicMarks, Mark{MarkBad, "disabled"})
	}
	switch {
	case sw != nil && vmk.VDSName == sw.Name && vmk.MTU > 0 && sw.MTU > 0 && vmk.MTU < sw.MTU:
		t.VmknicMarks = append(t.VmknicMarks, Mark{MarkWarn, fmt.Sprintf("MTU below the switch's %d", sw.MTU)})
	case sw != nil && vmk.VDSName != sw.Name:
		// VMware's guides tag vmk0 on the management switch: it
		// carries PVRDMA's control data, not the RDMA frames.
		v.OffSwitch = true
	}
	if len(t.VmknicMarks) == 0 {
		t.VmknicMarks = ok()
	}
	t.Vmknic = v
}

// setSwitch sets the PVRDMA distributed switch, its uplinks and the RDMA
// device paired with each, with their marks; it returns the uplinks on
// the switch.
func (t *Topology) setSwitch(h *facts.Host, path *facts.HostPath) map[string]bool {
	sw := path.Switch
	onSwitch := map[string]bool{}
	if sw == nil {
		t.SwitchMarks = []Mark{{MarkBad, "no distributed switch for PVRDMA found"}}
		return onSwitch
	}
	s := &TopoSwitch{Name: sw.Name, MTU: sw.MTU, Uplinks: []TopoUplink{}}
	switch {
	case len(sw.Uplinks) == 0:
		t.SwitchMarks = []Mark{{MarkBad, "no uplink"}}
	case len(sw.Uplinks) > 1:
		t.SwitchMarks = []Mark{{MarkWarn, fmt.Sprintf("%d uplinks: PVRDMA binds to one RDMA device", len(sw.Uplinks))}}
	default:
		t.SwitchMarks = ok()
	}
	for _, up := range sw.Uplinks {
		onSwitch[up] = true
		s.Uplinks = append(s.Uplinks, topoUplink(h, up))
	}
	t.Switch = s
	return onSwitch
}

// topoUplink is an uplink of the PVRDMA switch: its link, MTU and the
// RDMA device paired with it, marked bad when none is or it is not Active.
func topoUplink(h *facts.Host, up string) TopoUplink {
	u := TopoUplink{Name: up}
	for _, n := range h.NICs {
		if n.Name == up {
			u.Link, u.MTU = n.LinkStatus, n.MTU
			break
		}
	}
	for _, d := range h.RDMADevices {
		if d.PairedUplink == up {
			u.Device = &TopoDevice{Name: d.Name, State: d.State, MTU: d.MTU, Speed: d.Speed}
			break
		}
	}
	switch {
	case u.Device == nil:
		u.DeviceMarks = []Mark{{MarkBad, "no RDMA device is paired with " + up}}
	case strings.EqualFold(strings.TrimSpace(u.Device.State), "active"):
		u.DeviceMarks = ok()
	default:
		u.DeviceMarks = []Mark{{MarkBad, "not Active"}}
	}
	return u
}

// setHostMarks marks the host: no RDMA device at all, or RDMA devices
// whose paired uplinks are not on the PVRDMA switch.
func (t *Topology) setHostMarks(h *facts.Host, path *facts.HostPath, onSwitch map[string]bool) {
	sw := path.Switch
	if len(h.RDMADevices) == 0 && len(t.Adapters) == 0 && t.AdaptersUnknown == "" {
		t.HostMarks = append(t.HostMarks, Mark{MarkBad, "this host has no RDMA device: PVRDMA VMs placed on it would reach other hosts over TCP"})
	} else if len(h.RDMADevices) == 0 {
		t.HostMarks = append(t.HostMarks, Mark{MarkBad, "this host has no RDMA device: PVRDMA traffic to other hosts falls back to TCP"})
	} else if sw != nil {
		var off []string
		for _, d := range h.RDMADevices {
			if !onSwitch[d.PairedUplink] {
				off = append(off, fmt.Sprintf("%s (paired with %s, %s)", d.Name, d.PairedUplink, d.State))
			}
		}
		if len(off) > 0 {
			t.HostMarks = append(t.HostMarks, Mark{MarkWarn, "RDMA devices not on " + sw.Name + ": " + strings.Join(off, "; ")})
		}
	}
}
