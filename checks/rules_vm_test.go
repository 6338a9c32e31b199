package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const vmxPath = "/vmfs/volumes/66aa-bb/hpc-esx01/hpc-esx01.vmx"

// healthyVMX is the .vmx of the good host's PVRDMA VM (world 2100788) as
// seed 002 sets it up.
func healthyVMX(name string) string {
	return `virtualHW.version = "19"
displayName = "` + name + `"
guestOS = "rhel8-64"
firmware = "efi"
memSize = "16384"
sched.mem.min = "16384"
sched.mem.pin = "TRUE"
uuid.bios = "42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96"
ethernet0.virtualDev = "vmxnet3"
ethernet0.networkName = "VM Network"
ethernet0.present = "TRUE"
ethernet1.virtualDev = "vrdma"
ethernet1.dvs.switchId = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"
ethernet1.dvs.portgroupId = "dvportgroup-1005"
ethernet1.generatedAddress = "00:50:56:8a:01:a0"
ethernet1.startConnected = "TRUE"
ethernet1.present = "TRUE"
`
}

// withVMX gives the host's PVRDMA VM a process entry and a .vmx
// configuration (edit rewrites the healthy .vmx first).
func withVMX(edit func(string) string) func(h *facts.Host) {
	return func(h *facts.Host) {
		name := h.PVRDMADevices[0].VMName
		path := strings.ReplaceAll(vmxPath, "hpc-esx01", name)
		h.VMs = append(h.VMs, parse.VMProcess{DisplayName: name, WorldID: "2100788", UUID: "42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96",
			ConfigFile: path, Ref: ref("esxcli vm process list", 1, name)})
		h.DVSwitches[0].VDSID = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"
		text := healthyVMX(name)
		if edit != nil {
			text = edit(text)
		}
		addVMX(h, path, text)
		h.PVRDMADevices[0].MAC = "00:50:56:8a:01:a0"
	}
}

// addVMX parses a .vmx as the facts builder does and adds it to the host.
func addVMX(h *facts.Host, path, text string) {
	c, err := parse.VMConfigFromVMX(text)
	if _, partial := parse.Skipped(err); err != nil && !partial {
		panic(err)
	}
	cmd := "cat '" + path + "'"
	c.SetCommand(cmd)
	c.ConfigFile = path
	collected(h, cmd)
	h.VMConfigs = append(h.VMConfigs, c)
}

// vcenterCopy adds the VM's configuration as vCenter would report it,
// after edit (no lines: vCenter gives properties, not a file).
func vcenterCopy(edit func(c *parse.VMConfig)) func(h *facts.Host) {
	return func(h *facts.Host) {
		c := h.VMConfigs[0]
		c.Source, c.Refs, c.Ref = "vcenter", nil, parse.Ref{Command: "vCenter: VirtualMachine hpc-esx01 config"}
		c.Adapters = append([]parse.VMAdapter(nil), c.Adapters...)
		for i := range c.Adapters {
			c.Adapters[i].Refs, c.Adapters[i].Ref = nil, c.Ref
		}
		edit(&c)
		h.VMConfigs = append(h.VMConfigs, c)
	}
}

func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("no " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func both(fs ...func(h *facts.Host)) func(h *facts.Host) {
	return func(h *facts.Host) {
		for _, f := range fs {
			f(h)
		}
	}
}

const vmName = "hpc-esx01"

func TestVMMemoryNotReserved(t *testing.T) {
	runCases(t, "VM_MEMORY_NOT_RESERVED", []ruleCase{
		{name: "seed 002: all locked: passes", hosts: one(withVMX(nil)), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "full reservation without the lock: passes", hosts: one(withVMX(replace(`sched.mem.pin = "TRUE"`, `sched.mem.pin = "FALSE"`))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "partial reservation, not locked: fires", exact: true,
			hosts: one(withVMX(func(s string) string {
				return replace(`sched.mem.min = "16384"`, `sched.mem.min = "4096"`)(replace(`sched.mem.pin = "TRUE"`, `sched.mem.pin = "FALSE"`)(s))
			})),
			want: []want{{"esx01", vmName, StatusFail, Critical, "a reservation of 4096 MB of its 16384 MB", `sched.mem.pin = "FALSE"`}}},
		{name: "no reservation keys at all: fires", exact: true,
			hosts: one(withVMX(func(s string) string {
				return replace("sched.mem.min = \"16384\"\n", "")(replace("sched.mem.pin = \"TRUE\"\n", "")(s))
			})),
			want: []want{{"esx01", vmName, StatusFail, Critical, "\"Reserve all guest memory (All locked)\" not set and no reservation", `memSize = "16384"`}}},
		{name: "vCenter says unlocked while the .vmx says locked: fires, sources disagree", exact: true,
			hosts: one(both(withVMX(nil), vcenterCopy(func(c *parse.VMConfig) { c.MemLockedToMax, c.MemReservationMB = false, 0 }))),
			want:  []want{{"esx01", vmName, StatusFail, Critical, "the sources disagree on the memory reservation: the .vmx says locked true, 16384 of 16384 MB reserved, vCenter says locked false, 0 of 16384 MB reserved", ""}}},
		{name: "the .vmx could not be read: not evaluated with the reason", exact: true,
			hosts: one(func(h *facts.Host) {
				h.VMs = append(h.VMs, parse.VMProcess{DisplayName: vmName, WorldID: "2100788", ConfigFile: "/vmfs/volumes/ds/o'hara/o'hara.vmx"})
			}),
			want: []want{{"esx01", vmName, StatusNotEvaluated, "", "refusing .vmx path", ""}}},
		{name: "a VM without PVRDMA is not checked", exact: true,
			hosts: one(func(h *facts.Host) {
				addVMX(h, "/vmfs/volumes/ds/web/web.vmx", "displayName = \"web\"\nethernet0.virtualDev = \"vmxnet3\"\nmemSize = \"4096\"\n")
			}), want: nil},
	})
	// The finding's fix shell-quotes the VM name.
	fs := runRule(t, "VM_MEMORY_NOT_RESERVED", one(func(h *facts.Host) {
		h.PVRDMADevices[0].VMName = "db 'x' $(id)"
		withVMX(replace("sched.mem.pin = \"TRUE\"\n", "sched.mem.pin = \"FALSE\"\nsched.mem.min = \"0\"\n"))(h)
	})()...)
	for _, f := range fs {
		if f.Status == StatusFail && !strings.Contains(f.Fix, `govc vm.change -vm 'db '\''x'\'' $(id)' -memory-pin=true`) {
			t.Errorf("fix %q", f.Fix)
		}
	}
}

func TestVMHWVersionTooOld(t *testing.T) {
	runCases(t, "VM_HW_VERSION_TOO_OLD", []ruleCase{
		{name: "13 is enough for PVRDMA: near miss", hosts: one(withVMX(replace(`virtualHW.version = "19"`, `virtualHW.version = "13"`))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "11: fires", hosts: one(withVMX(replace(`virtualHW.version = "19"`, `virtualHW.version = "11"`))), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Critical, "hardware version 11: PVRDMA needs hardware version 13", `virtualHW.version = "11"`}}},
		// Native endpoints on 17: PVRDMA itself works; the missing 18 is
		// NATIVE_ENDPOINTS_UNAVAILABLE's (a warning), not critical here.
		{name: "native endpoints on 17: not this rule's", exact: true,
			hosts: one(withVMX(func(s string) string {
				return replace(`virtualHW.version = "19"`, `virtualHW.version = "17"`)(s) + "vrdma1.nativeEndpointSupport = \"TRUE\"\n"
			})),
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "vCenter says vmx-11, the .vmx 19: fires, sources disagree", exact: true,
			hosts: one(both(withVMX(nil), vcenterCopy(func(c *parse.VMConfig) { c.HWVersion = 11 }))),
			want:  []want{{"esx01", vmName, StatusFail, Critical, "the sources disagree on the hardware version: the .vmx says 19, vCenter says 11", ""}}},
	})
}

func TestVMGuestNotLinux64(t *testing.T) {
	guest := func(g string) func() []facts.Host {
		return one(withVMX(replace(`guestOS = "rhel8-64"`, `guestOS = "`+g+`"`)))
	}
	runCases(t, "VM_GUEST_NOT_LINUX64", []ruleCase{
		{name: "ubuntu-64: passes", hosts: guest("ubuntu-64"), exact: true, want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "windows: fires critical", hosts: guest("windows2019srv-64"), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Critical, "a Windows guest", `guestOS = "windows2019srv-64"`}}},
		{name: "32-bit Linux: fires critical", hosts: guest("rhel6"), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Critical, "32-bit Linux", ""}}},
		{name: "other-64: a warning", hosts: guest("other-64"), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "generic or unknown guest OS type", ""}}},
	})
	for id, fam := range map[string]string{"ubuntu64Guest": "linux64", "rhel8_64Guest": "linux64", "otherLinux64Guest": "linux64",
		"otherlinux-64": "linux64", "windows9Server64Guest": "windows", "otherGuest64": "unknown", "freebsd13_64Guest": "other",
		"sles15-64": "linux64", "centos": "linux32", "vmkernel8Guest": "other", "darwin21-64": "other"} {
		if got := guestFamily(id); got != fam {
			t.Errorf("guestFamily(%q) = %s, want %s", id, got, fam)
		}
	}
}

func TestVMPVRDMANotOnDVS(t *testing.T) {
	runCases(t, "VM_PVRDMA_NOT_ON_DVS", []ruleCase{
		{name: "distributed port: passes", hosts: one(withVMX(nil)), exact: true,
			want: []want{{"esx01", vmName + " (ethernet1)", StatusPass, "", "", ""}}},
		{name: "standard port group: fires", exact: true,
			hosts: one(withVMX(func(s string) string {
				return replace(`ethernet1.dvs.switchId = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"`, `ethernet1.networkName = "RDMA PG"`)(s)
			})),
			want: []want{{"esx01", vmName + " (ethernet1)", StatusFail, Critical, `the standard-switch port group "RDMA PG"`, `ethernet1.networkName = "RDMA PG"`}}},
	})
}

func TestVMAdapterDisconnected(t *testing.T) {
	runCases(t, "VM_ADAPTER_DISCONNECTED", []ruleCase{
		{name: "connected at power on: passes", hosts: one(withVMX(nil)), exact: true,
			want: []want{{"esx01", vmName + " (ethernet1)", StatusPass, "", "", ""}}},
		{name: "startConnected FALSE: fires", hosts: one(withVMX(replace(`ethernet1.startConnected = "TRUE"`, `ethernet1.startConnected = "FALSE"`))), exact: true,
			want: []want{{"esx01", vmName + " (ethernet1)", StatusFail, Critical, "not set to connect at power on", `ethernet1.startConnected = "FALSE"`}}},
		{name: "vCenter: connected now, not at power on: warning", exact: true,
			hosts: one(both(withVMX(replace(`ethernet1.startConnected = "TRUE"`, `ethernet1.startConnected = "FALSE"`)), func(h *facts.Host) {
				h.VMConfigs[0].Adapters[1].Connected, h.VMConfigs[0].Adapters[1].ConnectedSet = true, true
			})),
			want: []want{{"esx01", vmName + " (ethernet1)", StatusFail, Warning, "connected now but not set to connect at power on", ""}}},
		{name: "vCenter says disconnected: fires critical", exact: true,
			hosts: one(both(withVMX(nil), vcenterCopy(func(c *parse.VMConfig) {
				c.Adapters[1].Connected, c.Adapters[1].ConnectedSet = false, true
			}))),
			want: []want{{"esx01", vmName + " (ethernet1)", StatusFail, Critical, "is not connected (vCenter)", ""}}},
	})
}

func TestVMPeersOnDifferentDVS(t *testing.T) {
	two := func(otherDVS bool) func() []facts.Host {
		return func() []facts.Host {
			a, b, c := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12"), goodHost("esx03", "192.168.50.13")
			withVMX(nil)(&a)
			withVMX(nil)(&b)
			edit := func(s string) string { return s }
			if otherDVS {
				edit = replace("50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b", "50 aa bb cc dd ee ff 00-11 22 33 44 55 66 77 88")
				c.DVSwitches = append(c.DVSwitches, parse.DVSwitch{Name: "lab-dvs", VDSID: "50 aa bb cc dd ee ff 00-11 22 33 44 55 66 77 88"})
			}
			withVMX(edit)(&c)
			return []facts.Host{a, b, c}
		}
	}
	runCases(t, "VM_PEERS_ON_DIFFERENT_DVS", []ruleCase{
		{name: "one vDS: passes", hosts: two(false), exact: true,
			want: []want{{"esx01", "hpc-esx01", StatusPass, "", "", ""}, {"esx03", "hpc-esx03", StatusPass, "", "", ""}}},
		{name: "one VM on another vDS: fires on it only", hosts: two(true), exact: true,
			want: []want{{"esx03", "hpc-esx03 (ethernet1)", StatusFail, Warning, "is on lab-dvs, while 2 other PVRDMA VMs of the scan are on rdma-dvs", "50 aa bb"},
				{"esx01", "hpc-esx01", StatusPass, "", "", ""}}},
	})
}

func TestVMDeviceProtocolMismatch(t *testing.T) {
	v2only := func(h *facts.Host) {
		h.RDMAProtocols[0].RoCEv1 = false
		h.RDMAProtocols[0].Ref.Text = "vmrdma0    false     true  false"
	}
	runCases(t, "VM_DEVICE_PROTOCOL_MISMATCH", []ruleCase{
		{name: "RoCE v2 on a v1+v2 device: passes", hosts: one(nil), exact: true,
			want: []want{{"esx01", vm01, StatusPass, "", "", ""}}},
		{name: "RoCE v2 on a v2-only device: near miss", hosts: one(v2only), exact: true,
			want: []want{{"esx01", vm01, StatusPass, "", "", ""}}},
		{name: "vsish RoCE v1 on a v2-only device: fires", exact: true,
			hosts: one(both(v2only, func(h *facts.Host) { setProp(h, "RoCE version", "1"); h.PVRDMADevices[0].RoCEVersion = 1 })),
			want:  []want{{"esx01", vm01, StatusFail, Critical, "uses RoCE v1 (vsish `RoCE version`), which vmrdma0 (the RDMA device PVRDMA uses on esx01) does not support", "RoCE version:1"}}},
		{name: "vCenter deviceProtocol rocev1 while vsish shows v2: fires, sources disagree", exact: true,
			hosts: one(both(v2only, withVMX(nil), vcenterCopy(func(c *parse.VMConfig) { c.Adapters[1].DeviceProtocol = "rocev1" }))),
			want:  []want{{"esx01", vm01, StatusFail, Critical, "the sources disagree on its RoCE version: vCenter says rocev1, vsish shows RoCE v2", ""}}},
	})
}

// The VM settings join the host's one plan: a VM with several wrong
// settings is powered off once, every setting has its step, and no two
// steps disagree.
func TestVMPlanSharesPowerCycle(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	withVMX(func(s string) string {
		s = replace(`virtualHW.version = "19"`, `virtualHW.version = "11"`)(s)
		return replace(`sched.mem.pin = "TRUE"`, `sched.mem.pin = "FALSE"`)(replace(`sched.mem.min = "16384"`, `sched.mem.min = "0"`)(s))
	})(&h)
	h.PVRDMAVmknic.StringValue = "" // a host finding too
	fleet := &facts.Fleet{Hosts: []facts.Host{h}}
	res := Run(fleet)
	plans := Plans(fleet, res.Findings)
	if len(plans) != 1 {
		t.Fatalf("plans %+v", plans)
	}
	var acts []string
	for _, s := range plans[0].Steps {
		acts = append(acts, string(s.Action))
	}
	got := strings.Join(acts, " ")
	if strings.Count(got, "power_off") != 1 || strings.Count(got, "power_on") != 1 || strings.Count(got, " vm_") != 2 ||
		strings.Index(got, "power_off") > strings.Index(got, "vm_upgrade_hardware") || strings.Index(got, "vm_memory_pin") > strings.Index(got, "power_on") {
		t.Errorf("plan actions %s", got)
	}
	if c := Contradictions(plans[0]); len(c) > 0 {
		t.Errorf("contradictions %v", c)
	}
}

// Two PVRDMA VMs on each of two vDSs: the VMs on the vDS without an RDMA
// uplink are told to move to the one with it, whichever sorts first; when
// both have RDMA and jumbo frames, no direction is named.
func TestVMPeersOnDifferentDVSTieBreak(t *testing.T) {
	const lab = "50 0a bb cc dd ee ff 00-11 22 33 44 55 66 77 88" // sorts before rdma-dvs's ID
	four := func(labRDMA bool) func() []facts.Host {
		return func() []facts.Host {
			var hosts []facts.Host
			for i, n := range []string{"esx01", "esx02", "esx03", "esx04"} {
				h := goodHost(n, "192.168.50.1"+string(rune('1'+i)))
				if i < 2 {
					withVMX(nil)(&h)
				} else {
					withVMX(replace("50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b", lab))(&h)
					sw := parse.DVSwitch{Name: "lab-dvs", VDSID: lab, MTU: 9000, Uplinks: []string{"vmnic2"},
						Record: rec(cmdDVS, "Name", "lab-dvs", "MTU", "9000", "Uplinks", "vmnic2")}
					if labRDMA {
						secondPort(&h, "Active", true)
						sw.Uplinks = []string{"vmnic5"}
					}
					h.DVSwitches = append(h.DVSwitches, sw)
				}
				hosts = append(hosts, h)
			}
			return hosts
		}
	}
	runCases(t, "VM_PEERS_ON_DIFFERENT_DVS", []ruleCase{
		{name: "2 and 2, lab-dvs without RDMA: its VMs move to rdma-dvs", hosts: four(false), exact: true,
			want: []want{
				{"esx03", "hpc-esx03 (ethernet1)", StatusFail, Warning, "rdma-dvs is the PVRDMA vDS: the only one with an Active RDMA uplink and jumbo frames", "50 0a bb"},
				{"esx04", "hpc-esx04 (ethernet1)", StatusFail, Warning, "while 2 other PVRDMA VMs of the scan are on rdma-dvs", ""},
				{"esx01", "hpc-esx01", StatusPass, "", "", ""}, {"esx02", "hpc-esx02", StatusPass, "", "", ""}}},
		{name: "2 and 2, both with RDMA and jumbo frames: no direction", hosts: four(true), exact: true,
			want: []want{
				{"esx01", "hpc-esx01 (ethernet1)", StatusFail, Warning, "pvrdma-doctor names no direction", ""},
				{"esx02", "hpc-esx02 (ethernet1)", StatusFail, Warning, "is on rdma-dvs, while 2 other PVRDMA VMs of the scan are on other vDSs", ""},
				{"esx03", "hpc-esx03 (ethernet1)", StatusFail, Warning, "is on lab-dvs", ""},
				{"esx04", "hpc-esx04 (ethernet1)", StatusFail, Warning, "", ""}}},
	})
}
