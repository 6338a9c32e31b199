package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// withGPU passes a GPU through to the host's PVRDMA VM (its .vmx).
var withGPU = withVMX(func(s string) string {
	return s + "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"0000:af:00.0\"\npciPassthru0.vendorId = \"0x10de\"\npciPassthru0.deviceId = \"0x20b5\"\n"
})

func TestVMPassthroughNoMobility(t *testing.T) {
	runCases(t, "VM_PASSTHROUGH_NO_MOBILITY", []ruleCase{
		{name: "a PVRDMA VM with a GPU in passthrough: information", hosts: one(withGPU), exact: true,
			want: []want{{"esx01", "hpc-esx01", StatusFail, Info, "PCI passthrough device pciPassthru0 0000:af:00.0: with DirectPath I/O it stays on esx01, " +
				"so vMotion, DRS migrations, snapshots and suspend are not available to it", "pciPassthru0.id"}}},
	})
	// A running PVRDMA VM whose .vmx was not read, on a host that passes a
	// device through (or whose PCI list was not read): not evaluated, with
	// the reason; on a host that passes none through: nothing.
	vmxUnread := func(pci func(h *facts.Host)) func(h *facts.Host) {
		return func(h *facts.Host) {
			pci(h)
			h.VMs = append(h.VMs, parse.VMProcess{DisplayName: "hpc-esx01", WorldID: "2100788", ConfigFile: vmxPath,
				Ref: ref("esxcli vm process list", 1, "hpc-esx01")})
			missing(h, "cat '"+vmxPath+"'")
		}
	}
	runCases(t, "VM_PASSTHROUGH_NO_MOBILITY", []ruleCase{
		{name: "its .vmx unread, a GPU passed through on the host: not evaluated", exact: true,
			hosts: one(vmxUnread(func(h *facts.Host) {
				collected(h, cmdPCI)
				h.PCIDevices = append(h.PCIDevices, parse.PCIDevice{Address: "0000:af:00.0", VendorID: "0x10de", ConfiguredOwner: "VM Passthru",
					Record: rec(cmdPCI, "Address", "0000:af:00.0"), Ref: ref(cmdPCI, 1, "0000:af:00.0")})
			})),
			want: []want{{"esx01", "hpc-esx01", StatusNotEvaluated, "", "vmx", ""}}},
		{name: "its .vmx and the PCI list unread: not evaluated", exact: true,
			hosts: one(vmxUnread(func(h *facts.Host) { missing(h, cmdPCI) })),
			want:  []want{{"esx01", "hpc-esx01", StatusNotEvaluated, "", "vmx", ""}}},
		{name: "its .vmx unread, nothing passed through on the host: nothing", exact: true,
			hosts: one(vmxUnread(func(h *facts.Host) { collected(h, cmdPCI) })), want: nil},
	})
	// Near misses: a PVRDMA VM without passthrough, a passthrough VM
	// without PVRDMA: nothing.
	for name, hosts := range map[string][]facts.Host{
		"PVRDMA only": one(withVMX(nil))(),
		"GPU only": one(both(withGPU, func(h *facts.Host) {
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			for i := range h.VMConfigs {
				h.VMConfigs[i].Adapters = h.VMConfigs[i].Adapters[:1]
			}
		}))(),
	} {
		if got := runRule(t, "VM_PASSTHROUGH_NO_MOBILITY", hosts...); len(got) != 0 {
			t.Errorf("%s: %s", name, dump(got))
		}
	}
}

func TestVMPeersWithoutRDMA(t *testing.T) {
	three := func(f func(a, b, c *facts.Host)) func() []facts.Host {
		return func() []facts.Host {
			a, b, c := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12"), goodHost("esx03", "192.168.50.13")
			f(&a, &b, &c)
			return []facts.Host{a, b, c}
		}
	}
	runCases(t, "VM_PEERS_WITHOUT_RDMA", []ruleCase{
		{name: "every host with RDMA: passes", hosts: two(nil), exact: true,
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusPass, "", "", ""}, {"esx02", "esx02 (hpc-esx02)", StatusPass, "", "", ""}}},
		{name: "esx02 without an RDMA device: esx01's VMs name their pairs", hosts: two(func(_, b *facts.Host) { noDevice("0")(b) }), exact: true,
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusFail, Warning, "the PVRDMA VMs on esx01, which has working RDMA, talk over TCP with their PVRDMA " +
				"peers on hosts without it: the pairs of hpc-esx01 with hpc-esx02 (esx02)", "Physical HCA available:0"}}},
		{name: "two hosts without RDMA: both named, the host with RDMA only", exact: true,
			hosts: three(func(_, b, c *facts.Host) { noDevice("0")(b); noDevice("0")(c) }),
			want:  []want{{"esx01", "esx01 (hpc-esx01)", StatusFail, Warning, "the pairs of hpc-esx01 with hpc-esx02 (esx02) and hpc-esx03 (esx03)", ""}}},
		{name: "esx02's PVRDMA VMs not listed: not evaluated there, esx01 passes", exact: true,
			hosts: two(func(_, b *facts.Host) { missing(b, cmdLs); b.PVRDMAListing, b.PVRDMADevices = nil, nil }),
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusPass, "", "", ""},
				{"esx02", "esx02", StatusNotEvaluated, "", "whether it runs PVRDMA VMs was not read: `vsish -e ls", ""}}},
		{name: "esx02's RDMA unread (no HCA field, no device list): not evaluated there", exact: true,
			hosts: two(func(_, b *facts.Host) {
				missing(b, cmdRDMAList)
				missing(b, cmdProps)
				b.PVRDMADevices = nil
				b.RDMADevices = nil
			}),
			want: []want{{"esx01", "esx01 (hpc-esx01)", StatusPass, "", "", ""},
				{"esx02", "esx02 (device 2100788_0)", StatusNotEvaluated, "", "whether its own PVRDMA adapters use RDMA was not read: `esxcli rdma device list", ""}}},
		{name: "the hosts without RDMA only: TCP_FALLBACK's", exact: true,
			hosts: two(func(a, b *facts.Host) { noDevice("0")(a); noDevice("0")(b) }),
			want:  nil},
	})
}

// vcOnly is what a scan whose SSH to the host was refused knows of it:
// vCenter's host and VM configuration (rendered and parsed as the vCenter
// source stores them), and every SSH command failed. rdma says whether
// vCenter lists the ConnectX-5; vms are its PVRDMA VMs and their power
// states.
func vcOnly(name, ip string, rdma bool, vms map[string]string) facts.Host {
	const uuid = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"
	doc := parse.VCenterHostDoc{Host: name, Parent: "ClusterComputeResource:domain-c7", Version: "8.0.3",
		RDMADevices: []parse.VCenterRDMADevice{},
		Vnics: []parse.VCenterVnic{{Device: "vmk0", Portgroup: "Management Network", MTU: 1500, IP: "10.10.0.15", Netmask: "255.255.255.0"},
			{Device: "vmk1", MTU: 9000, IP: ip, Netmask: "255.255.255.0", DVSUUID: uuid, PortgroupKey: "dvportgroup-1004", Port: "8"}},
		Switches: []parse.VCenterDVS{{Name: "rdma-dvs", UUID: uuid, MaxMTU: 9000, HostMTU: 9000, HostUplinks: []string{"vmnic4"}}},
		Options:  map[string]string{parse.PVRDMAVmknicOption: "vmk1"},
		Rulesets: []parse.VCenterRuleset{{Key: "pvrdma", Enabled: true}},
		Cluster:  &parse.VCenterCluster{Name: "gpu-a", DRSEnabled: on, DRSBehavior: "fullyAutomated", HAEnabled: on}}
	if rdma {
		doc.RDMADevices = []parse.VCenterRDMADevice{{Device: "vmrdma0", Driver: "nmlx5_rdma", PairedUplink: "vmnic4", State: "active", MTU: 4096,
			SpeedMbps: 100000, RoCEv1: true, RoCEv2: true}}
	} else {
		doc.Switches[0].HostUplinks = []string{"vmnic2"}
	}
	vmDoc := parse.VCenterVMDoc{Host: name, VMs: []parse.VCenterVM{}}
	for vm, power := range vms {
		res, lock := int64(16384), true
		vmDoc.VMs = append(vmDoc.VMs, parse.VCenterVM{Name: vm, Version: "vmx-19", GuestID: "ubuntu64Guest", MemoryMB: 16384,
			MemReservationMB: &res, MemLockedToMax: &lock, PowerState: power, Adapters: []parse.VCenterAdapter{
				{Label: "Network adapter 2", Type: "vrdma", DVSUUID: uuid, DVSName: "rdma-dvs", PortgroupKey: "dvportgroup-1005", DeviceProtocol: "rocev2"}}})
	}
	refused := "host not reached: cannot connect: connection refused"
	caps := []hostio.Capture{
		{Host: name, Command: "vcenter host config", Kind: catalog.KindVCenterHost, Status: hostio.StatusCollected, Stdout: parse.RenderVCenterHost(doc)},
		{Host: name, Command: "vcenter vm config", Kind: catalog.KindVCenterVMs, Status: hostio.StatusCollected, Stdout: parse.RenderVCenterVMs(vmDoc)},
	}
	for _, c := range []string{cmdRDMAList, cmdProto, cmdIfList, cmdIPv4, cmdDVS, cmdTag, cmdFirewall, cmdLs, cmdVersion, cmdVMKBind, cmdNICList} {
		caps = append(caps, hostio.Capture{Host: name, Command: c, Status: hostio.StatusSkipped, Error: refused})
	}
	return facts.BuildHost(hostio.HostResult{Host: name, Status: hostio.StatusPartial, Reason: refused, Captures: caps})
}

// With SSH refused, vCenter's configuration still concludes: no RDMA
// device (config.network.rdmaDevice), the PVRDMA VMs (their
// VirtualVmxnet3Vrdma adapters), so NO_RDMA_DEVICE and TCP_FALLBACK fire,
// with the property paths as evidence.
func TestVCenterOnlyConcludes(t *testing.T) {
	a := goodHost("esx01", "192.168.50.11")
	e := vcOnly("esx05", "192.168.50.15", false, map[string]string{"hpc-node08": "poweredOn"})
	res := Run(&facts.Fleet{Hosts: []facts.Host{a, e}})
	byKey := map[string]Finding{}
	for _, f := range res.Findings {
		byKey[f.Host+" "+f.RuleID] = f
	}
	nd := byKey["esx05 NO_RDMA_DEVICE"]
	if nd.Status != StatusFail || nd.Severity != Critical || !strings.Contains(nd.Message, "runs PVRDMA VMs (hpc-node08) while esx01 also runs PVRDMA VMs") {
		t.Fatalf("NO_RDMA_DEVICE %+v\n%s", nd, dump(res.Findings))
	}
	props := map[string]bool{}
	for _, ev := range nd.Evidence {
		props[ev.Property] = true
		if ev.Command == "vcenter host config" && ev.Line == 0 {
			t.Errorf("vCenter evidence without a line: %+v", ev)
		}
	}
	for _, p := range []string{"config.network.rdmaDevice = [] (no RDMA device)",
		"hpc-node08: config.hardware.device[Network adapter 2].type = VirtualVmxnet3Vrdma"} {
		if !props[p] {
			t.Errorf("NO_RDMA_DEVICE evidence lacks %q: %+v", p, nd.Evidence)
		}
	}
	tf := byKey["esx05 TCP_FALLBACK"]
	if tf.Status != StatusFail || tf.CausedBy == nil || tf.CausedBy.RuleID != "NO_RDMA_DEVICE" || !strings.Contains(tf.Message, "from vCenter") {
		t.Errorf("TCP_FALLBACK %+v", tf)
	}
	if p := byKey["esx01 VM_PEERS_WITHOUT_RDMA"]; p.Status != StatusFail || !strings.Contains(p.Message, "hpc-node08 (esx05)") {
		t.Errorf("VM_PEERS_WITHOUT_RDMA %+v", p)
	}
	if f := byKey["esx05 PVRDMA_FIREWALL_CLOSED"]; f.Status == StatusNotEvaluated {
		t.Errorf("the firewall rule is not evaluated on vCenter's data: %+v", f)
	}
	// Its plan: vCenter does not list the NICs' drivers, so which NIC can
	// carry RoCE is unknown: no NIC to install, no VM power-cycled for
	// nothing, what to look at in words. The VM rules read vCenter's VMs
	// (evaluated, not "not evaluated" for want of vsish).
	fleet := &facts.Fleet{Hosts: []facts.Host{a, e}}
	pl := PlanFor(Plans(fleet, res.Findings), "esx05")
	investigated := false
	for _, st := range plSteps(pl) {
		switch st.Action {
		case plan.KindInstallNIC, plan.KindPowerOffVMs, plan.KindPowerOnVMs, plan.KindEnterMaintenance:
			t.Errorf("esx05 plan step %d %s: %s", st.N, st.Action, st.Text)
		case plan.KindInvestigate:
			investigated = investigated || strings.Contains(st.Text, "which of its NICs can carry RoCE is unknown")
		}
	}
	if !investigated {
		t.Errorf("esx05 plan: no step says which NIC is unknown: %+v", pl)
	}
	// Nothing changes on esx01 for its peers: with the peer's
	// TCP_FALLBACK its finding is that host's plan's; without it (the
	// cause suppressed), one step says what to do and resolves nothing.
	for _, st := range plSteps(PlanFor(Plans(fleet, res.Findings), "esx01")) {
		t.Errorf("esx01 plan step %d %s: %s", st.N, st.Action, st.Text)
	}
	var alone []Finding
	for _, f := range res.Findings {
		if f.RuleID == "TCP_FALLBACK" {
			continue
		}
		if f.RuleID == "VM_PEERS_WITHOUT_RDMA" {
			f.CausedBy = nil
		}
		alone = append(alone, f)
	}
	steps := plSteps(PlanFor(Plans(fleet, alone), "esx01"))
	if len(steps) != 1 || steps[0].Action != plan.KindInvestigate || len(steps[0].Resolves) != 0 || !strings.Contains(steps[0].Text, "Nothing to change on esx01") {
		t.Errorf("esx01 plan without the peer's TCP_FALLBACK: %+v", steps)
	}
	for _, f := range append(res.Findings, res.Passed...) {
		if f.Host == "esx05" && f.RuleID == "VM_MEMORY_NOT_RESERVED" && f.Status == StatusNotEvaluated {
			t.Errorf("VM_MEMORY_NOT_RESERVED not evaluated from vCenter: %s", f.Message)
		}
	}
	// The near miss: vCenter lists the host's ConnectX-5 as the vDS's
	// uplink: no NO_RDMA_DEVICE, no TCP_FALLBACK.
	e = vcOnly("esx05", "192.168.50.15", true, map[string]string{"hpc-node08": "poweredOn"})
	res = Run(&facts.Fleet{Hosts: []facts.Host{a, e}})
	for _, f := range res.Findings {
		if f.Host == "esx05" && (f.RuleID == "NO_RDMA_DEVICE" || f.RuleID == "TCP_FALLBACK") {
			t.Errorf("with an RDMA uplink: %s %s %s", f.Status, f.RuleID, f.Message)
		}
	}
	// Its VM powered off: it runs no PVRDMA VM; a host DRS places VMs on,
	// with one registered and powered off: HOST_NOT_READY, a warning.
	e = vcOnly("esx05", "192.168.50.15", false, map[string]string{"hpc-node08": "poweredOff"})
	res = Run(&facts.Fleet{Hosts: []facts.Host{a, e}})
	got := ""
	for _, f := range res.Findings {
		if f.Host == "esx05" && f.Status == StatusFail {
			got += f.RuleID + "/" + string(f.Severity) + " "
		}
	}
	if !strings.Contains(got, "HOST_NOT_READY/warning") || strings.Contains(got, "NO_RDMA_DEVICE") {
		t.Errorf("powered off: %s\n%s", got, dump(res.Findings))
	}
}

// A vGPU (no PCI address, no vendor: NVIDIA GRID) keeps vMotion: no finding.
func TestVGPUKeepsMobility(t *testing.T) {
	got := runRule(t, "VM_PASSTHROUGH_NO_MOBILITY", one(both(withVMX(nil), func(h *facts.Host) {
		h.VMConfigs[0].Passthrough = append(h.VMConfigs[0].Passthrough, parse.PassthroughDevice{Label: "pciPassthru0"})
	}))()...)
	if len(got) != 0 {
		t.Errorf("vGPU: %s", dump(got))
	}
}

// plSteps are a plan's steps (none for no plan).
func plSteps(p *Plan) []PlanStep {
	if p == nil {
		return nil
	}
	return p.Steps
}

// A VM_PEERS_WITHOUT_RDMA finding nests under the first peer host that
// falls back; that host's plan resolves it only when it is the one host
// its VMs' pairs lack RDMA on. With a second such host, its VMs still talk
// TCP with that host's VMs after the first's plan: no step claims it.
func TestPeersWithoutRDMAResolvedOnlyWithEveryCause(t *testing.T) {
	for _, c := range []struct {
		name     string
		without  []int // hosts (of esx01..esx03) without an RDMA device
		resolved bool
	}{
		{"one peer host without RDMA: its plan resolves esx01's pairs", []int{1}, true},
		{"two peer hosts without RDMA: neither plan alone does", []int{1, 2}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			hosts := []facts.Host{goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12"), goodHost("esx03", "192.168.50.13")}
			for _, i := range c.without {
				noDevice("0")(&hosts[i])
			}
			fleet := fleetOf2(hosts...)
			res := Run(fleet)
			var peers *Finding
			for i, f := range res.Findings {
				if f.RuleID == "VM_PEERS_WITHOUT_RDMA" && f.Status == StatusFail && f.Host == "esx01" {
					peers = &res.Findings[i]
				}
			}
			if peers == nil || peers.Host != "esx01" || peers.CausedBy == nil || peers.CausedBy.Host != "esx02" {
				t.Fatalf("VM_PEERS_WITHOUT_RDMA: %+v", peers)
			}
			claimed := false
			for _, pl := range Plans(fleet, res.Findings) {
				for _, st := range pl.Steps {
					for _, r := range st.Resolves {
						claimed = claimed || r.Key() == causeOf(*peers).Key()
					}
				}
			}
			if claimed != c.resolved {
				t.Errorf("a step resolves %s: %v, want %v", peers.Key(), claimed, c.resolved)
			}
		})
	}
}

// With many peer hosts without RDMA, each VM_PEERS_WITHOUT_RDMA finding
// names the first few (with their evidence) and counts the rest, so a
// fleet-wide fault costs hosts x a few, not hosts x broken; with no more
// than the limit (the near miss) every peer host is named, nothing counted.
func TestVMPeersWithoutRDMABounded(t *testing.T) {
	fleetWith := func(without int) []facts.Host {
		hosts := []facts.Host{goodHost("esx01", "192.168.50.11")}
		for i := 0; i < without; i++ {
			h := goodHost(fmt.Sprintf("esx%02d", i+2), fmt.Sprintf("192.168.50.%d", i+12))
			noDevice("0")(&h)
			hosts = append(hosts, h)
		}
		return hosts
	}
	peersOf := func(without int) Finding {
		t.Helper()
		for _, f := range runRule(t, "VM_PEERS_WITHOUT_RDMA", fleetWith(without)...) {
			if f.Host == "esx01" && f.Status == StatusFail {
				return f
			}
		}
		t.Fatalf("%d hosts without RDMA: no VM_PEERS_WITHOUT_RDMA finding on esx01", without)
		return Finding{}
	}
	limit := peersOf(peerNameLimit)
	if strings.Contains(limit.Message, "more host") || strings.Contains(limit.Fix, "more host") ||
		!strings.Contains(limit.Message, "hpc-esx02 (esx02), hpc-esx03 (esx03) and hpc-esx04 (esx04)") ||
		!strings.Contains(limit.Fix, "fix RDMA on esx02, esx03, esx04 (their TCP_FALLBACK finding)") {
		t.Fatalf("%d peer hosts: not every one named:\n%s\n%s", peerNameLimit, limit.Message, limit.Fix)
	}
	for _, n := range []int{peerNameLimit + 1, 40} {
		f := peersOf(n)
		more := n - peerNameLimit
		if !strings.Contains(f.Message, fmt.Sprintf("hpc-esx02 (esx02), hpc-esx03 (esx03), hpc-esx04 (esx04) and their PVRDMA peers on %s without RDMA", moreHosts(more))) ||
			strings.Contains(f.Message, "esx05") {
			t.Errorf("%d peer hosts: message %q", n, f.Message)
		}
		if !strings.Contains(f.Fix, fmt.Sprintf("fix RDMA on esx02, esx03, esx04 and %s (each has its TCP_FALLBACK finding)", moreHosts(more))) {
			t.Errorf("%d peer hosts: fix %q", n, f.Fix)
		}
		// The evidence is esx01's own and that of the named peers only.
		if len(f.Evidence) != len(limit.Evidence) {
			t.Errorf("%d peer hosts: %d evidence lines, want %d (as many as with %d)", n, len(f.Evidence), len(limit.Evidence), peerNameLimit)
		}
		for _, e := range f.Evidence {
			if e.Host != "esx01" && e.Host != "esx02" && e.Host != "esx03" && e.Host != "esx04" {
				t.Errorf("%d peer hosts: evidence from %s, a host not named", n, e.Host)
			}
		}
	}
	if got := moreHosts(1); got != "1 more host" {
		t.Errorf("moreHosts(1) = %q", got)
	}
}
