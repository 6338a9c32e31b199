package vcenter

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/vim25/types"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter/vcsim"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const testUser, testPassword = "administrator@vsphere.local", "s3cret-Pw"

// pvrdmaInventory is two hosts on a 9000-MTU vDS: esx01 fully set up for
// PVRDMA with two PVRDMA VMs (one healthy, one misconfigured) and a GPU
// VM; esx02 with nothing set.
func pvrdmaInventory() vcsim.Inventory {
	vnic := types.HostVirtualNic{Device: "vmk1", Portgroup: "", Spec: types.HostVirtualNicSpec{
		Mac: "00:50:56:aa:bb:01", Mtu: 9000,
		Ip:                     &types.HostIpConfig{IpAddress: "192.168.50.11", SubnetMask: "255.255.255.0"},
		DistributedVirtualPort: &types.DistributedVirtualSwitchPortConnection{PortgroupKey: "pg-rdma", PortKey: "12"}}}
	rdma := types.HostRdmaDevice{Device: "vmrdma0", Driver: "nmlx5_rdma", Description: "MT28800 Family [ConnectX-5 Ex]",
		Backing:        &types.HostRdmaDevicePnicBacking{PairedUplink: "vmnic1"},
		ConnectionInfo: types.HostRdmaDeviceConnectionInfo{State: "active", Mtu: 4096, SpeedInMbps: 100000},
		Capability:     types.HostRdmaDeviceCapability{RoceV1Capable: true, RoceV2Capable: true}}
	return vcsim.Inventory{
		User: testUser, Password: testPassword, Cluster: "rdma-cluster",
		Switches: []vcsim.Switch{{Name: "dvs-rdma", MaxMTU: 9000, Uplinks: []string{"uplink1", "uplink2"}, Portgroups: []string{"pg-rdma"}}},
		Hosts: []vcsim.Host{
			{Name: "esx01", RDMA: []types.HostRdmaDevice{rdma}, Vnics: []types.HostVirtualNic{vnic},
				Options: map[string]string{"Net.PVRDMAVmknic": "vmk1"}, PVRDMAFirewall: true,
				Uplinks: map[string][]string{"dvs-rdma": {"vmnic1"}},
				VMs: []vcsim.VM{
					{Name: "rdma-vm-a", UUID: "4203c2a1-1111-2222-3333-444455556666", Version: "vmx-19", GuestID: "ubuntu64Guest",
						Firmware: "efi", MemoryMB: 8192, ReservationMB: 8192, LockedToMax: true,
						Extra:    map[string]string{"vrdma0.nativeEndpointSupport": "TRUE", "tools.syncTime": "FALSE"},
						Adapters: []vcsim.Adapter{{}, {Protocol: "rocev2", Switch: "dvs-rdma", Portgroup: "pg-rdma"}}},
					{Name: "rdma-vm-b", Version: "vmx-11", GuestID: "windows9_64Guest", MemoryMB: 4096,
						Adapters: []vcsim.Adapter{{PVRDMA: true, Protocol: "rocev1", Switch: "dvs-rdma", Portgroup: "pg-rdma", Disconnected: true, NoStartConnect: true}}},
					{Name: "gpu-vm", Version: "vmx-19", GuestID: "ubuntu64Guest", Firmware: "bios", MemoryMB: 65536,
						Extra: map[string]string{"pciPassthru.use64bitMMIO": "TRUE", "pciPassthru.64bitMMIOSizeGB": "64"},
						Passthrough: []types.VirtualPCIPassthroughDeviceBackingInfo{{Id: "0000:3b:00.0", DeviceId: "8437", VendorId: 4318,
							VirtualDeviceDeviceBackingInfo: types.VirtualDeviceDeviceBackingInfo{DeviceName: "NVIDIA A100"}}}},
					{Name: "plain-vm", Version: "vmx-19", MemoryMB: 1024, Adapters: []vcsim.Adapter{{}}},
				}},
			{Name: "esx02"},
		},
	}
}

func startSim(t testing.TB, inv vcsim.Inventory) *vcsim.Server {
	t.Helper()
	s, err := vcsim.Start(inv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// simSession starts a simulated vCenter, logs in (certificate pinned) and
// discovers its hosts.
func simSession(t testing.TB, inv vcsim.Inventory, mod func(*Config)) (*vcsim.Server, *Client, []Host) {
	t.Helper()
	s := startSim(t, inv)
	c, err := connect(t, s, mod)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, c, hosts
}

func thumb(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	return hex.EncodeToString(sum[:])
}

func connect(t testing.TB, s *vcsim.Server, mod func(*Config)) (*Client, error) {
	t.Helper()
	cfg := Config{URL: s.URL.String(), User: testUser, Password: testPassword, Thumbprint: thumb(s.Server.Certificate())}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Connect(ctx, cfg)
}

func TestReadInventoryIntoFacts(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), func(c *Config) { c.Cluster = "rdma-cluster" })
	ctx := context.Background()
	if len(hosts) != 2 || hosts[0].Name != "esx01" || hosts[1].Name != "esx02" {
		t.Fatalf("hosts %+v", hosts)
	}
	caps, err := c.Read(ctx, hosts)
	if err != nil {
		t.Fatal(err)
	}
	if len(caps["esx01"]) != 2 || caps["esx01"][0].Transport != hostio.TransportVCenter {
		t.Fatalf("captures %+v", caps["esx01"])
	}
	h := facts.BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Transport: hostio.TransportSSH, Captures: caps["esx01"]})
	if len(h.Errors) > 0 {
		t.Fatalf("parse errors: %v\n%s", h.Errors, caps["esx01"][0].Stdout)
	}
	// VMs: the PVRDMA and passthrough ones, not plain-vm.
	byName := map[string]parse.VMConfig{}
	for _, v := range h.VMConfigs {
		byName[v.Name] = v
	}
	if len(byName) != 3 {
		t.Fatalf("VM configs %v", h.VMConfigs)
	}
	a := byName["rdma-vm-a"]
	if a.Source != "vcenter" || a.HWVersion != 19 || a.GuestOS != "ubuntu64Guest" || a.Firmware != "efi" || a.MemoryMB != 8192 ||
		!a.MemReservationSet || a.MemReservationMB != 8192 || !a.MemLockedToMaxSet || !a.MemLockedToMax ||
		a.UUID != "4203c2a1-1111-2222-3333-444455556666" || a.InstanceUUID == "" || a.Command != "vcenter vm config" {
		t.Errorf("rdma-vm-a: %+v", a)
	}
	if a.Extra["vrdma0.nativeEndpointSupport"] != "TRUE" || a.Extra["tools.syncTime"] != "" {
		t.Errorf("extra %v", a.Extra)
	}
	if len(a.Adapters) != 2 {
		t.Fatalf("adapters %+v", a.Adapters)
	}
	ad := a.Adapters[1]
	if ad.Type != "vrdma" || ad.DeviceProtocol != "rocev2" || ad.DVSName != "dvs-rdma" || ad.DVSUUID == "" || ad.Network != "pg-rdma" ||
		ad.PortgroupKey == "" || !ad.ConnectedSet || !ad.Connected || !ad.StartConnected || ad.MAC == "" || ad.Label == "" {
		t.Errorf("PVRDMA adapter %+v", ad)
	}
	if a.Adapters[0].Type != "vmxnet3" {
		t.Errorf("other adapter %+v", a.Adapters[0])
	}
	b := byName["rdma-vm-b"]
	if b.HWVersion != 11 || b.MemReservationMB != 0 || b.MemLockedToMax || b.Adapters[0].Connected || !b.Adapters[0].ConnectedSet ||
		b.Adapters[0].StartConnected || b.Adapters[0].DeviceProtocol != "rocev1" {
		t.Errorf("rdma-vm-b: %+v", b)
	}
	g := byName["gpu-vm"]
	if len(g.Passthrough) != 1 || g.Passthrough[0].ID != "0000:3b:00.0" || g.Passthrough[0].VendorID != "0x10de" ||
		g.Passthrough[0].DeviceID != "0x20f5" || g.Extra["pciPassthru.64bitMMIOSizeGB"] != "64" || g.Firmware != "bios" {
		t.Errorf("gpu-vm: %+v", g)
	}
	// Host facts SSH did not give come from vCenter.
	if len(h.RDMADevices) != 1 || h.RDMADevices[0].Name != "vmrdma0" || h.RDMADevices[0].State != "Active" ||
		h.RDMADevices[0].PairedUplink != "vmnic1" || h.RDMADevices[0].MTU != 4096 || h.RDMADevices[0].SpeedMbps != 100000 {
		t.Errorf("RDMA devices %+v", h.RDMADevices)
	}
	if len(h.RDMAProtocols) != 1 || !h.RDMAProtocols[0].RoCEv2 {
		t.Errorf("protocols %+v", h.RDMAProtocols)
	}
	vmk1 := h.VmknicNamed("vmk1")
	if vmk1 == nil || vmk1.MTU != 9000 || vmk1.VDSName != "dvs-rdma" || vmk1.Portgroup != "pg-rdma" {
		t.Errorf("vmk1 %+v", vmk1)
	}
	if len(h.DVSwitches) != 1 || h.DVSwitches[0].MTU != 9000 || strings.Join(h.DVSwitches[0].Uplinks, ",") != "vmnic1" {
		t.Errorf("vDS %+v", h.DVSwitches)
	}
	if h.PVRDMAVmknic == nil || h.PVRDMAVmknic.StringValue != "vmk1" {
		t.Errorf("Net.PVRDMAVmknic %+v", h.PVRDMAVmknic)
	}
	enabled := map[string]bool{}
	for _, r := range h.Rulesets {
		enabled[r.Name] = r.Enabled
	}
	if !enabled["pvrdma"] || len(h.PVRDMARules) != 2 || h.PVRDMARules[0].PortBegin != 28250 || h.PVRDMARules[0].PortEnd != 28761 {
		t.Errorf("firewall %v %+v", enabled, h.PVRDMARules)
	}
	for _, k := range []hostio.Kind{catalog.KindRDMADeviceList, catalog.KindIPInterfaceList, catalog.KindDVSList, catalog.KindPVRDMAVmknicOpt, catalog.KindFirewallRulesets, catalog.KindFirewallRules} {
		if ok, why := h.Available(k); !ok {
			t.Errorf("%s not available from vCenter: %s", k, why)
		}
	}
	// esx02: the shared firewall ruleset of vcsim is not enabled there.
	h2 := facts.BuildHost(hostio.HostResult{Host: "esx02", Status: hostio.StatusCollected, Captures: caps["esx02"]})
	for _, r := range h2.Rulesets {
		if r.Name == "pvrdma" && r.Enabled {
			t.Error("esx02: pvrdma ruleset enabled (shared slice)")
		}
	}
	if len(h2.VMConfigs) != 0 || len(h2.RDMADevices) != 0 || h2.PVRDMAVmknic != nil {
		t.Errorf("esx02 %+v %+v", h2.VMConfigs, h2.RDMADevices)
	}
}

// SSH facts win over vCenter's for a kind SSH read.
func TestSSHFactsKept(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), nil)
	caps, err := c.Read(context.Background(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	ssh := hostio.Capture{Host: "esx01", Command: "esxcli rdma device list", Kind: catalog.KindRDMADeviceList, Status: hostio.StatusCollected,
		Stdout: "Name     Driver      State   MTU   Speed     Paired Uplink  Description\n" +
			"-------  ----------  ------  ----  --------  -------------  -----------\n" +
			"vmrdma0  nmlx5_rdma  Down    1024  0         vmnic1         MT28800 Family  [ConnectX-5 Ex]\n"}
	h := facts.BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: append([]hostio.Capture{ssh}, caps["esx01"]...)})
	if len(h.RDMADevices) != 1 || h.RDMADevices[0].State != "Down" || h.RDMADevices[0].Command != "esxcli rdma device list" {
		t.Errorf("RDMA devices %+v", h.RDMADevices)
	}
	if h.VmknicNamed("vmk1") == nil {
		t.Error("vmknics not filled from vCenter")
	}
}

func TestCertificateVerification(t *testing.T) {
	s := startSim(t, vcsim.Inventory{User: testUser, Password: testPassword, Hosts: []vcsim.Host{{Name: "esx01"}}})
	// Default: verification on, the simulator's certificate is not trusted.
	_, err := connect(t, s, func(c *Config) { c.Thumbprint = "" })
	var ce *CertError
	if err == nil || !strings.Contains(err.Error(), "not trusted") || !strings.Contains(err.Error(), "--vcenter-thumbprint") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	// A wrong pin is refused, saying what the certificate is.
	wrong := strings.Repeat("ab", 32)
	_, err = connect(t, s, func(c *Config) { c.Thumbprint = wrong })
	if err == nil || !strings.Contains(err.Error(), "does not match --vcenter-thumbprint") || !strings.Contains(err.Error(), fingerprint(s.Server.Certificate().Raw, true)) {
		t.Fatalf("mismatch: %v", err)
	}
	// SHA-1 pins work too (what older vSphere Client versions show).
	if _, err := connect(t, s, func(c *Config) { c.Thumbprint = fingerprint(s.Server.Certificate().Raw, false) }); err != nil {
		t.Fatalf("SHA-1 pin: %v", err)
	}
	// Trusted CA: verification passes without a pin.
	pool := x509.NewCertPool()
	pool.AddCert(s.Server.Certificate())
	if _, err := connect(t, s, func(c *Config) { c.Thumbprint, c.RootCAs = "", pool }); err != nil {
		t.Fatalf("trusted CA: %v", err)
	}
	// --insecure works and says so.
	c, err := connect(t, s, func(c *Config) { c.Thumbprint, c.Insecure = "", true })
	if err != nil {
		t.Fatal(err)
	}
	if !c.Insecure() || !strings.Contains(c.TrustNote(), "NOT verified") {
		t.Errorf("insecure note %q", c.TrustNote())
	}
	_ = ce
}

func TestLoginErrors(t *testing.T) {
	s := startSim(t, vcsim.Inventory{User: testUser, Password: testPassword, Hosts: []vcsim.Host{{Name: "esx01"}}})
	_, err := connect(t, s, func(c *Config) { c.Password = "wrong" })
	if err == nil || !strings.Contains(err.Error(), "incorrect user name or password") {
		t.Fatalf("wrong password: %v", err)
	}
	// A closed loopback port: unreachable.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Connect(context.Background(), Config{URL: addr, User: "u", Password: "p", Insecure: true})
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("closed port: %v", err)
	}
	// A cluster or datacenter that does not exist.
	c, err := connect(t, s, func(c *Config) { c.Cluster = "nope" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) {
		t.Fatalf("missing cluster: %v", err)
	}
	c, _ = connect(t, s, func(c *Config) { c.Datacenter = "DCX" })
	if _, err := c.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), `no datacenter named "DCX"`) || !strings.Contains(err.Error(), "DC0") {
		t.Fatalf("missing datacenter: %v", err)
	}
}

func TestParseURLAndThumbprint(t *testing.T) {
	for in, want := range map[string]string{"vc01": "https://vc01/sdk", "vc01:8443": "https://vc01:8443/sdk", "https://vc01/sdk": "https://vc01/sdk"} {
		u, err := ParseURL(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseURL(%q) = %v, %v", in, u, err)
		}
	}
	for _, bad := range []string{"", "http://vc01", "https://user:pw@vc01"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
	if tp, err := NormalizeThumbprint(strings.Repeat("a1", 20)); err != nil || !strings.HasPrefix(tp, "A1:A1") {
		t.Errorf("%q %v", tp, err)
	}
	if _, err := NormalizeThumbprint("zz"); err == nil {
		t.Error("bad thumbprint accepted")
	}
}

// A host vCenter reports disconnected gives no host facts (its copy of the
// configuration is not current), only a failed capture saying so.
func TestDisconnectedHost(t *testing.T) {
	s, c, hosts := simSession(t, pvrdmaInventory(), nil)
	ctx := context.Background()
	if err := s.SetConnectionState("esx01", types.HostSystemConnectionStateNotResponding); err != nil {
		t.Fatal(err)
	}
	caps, err := c.Read(ctx, hosts)
	if err != nil {
		t.Fatal(err)
	}
	hc := caps["esx01"][0]
	if hc.Status != hostio.StatusFailed || !strings.Contains(hc.Error, "notResponding") {
		t.Fatalf("host capture %+v", hc)
	}
	h := facts.BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: caps["esx01"]})
	if len(h.RDMADevices) != 0 || h.VCenterHost != nil {
		t.Errorf("facts from a disconnected host: %+v", h.RDMADevices)
	}
	if ok, _ := h.Available(catalog.KindRDMADeviceList); ok {
		t.Error("RDMA devices available from a disconnected host")
	}
}
