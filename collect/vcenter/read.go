package vcenter

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Host is one ESXi host of the vCenter inventory.
type Host struct {
	// Name is the host's inventory name (what SSH dials and reports show).
	Name            string                       `json:"name"`
	Ref             types.ManagedObjectReference `json:"-"`
	ConnectionState string                       `json:"connection_state,omitempty"`
}

// The properties read, one PropertyCollector retrieval per object type
// (`scan --dry-run --vcenter` lists them).
var (
	HostProps = []string{"name", "parent", "runtime.connectionState", "config.product", "config.network.rdmaDevice",
		"config.network.vnic", "config.network.proxySwitch", "config.firewall", "configManager.advancedOption"}
	VMProps = []string{"name", "runtime.host", "runtime.powerState", "config.uuid", "config.instanceUuid",
		"config.files.vmPathName", "config.version", "config.guestId", "config.firmware", "config.hardware.memoryMB",
		"config.hardware.device", "config.memoryAllocation", "config.memoryReservationLockedToMax", "config.extraConfig",
		"guest.hostName", "guest.ipAddress", "guest.toolsRunningStatus", "guest.net"}
	DVSProps       = []string{"name", "uuid", "config", "summary.hostMember"}
	PortgroupProps = []string{"name", "key"}
	// ClusterProps: each cluster's hosts and its DRS and HA configuration
	// (where DRS and HA can place PVRDMA VMs).
	ClusterProps = []string{"name", "host", "configurationEx"}
)

// scope is the inventory root discovery searches under, and the root of
// the datacenter holding it (VMs and switches live beside clusters, not
// below them).
func (c *Client) scope(ctx context.Context) (hosts, dc types.ManagedObjectReference, err error) {
	root := c.vc.ServiceContent.RootFolder
	hosts, dc = root, root
	if c.cfg.Datacenter != "" {
		ref, err := c.findNamed(ctx, root, "Datacenter", c.cfg.Datacenter, "--datacenter")
		if err != nil {
			return hosts, dc, err
		}
		hosts, dc = ref, ref
	}
	if c.cfg.Cluster != "" {
		ref, err := c.findNamed(ctx, dc, "ClusterComputeResource", c.cfg.Cluster, "--cluster")
		if err != nil {
			return hosts, dc, err
		}
		hosts = ref
	}
	return hosts, dc, nil
}

// findNamed finds the one object of a type with a name below root.
func (c *Client) findNamed(ctx context.Context, root types.ManagedObjectReference, kind, name, flag string) (types.ManagedObjectReference, error) {
	var objs []mo.ManagedEntity
	if err := c.retrieve(ctx, root, kind, []string{"name"}, &objs); err != nil {
		return types.ManagedObjectReference{}, err
	}
	var names []string
	var found []types.ManagedObjectReference
	for _, o := range objs {
		names = append(names, o.Name)
		if o.Name == name {
			found = append(found, o.Self)
		}
	}
	what := map[string]string{"Datacenter": "datacenter", "ClusterComputeResource": "cluster"}[kind]
	switch len(found) {
	case 0:
		sort.Strings(names)
		known := "none"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return types.ManagedObjectReference{}, fmt.Errorf("%s %s: no %s named %q in vCenter %s (%ss: %s)", flag, name, what, name, c.url.Host, what, known)
	case 1:
		return found[0], nil
	}
	return types.ManagedObjectReference{}, fmt.Errorf("%s %s: %d %ss have this name; add --datacenter to choose", flag, name, len(found), what)
}

// retrieve reads props of every object of kind below root: one
// PropertyCollector call through a container view.
func (c *Client) retrieve(ctx context.Context, root types.ManagedObjectReference, kind string, props []string, dst any) error {
	v, err := view.NewManager(c.vc).CreateContainerView(ctx, root, []string{kind}, true)
	if err != nil {
		return fmt.Errorf("vCenter %s: creating a view of %s: %w", c.url.Host, kind, err)
	}
	defer v.Destroy(context.WithoutCancel(ctx))
	if err := v.Retrieve(ctx, []string{kind}, props, dst); err != nil {
		return fmt.Errorf("vCenter %s: reading %s %s: %w", c.url.Host, kind, strings.Join(props, ","), err)
	}
	return nil
}

// Discover lists the ESXi hosts to scan (limited by --datacenter and
// --cluster), sorted by name.
func (c *Client) Discover(ctx context.Context) ([]Host, error) {
	root, _, err := c.scope(ctx)
	if err != nil {
		return nil, err
	}
	var hs []mo.HostSystem
	if err := c.retrieve(ctx, root, "HostSystem", []string{"name", "runtime.connectionState"}, &hs); err != nil {
		return nil, err
	}
	out := make([]Host, 0, len(hs))
	for _, h := range hs {
		out = append(out, Host{Name: h.Name, Ref: h.Self, ConnectionState: string(h.Runtime.ConnectionState)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Read reads the configuration of the given hosts and of their PVRDMA and
// passthrough VMs (one retrieval per object type for the whole scope) and
// returns each host's two captures by host name.
func (c *Client) Read(ctx context.Context, hosts []Host) (map[string][]hostio.Capture, error) {
	start := time.Now()
	_, dc, err := c.scope(ctx)
	if err != nil {
		return nil, err
	}
	byRef := map[types.ManagedObjectReference]string{}
	for _, h := range hosts {
		byRef[h.Ref] = h.Name
	}
	var hs []mo.HostSystem
	var dvss []mo.DistributedVirtualSwitch
	var pgs []mo.DistributedVirtualPortgroup
	var vms []mo.VirtualMachine
	var clusters []mo.ClusterComputeResource
	for _, r := range []struct {
		kind  string
		props []string
		dst   any
	}{{"HostSystem", HostProps, &hs}, {"DistributedVirtualSwitch", DVSProps, &dvss},
		{"DistributedVirtualPortgroup", PortgroupProps, &pgs}, {"VirtualMachine", VMProps, &vms},
		{"ClusterComputeResource", ClusterProps, &clusters}} {
		if err := c.retrieve(ctx, dc, r.kind, r.props, r.dst); err != nil {
			return nil, err
		}
	}
	inv := newInventory(dvss, pgs)
	inv.clusters = clusterOf(clusters)
	inv.options = c.pvrdmaOptions(ctx, hs, byRef)
	vmDocs := map[string]*parse.VCenterVMDoc{}
	for _, h := range hosts {
		vmDocs[h.Name] = &parse.VCenterVMDoc{Host: h.Name, VMs: []parse.VCenterVM{}}
	}
	for i := range vms {
		vm := &vms[i]
		if vm.Runtime.Host == nil {
			continue
		}
		doc, ok := vmDocs[byRef[*vm.Runtime.Host]]
		if !ok {
			continue
		}
		if v, ok := inv.vm(vm); ok {
			doc.VMs = append(doc.VMs, v)
		}
	}
	dur := time.Since(start)
	out := map[string][]hostio.Capture{}
	for i := range hs {
		name, ok := byRef[hs[i].Self]
		if !ok {
			continue
		}
		doc := vmDocs[name]
		sort.SliceStable(doc.VMs, func(a, b int) bool { return doc.VMs[a].Name < doc.VMs[b].Name })
		hostCap := capture(name, catalog.VCenterHostLine, catalog.KindVCenterHost, "", start, dur)
		if state := hs[i].Runtime.ConnectionState; hs[i].Config == nil || state != "" && state != types.HostSystemConnectionStateConnected {
			// vCenter's copy of a disconnected host's configuration is not
			// current: it must not stand in for what SSH did not read.
			hostCap.Status = hostio.StatusFailed
			hostCap.Error = fmt.Sprintf("vCenter %s reports %s %s: its configuration is not current", c.url.Host, name, orState(state))
		} else {
			hostCap.Stdout = parse.RenderVCenterHost(inv.host(&hs[i]))
		}
		out[name] = []hostio.Capture{hostCap,
			capture(name, catalog.VCenterVMLine, catalog.KindVCenterVMs, parse.RenderVCenterVMs(*doc), start, dur)}
	}
	return out, nil
}

func capture(host, line string, kind hostio.Kind, stdout string, start time.Time, dur time.Duration) hostio.Capture {
	return hostio.Capture{Host: host, Command: line, Kind: kind, Stdout: stdout, Status: hostio.StatusCollected,
		Start: start, Duration: dur, Transport: hostio.TransportVCenter}
}

// inventory resolves switch and port group names.
type inventory struct {
	// options holds each host's Net.PVRDMAVmknic (absent: not known).
	options   map[types.ManagedObjectReference]string
	dvs       []mo.DistributedVirtualSwitch
	dvsByUUID map[string]*mo.DistributedVirtualSwitch
	pgName    map[string]string
	// clusters holds the cluster of each clustered host.
	clusters map[types.ManagedObjectReference]*parse.VCenterCluster
}

// clusterOf maps each clustered host to its cluster's name and DRS and
// HA configuration (an unset value stays unset: unknown).
func clusterOf(clusters []mo.ClusterComputeResource) map[types.ManagedObjectReference]*parse.VCenterCluster {
	out := map[types.ManagedObjectReference]*parse.VCenterCluster{}
	for i := range clusters {
		cl := &clusters[i]
		vc := &parse.VCenterCluster{Name: cl.Name}
		if cfg, ok := cl.ConfigurationEx.(*types.ClusterConfigInfoEx); ok {
			vc.DRSEnabled = cfg.DrsConfig.Enabled
			vc.DRSBehavior = string(cfg.DrsConfig.DefaultVmBehavior)
			vc.HAEnabled = cfg.DasConfig.Enabled
		}
		for _, h := range cl.Host {
			out[h] = vc
		}
	}
	return out
}

func newInventory(dvss []mo.DistributedVirtualSwitch, pgs []mo.DistributedVirtualPortgroup) *inventory {
	inv := &inventory{dvs: dvss, dvsByUUID: map[string]*mo.DistributedVirtualSwitch{}, pgName: map[string]string{}}
	for i := range dvss {
		inv.dvsByUUID[dvss[i].Uuid] = &dvss[i]
	}
	for _, pg := range pgs {
		inv.pgName[pg.Self.Value] = pg.Name
		if pg.Key != "" {
			inv.pgName[pg.Key] = pg.Name
		}
	}
	sort.Slice(inv.dvs, func(i, j int) bool { return inv.dvs[i].Name < inv.dvs[j].Name })
	return inv
}

// vm converts one VM; ok is false for a VM with neither a PVRDMA adapter
// nor a PCI passthrough device (the checks do not read those).
func (inv *inventory) vm(vm *mo.VirtualMachine) (parse.VCenterVM, bool) {
	out := parse.VCenterVM{Name: vm.Name, MoRef: vm.Self.Value, PowerState: string(vm.Runtime.PowerState)}
	cfg := vm.Config
	if cfg == nil {
		return out, false
	}
	out.UUID, out.InstanceUUID, out.Version, out.GuestID, out.Firmware = cfg.Uuid, cfg.InstanceUuid, cfg.Version, cfg.GuestId, cfg.Firmware
	out.ConfigFile = cfg.Files.VmPathName
	out.MemoryMB = int64(cfg.Hardware.MemoryMB)
	if a := cfg.MemoryAllocation; a != nil && a.Reservation != nil {
		r := *a.Reservation
		out.MemReservationMB = &r
	}
	out.MemLockedToMax = cfg.MemoryReservationLockedToMax
	if g := vm.Guest; g != nil {
		out.GuestHostName, out.GuestIP, out.ToolsStatus = g.HostName, g.IpAddress, g.ToolsRunningStatus
		for _, n := range g.Net {
			conn := n.Connected
			out.GuestNet = append(out.GuestNet, parse.VCenterGuestNIC{MAC: n.MacAddress, IPs: n.IpAddress, Connected: &conn, Network: n.Network})
		}
	}
	for _, o := range cfg.ExtraConfig {
		ov := o.GetOptionValue()
		k := strings.ToLower(ov.Key)
		if strings.HasPrefix(k, "vrdma") || strings.HasPrefix(k, "pcipassthru") {
			if out.ExtraConfig == nil {
				out.ExtraConfig = map[string]string{}
			}
			out.ExtraConfig[ov.Key] = fmt.Sprint(ov.Value)
		}
	}
	pvrdma := false
	for _, d := range cfg.Hardware.Device {
		switch dev := d.(type) {
		case types.BaseVirtualEthernetCard:
			a := inv.adapter(d, dev)
			// govc names a device as govmomi's device list does.
			a.Device = object.VirtualDeviceList(cfg.Hardware.Device).Name(d)
			pvrdma = pvrdma || a.Type == "vrdma"
			out.Adapters = append(out.Adapters, a)
		case *types.VirtualPCIPassthrough:
			out.Passthrough = append(out.Passthrough, passthrough(dev))
		}
	}
	return out, pvrdma || len(out.Passthrough) > 0
}

func label(d types.BaseVirtualDevice) string {
	if info := d.GetVirtualDevice().DeviceInfo; info != nil {
		if l := info.GetDescription().Label; l != "" {
			return l
		}
	}
	return fmt.Sprintf("device %d", d.GetVirtualDevice().Key)
}

func (inv *inventory) adapter(d types.BaseVirtualDevice, dev types.BaseVirtualEthernetCard) parse.VCenterAdapter {
	card := dev.GetVirtualEthernetCard()
	a := parse.VCenterAdapter{Label: label(d), Key: card.Key, MAC: card.MacAddress}
	switch e := d.(type) {
	case *types.VirtualVmxnet3Vrdma:
		a.Type, a.DeviceProtocol = "vrdma", e.DeviceProtocol
	case *types.VirtualVmxnet3:
		a.Type = "vmxnet3"
	case *types.VirtualE1000e:
		a.Type = "e1000e"
	case *types.VirtualE1000:
		a.Type = "e1000"
	case *types.VirtualPCNet32:
		a.Type = "pcnet32"
	case *types.VirtualSriovEthernetCard:
		a.Type = "sriov"
	case *types.VirtualVmxnet2:
		a.Type = "vmxnet2"
	default:
		a.Type = strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", d), "*types.Virtual"))
	}
	if ci := card.Connectable; ci != nil {
		conn, start := ci.Connected, ci.StartConnected
		a.Connected, a.StartConnected = &conn, &start
	}
	switch b := card.Backing.(type) {
	case *types.VirtualEthernetCardDistributedVirtualPortBackingInfo:
		a.DVSUUID, a.PortgroupKey = b.Port.SwitchUuid, b.Port.PortgroupKey
		a.Network = inv.pgName[b.Port.PortgroupKey]
		if s := inv.dvsByUUID[b.Port.SwitchUuid]; s != nil {
			a.DVSName = s.Name
		}
	case *types.VirtualEthernetCardNetworkBackingInfo:
		a.Network = b.DeviceName
	case *types.VirtualEthernetCardOpaqueNetworkBackingInfo:
		a.Network = b.OpaqueNetworkId
	}
	return a
}

func passthrough(dev *types.VirtualPCIPassthrough) parse.VCenterPassthrough {
	p := parse.VCenterPassthrough{Label: label(dev)}
	switch b := dev.Backing.(type) {
	case *types.VirtualPCIPassthroughDeviceBackingInfo:
		p.ID, p.DeviceID, p.DeviceName = b.Id, hex16(b.DeviceId), b.DeviceName
		p.VendorID = fmt.Sprintf("0x%04x", uint16(b.VendorId))
	case *types.VirtualPCIPassthroughDynamicBackingInfo:
		p.DeviceName = "dynamic DirectPath I/O " + b.CustomLabel
		for _, a := range b.AllowedDevice {
			p.VendorID, p.DeviceID = fmt.Sprintf("0x%04x", uint16(a.VendorId)), fmt.Sprintf("0x%04x", uint16(a.DeviceId))
			break
		}
	case *types.VirtualPCIPassthroughVmiopBackingInfo:
		p.DeviceName = "vGPU " + b.Vgpu
	}
	return p
}

// hex16 writes a PCI device ID as vSphere stores it (a decimal int16 as a
// string, "7864") in the 0x form esxcli prints ("0x1eb8").
func hex16(s string) string {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		return s
	}
	return fmt.Sprintf("0x%04x", uint16(int16(n)))
}

// host converts one host's configuration.
func (inv *inventory) host(h *mo.HostSystem) parse.VCenterHostDoc {
	doc := parse.VCenterHostDoc{Host: h.Name, MoRef: h.Self.Value, ConnectionState: string(h.Runtime.ConnectionState), Parent: parentOf(h),
		RDMADevices: []parse.VCenterRDMADevice{}, Vnics: []parse.VCenterVnic{}, Switches: []parse.VCenterDVS{},
		Options: map[string]string{}, Rulesets: []parse.VCenterRuleset{}}
	cfg := h.Config
	if cfg == nil {
		return doc
	}
	doc.Version, doc.Build = cfg.Product.Version, cfg.Product.Build
	proxy := map[string]types.HostProxySwitch{}
	if n := cfg.Network; n != nil {
		for _, d := range n.RdmaDevice {
			r := parse.VCenterRDMADevice{Device: d.Device, Driver: d.Driver, Description: d.Description,
				State: d.ConnectionInfo.State, MTU: d.ConnectionInfo.Mtu, SpeedMbps: d.ConnectionInfo.SpeedInMbps}
			if b, ok := d.Backing.(*types.HostRdmaDevicePnicBacking); ok {
				r.PairedUplink = b.PairedUplink
			}
			cp := d.Capability
			r.RoCEv1, r.RoCEv2, r.IWARP = cp.RoceV1Capable, cp.RoceV2Capable, cp.IWarpCapable
			doc.RDMADevices = append(doc.RDMADevices, r)
		}
		for _, v := range n.Vnic {
			vn := parse.VCenterVnic{Device: v.Device, Portgroup: v.Portgroup, Netstack: v.Spec.NetStackInstanceKey, MAC: v.Spec.Mac, MTU: v.Spec.Mtu}
			if ip := v.Spec.Ip; ip != nil {
				vn.IP, vn.Netmask, vn.DHCP = ip.IpAddress, ip.SubnetMask, ip.Dhcp
			}
			if p := v.Spec.DistributedVirtualPort; p != nil {
				vn.DVSUUID, vn.PortgroupKey, vn.Port = p.SwitchUuid, p.PortgroupKey, p.PortKey
				if vn.Portgroup == "" {
					vn.Portgroup = inv.pgName[p.PortgroupKey]
				}
			}
			doc.Vnics = append(doc.Vnics, vn)
		}
		for _, p := range n.ProxySwitch {
			proxy[p.DvsUuid] = p
		}
	}
	for i := range inv.dvs {
		s := &inv.dvs[i]
		p, onProxy := proxy[s.Uuid]
		member := onProxy
		for _, m := range s.Summary.HostMember {
			member = member || m == h.Self
		}
		if !member {
			continue
		}
		d := parse.VCenterDVS{Name: s.Name, UUID: s.Uuid, HostMTU: p.Mtu}
		if c, ok := s.Config.(*types.VMwareDVSConfigInfo); ok {
			d.MaxMTU = c.MaxMtu
		}
		if s.Config != nil {
			if up, ok := s.Config.GetDVSConfigInfo().UplinkPortPolicy.(*types.DVSNameArrayUplinkPortPolicy); ok {
				d.UplinkPortNames = up.UplinkPortName
			}
		}
		if b, ok := p.Spec.Backing.(*types.DistributedVirtualSwitchHostMemberPnicBacking); ok {
			for _, ps := range b.PnicSpec {
				d.HostUplinks = append(d.HostUplinks, ps.PnicDevice)
			}
		}
		doc.Switches = append(doc.Switches, d)
	}
	if v, ok := inv.options[h.Self]; ok {
		doc.Options[parse.PVRDMAVmknicOption] = v
	}
	if cl := inv.clusters[h.Self]; cl != nil {
		c := *cl
		doc.Cluster = &c
	}
	if fw := cfg.Firewall; fw != nil {
		for _, rs := range fw.Ruleset {
			r := parse.VCenterRuleset{Key: rs.Key, Enabled: rs.Enabled}
			for _, ru := range rs.Rule {
				r.Rules = append(r.Rules, parse.VCenterRule{Port: ru.Port, EndPort: ru.EndPort, Direction: string(ru.Direction),
					PortType: string(ru.PortType), Protocol: ru.Protocol})
			}
			doc.Rulesets = append(doc.Rulesets, r)
		}
	}
	return doc
}

// parentOf names the host's parent as TYPE:ID (ClusterComputeResource for
// a clustered host, ComputeResource for a standalone one).
func parentOf(h *mo.HostSystem) string {
	if h.Parent == nil {
		return ""
	}
	return h.Parent.Type + ":" + h.Parent.Value
}

func orState(s types.HostSystemConnectionState) string {
	if s == "" {
		return "without a configuration"
	}
	return string(s)
}

// optionQueries bounds the concurrent OptionManager calls.
const optionQueries = 16

// pvrdmaOptions reads Net.PVRDMAVmknic from each host's OptionManager: one
// small call per host (config.option would carry every advanced option of
// every host, about a thousand each), at most optionQueries at a time. A
// host that does not answer has no entry (the option stays unknown).
func (c *Client) pvrdmaOptions(ctx context.Context, hs []mo.HostSystem, want map[types.ManagedObjectReference]string) map[types.ManagedObjectReference]string {
	out := map[types.ManagedObjectReference]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, optionQueries)
	for i := range hs {
		h := &hs[i]
		if _, ok := want[h.Self]; !ok || h.ConfigManager.AdvancedOption == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			vals, err := object.NewOptionManager(c.vc, *h.ConfigManager.AdvancedOption).Query(ctx, parse.PVRDMAVmknicOption)
			if err != nil {
				return
			}
			for _, o := range vals {
				if ov := o.GetOptionValue(); ov.Key == parse.PVRDMAVmknicOption {
					mu.Lock()
					out[h.Self] = fmt.Sprint(ov.Value)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return out
}
