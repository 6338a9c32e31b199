package cli

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vmware/govmomi/vim25/types"

	"github.com/pvrdma-doctor/pvrdma-doctor/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
	"github.com/pvrdma-doctor/pvrdma-doctor/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/vcenter/vcsim"
)

// scenarioVCenter is a running simulated vCenter of a scenario.
type scenarioVCenter struct {
	*vcsim.Server
	User, Password string
	Cluster        string
	// Thumbprint is its certificate's SHA-256 fingerprint (hex).
	Thumbprint string
}

// startScenarioVCenter starts the simulated vCenter of a scenario: its
// hosts, their distributed switches and PVRDMA VMs, as the scenario's own
// outputs describe them, on 127.0.0.1 over TLS, with a random password.
//
// guests are the lab's guests: each VM with one reports its addresses
// through VMware Tools (demo_vcenter_guests.go).
func startScenarioVCenter(sc *fixtures.Scenario, guests []lab.HostInfo) (*scenarioVCenter, error) {
	pw := make([]byte, 12)
	_, _ = rand.Read(pw)
	inv := scenarioInventory(sc, guestAddrs(guests))
	inv.User, inv.Password = "administrator@vsphere.local", hex.EncodeToString(pw)
	s, err := vcsim.Start(inv)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(s.Server.Certificate().Raw)
	return &scenarioVCenter{Server: s, User: inv.User, Password: inv.Password, Cluster: inv.Cluster, Thumbprint: hex.EncodeToString(sum[:])}, nil
}

// demoVCenter starts the scenario's simulated vCenter and reads it as
// `scan --vcenter` reads a real one: over TLS with the certificate
// pinned, one PropertyCollector pass per type.
func demoVCenter(ctx context.Context, sc *fixtures.Scenario, guests []lab.HostInfo) (*vcenterData, func(), error) {
	s, err := startScenarioVCenter(sc, guests)
	if err != nil {
		return nil, nil, err
	}
	d, err := readVCenterWith(ctx, vcenter.Config{URL: s.URL.String(), User: s.User, Password: s.Password,
		Thumbprint: s.Thumbprint, Cluster: s.Cluster}, 15*time.Second, time.Minute)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return d, func() { d.close(); s.Close() }, nil
}

// scenarioInventory builds the simulated vCenter's inventory from what the
// scenario's hosts print: their distributed switches (`esxcli network
// vswitch dvs vmware list`), their PVRDMA VMs (the VMs of `esxcli vm
// process list` whose world has a PVRDMA backend in the vsish listing),
// each VM's .vmx when the scenario has it, its PVRDMA vmknic setting and
// firewall ruleset; a VM whose guest is served at guests[name] reports
// the guest's addresses.
func scenarioInventory(sc *fixtures.Scenario, guests map[string]string) vcsim.Inventory {
	inv := vcsim.Inventory{Cluster: "pvrdma-demo"}
	seen := map[string]bool{}
	for _, h := range sc.Hosts {
		out := func(line string) string { return h.Respond(line).Stdout }
		host := vcsim.Host{Name: h.Name, Uplinks: map[string][]string{}, Options: map[string]string{}}
		dvss, _ := parse.DVSList(out("esxcli network vswitch dvs vmware list"))
		for _, d := range dvss {
			if !seen[d.Name] {
				seen[d.Name] = true
				inv.Switches = append(inv.Switches, vcsim.Switch{Name: d.Name, UUID: d.VDSID, MaxMTU: int32(d.MTU), Uplinks: []string{"uplink1", "uplink2"}, Portgroups: []string{"pvrdma-pg"}})
			}
			host.Uplinks[d.Name] = d.Uplinks
		}
		if s, err := parse.AdvancedSettingList(out("esxcli system settings advanced list -o /Net/PVRDMAVmknic")); err == nil {
			host.Options[parse.PVRDMAVmknicOption] = s.StringValue
		}
		if rs, err := parse.FirewallRulesetList(out("esxcli network firewall ruleset list")); err == nil {
			for _, r := range rs {
				host.PVRDMAFirewall = host.PVRDMAFirewall || r.Name == "pvrdma" && r.Enabled
			}
		}
		host.RDMA = scenarioRDMA(out)
		host.Vnics, host.ReplaceVnics = scenarioVnics(out)
		worlds := map[string]bool{}
		listing, _ := parse.VsishLs(out("vsish -e ls " + catalog.PVRDMADevicesDir))
		for _, e := range listing {
			w, _, _ := strings.Cut(e.Name, "_")
			worlds[w] = true
		}
		vms, _ := parse.VMProcessList(out("esxcli vm process list"))
		dvsName := ""
		if len(dvss) > 0 {
			dvsName = dvss[0].Name
		}
		for _, p := range vms {
			if !worlds[p.WorldID] || dvsName == "" {
				continue
			}
			vm := demoVM(h, p, dvsName)
			if addr := guests[p.DisplayName]; addr != "" {
				// A VM with a lab guest: its PVRDMA MACs (the .vmx's),
				// management NIC and VMware Tools' addresses.
				if vmx, ok := scenarioVMX(h, p.ConfigFile); ok {
					vmxMACs(&vm, vmx)
				}
				withGuest(&vm, sc.Guest(p.DisplayName), addr)
			}
			host.VMs = append(host.VMs, vm)
		}
		inv.Hosts = append(inv.Hosts, host)
	}
	return inv
}

// demoVM is one PVRDMA VM: from its .vmx when the scenario has it, else
// configured as the seeds recommend (all memory reserved, hardware version
// 19, 64-bit Linux, a PVRDMA adapter on the host's distributed switch).
func demoVM(h *fixtures.Host, p parse.VMProcess, dvs string) vcsim.VM {
	vm := vcsim.VM{Name: p.DisplayName, UUID: biosUUID(p.UUID), Version: "vmx-19", GuestID: "ubuntu64Guest", Firmware: "efi",
		MemoryMB: 16384, ReservationMB: 16384, LockedToMax: true,
		Adapters: []vcsim.Adapter{{Protocol: "rocev2", Switch: dvs, Portgroup: "pvrdma-pg"}}}
	vmx, ok := scenarioVMX(h, p.ConfigFile)
	if !ok {
		return vm
	}
	if n, ok := vmx.VirtualHWVersion(); ok {
		vm.Version = "vmx-" + strconv.Itoa(n)
	}
	if n, ok := vmx.MemSizeMB(); ok {
		vm.MemoryMB = int64(n)
	}
	vm.ReservationMB, vm.LockedToMax = 0, vmx.MemPinned()
	if n, ok := vmx.MemMinMB(); ok {
		vm.ReservationMB = int64(n)
	}
	if g := vmx.Get("guestOS"); g != "" {
		vm.GuestID = guestID(g)
	}
	vm.Firmware = vmx.Firmware()
	if vm.Firmware == "" {
		vm.Firmware = "bios"
	}
	vm.Extra = map[string]string{}
	vm.Adapters = nil
	for _, e := range vmx.Entries {
		k := strings.ToLower(e.Key)
		if strings.HasPrefix(k, "vrdma") || strings.HasPrefix(k, "pcipassthru") {
			vm.Extra[e.Key] = e.Value
		}
	}
	for _, a := range vmx.PVRDMAAdapters() {
		n := strconv.Itoa(a.Ethernet)
		ad := vcsim.Adapter{PVRDMA: true, Protocol: "rocev2", Switch: dvs, Portgroup: "pvrdma-pg"}
		if v, ok := vmx.Bool("ethernet" + n + ".startConnected"); ok && !v {
			ad.NoStartConnect, ad.Disconnected = true, true
		}
		vm.Adapters = append(vm.Adapters, ad)
	}
	for i := 0; i < 8; i++ {
		id := vmx.Get("pciPassthru" + strconv.Itoa(i) + ".id")
		if id == "" {
			continue
		}
		vm.Passthrough = append(vm.Passthrough, types.VirtualPCIPassthroughDeviceBackingInfo{Id: id})
	}
	return vm
}

// scenarioVMX reads a VM's .vmx as the scan would: the catalogue's
// command for its Config File, answered by the scenario host.
func scenarioVMX(h *fixtures.Host, configFile string) (parse.VMXConfig, bool) {
	spec, ok := catalog.Lookup(hostio.KindVMX)
	if !ok {
		return parse.VMXConfig{}, false
	}
	c, err := spec.Command(configFile)
	if err != nil {
		return parse.VMXConfig{}, false
	}
	r := h.Respond(c.Line)
	if r.Stdout == "" {
		return parse.VMXConfig{}, false
	}
	vmx, err := parse.VMX(r.Stdout)
	if err != nil && len(vmx.Entries) == 0 {
		return parse.VMXConfig{}, false
	}
	return vmx, true
}

var reGuestBits = regexp.MustCompile(`^(.*?)(-64)?$`)

// guestID spells a .vmx guestOS ("ubuntu-64", "rhel8-64") as the vSphere
// API does ("ubuntu64Guest", "rhel8_64Guest").
func guestID(g string) string {
	m := reGuestBits.FindStringSubmatch(strings.TrimSpace(g))
	base, bits := m[1], ""
	if m[2] != "" {
		bits = "64"
		if base != "" && base[len(base)-1] >= '0' && base[len(base)-1] <= '9' {
			bits = "_64"
		}
	}
	return base + bits + "Guest"
}

// biosUUID converts esxcli's UUID ("42 1c 36 2f 61 d6 3e 0b-5f 0b 1d 0a
// 22 94 59 72") to the API's form ("421c362f-61d6-3e0b-5f0b-1d0a22945972").
func biosUUID(s string) string {
	h := strings.NewReplacer(" ", "", "-", "").Replace(s)
	if len(h) != 32 {
		return ""
	}
	if _, err := hex.DecodeString(h); err != nil {
		return ""
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// scenarioRDMA are the host's RDMA devices as vCenter lists them.
func scenarioRDMA(out func(string) string) []types.HostRdmaDevice {
	devs, _ := parse.RDMADeviceList(out("esxcli rdma device list"))
	protos, _ := parse.RDMAProtocolList(out("esxcli rdma device protocol list"))
	var res []types.HostRdmaDevice
	for _, d := range devs {
		r := types.HostRdmaDevice{Device: d.Name, Driver: d.Driver, Description: d.Description,
			Backing:        &types.HostRdmaDevicePnicBacking{PairedUplink: d.PairedUplink},
			ConnectionInfo: types.HostRdmaDeviceConnectionInfo{State: strings.ToLower(d.State), Mtu: int32(d.MTU), SpeedInMbps: int32(d.SpeedMbps)}}
		for _, p := range protos {
			if p.Device == d.Name {
				r.Capability = types.HostRdmaDeviceCapability{RoceV1Capable: p.RoCEv1, RoceV2Capable: p.RoCEv2, IWarpCapable: p.IWARP}
			}
		}
		res = append(res, r)
	}
	return res
}

// scenarioVnics are the host's vmknics as vCenter lists them (their
// distributed port naming the switch and port group by name).
func scenarioVnics(out func(string) string) ([]types.HostVirtualNic, bool) {
	vmks, err := parse.IPInterfaceList(out("esxcli network ip interface list"))
	if err != nil && len(vmks) == 0 {
		return nil, false
	}
	ips, _ := parse.IPv4Get(out("esxcli network ip interface ipv4 get"))
	var res []types.HostVirtualNic
	for _, v := range vmks {
		n := types.HostVirtualNic{Device: v.Name, Portgroup: v.Portgroup, Spec: types.HostVirtualNicSpec{Mac: v.MAC, Mtu: int32(v.MTU)}}
		if v.Netstack != "" && v.Netstack != "defaultTcpipStack" {
			n.Spec.NetStackInstanceKey = v.Netstack
		}
		for _, ip := range ips {
			if ip.Name == v.Name {
				n.Spec.Ip = &types.HostIpConfig{IpAddress: ip.Address, SubnetMask: ip.Netmask, Dhcp: strings.EqualFold(ip.AddressType, "DHCP")}
			}
		}
		if v.VDSName != "" {
			n.Portgroup = ""
			n.Spec.DistributedVirtualPort = &types.DistributedVirtualSwitchPortConnection{SwitchUuid: v.VDSName, PortgroupKey: "pvrdma-pg", PortKey: v.VDSPort}
		}
		res = append(res, n)
	}
	return res, true
}
