package facts

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

const vmList = `vm-a
   World ID: 1001
   Display Name: vm-a

vm b (prod)
   World ID: 2002
   Display Name: vm b (prod)
`

const rdmaList = `Name     Driver      State   MTU   Speed     Paired Uplink  Description
-------  ----------  ------  ----  --------  -------------  -----------
vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800
`

func props(wid, idx string) string {
	return "PVRDMA Device Properties {\n   VMM leader ID of VM:" + wid + "\n   adapter index:" + idx + "\n   Physical HCA available:1\n   Active MTU:1024\n}\n"
}

func capture(kind hostio.Kind, cmd, out string) hostio.Capture {
	return hostio.Capture{Host: "esx01", Command: cmd, Kind: kind, Stdout: out, Status: hostio.StatusCollected}
}

func TestBuildHost(t *testing.T) {
	propCmd := "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2002_1/properties"
	hr := hostio.HostResult{
		Host: "esx01", Address: "10.0.0.1:22", Transport: "ssh", Status: hostio.StatusPartial, Reason: "1 of 6 failed",
		Notes: []string{"host key not verified"},
		Captures: []hostio.Capture{
			// Properties first: the join must not depend on capture order.
			// The block's own leader ID (9999) is overridden by the path.
			capture(catalog.KindPVRDMAProperties, propCmd, props("9999", "0")),
			capture(catalog.KindRDMADeviceList, "esxcli rdma device list", rdmaList),
			capture(catalog.KindVMProcessList, "esxcli vm process list", vmList),
			capture(catalog.KindNICList, "esxcli network nic list", "garbage\nmore garbage\n"),
			{Command: "esxcli network ip interface list", Kind: catalog.KindIPInterfaceList, Status: hostio.StatusTimedOut, Error: "timeout after 30s"},
			capture(catalog.KindPVRDMADeviceLs, "vsish -e ls /vmkModules/vrdma/pvrdmaDevices/", "2002_1/\n"),
		},
	}
	h := BuildHost(hr)
	if h.Host != "esx01" || h.Address != "10.0.0.1:22" || h.Transport != "ssh" || h.Status != hostio.StatusPartial || h.Reason != "1 of 6 failed" || len(h.Notes) != 1 {
		t.Fatalf("host header: %+v", h)
	}
	if len(h.RDMADevices) != 1 || h.RDMADevices[0].Command != "esxcli rdma device list" || h.RDMADevices[0].Line != 3 {
		t.Fatalf("rdma: %+v", h.RDMADevices)
	}
	if len(h.VMs) != 2 || h.VMs[1].DisplayName != "vm b (prod)" || h.VMs[1].Command != "esxcli vm process list" {
		t.Fatalf("vms: %+v", h.VMs)
	}
	if len(h.PVRDMADevices) != 1 {
		t.Fatalf("pvrdma: %+v", h.PVRDMADevices)
	}
	d := h.PVRDMADevices[0]
	if d.WorldID != "2002" || d.Index != "1" || d.VMName != "vm b (prod)" || d.Command != propCmd || d.Props.RefOf("Active MTU").Command != propCmd {
		t.Fatalf("joined device: %+v", d)
	}
	if len(h.PVRDMAListing) != 1 || h.PVRDMAListing[0].Name != "2002_1" {
		t.Fatalf("listing %+v", h.PVRDMAListing)
	}
	// Parse error: recorded, not parsed, no facts.
	if len(h.Errors) != 1 || h.Errors[0].Command != "esxcli network nic list" || h.Errors[0].Line != 2 {
		t.Fatalf("errors: %+v", h.Errors)
	}
	if len(h.NICs) != 0 {
		t.Fatal("half-parsed NICs kept")
	}
	src := h.Sources[catalog.KindNICList]
	if len(src) != 1 || src[0].Parsed || !strings.Contains(src[0].Error, "line 2") {
		t.Fatalf("nic source %+v", src)
	}
	if s := h.Sources[catalog.KindIPInterfaceList]; len(s) != 1 || s[0].Parsed || s[0].Status != hostio.StatusTimedOut || s[0].Error != "timeout after 30s" {
		t.Fatalf("timed out source %+v", s)
	}
	if s := h.Sources[catalog.KindRDMADeviceList]; len(s) != 1 || !s[0].Parsed {
		t.Fatalf("rdma source %+v", s)
	}
	if ok, why := h.Available(catalog.KindNICList); ok || !strings.Contains(why, "could not be parsed") {
		t.Fatalf("available: %v %q", ok, why)
	}
	if ok, _ := h.Available(catalog.KindRDMADeviceList, catalog.KindVMProcessList, catalog.KindPVRDMAProperties); !ok {
		t.Fatal("parsed kinds not available")
	}
}

func TestBuildFleetOrderAndUnknownKind(t *testing.T) {
	f := Build([]hostio.HostResult{
		{Host: "b", Status: hostio.StatusNotCollected, Reason: "connection refused"},
		{Host: "a", Status: hostio.StatusCollected, Captures: []hostio.Capture{
			capture("mystery_kind", "esxcli something new", "x"),
		}},
	})
	if len(f.Hosts) != 2 || f.Hosts[0].Host != "b" || f.Hosts[1].Host != "a" {
		t.Fatalf("order: %+v", f.Hosts)
	}
	s := f.Hosts[1].Sources["mystery_kind"]
	if len(s) != 1 || s[0].Parsed || s[0].Error != "no parser" {
		t.Fatalf("unknown kind: %+v", s)
	}
	if ok, why := f.Hosts[0].Available(catalog.KindRDMADeviceList); ok || !strings.Contains(why, "connection refused") {
		t.Fatalf("not collected host: %v %q", ok, why)
	}
}

func TestBuildHostManyPerKind(t *testing.T) {
	nicGet := "   Driver Info:\n         Driver: nmlx5_core\n         Version: 4.23\n   Link Status: Up \n   Name: vmnic4\n   Pause RX: false\n   Pause TX: false\n"
	dcb := "   Nic Name: vmnic4\n   Enabled: true\n   PFC Enabled: true\n   PFC Configuration: 0 0 0 1 0 0 0 0\n"
	ping := "PING 10.0.0.2 (10.0.0.2): 8972 data bytes\nsendto() failed (Message too long)\n\n--- 10.0.0.2 ping statistics ---\n1 packets transmitted, 0 packets received, 100% packet loss\n"
	h := BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		capture(catalog.KindNICGet, "esxcli network nic get -n vmnic4", nicGet),
		capture(catalog.KindNICGet, "esxcli network nic get -n vmnic5", strings.Replace(nicGet, "vmnic4", "vmnic5", 1)),
		capture(catalog.KindDCBStatus, "esxcli network nic dcb status get -n vmnic4", dcb),
		capture(catalog.KindVmkping, "vmkping -I vmk1 -c 3 -d -s 8972 10.0.0.2", ping),
		capture(catalog.KindRDMAStats, "esxcli rdma device stats get -d vmrdma0", "   Packets received: 5\n"),
		capture(catalog.KindPVRDMAVmknicOpt, "esxcli system settings advanced list -o /Net/PVRDMAVmknic", "   Path: /Net/PVRDMAVmknic\n   Type: string\n   String Value: vmk1\n"),
	}})
	if len(h.Errors) != 0 {
		t.Fatalf("errors %+v", h.Errors)
	}
	if len(h.NICDetails) != 2 || h.NICDetails[1].Name != "vmnic5" || h.NICDetails[0].Record.Nested["Driver Info"][0].RefOf("Driver").Command != "esxcli network nic get -n vmnic4" {
		t.Fatalf("nic details %+v", h.NICDetails)
	}
	if len(h.Sources[catalog.KindNICGet]) != 2 {
		t.Fatal("sources per kind")
	}
	if len(h.DCB) != 1 || len(h.DCB[0].PFCPriorities) != 1 || h.DCB[0].PFCPriorities[0] != 3 {
		t.Fatalf("dcb %+v", h.DCB)
	}
	if len(h.Pings) != 1 || !h.Pings[0].MessageTooLong || h.Pings[0].Command == "" {
		t.Fatalf("pings %+v", h.Pings)
	}
	if len(h.RDMAStats) != 1 || h.RDMAStats[0].Device != "vmrdma0" || h.RDMAStats[0].Counters["Packets received"] != 5 {
		t.Fatalf("stats %+v", h.RDMAStats)
	}
	if h.PVRDMAVmknic == nil || h.PVRDMAVmknic.StringValue != "vmk1" || h.PVRDMAVmknic.Record.RefOf("String Value").Command == "" {
		t.Fatalf("setting %+v", h.PVRDMAVmknic)
	}
	for _, k := range []hostio.Kind{catalog.KindNICGet, catalog.KindDCBStatus, catalog.KindVmkping, catalog.KindRDMAStats, catalog.KindPVRDMAVmknicOpt} {
		if ok, why := h.Available(k); !ok {
			t.Errorf("%s: %s", k, why)
		}
	}
}

// A guest's command among an ESXi host's captures (a pasted session that
// mixes them) is not read as the host's, and an ESXi command among a
// guest's is not read as the guest's: each is a source with the reason,
// never a crash (issue 23).
func TestCommandsOfTheOtherSideAreNotRead(t *testing.T) {
	lsmod := "Module                  Size  Used by\nvmw_pvrdma             81920  0\n"
	h := BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		{Host: "esx01", Command: "lsmod", Kind: catalog.KindGuestLsmod, Stdout: lsmod, Status: hostio.StatusCollected},
		{Host: "esx01", Command: "dmesg", Kind: catalog.KindGuestDmesg, Stdout: "vmw_pvrdma 0000:0b:00.1: attached\n", Status: hostio.StatusCollected},
	}})
	for _, k := range []hostio.Kind{catalog.KindGuestLsmod, catalog.KindGuestDmesg} {
		if s := h.Sources[k]; len(s) != 1 || s[0].Parsed || s[0].Error != "a Linux guest's command, not an ESXi host's" {
			t.Errorf("%s on a host: %+v", k, s)
		}
	}
	g := BuildGuest(hostio.HostResult{Host: "vm1", Role: hostio.RoleGuest, Status: hostio.StatusCollected, Captures: []hostio.Capture{
		{Host: "vm1", Command: "esxcli system version get", Kind: catalog.KindSystemVersion, Stdout: "   Product: VMware ESXi\n   Version: 8.0.3\n", Status: hostio.StatusCollected},
	}})
	if s := g.Sources[catalog.KindSystemVersion]; len(s) != 1 || s[0].Parsed || s[0].Error != "an ESXi command, not a Linux guest's" {
		t.Errorf("an ESXi command on a guest: %+v", s)
	}
}
