// Package vcsim is a simulated vCenter for the demo, the tests and the
// benchmark: govmomi's vCenter simulator (vcsim) in-process, on loopback,
// over TLS and the real vSphere API protocol, with an inventory of ESXi
// hosts, distributed switches and PVRDMA VMs built from an Inventory. What
// vcsim does not model (RDMA devices, vmknic MTUs, proxy switches, a
// per-host firewall) is injected into its objects through the simulator
// registry, as ../shared/knowledge/go-stack.md describes.
package vcsim

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"slices"
	"sync"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/vim25/types"
)

// Inventory describes the simulated vCenter: one datacenter "DC0" with one
// cluster holding the hosts, and optionally more clusters.
type Inventory struct {
	Cluster string
	// ClusterConfig is the DRS and HA configuration of that cluster.
	ClusterConfig ClusterConfig
	// Clusters are more clusters of the datacenter, each holding the
	// hosts it names (taken out of the first cluster).
	Clusters []Cluster
	Hosts    []Host
	Switches []Switch
	// User and Password are the only credentials accepted.
	User, Password string
}

// ClusterConfig is a cluster's DRS and vSphere HA configuration
// (configurationEx.drsConfig, configurationEx.dasConfig).
type ClusterConfig struct {
	DRS bool
	// DRSBehavior is drsConfig.defaultVmBehavior (default fullyAutomated).
	DRSBehavior types.DrsBehavior
	HA          bool
}

// Cluster is a further cluster: its name, configuration and hosts.
type Cluster struct {
	Name string
	ClusterConfig
	Hosts []string
}

// Switch is a distributed switch every host joins.
type Switch struct {
	Name string
	// UUID, when set, replaces the UUID vcsim gives the switch (the "VDS
	// ID" its hosts print and its VMs' .vmx files name).
	UUID    string
	MaxMTU  int32
	Uplinks []string // uplink port names
	// Portgroups are its distributed port groups.
	Portgroups []string
	// Members names the hosts that join the switch (nil: every host).
	Members []string
}

// member reports whether the switch has the host as a member.
func (sw Switch) member(host string) bool {
	return sw.Members == nil || slices.Contains(sw.Members, host)
}

// Host is one ESXi host.
type Host struct {
	Name string
	RDMA []types.HostRdmaDevice
	// Vnics are added to the host's config.network.vnic (vmk0 exists
	// unless ReplaceVnics); a distributed port may name its switch and
	// port group (SwitchUuid, PortgroupKey), replaced by their UUID and key.
	Vnics        []types.HostVirtualNic
	ReplaceVnics bool
	// Options are advanced options (Net.PVRDMAVmknic).
	Options map[string]string
	// PVRDMAFirewall enables the pvrdma ruleset.
	PVRDMAFirewall bool
	// Uplinks maps a switch name to the host's vmnics on it.
	Uplinks map[string][]string
	VMs     []VM
}

// VM is one virtual machine on a host.
type VM struct {
	Name, UUID, Version, GuestID, Firmware string
	MemoryMB                               int64
	ReservationMB                          int64
	LockedToMax                            bool
	Extra                                  map[string]string
	Adapters                               []Adapter
	Passthrough                            []types.VirtualPCIPassthroughDeviceBackingInfo
	// PoweredOff leaves the VM off (adapters then report not connected).
	PoweredOff bool
	// Guest, when set, is what VMware Tools reports (injected after power
	// on: vcsim models no Tools).
	Guest *Guest
	// Unmodelled says what of the VM's configuration the simulator
	// cannot hold (vcsim ignores it; tests read it).
	Unmodelled string
}

// Guest is a VM's guest identity as VMware Tools reports it.
type Guest struct {
	HostName  string
	IPAddress string
	// ToolsRunningStatus defaults to guestToolsRunning.
	ToolsRunningStatus string
	// IPs are each adapter's addresses, by index in VM.Adapters.
	IPs map[int][]string
}

// Adapter is a network adapter: PVRDMA (Protocol set, or PVRDMA true) on a
// distributed port group (Switch and Portgroup), or on a standard port
// group (Portgroup alone, added to the host's vSwitch0; "VM Network" when
// neither is set), or a vmxnet3.
type Adapter struct {
	PVRDMA         bool
	Protocol       string
	Switch         string
	Portgroup      string
	Disconnected   bool
	NoStartConnect bool
	// MAC, when set, is the adapter's address (else vcsim generates one).
	MAC string
	// Label, when set, is its label ("Network adapter 2", as the vSphere
	// Client numbers a VM's adapters), else vcsim's.
	Label string
}

// Server is a running simulated vCenter.
type Server struct {
	// URL is the SDK URL, without credentials.
	URL *url.URL
	// Thumbprint is the SHA-1 fingerprint of its certificate (as vcsim's
	// helpers give it); CertificatePEM-free tests pin it.
	Server *simulator.Server
	model  *simulator.Model
}

// createMu serializes Model.Create, which writes package-level state of
// the simulator (go-stack.md §1).
var createMu sync.Mutex

// Start builds the inventory and serves it on 127.0.0.1.
func Start(inv Inventory) (*Server, error) {
	m := simulator.VPX()
	m.Datacenter, m.Cluster, m.ClusterHost, m.Host, m.Machine, m.Pool, m.Portgroup = 1, 1, len(inv.Hosts), 0, 0, 0, 0
	createMu.Lock()
	err := m.Create()
	createMu.Unlock()
	if err != nil {
		return nil, err
	}
	m.Service.TLS = new(tls.Config)
	m.Service.Listen = &url.URL{Host: "127.0.0.1:0", User: url.UserPassword(inv.User, inv.Password)}
	s := m.Service.NewServer()
	srv := &Server{Server: s, model: m}
	u := *s.URL
	u.User = nil
	srv.URL = &u
	if err := build(m, s, inv); err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

// Close stops the server and removes the model's files.
func (s *Server) Close() {
	s.Server.Close()
	s.model.Remove()
}

func build(m *simulator.Model, s *simulator.Server, inv Inventory) error {
	ctx := context.Background()
	u := *s.URL
	u.User = url.UserPassword(inv.User, inv.Password)
	c, err := govmomi.NewClient(ctx, &u, true)
	if err != nil {
		return err
	}
	defer c.Logout(ctx)
	reg := m.Service.Context.Map
	f := find.NewFinder(c.Client, true)
	dc, err := f.DefaultDatacenter(ctx)
	if err != nil {
		return err
	}
	f.SetDatacenter(dc)
	folders, err := dc.Folders(ctx)
	if err != nil {
		return err
	}
	clusters, err := f.ClusterComputeResourceList(ctx, "*")
	if err != nil || len(clusters) != 1 {
		return fmt.Errorf("vcsim cluster: %v", err)
	}
	cluster := clusters[0]
	if inv.Cluster != "" {
		if err := wait(cluster.Rename(ctx, inv.Cluster)); err != nil {
			return err
		}
	}
	hosts, err := cluster.Hosts(ctx)
	if err != nil {
		return err
	}
	pool, err := cluster.ResourcePool(ctx)
	if err != nil {
		return err
	}
	// Switches and port groups, every host a member.
	switches := map[string]*dvsInfo{}
	for _, sw := range inv.Switches {
		di, err := createSwitch(ctx, c, reg, folders.NetworkFolder, hosts, inv.Hosts, sw)
		if err != nil {
			return err
		}
		switches[sw.Name] = di
	}
	for i, hs := range inv.Hosts {
		h := hosts[i]
		shost := reg.Get(h.Reference()).(*simulator.HostSystem)
		// Each host its own copies: vcsim shares the firewall ruleset
		// slice between hosts and models (go-stack.md §1).
		reg.WithLock(simulator.NewContext(), shost, func() { configureHost(shost, hs, inv.Switches, switches) })
		if err := setOptions(ctx, h, hs); err != nil {
			return err
		}
		for _, vm := range hs.VMs {
			if err := createVM(ctx, c, reg, folders, pool, h, vm, func(sw, pg string) (string, string, error) {
				return portOf(switches, vm, sw, pg)
			}); err != nil {
				return err
			}
		}
	}
	return arrange(ctx, folders, cluster, hosts, inv)
}

// dvsInfo is a distributed switch created in the simulator: its object,
// UUID and port groups.
type dvsInfo struct {
	obj  *object.DistributedVirtualSwitch
	uuid string
	pgs  map[string]string // name -> key
}

// createSwitch creates a distributed switch with its uplinks, MTU and
// port groups, its member hosts (every host the switch does not leave
// out) added, and the UUID the inventory gives it.
func createSwitch(ctx context.Context, c *govmomi.Client, reg *simulator.Registry, netFolder *object.Folder,
	hosts []*object.HostSystem, invHosts []Host, sw Switch) (*dvsInfo, error) {
	spec := types.DVSCreateSpec{ConfigSpec: &types.VMwareDVSConfigSpec{
		DVSConfigSpec: types.DVSConfigSpec{Name: sw.Name,
			UplinkPortPolicy: &types.DVSNameArrayUplinkPortPolicy{UplinkPortName: sw.Uplinks}},
		MaxMtu: sw.MaxMTU}}
	task, err := netFolder.CreateDVS(ctx, spec)
	if err != nil {
		return nil, err
	}
	info, err := task.WaitForResult(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", sw.Name, err)
	}
	dvs := object.NewDistributedVirtualSwitch(c.Client, info.Result.(types.ManagedObjectReference))
	var add []types.DistributedVirtualSwitchHostMemberConfigSpec
	for i, h := range hosts {
		if i < len(invHosts) && !sw.member(invHosts[i].Name) {
			continue
		}
		add = append(add, types.DistributedVirtualSwitchHostMemberConfigSpec{Operation: string(types.ConfigSpecOperationAdd), Host: h.Reference()})
	}
	if len(add) > 0 {
		if err := wait(dvs.Reconfigure(ctx, &types.DVSConfigSpec{Host: add})); err != nil {
			return nil, err
		}
	}
	var pgSpecs []types.DVPortgroupConfigSpec
	for _, pg := range sw.Portgroups {
		pgSpecs = append(pgSpecs, types.DVPortgroupConfigSpec{Name: pg, Type: string(types.DistributedVirtualPortgroupPortgroupTypeEarlyBinding), NumPorts: 32})
	}
	if len(pgSpecs) > 0 {
		if err := wait(dvs.AddPortgroup(ctx, pgSpecs)); err != nil {
			return nil, err
		}
	}
	sdvs := reg.Get(dvs.Reference()).(*simulator.DistributedVirtualSwitch)
	if sw.UUID != "" {
		reg.WithLock(simulator.NewContext(), sdvs, func() {
			sdvs.Uuid, sdvs.Summary.Uuid = sw.UUID, sw.UUID
			if cfg, ok := sdvs.Config.(*types.VMwareDVSConfigInfo); ok {
				cfg.Uuid = sw.UUID
			}
		})
	}
	di := &dvsInfo{obj: dvs, uuid: sdvs.Uuid, pgs: map[string]string{}}
	for _, ref := range sdvs.Portgroup {
		pg := reg.Get(ref).(*simulator.DistributedVirtualPortgroup)
		di.pgs[pg.Name] = pg.Key
	}
	return di, nil
}

// configureHost gives a simulated host (under its lock) its name, RDMA
// devices, vmknics, proxy switches and firewall, each its own copy.
func configureHost(shost *simulator.HostSystem, hs Host, invSwitches []Switch, switches map[string]*dvsInfo) {
	// vcsim implements no Rename_Task for hosts: name them here.
	shost.Name, shost.Summary.Config.Name = hs.Name, hs.Name
	cfg := shost.Config
	net := *cfg.Network
	net.RdmaDevice = slices.Clone(hs.RDMA)
	if hs.ReplaceVnics {
		net.Vnic = slices.Clone(hs.Vnics)
	} else {
		net.Vnic = append(slices.Clone(net.Vnic), hs.Vnics...)
	}
	net.ProxySwitch = nil
	for _, sw := range invSwitches {
		if !sw.member(hs.Name) {
			continue
		}
		di := switches[sw.Name]
		var pnics []types.DistributedVirtualSwitchHostMemberPnicSpec
		for _, p := range hs.Uplinks[sw.Name] {
			pnics = append(pnics, types.DistributedVirtualSwitchHostMemberPnicSpec{PnicDevice: p})
		}
		net.ProxySwitch = append(net.ProxySwitch, types.HostProxySwitch{DvsUuid: di.uuid, DvsName: sw.Name, Mtu: sw.MaxMTU,
			Spec: types.HostProxySwitchSpec{Backing: &types.DistributedVirtualSwitchHostMemberPnicBacking{PnicSpec: pnics}}})
	}
	// A vmknic's port may name its switch and port group: use
	// their UUID and key, as vCenter does.
	for j := range net.Vnic {
		if p := net.Vnic[j].Spec.DistributedVirtualPort; p != nil {
			if di, ok := switches[p.SwitchUuid]; ok {
				p.SwitchUuid = di.uuid
				if key, ok := di.pgs[p.PortgroupKey]; ok {
					p.PortgroupKey = key
				}
			}
		}
	}
	cfg.Network = &net
	fw := esx.HostFirewallInfo
	fw.Ruleset = slices.Clone(esx.HostFirewallInfo.Ruleset)
	for k := range fw.Ruleset {
		if fw.Ruleset[k].Key == "pvrdma" {
			fw.Ruleset[k].Enabled = hs.PVRDMAFirewall
		}
	}
	cfg.Firewall = &fw
}

// setOptions sets a host's advanced options through its OptionManager,
// as an admin would set them.
func setOptions(ctx context.Context, h *object.HostSystem, hs Host) error {
	if len(hs.Options) == 0 {
		return nil
	}
	om, err := h.ConfigManager().OptionManager(ctx)
	if err != nil {
		return err
	}
	var opts []types.BaseOptionValue
	for k, v := range hs.Options {
		opts = append(opts, &types.OptionValue{Key: k, Value: v})
	}
	if err := om.Update(ctx, opts); err != nil {
		return fmt.Errorf("%s: setting %v: %w", hs.Name, hs.Options, err)
	}
	return nil
}

// portOf returns the UUID of a VM adapter's switch and the key of its
// port group.
func portOf(switches map[string]*dvsInfo, vm VM, sw, pg string) (string, string, error) {
	di := switches[sw]
	if di == nil {
		return "", "", fmt.Errorf("VM %s: no switch %q", vm.Name, sw)
	}
	key, ok := di.pgs[pg]
	if !ok {
		return "", "", fmt.Errorf("VM %s: no port group %q on %s", vm.Name, pg, sw)
	}
	return di.uuid, key, nil
}

// arrange configures DRS and HA of the first cluster, creates the further
// clusters and moves their hosts out of it, as an admin would: into
// maintenance mode, moved, out of maintenance mode.
func arrange(ctx context.Context, folders *object.DatacenterFolders, first *object.ClusterComputeResource,
	hosts []*object.HostSystem, inv Inventory) error {
	if err := configure(ctx, first, inv.ClusterConfig); err != nil {
		return err
	}
	byName := map[string]*object.HostSystem{}
	for i, h := range hosts {
		if i < len(inv.Hosts) {
			byName[inv.Hosts[i].Name] = h
		}
	}
	for _, cl := range inv.Clusters {
		obj, err := folders.HostFolder.CreateCluster(ctx, cl.Name, types.ClusterConfigSpecEx{})
		if err != nil {
			return fmt.Errorf("creating cluster %s: %w", cl.Name, err)
		}
		if err := configure(ctx, obj, cl.ClusterConfig); err != nil {
			return err
		}
		var hs []*object.HostSystem
		for _, n := range cl.Hosts {
			h, ok := byName[n]
			if !ok {
				return fmt.Errorf("cluster %s: no host %q", cl.Name, n)
			}
			if err := wait(h.EnterMaintenanceMode(ctx, 0, false, nil)); err != nil {
				return fmt.Errorf("%s: entering maintenance mode: %w", n, err)
			}
			hs = append(hs, h)
		}
		if len(hs) == 0 {
			continue
		}
		if err := wait(obj.MoveInto(ctx, hs...)); err != nil {
			return fmt.Errorf("moving hosts into %s: %w", cl.Name, err)
		}
		for _, h := range hs {
			if err := wait(h.ExitMaintenanceMode(ctx, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}

// configure sets a cluster's DRS and HA configuration.
func configure(ctx context.Context, cl *object.ClusterComputeResource, cfg ClusterConfig) error {
	behavior := cfg.DRSBehavior
	if behavior == "" {
		behavior = types.DrsBehaviorFullyAutomated
	}
	spec := &types.ClusterConfigSpecEx{
		DrsConfig: &types.ClusterDrsConfigInfo{Enabled: types.NewBool(cfg.DRS), DefaultVmBehavior: behavior},
		DasConfig: &types.ClusterDasConfigInfo{Enabled: types.NewBool(cfg.HA)},
	}
	return wait(cl.Reconfigure(ctx, spec, true))
}

func wait(t *object.Task, err error) error {
	if err != nil {
		return err
	}
	return t.Wait(context.Background())
}

func createVM(ctx context.Context, c *govmomi.Client, reg *simulator.Registry, folders *object.DatacenterFolders, pool *object.ResourcePool,
	h *object.HostSystem, vm VM, port func(sw, pg string) (string, string, error)) error {
	spec := types.VirtualMachineConfigSpec{Name: vm.Name, Uuid: vm.UUID, Version: vm.Version, GuestId: vm.GuestID,
		Firmware: vm.Firmware, MemoryMB: vm.MemoryMB, NumCPUs: 2,
		Files: &types.VirtualMachineFileInfo{VmPathName: "[LocalDS_0]"}}
	if vm.ReservationMB > 0 {
		spec.MemoryAllocation = &types.ResourceAllocationInfo{Reservation: types.NewInt64(vm.ReservationMB)}
	}
	if vm.LockedToMax {
		spec.MemoryReservationLockedToMax = types.NewBool(true)
	}
	for k, v := range vm.Extra {
		spec.ExtraConfig = append(spec.ExtraConfig, &types.OptionValue{Key: k, Value: v})
	}
	var devices object.VirtualDeviceList
	for i, a := range vm.Adapters {
		std := "VM Network"
		if a.Switch == "" && a.Portgroup != "" && a.Portgroup != std {
			std = a.Portgroup
			if err := standardPortgroup(ctx, h, std); err != nil {
				return err
			}
		}
		var backing types.BaseVirtualDeviceBackingInfo = &types.VirtualEthernetCardNetworkBackingInfo{
			VirtualDeviceDeviceBackingInfo: types.VirtualDeviceDeviceBackingInfo{DeviceName: std}}
		if a.Switch != "" {
			uuid, key, err := port(a.Switch, a.Portgroup)
			if err != nil {
				return err
			}
			backing = &types.VirtualEthernetCardDistributedVirtualPortBackingInfo{Port: types.DistributedVirtualSwitchPortConnection{SwitchUuid: uuid, PortgroupKey: key}}
		}
		kind := "vmxnet3"
		if a.PVRDMA || a.Protocol != "" {
			kind = "vmxnet3vrdma"
		}
		d, err := devices.CreateEthernetCard(kind, backing)
		if err != nil {
			return err
		}
		if r, ok := d.(*types.VirtualVmxnet3Vrdma); ok {
			r.DeviceProtocol = a.Protocol
		}
		card := d.(types.BaseVirtualEthernetCard).GetVirtualEthernetCard()
		card.Key = int32(-100 - i)
		if a.Label != "" {
			card.DeviceInfo = &types.Description{Label: a.Label, Summary: a.Label}
		}
		if a.MAC != "" {
			card.MacAddress, card.AddressType = a.MAC, string(types.VirtualEthernetCardMacTypeManual)
		}
		card.Connectable = &types.VirtualDeviceConnectInfo{Connected: !a.Disconnected, StartConnected: !a.NoStartConnect, AllowGuestControl: true}
		devices = append(devices, d)
	}
	for i := range vm.Passthrough {
		b := vm.Passthrough[i]
		devices = append(devices, &types.VirtualPCIPassthrough{VirtualDevice: types.VirtualDevice{Key: int32(-200 - i), Backing: &b}})
	}
	var err error
	spec.DeviceChange, err = devices.ConfigSpec(types.VirtualDeviceConfigSpecOperationAdd)
	if err != nil {
		return err
	}
	task, err := folders.VmFolder.CreateVM(ctx, spec, pool, h)
	if err != nil {
		return err
	}
	info, err := task.WaitForResult(ctx, nil)
	if err != nil {
		return fmt.Errorf("creating VM %s: %w", vm.Name, err)
	}
	if vm.PoweredOff {
		return nil
	}
	ref := info.Result.(types.ManagedObjectReference)
	if err := wait(object.NewVirtualMachine(c.Client, ref).PowerOn(ctx)); err != nil {
		return err
	}
	if vm.Guest != nil {
		setGuest(reg, ref, vm)
	}
	return nil
}

// standardPortgroup adds a port group to the host's vSwitch0 (once).
func standardPortgroup(ctx context.Context, h *object.HostSystem, name string) error {
	ns, err := h.ConfigManager().NetworkSystem(ctx)
	if err != nil {
		return err
	}
	err = ns.AddPortGroup(ctx, types.HostPortGroupSpec{Name: name, VswitchName: "vSwitch0"})
	if err != nil && fault.Is(err, &types.DuplicateName{}) {
		return nil
	}
	return err
}

// setGuest injects what VMware Tools would report: vcsim keeps one
// guest.net entry per adapter (in device order, no addresses).
func setGuest(reg *simulator.Registry, ref types.ManagedObjectReference, vm VM) {
	svm := reg.Get(ref).(*simulator.VirtualMachine)
	g := vm.Guest
	reg.WithLock(simulator.NewContext(), svm, func() {
		status := g.ToolsRunningStatus
		if status == "" {
			status = string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
		}
		svm.Guest.ToolsRunningStatus, svm.Guest.HostName, svm.Guest.IpAddress = status, g.HostName, g.IPAddress
		svm.Summary.Guest.ToolsRunningStatus, svm.Summary.Guest.HostName, svm.Summary.Guest.IpAddress = status, g.HostName, g.IPAddress
		for i := range svm.Guest.Net {
			if i < len(vm.Adapters) {
				svm.Guest.Net[i].IpAddress = slices.Clone(g.IPs[i])
			}
		}
	})
}

// SetConnectionState sets a host's runtime.connectionState (a host vCenter
// lost).
func (s *Server) SetConnectionState(host string, state types.HostSystemConnectionState) error {
	reg := s.model.Service.Context.Map
	for _, ref := range reg.All("HostSystem") {
		h := ref.(*simulator.HostSystem)
		if h.Name == host {
			reg.WithLock(simulator.NewContext(), h, func() { h.Runtime.ConnectionState = state })
			return nil
		}
	}
	return fmt.Errorf("no host %s", host)
}
