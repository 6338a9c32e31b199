package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The vCenter source stores what it reads through the vSphere API as two
// captures per ESXi host, each a JSON document rendered by package vcenter
// and read back here (so bundles hold them and `analyze` replays them):
//
//   - `vcenter vm config`: the host's VMs that have a PVRDMA adapter or a
//     PCI passthrough device (VCenterVMDoc), one VM per line;
//   - `vcenter host config`: the host's RDMA devices, vmknics, distributed
//     switches, the Net.PVRDMAVmknic option and the firewall rulesets
//     (VCenterHostDoc).
//
// The JSON keys are the vSphere property paths they come from, so an
// admin can compare them with the vSphere Client or `govc object.collect`.

// VCenterVMDoc is the stdout of `vcenter vm config`.
type VCenterVMDoc struct {
	// Host is the ESXi host's name in the vCenter inventory.
	Host string      `json:"host"`
	VMs  []VCenterVM `json:"vms"`
}

// VCenterVM is one VirtualMachine as read from vCenter.
type VCenterVM struct {
	Name         string `json:"name"`
	MoRef        string `json:"moref,omitempty"`
	UUID         string `json:"config.uuid,omitempty"`
	InstanceUUID string `json:"config.instanceUuid,omitempty"`
	ConfigFile   string `json:"config.files.vmPathName,omitempty"`
	Version      string `json:"config.version,omitempty"`
	GuestID      string `json:"config.guestId,omitempty"`
	Firmware     string `json:"config.firmware,omitempty"`
	MemoryMB     int64  `json:"config.hardware.memoryMB,omitempty"`
	// MemReservationMB is config.memoryAllocation.reservation (nil: not reported).
	MemReservationMB *int64 `json:"config.memoryAllocation.reservation,omitempty"`
	// MemLockedToMax is config.memoryReservationLockedToMax (nil: not reported).
	MemLockedToMax *bool `json:"config.memoryReservationLockedToMax,omitempty"`
	// ExtraConfig holds the vrdma* and pciPassthru* keys of config.extraConfig.
	ExtraConfig map[string]string    `json:"config.extraConfig,omitempty"`
	Adapters    []VCenterAdapter     `json:"adapters,omitempty"`
	Passthrough []VCenterPassthrough `json:"passthrough,omitempty"`
	PowerState  string               `json:"runtime.powerState,omitempty"`
	// The guest's network identity as VMware Tools reports it (empty
	// when Tools does not run).
	GuestHostName string `json:"guest.hostName,omitempty"`
	GuestIP       string `json:"guest.ipAddress,omitempty"`
	ToolsStatus   string `json:"guest.toolsRunningStatus,omitempty"`
	// GuestNet is guest.net, one entry per guest NIC.
	GuestNet []VCenterGuestNIC `json:"guest.net,omitempty"`
}

// VCenterGuestNIC is one GuestNicInfo of guest.net.
type VCenterGuestNIC struct {
	MAC       string   `json:"macAddress,omitempty"`
	IPs       []string `json:"ipAddress,omitempty"`
	Connected *bool    `json:"connected,omitempty"`
	Network   string   `json:"network,omitempty"`
}

// VCenterAdapter is one virtual ethernet card of a VM.
type VCenterAdapter struct {
	Label string `json:"label"`
	// Type is the device type: "vrdma" (VirtualVmxnet3Vrdma), "vmxnet3",
	// "e1000e", "e1000", "pcnet32", "sriov".
	Type string `json:"type"`
	// Device is govc's name of the adapter (govmomi's
	// object.VirtualDeviceList.Name: "ethernet-" and the card's unit
	// number less 7, not the .vmx's ethernetN), as the vCenter source
	// computed it; "" in captures made before it did.
	Device         string `json:"device,omitempty"`
	Key            int32  `json:"key,omitempty"`
	MAC            string `json:"macAddress,omitempty"`
	Connected      *bool  `json:"connectable.connected,omitempty"`
	StartConnected *bool  `json:"connectable.startConnected,omitempty"`
	Network        string `json:"network,omitempty"`
	DVSUUID        string `json:"backing.port.switchUuid,omitempty"`
	DVSName        string `json:"dvs,omitempty"`
	PortgroupKey   string `json:"backing.port.portgroupKey,omitempty"`
	DeviceProtocol string `json:"deviceProtocol,omitempty"`
}

// VCenterPassthrough is one PCI passthrough device of a VM.
type VCenterPassthrough struct {
	Label    string `json:"label"`
	ID       string `json:"backing.id,omitempty"`
	VendorID string `json:"backing.vendorId,omitempty"`
	DeviceID string `json:"backing.deviceId,omitempty"`
	// DeviceName is backing.deviceName (the GPU model).
	DeviceName string `json:"backing.deviceName,omitempty"`
}

// VCenterHostDoc is the stdout of `vcenter host config`.
type VCenterHostDoc struct {
	Host            string `json:"host"`
	MoRef           string `json:"moref,omitempty"`
	Version         string `json:"config.product.version,omitempty"`
	Build           string `json:"config.product.build,omitempty"`
	ConnectionState string `json:"runtime.connectionState,omitempty"`
	// Parent is the host's parent, TYPE:ID: ClusterComputeResource:... for
	// a host in a cluster, ComputeResource:... for a standalone host.
	Parent string `json:"parent,omitempty"`
	// RDMADevices is config.network.rdmaDevice.
	RDMADevices []VCenterRDMADevice `json:"config.network.rdmaDevice"`
	// Vnics is config.network.vnic.
	Vnics []VCenterVnic `json:"config.network.vnic"`
	// Switches are the distributed switches the host is a member of.
	Switches []VCenterDVS `json:"dvs"`
	// Options are the advanced options read (Net.PVRDMAVmknic), from
	// the host's OptionManager (configManager.advancedOption); a missing
	// key could not be read.
	Options map[string]string `json:"advancedOption"`
	// Rulesets is config.firewall.ruleset.
	Rulesets []VCenterRuleset `json:"config.firewall.ruleset"`
	// Cluster is the host's cluster (nil: the host is in no cluster, or
	// the document predates cluster reading).
	Cluster *VCenterCluster `json:"cluster,omitempty"`
}

// VCenterCluster is a host's ClusterComputeResource: its name and whether
// DRS and vSphere HA can place VMs on its hosts. A nil value was not
// reported.
type VCenterCluster struct {
	Name        string `json:"name"`
	DRSEnabled  *bool  `json:"configurationEx.drsConfig.enabled,omitempty"`
	DRSBehavior string `json:"configurationEx.drsConfig.defaultVmBehavior,omitempty"`
	HAEnabled   *bool  `json:"configurationEx.dasConfig.enabled,omitempty"`
}

// VCenterRDMADevice is one HostRdmaDevice.
type VCenterRDMADevice struct {
	Device       string `json:"device"`
	Driver       string `json:"driver,omitempty"`
	Description  string `json:"description,omitempty"`
	PairedUplink string `json:"backing.pairedUplink,omitempty"`
	State        string `json:"connectionInfo.state,omitempty"`
	MTU          int32  `json:"connectionInfo.mtu,omitempty"`
	SpeedMbps    int32  `json:"connectionInfo.speedInMbps,omitempty"`
	RoCEv1       bool   `json:"capability.roceV1Capable,omitempty"`
	RoCEv2       bool   `json:"capability.roceV2Capable,omitempty"`
	IWARP        bool   `json:"capability.iWarpCapable,omitempty"`
}

// VCenterVnic is one HostVirtualNic.
type VCenterVnic struct {
	Device       string `json:"device"`
	Portgroup    string `json:"portgroup,omitempty"`
	Netstack     string `json:"spec.netStackInstanceKey,omitempty"`
	MAC          string `json:"spec.mac,omitempty"`
	MTU          int32  `json:"spec.mtu,omitempty"`
	IP           string `json:"spec.ip.ipAddress,omitempty"`
	Netmask      string `json:"spec.ip.subnetMask,omitempty"`
	DHCP         bool   `json:"spec.ip.dhcp,omitempty"`
	DVSUUID      string `json:"spec.distributedVirtualPort.switchUuid,omitempty"`
	PortgroupKey string `json:"spec.distributedVirtualPort.portgroupKey,omitempty"`
	Port         string `json:"spec.distributedVirtualPort.portKey,omitempty"`
}

// VCenterDVS is one distributed switch as seen from one host.
type VCenterDVS struct {
	Name   string `json:"name"`
	UUID   string `json:"uuid"`
	MaxMTU int32  `json:"config.maxMtu,omitempty"`
	// UplinkPortNames are the switch's uplink names (config.uplinkPortPolicy).
	UplinkPortNames []string `json:"config.uplinkPortPolicy.uplinkPortName,omitempty"`
	// HostUplinks are this host's physical NICs on the switch
	// (config.network.proxySwitch[].spec.backing.pnicSpec[].pnicDevice).
	HostUplinks []string `json:"proxySwitch.pnicDevice,omitempty"`
	// HostMTU is the host proxy switch's MTU (config.network.proxySwitch[].mtu).
	HostMTU int32 `json:"proxySwitch.mtu,omitempty"`
}

// VCenterRuleset is one HostFirewallRuleset.
type VCenterRuleset struct {
	Key     string        `json:"key"`
	Enabled bool          `json:"enabled"`
	Rules   []VCenterRule `json:"rule,omitempty"`
}

// VCenterRule is one HostFirewallRule.
type VCenterRule struct {
	Port      int32  `json:"port"`
	EndPort   int32  `json:"endPort,omitempty"`
	Direction string `json:"direction"`
	PortType  string `json:"portType,omitempty"`
	Protocol  string `json:"protocol"`
}

// VCenterHost is what `vcenter host config` gives, as the facts of the
// esxcli commands that report the same things; the facts builder uses
// each where SSH gave none.
type VCenterHost struct {
	Host          string            `json:"host"`
	RDMADevices   []RDMADevice      `json:"rdma_devices,omitempty"`
	RDMAProtocols []RDMAProtocol    `json:"rdma_protocols,omitempty"`
	Vmknics       []Vmknic          `json:"vmknics,omitempty"`
	IPv4          []IPv4Interface   `json:"ipv4,omitempty"`
	DVSwitches    []DVSwitch        `json:"dv_switches,omitempty"`
	PVRDMAVmknic  *AdvancedSetting  `json:"pvrdma_vmknic,omitempty"`
	Rulesets      []FirewallRuleset `json:"firewall_rulesets,omitempty"`
	PVRDMARules   []FirewallRule    `json:"pvrdma_rules,omitempty"`
	// Parent is the host's parent (VCenterHostDoc.Parent; "" when the
	// document does not say).
	Parent string `json:"parent,omitempty"`
	// RDMADeviceList is where config.network.rdmaDevice was read: the
	// evidence of a host vCenter lists no RDMA device for.
	RDMADeviceList Ref `json:"rdma_device_list"`
	// Cluster is the host's cluster as vCenter configures it (nil: in no
	// cluster, or not read).
	Cluster *ClusterInfo `json:"cluster,omitempty"`
	Ref
}

// ClusterInfo is what decides whether DRS and vSphere HA can place VMs on
// a host: its cluster's name and configuration, each value with where it
// was read.
type ClusterInfo struct {
	Name string `json:"name"`
	// DRS and HA are nil when vCenter did not report them.
	DRS         *bool  `json:"drs_enabled,omitempty"`
	DRSBehavior string `json:"drs_behavior,omitempty"`
	HA          *bool  `json:"ha_enabled,omitempty"`
	// DRSRef and HARef point at the values (Property: the property path
	// and value, "cluster.configurationEx.drsConfig.enabled = true").
	DRSRef Ref `json:"drs_ref"`
	HARef  Ref `json:"ha_ref"`
	Ref
}

// PVRDMAVmknicOption is the advanced option naming the PVRDMA vmknic.
const PVRDMAVmknicOption = "Net.PVRDMAVmknic"

// lines indexes a document rendered one item per line: each line that
// opens an object is keyed by its first member (`"device":"vmk1"`), so a
// fact can point at the line it was read from.
type lines struct {
	ls    []line
	first map[string]Ref
}

func indexLines(text string) *lines {
	l := &lines{ls: splitLines(text), first: map[string]Ref{}}
	for _, ln := range l.ls {
		t := strings.TrimSpace(ln.text)
		if !strings.HasPrefix(t, "{") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(t))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			continue
		}
		k, err1 := dec.Token()
		v, err2 := dec.Token()
		key, ok := k.(string)
		if err1 != nil || err2 != nil || !ok {
			continue
		}
		id := jsonKey(key, fmt.Sprint(v))
		if _, dup := l.first[id]; !dup {
			l.first[id] = ln.ref()
		}
	}
	return l
}

// at returns where the item whose first member is k: v was read; other
// members are searched for (one-off keys such as an option).
func (l *lines) at(k, v string) Ref {
	id := jsonKey(k, v)
	if r, ok := l.first[id]; ok {
		return r
	}
	for _, ln := range l.ls {
		if strings.Contains(ln.text, id) {
			return ln.ref()
		}
	}
	return l.top()
}

// property returns the line holding the document's top-level key (its
// first occurrence as a key), with the text "key = value".
func (l *lines) property(key, value string) Ref {
	k := jsonString(key) + ":"
	for _, ln := range l.ls {
		if strings.HasPrefix(strings.TrimLeft(ln.text, "{ \t"), k) {
			r := ln.ref()
			r.Property = key + " = " + value
			return r
		}
	}
	r := l.top()
	r.Property = key + " = " + value
	return r
}

// top is the document's first line: where an item that is not on a line
// of its own (a hand-edited document) is said to be read.
func (l *lines) top() Ref {
	if len(l.ls) == 0 {
		return Ref{}
	}
	return l.ls[0].ref()
}

// next returns the first line from *i on that starts with prefix, and
// moves *i past it (items of a document are found in order).
func (l *lines) next(i *int, prefix string) Ref {
	for j := *i; j < len(l.ls); j++ {
		if strings.HasPrefix(l.ls[j].text, prefix) {
			*i = j + 1
			return l.ls[j].ref()
		}
	}
	return l.top()
}

func jsonKey(k, v string) string { return jsonString(k) + ":" + jsonString(v) }

// VCenterVMConfig reads `vcenter vm config` into one VMConfig per VM
// (Source "vcenter").
func VCenterVMConfig(text string) ([]VMConfig, error) {
	var doc VCenterVMDoc
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, &Error{Msg: "not the JSON document of `vcenter vm config`: " + err.Error()}
	}
	var out []VMConfig
	var sk skips
	idx := indexLines(text)
	pos := 0
	for _, vm := range doc.VMs {
		ref := idx.next(&pos, `{"name":`+jsonString(vm.Name))
		if strings.TrimSpace(vm.Name) == "" {
			sk.add(ref, nil, "a VM without a name")
			continue
		}
		c := VMConfig{Source: "vcenter", Name: vm.Name, UUID: vm.UUID, InstanceUUID: vm.InstanceUUID,
			ConfigFile: vm.ConfigFile, GuestOS: vm.GuestID, Firmware: vm.Firmware, MemoryMB: vm.MemoryMB, Ref: ref}
		if v, ok := strings.CutPrefix(vm.Version, "vmx-"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				c.HWVersion = n
			}
		}
		if vm.MemReservationMB != nil {
			c.MemReservationMB, c.MemReservationSet = *vm.MemReservationMB, true
		}
		if vm.MemLockedToMax != nil {
			c.MemLockedToMax, c.MemLockedToMaxSet = *vm.MemLockedToMax, true
		}
		c.PowerState = vm.PowerState
		c.Guest = vcenterGuest(vm)
		if len(vm.ExtraConfig) > 0 {
			c.Extra = map[string]string{}
			for k, v := range vm.ExtraConfig {
				c.Extra[k] = v
			}
		}
		c.Refs = vcenterVMRefs(vm, ref)
		for _, a := range vm.Adapters {
			ad := VMAdapter{Label: a.Label, Type: a.Type, Device: a.Device, MAC: a.MAC, Network: a.Network, DVSUUID: a.DVSUUID,
				DVSName: a.DVSName, PortgroupKey: a.PortgroupKey, DeviceProtocol: a.DeviceProtocol,
				Ref: idx.next(&pos, `{"label":`+jsonString(a.Label))}
			if a.Connected != nil {
				ad.Connected, ad.ConnectedSet = *a.Connected, true
			}
			if a.StartConnected != nil {
				ad.StartConnected, ad.StartConnectedSet = *a.StartConnected, true
			}
			ad.Refs = vcenterAdapterRefs(a, ad.Ref)
			c.Adapters = append(c.Adapters, ad)
		}
		for _, p := range vm.Passthrough {
			c.Passthrough = append(c.Passthrough, PassthroughDevice{Label: p.Label, ID: p.ID, VendorID: p.VendorID, DeviceID: p.DeviceID,
				Ref: idx.next(&pos, `{"label":`+jsonString(p.Label))})
		}
		out = append(out, c)
	}
	return result(out, len(out), sk)
}

// vcenterVMRefs points each value of a VM read from vCenter at its line,
// with the text a person looks for: the vSphere property path and the
// value ("config.memoryAllocation.reservation = 0"), not the whole line.
func vcenterVMRefs(vm VCenterVM, at Ref) map[string]Ref {
	refs := map[string]Ref{}
	set := func(field, path string, value any) {
		r := at
		r.Property = fmt.Sprintf("%s = %v", path, value)
		refs[field] = r
	}
	if vm.Version != "" {
		set("HWVersion", "config.version", vm.Version)
	}
	if vm.GuestID != "" {
		set("GuestOS", "config.guestId", vm.GuestID)
	}
	if vm.Firmware != "" {
		set("Firmware", "config.firmware", vm.Firmware)
	}
	if vm.MemoryMB > 0 {
		set("MemoryMB", "config.hardware.memoryMB", vm.MemoryMB)
	}
	if vm.MemReservationMB != nil {
		set("MemReservationMB", "config.memoryAllocation.reservation", *vm.MemReservationMB)
	}
	if vm.MemLockedToMax != nil {
		set("MemLockedToMax", "config.memoryReservationLockedToMax", *vm.MemLockedToMax)
	}
	if vm.PowerState != "" {
		set("PowerState", "runtime.powerState", vm.PowerState)
	}
	for k, v := range vm.ExtraConfig {
		set(k, "config.extraConfig["+k+"]", v)
	}
	return refs
}

// vcenterAdapterRefs is vcenterVMRefs for an adapter: the device's path
// names it by its label (config.hardware.device[Network adapter 2]).
func vcenterAdapterRefs(a VCenterAdapter, at Ref) map[string]Ref {
	refs := map[string]Ref{}
	dev := "config.hardware.device[" + a.Label + "]"
	set := func(field, path string, value any) {
		r := at
		r.Property = fmt.Sprintf("%s.%s = %v", dev, path, value)
		refs[field] = r
	}
	kind := map[string]string{"vrdma": "VirtualVmxnet3Vrdma", "vmxnet3": "VirtualVmxnet3", "e1000e": "VirtualE1000e", "e1000": "VirtualE1000",
		"sriov": "VirtualSriovEthernetCard"}[a.Type]
	if kind == "" {
		kind = a.Type
	}
	set("Type", "type", kind)
	if a.Connected != nil {
		set("Connected", "connectable.connected", *a.Connected)
	}
	if a.StartConnected != nil {
		set("StartConnected", "connectable.startConnected", *a.StartConnected)
	}
	switch {
	case a.DVSUUID != "":
		sw := a.DVSUUID
		if a.DVSName != "" {
			sw += " (" + a.DVSName + ")"
		}
		set("DVSUUID", "backing.port.switchUuid", sw)
		net := a.PortgroupKey
		if a.Network != "" && a.Network != net {
			net += " (" + a.Network + ")"
		}
		set("Network", "backing.port.portgroupKey", net)
	case a.Network != "":
		set("Network", "backing.deviceName", a.Network)
	}
	if a.DeviceProtocol != "" {
		set("DeviceProtocol", "deviceProtocol", a.DeviceProtocol)
	}
	return refs
}

// vcenterGuest is what VMware Tools reports of the guest (nil: nothing).
// Values are kept as vCenter gives them: whoever dials an address
// validates it first (they come from the guest).
func vcenterGuest(vm VCenterVM) *VMGuest {
	if vm.GuestHostName == "" && vm.GuestIP == "" && vm.ToolsStatus == "" && len(vm.GuestNet) == 0 {
		return nil
	}
	g := &VMGuest{HostName: vm.GuestHostName, IPAddress: vm.GuestIP, ToolsRunningStatus: vm.ToolsStatus}
	for _, n := range vm.GuestNet {
		nic := VMGuestNIC{MAC: strings.ToLower(n.MAC), IPs: append([]string(nil), n.IPs...), Network: n.Network}
		if n.Connected != nil {
			nic.Connected, nic.ConnectedSet = *n.Connected, true
		}
		g.NICs = append(g.NICs, nic)
	}
	return g
}

// VCenterHostConfig reads `vcenter host config` into the facts of the
// esxcli commands that report the same things.
func VCenterHostConfig(text string) (VCenterHost, error) {
	var doc VCenterHostDoc
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return VCenterHost{}, &Error{Msg: "not the JSON document of `vcenter host config`: " + err.Error()}
	}
	h := VCenterHost{Host: doc.Host, Parent: doc.Parent}
	idx := indexLines(text)
	at := idx.at
	h.Ref = idx.top()
	if doc.Parent != "" {
		h.Ref.Property = "parent = " + doc.Parent
	}
	h.RDMADeviceList = idx.property("config.network.rdmaDevice", fmt.Sprintf("%d devices", len(doc.RDMADevices)))
	if len(doc.RDMADevices) == 0 {
		h.RDMADeviceList.Property = "config.network.rdmaDevice = [] (no RDMA device)"
	}
	if cl := doc.Cluster; cl != nil {
		ref := idx.property("cluster", cl.Name)
		ci := &ClusterInfo{Name: cl.Name, DRS: cl.DRSEnabled, DRSBehavior: cl.DRSBehavior, HA: cl.HAEnabled, Ref: ref}
		ci.DRSRef, ci.HARef = ref, ref
		ci.Ref.Property = "cluster.name = " + cl.Name
		if cl.DRSEnabled != nil {
			ci.DRSRef.Property = fmt.Sprintf("cluster.configurationEx.drsConfig.enabled = %t", *cl.DRSEnabled)
			if cl.DRSBehavior != "" {
				ci.DRSRef.Property += ", defaultVmBehavior = " + cl.DRSBehavior
			}
		}
		if cl.HAEnabled != nil {
			ci.HARef.Property = fmt.Sprintf("cluster.configurationEx.dasConfig.enabled = %t", *cl.HAEnabled)
		}
		h.Cluster = ci
	}
	for _, d := range doc.RDMADevices {
		ref := at("device", d.Device)
		dev := "config.network.rdmaDevice[" + d.Device + "]"
		h.RDMADevices = append(h.RDMADevices, RDMADevice{Name: d.Device, Driver: d.Driver, State: rdmaState(d.State),
			MTU: int(d.MTU), SpeedMbps: int(d.SpeedMbps), Speed: speedText(d.SpeedMbps), PairedUplink: d.PairedUplink,
			Description: d.Description, Ref: withText(ref, fmt.Sprintf("%s: connectionInfo.state = %s, backing.pairedUplink = %s",
				dev, orNA(d.State), orNA(d.PairedUplink)))})
		h.RDMAProtocols = append(h.RDMAProtocols, RDMAProtocol{Device: d.Device, RoCEv1: d.RoCEv1, RoCEv2: d.RoCEv2, IWARP: d.IWARP,
			Ref: withText(ref, fmt.Sprintf("%s.capability: roceV1Capable = %t, roceV2Capable = %t", dev, d.RoCEv1, d.RoCEv2))})
	}
	dvsName := map[string]string{}
	for _, s := range doc.Switches {
		dvsName[s.UUID] = s.Name
	}
	for _, v := range doc.Vnics {
		ref := at("device", v.Device)
		netstack := v.Netstack
		if netstack == "" {
			netstack = "defaultTcpipStack"
		}
		vk := Vmknic{Name: v.Device, MAC: v.MAC, Enabled: true, Portgroup: v.Portgroup, Netstack: netstack,
			VDSName: dvsName[v.DVSUUID], VDSPort: v.Port, MTU: int(v.MTU), Ref: ref}
		if v.DVSUUID != "" && vk.VDSName == "" {
			vk.VDSName = v.DVSUUID
		}
		if vk.Portgroup == "" && v.PortgroupKey != "" {
			vk.Portgroup = v.PortgroupKey
		}
		vnic := "config.network.vnic[" + v.Device + "]"
		vk.Ref = withText(ref, vnic)
		vk.Record = record(vk.Ref, "Name", v.Device, "MAC Address", v.MAC, "Portgroup", vk.Portgroup, "Netstack Instance", netstack,
			"VDS Name", orNA(vk.VDSName), "VDS Port", orNA(v.Port), "MTU", strconv.Itoa(int(v.MTU)))
		paths(&vk.Record, vnic, "Name", "device", "MAC Address", "spec.mac", "Portgroup", "portgroup", "Netstack Instance", "spec.netStackInstanceKey",
			"VDS Name", "spec.distributedVirtualPort.switchUuid", "VDS Port", "spec.distributedVirtualPort.portKey", "MTU", "spec.mtu")
		h.Vmknics = append(h.Vmknics, vk)
		if v.IP != "" || v.DHCP {
			typ := "STATIC"
			if v.DHCP {
				typ = "DHCP"
			}
			h.IPv4 = append(h.IPv4, IPv4Interface{Name: v.Device, Address: v.IP, Netmask: v.Netmask, AddressType: typ,
				Ref: withText(ref, fmt.Sprintf("%s.spec.ip.ipAddress = %s", vnic, orNA(v.IP)))})
		}
	}
	for _, s := range doc.Switches {
		ref := at("uuid", s.UUID)
		mtu := int(s.MaxMTU)
		if s.HostMTU > 0 {
			mtu = int(s.HostMTU)
		}
		proxy := "config.network.proxySwitch[" + s.Name + "]"
		sw := DVSwitch{Name: s.Name, VDSID: s.UUID, MTU: mtu, Uplinks: append([]string(nil), s.HostUplinks...), Ref: withText(ref, proxy)}
		sw.Record = record(sw.Ref, "Name", s.Name, "VDS ID", s.UUID, "MTU", strconv.Itoa(mtu), "Uplinks", strings.Join(s.HostUplinks, ", "))
		mtuPath := "mtu"
		if s.HostMTU <= 0 {
			mtuPath = "(config.maxMtu of the vDS)"
		}
		paths(&sw.Record, proxy, "Name", "dvsName", "VDS ID", "dvsUuid", "MTU", mtuPath, "Uplinks", "spec.backing.pnicSpec")
		h.DVSwitches = append(h.DVSwitches, sw)
	}
	if v, ok := doc.Options[PVRDMAVmknicOption]; ok {
		ref := at(PVRDMAVmknicOption, v)
		ref = withText(ref, fmt.Sprintf("advancedOption %s = %q", PVRDMAVmknicOption, v))
		h.PVRDMAVmknic = &AdvancedSetting{Path: "/Net/PVRDMAVmknic", Type: "string", StringValue: v, Ref: ref,
			Record: record(ref, "Path", "/Net/PVRDMAVmknic", "Type", "string", "String Value", v)}
	}
	for _, rs := range doc.Rulesets {
		ref := withText(at("key", rs.Key), fmt.Sprintf("config.firewall.ruleset[%s].enabled = %t", rs.Key, rs.Enabled))
		h.Rulesets = append(h.Rulesets, FirewallRuleset{Name: rs.Key, Enabled: rs.Enabled, Ref: ref})
		if rs.Key != "pvrdma" {
			continue
		}
		for _, ru := range rs.Rules {
			end := ru.EndPort
			if end == 0 {
				end = ru.Port
			}
			h.PVRDMARules = append(h.PVRDMARules, FirewallRule{Ruleset: rs.Key, Direction: capital(ru.Direction),
				Protocol: strings.ToUpper(ru.Protocol), PortType: capital(ru.PortType), PortBegin: int(ru.Port), PortEnd: int(end), Ref: ref})
		}
	}
	return h, nil
}

// withText is ref with what a person looks for in a vCenter document's
// line: the property path and its value (Ref.Property).
func withText(ref Ref, property string) Ref {
	ref.Property = property
	return ref
}

// paths gives each field of a record read from vCenter the property
// "PREFIX.PATH = VALUE" (field, path pairs).
func paths(r *Record, prefix string, fieldPath ...string) {
	for i := 0; i+1 < len(fieldPath); i += 2 {
		f, ok := r.Field(fieldPath[i])
		if !ok {
			continue
		}
		sep := "."
		if strings.HasPrefix(fieldPath[i+1], "(") {
			sep = " "
		}
		f.Property = prefix + sep + fieldPath[i+1] + " = " + f.Value
		r.Set(fieldPath[i], f)
	}
}

// record builds a Record of key/value pairs, all read at ref.
func record(ref Ref, kv ...string) Record {
	r := Record{Ref: ref, fields: make([]recField, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Set(kv[i], Field{Value: kv[i+1], Ref: ref})
	}
	return r
}

func orNA(s string) string {
	if s == "" {
		return "N/A"
	}
	return s
}

// rdmaState spells a HostRdmaDeviceConnectionState as esxcli does
// ("active" -> "Active").
func rdmaState(s string) string {
	if s == "activeDefer" {
		return "Active_defer"
	}
	return capital(s)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func speedText(mbps int32) string {
	switch {
	case mbps <= 0:
		return ""
	case mbps%1000 == 0:
		return fmt.Sprintf("%d Gbps", mbps/1000)
	}
	return fmt.Sprintf("%d Mbps", mbps)
}

// RenderVCenterVMs renders a `vcenter vm config` document: stable JSON,
// one VM per line (VMs in the order given, map keys sorted).
func RenderVCenterVMs(doc VCenterVMDoc) string {
	var b bytes.Buffer
	b.WriteString(`{"host":` + jsonString(doc.Host) + `,"vms":[`)
	for i, vm := range doc.VMs {
		if i > 0 {
			b.WriteByte(',')
		}
		// The VM's own properties on one line, each adapter and
		// passthrough device on a line of its own.
		head := vm
		head.Adapters, head.Passthrough = nil, nil
		line, _ := json.Marshal(head)
		b.WriteByte('\n')
		b.Write(line[:len(line)-1])
		if len(vm.Adapters) > 0 {
			b.WriteString(`,"adapters":[`)
			writeItems(&b, vm.Adapters)
			b.WriteByte(']')
		}
		if len(vm.Passthrough) > 0 {
			b.WriteString(`,"passthrough":[`)
			writeItems(&b, vm.Passthrough)
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	if len(doc.VMs) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.String()
}

// RenderVCenterHost renders a `vcenter host config` document: stable
// JSON, each device, vmknic, switch and ruleset on its own line.
func RenderVCenterHost(doc VCenterHostDoc) string {
	var b bytes.Buffer
	head := struct {
		Host            string `json:"host"`
		MoRef           string `json:"moref,omitempty"`
		Version         string `json:"config.product.version,omitempty"`
		Build           string `json:"config.product.build,omitempty"`
		ConnectionState string `json:"runtime.connectionState,omitempty"`
		Parent          string `json:"parent,omitempty"`
	}{doc.Host, doc.MoRef, doc.Version, doc.Build, doc.ConnectionState, doc.Parent}
	h, _ := json.Marshal(head)
	b.Write(h[:len(h)-1])
	b.WriteString(",\n\"config.network.rdmaDevice\":[")
	writeItems(&b, doc.RDMADevices)
	b.WriteString("],\n\"config.network.vnic\":[")
	writeItems(&b, doc.Vnics)
	b.WriteString("],\n\"dvs\":[")
	writeItems(&b, doc.Switches)
	opts, _ := json.Marshal(doc.Options)
	b.WriteString("],\n\"advancedOption\":" + string(opts) + ",\n\"config.firewall.ruleset\":[")
	writeItems(&b, doc.Rulesets)
	b.WriteString("]")
	if doc.Cluster != nil {
		cl, _ := json.Marshal(doc.Cluster)
		b.WriteString(",\n\"cluster\":" + string(cl))
	}
	b.WriteString("}\n")
	return b.String()
}

// writeItems writes a JSON array's items, each on its own line.
func writeItems[T any](b *bytes.Buffer, items []T) {
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		line, _ := json.Marshal(it)
		b.WriteByte('\n')
		b.Write(line)
	}
	if len(items) > 0 {
		b.WriteByte('\n')
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
