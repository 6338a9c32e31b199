package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Every cause edge is a claim with a source and two tests: a run where the
// effect follows from the cause (linked), and a near miss where the cause
// holds but the effect does not follow from it (absent, or there for
// another reason): no link.

// finding names a finding of a run: rule, host, subject.
type finding struct{ rule, host, subject string }

func (f finding) key() string { return f.rule + "|" + f.host + "|" + f.subject }

type edgeCase struct {
	cause, effect string
	// linked is a run where effect (the finding to) follows from cause
	// (from).
	linked   func() *facts.Fleet
	from, to finding
	// miss is a near miss: missFrom fires, and missTo (when it fires at
	// all) is not linked to it.
	miss             func() *facts.Fleet
	missFrom, missTo finding
	// name says what the near miss is.
	name string
}

func fleetOf2(hosts ...facts.Host) *facts.Fleet {
	f := &facts.Fleet{Hosts: hosts}
	f.LinkGuests()
	return f
}

// pair is two good hosts esx01, esx02 after f changes the second.
func pair(f func(b *facts.Host)) func() *facts.Fleet {
	return func() *facts.Fleet {
		a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
		f(&b)
		return fleetOf2(a, b)
	}
}

// noDevice takes esx02's RDMA device away; vsish shows hca.
func noDevice(hca string) func(b *facts.Host) {
	return func(b *facts.Host) {
		b.RDMADevices, b.RDMAProtocols, b.RDMAVmknics, b.RDMAStats = nil, nil, nil, nil
		setProp(b, "Physical HCA available", hca)
	}
}

// secondPort gives a host the second port of its card, vmrdma1 on vmnic5
// (not an uplink of the vDS), with PFC off.
func secondPort(h *facts.Host, state string, roce bool) {
	const get5, dcb5 = "esxcli network nic get -n vmnic5", "esxcli network nic dcb status get -n vmnic5"
	collected(h, get5, dcb5)
	h.RDMADevices = append(h.RDMADevices, parse.RDMADevice{Name: "vmrdma1", Driver: "nmlx5_rdma", State: state, MTU: 4096, PairedUplink: "vmnic5",
		Ref: ref(cmdRDMAList, 4, "vmrdma1  nmlx5_rdma  "+state+"  4096  100 Gbps  vmnic5")})
	h.RDMAProtocols = append(h.RDMAProtocols, parse.RDMAProtocol{Device: "vmrdma1", RoCEv1: roce, RoCEv2: roce, Ref: ref(cmdProto, 4, "vmrdma1 ...")})
	h.NICs = append(h.NICs, parse.NIC{Name: "vmnic5", AdminStatus: "Up", LinkStatus: "Up", MTU: 9000, Driver: "nmlx5_core", Ref: ref(cmdNICList, 5, "vmnic5")})
	h.NICDetails = append(h.NICDetails, parse.NICDetail{Name: "vmnic5", Driver: "nmlx5_core", LinkStatus: "Up",
		Record: rec(get5, "Name", "vmnic5", "Pause RX", "false", "Pause TX", "false"), Ref: ref(get5, 1, "")})
	h.DCB = append(h.DCB, parse.DCBStatus{Nic: "vmnic5", DCBEnabled: true, Record: rec(dcb5, "Nic Name", "vmnic5", "PFC Enabled", "false"), Ref: ref(dcb5, 1, "")})
}

func noRoCE(h *facts.Host) { h.RDMAProtocols[0].RoCEv1, h.RDMAProtocols[0].RoCEv2 = false, false }

func v2only(h *facts.Host) { h.RDMAProtocols[0].RoCEv1 = false }

func roce1(h *facts.Host) { setProp(h, "RoCE version", "1"); h.PVRDMADevices[0].RoCEVersion = 1 }

func esxi60(h *facts.Host) { h.Version.Version = "6.0.0" }

// noVMs: the host runs no PVRDMA VM (its vmknic stays tagged).
func noVMs(h *facts.Host) { h.PVRDMAListing, h.PVRDMADevices = nil, nil }

// blockedPairs probes, between the hosts of each pair (indexes), a path
// that carries only 1500-byte frames.
func blockedPairs(n int, pairs ...[2]int) func() *facts.Fleet {
	return func() *facts.Fleet {
		hosts := fleetOf(n, func(int, int) (int, int, float64) { return 0, 0, 0 })()
		for i := range hosts {
			hosts[i].Pings = nil
		}
		for _, p := range pairs {
			probePath(&hosts[p[0]], hosts[p[1]].IPv4[1].Address, 1472, 0, 0.030)
			probePath(&hosts[p[1]], hosts[p[0]].IPv4[1].Address, 1472, 0, 0.030)
		}
		return fleetOf2(hosts...)
	}
}

// guestAt1500 is a scanned guest of esx01's adapter whose interface is at
// MTU 1500, and esx01's adapters at Active MTU 1024; other adds a second
// PVRDMA VM on esx01 (not scanned) at 1024 too.
func guestAt1500(other bool) func() *facts.Fleet {
	return func() *facts.Fleet {
		out := healthyGuestOutputs()
		l := out[catalog.KindGuestIPLink]
		l.stdout = strings.Replace(l.stdout, "mtu 9000", "mtu 1500", 1)
		out[catalog.KindGuestIPLink] = l
		h := guestHost("esx01", 1)
		h.PVRDMADevices[0].ActiveMTU = 1024
		h.PVRDMADevices[0].Props = rec(cmdProps, "MAC address", guestMAC, "Physical HCA available", "1", "RoCE version", "2", "Active MTU", "1024")
		if other {
			d := h.PVRDMADevices[0]
			d.WorldID, d.VMName, d.MAC = "2100999", "other-vm", "00:50:56:8a:01:b0"
			h.PVRDMADevices = append(h.PVRDMADevices, d)
		}
		peer := goodHost("esx02", "192.168.50.12")
		f := &facts.Fleet{Hosts: []facts.Host{h, peer}, Guests: []facts.Guest{guestFacts("vm1", out)}}
		f.LinkGuests()
		return f
	}
}

// oldGuest is a CentOS 7.1 guest without vmw_pvrdma; modinfo says whether
// `modinfo vmw_pvrdma` answered (not found) or gave nothing.
func oldGuest(modinfo bool) func() *facts.Fleet {
	return func() *facts.Fleet {
		out := healthyGuestOutputs()
		out[catalog.KindGuestKernel] = guestOut{stdout: "3.10.0-229.el7.x86_64\n"}
		out[catalog.KindGuestOSRelease] = guestOut{stdout: "NAME=\"CentOS Linux\"\nID=\"centos\"\nVERSION_ID=\"7\"\nPRETTY_NAME=\"CentOS Linux 7 (Core)\"\n"}
		noPVRDMA(out)
		if !modinfo {
			delete(out, catalog.KindGuestModinfo)
		}
		f := &facts.Fleet{Hosts: []facts.Host{guestHost("esx01", 1)}, Guests: []facts.Guest{guestFacts("vm1", out)}}
		f.LinkGuests()
		return f
	}
}

const vm02 = "hpc-esx02 (PVRDMA adapter 0)"

var edgeCases = []edgeCase{
	{cause: "NO_RDMA_DEVICE", effect: "TCP_FALLBACK",
		linked: pair(noDevice("0")), from: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}, to: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"},
		name: "vsish shows the adapter bound to an HCA: TCP_FALLBACK only says the sources disagree, no fallback follows from the missing device",
		miss: pair(noDevice("1")), missFrom: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}, missTo: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"}},
	{cause: "NO_RDMA_DEVICE", effect: "PHYSICAL_HCA_UNAVAILABLE",
		linked: pair(noDevice("0")), from: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}, to: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02},
		name: "the adapter is bound (vsish): no PHYSICAL_HCA_UNAVAILABLE",
		miss: pair(noDevice("1")), missFrom: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}, missTo: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02}},
	{cause: "RDMA_UPLINK_NOT_ON_DVS", effect: "TCP_FALLBACK",
		linked: pair(func(b *facts.Host) {
			b.DVSwitches[0].Uplinks = []string{"vmnic2"}
			setProp(b, "Physical HCA available", "0")
		}),
		from: finding{"RDMA_UPLINK_NOT_ON_DVS", "esx02", "vmrdma0"}, to: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"},
		name:     "vsish shows the adapter bound: the disagreement is no fallback",
		miss:     pair(func(b *facts.Host) { b.DVSwitches[0].Uplinks = []string{"vmnic2"} }),
		missFrom: finding{"RDMA_UPLINK_NOT_ON_DVS", "esx02", "vmrdma0"}, missTo: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"}},
	{cause: "RDMA_UPLINK_NOT_ON_DVS", effect: "PHYSICAL_HCA_UNAVAILABLE",
		linked: pair(func(b *facts.Host) {
			b.DVSwitches[0].Uplinks = []string{"vmnic2"}
			setProp(b, "Physical HCA available", "0")
		}),
		from: finding{"RDMA_UPLINK_NOT_ON_DVS", "esx02", "vmrdma0"}, to: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02},
		name:     "the adapter is bound: no PHYSICAL_HCA_UNAVAILABLE",
		miss:     pair(func(b *facts.Host) { b.DVSwitches[0].Uplinks = []string{"vmnic2"} }),
		missFrom: finding{"RDMA_UPLINK_NOT_ON_DVS", "esx02", "vmrdma0"}, missTo: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02}},
	{cause: "RDMA_DEVICE_DOWN", effect: "TCP_FALLBACK",
		linked: pair(func(b *facts.Host) { b.RDMADevices[0].State = "Down"; setProp(b, "Physical HCA available", "0") }),
		from:   finding{"RDMA_DEVICE_DOWN", "esx02", "vmrdma0"}, to: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"},
		name:     "the device that is down is an unused second port; the adapter lost its HCA with the vDS's device Active",
		miss:     pair(func(b *facts.Host) { secondPort(b, "Down", true); setProp(b, "Physical HCA available", "0") }),
		missFrom: finding{"RDMA_DEVICE_DOWN", "esx02", "vmrdma1"}, missTo: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"}},
	{cause: "RDMA_DEVICE_DOWN", effect: "PHYSICAL_HCA_UNAVAILABLE",
		linked: pair(func(b *facts.Host) { b.RDMADevices[0].State = "Down"; setProp(b, "Physical HCA available", "0") }),
		from:   finding{"RDMA_DEVICE_DOWN", "esx02", "vmrdma0"}, to: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02},
		name:     "an unused second port is down",
		miss:     pair(func(b *facts.Host) { secondPort(b, "Down", true); setProp(b, "Physical HCA available", "0") }),
		missFrom: finding{"RDMA_DEVICE_DOWN", "esx02", "vmrdma1"}, missTo: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02}},
	{cause: "ROCE_NOT_SUPPORTED", effect: "TCP_FALLBACK",
		linked: pair(func(b *facts.Host) { noRoCE(b); setProp(b, "Physical HCA available", "0") }),
		from:   finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma0"}, to: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"},
		name:     "the device without RoCE is an unused second port",
		miss:     pair(func(b *facts.Host) { secondPort(b, "Active", false); setProp(b, "Physical HCA available", "0") }),
		missFrom: finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma1"}, missTo: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"}},
	{cause: "ROCE_NOT_SUPPORTED", effect: "PHYSICAL_HCA_UNAVAILABLE",
		linked: pair(func(b *facts.Host) { noRoCE(b); setProp(b, "Physical HCA available", "0") }),
		from:   finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma0"}, to: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02},
		name:     "the device without RoCE is an unused second port",
		miss:     pair(func(b *facts.Host) { secondPort(b, "Active", false); setProp(b, "Physical HCA available", "0") }),
		missFrom: finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma1"}, missTo: finding{"PHYSICAL_HCA_UNAVAILABLE", "esx02", vm02}},
	{cause: "PFC_DISABLED", effect: "RDMA_ERRORS",
		linked: pair(func(b *facts.Host) {
			b.DCB[0].PFCEnabled, b.DCB[0].PFCPriorities = false, nil
			b.RDMAStats[0].Counters["Error packets received"] = 10
			b.RDMAStats[0].Record = rec(cmdStats0, "Error packets received", "10")
		}),
		from: finding{"PFC_DISABLED", "esx02", "vmnic4"}, to: finding{"RDMA_ERRORS", "esx02", "vmrdma0"},
		name: "PFC is off on the second port's uplink; the errors are on vmrdma0, whose uplink has PFC",
		miss: pair(func(b *facts.Host) {
			secondPort(b, "Active", true)
			b.RDMAStats[0].Counters["Error packets received"] = 10
			b.RDMAStats[0].Record = rec(cmdStats0, "Error packets received", "10")
		}),
		missFrom: finding{"PFC_DISABLED", "esx02", "vmnic5"}, missTo: finding{"RDMA_ERRORS", "esx02", "vmrdma0"}},
	{cause: "PATH_MTU_BLOCKED", effect: "ACTIVE_MTU_ABOVE_PATH",
		linked: func() *facts.Fleet {
			return fleetOf2(fleetOf(2, func(int, int) (int, int, float64) { return 1472, 0, 0.030 })()...)
		},
		from: finding{"PATH_MTU_BLOCKED", "esx01", "vmk1 -> esx02"}, to: finding{"ACTIVE_MTU_ABOVE_PATH", "esx01", vm01},
		name: "the path carries 4200-byte frames and the adapter runs at 2048, which fits",
		miss: func() *facts.Fleet {
			hosts := fleetOf(2, func(int, int) (int, int, float64) { return 4172, 0, 0.030 })()
			for i := range hosts {
				setProp(&hosts[i], "Active MTU", "2048")
			}
			return fleetOf2(hosts...)
		},
		missFrom: finding{"PATH_MTU_BLOCKED", "esx01", "vmk1 -> esx02"}, missTo: finding{"ACTIVE_MTU_ABOVE_PATH", "esx01", vm01}},
	{cause: "PATH_MTU_BLOCKED", effect: "PATH_MTU_BLOCKED",
		linked: blockedPairs(2, [2]int{0, 1}),
		from:   finding{"PATH_MTU_BLOCKED", "esx01", "vmk1 -> esx02"}, to: finding{"PATH_MTU_BLOCKED", "esx02", "vmk1 -> esx01"},
		name:     "two blocked pairs on different links (esx01-esx02, esx03-esx04)",
		miss:     blockedPairs(4, [2]int{0, 1}, [2]int{2, 3}),
		missFrom: finding{"PATH_MTU_BLOCKED", "esx01", "vmk1 -> esx02"}, missTo: finding{"PATH_MTU_BLOCKED", "esx03", "vmk1 -> esx04"}},
	{cause: "RDMA_DRIVER_NOT_LOADED", effect: "NO_RDMA_DEVICE",
		linked: pair(cx4Disabled),
		from:   finding{"RDMA_DRIVER_NOT_LOADED", "esx02", "nmlx5_rdma"}, to: finding{"NO_RDMA_DEVICE", "esx02", "esx02"},
		name: "nmlx5_rdma disabled on a host without PVRDMA VMs (no fallback to explain)",
		miss: pair(func(b *facts.Host) { cx4Disabled(b); noVMs(b) }), missFrom: finding{"RDMA_DRIVER_NOT_LOADED", "esx02", "nmlx5_rdma"},
		missTo: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}},
	{cause: "INTEL_RDMA_DISABLED", effect: "NO_RDMA_DEVICE",
		linked: pair(e810Off),
		from:   finding{"INTEL_RDMA_DISABLED", "esx02", "vmnic2"}, to: finding{"NO_RDMA_DEVICE", "esx02", "esx02"},
		name: "icen's RDMA off on a host without PVRDMA VMs",
		miss: pair(func(b *facts.Host) { e810Off(b); noVMs(b) }), missFrom: finding{"INTEL_RDMA_DISABLED", "esx02", "vmnic2"},
		missTo: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}},
	{cause: "ROCE_OFF_IN_LAN_DRIVER", effect: "NO_RDMA_DEVICE",
		linked: pair(bcm57508("bnxtroce true true", "disable_roce=1")),
		from:   finding{"ROCE_OFF_IN_LAN_DRIVER", "esx02", "vmnic4"}, to: finding{"NO_RDMA_DEVICE", "esx02", "esx02"},
		name: "bnxtnet's disable_roce=1 on a host without PVRDMA VMs",
		miss: pair(func(b *facts.Host) { bcm57508("bnxtroce true true", "disable_roce=1")(b); noVMs(b) }), missFrom: finding{"ROCE_OFF_IN_LAN_DRIVER", "esx02", "vmnic4"},
		missTo: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}},
	{cause: "INTEL_ENS_ACTIVE", effect: "NO_RDMA_DEVICE",
		linked: pair(ensOn),
		from:   finding{"INTEL_ENS_ACTIVE", "esx02", "vmnic2"}, to: finding{"NO_RDMA_DEVICE", "esx02", "esx02"},
		name: "an E810 in ENS mode on a host without PVRDMA VMs",
		miss: pair(func(b *facts.Host) { ensOn(b); noVMs(b) }), missFrom: finding{"INTEL_ENS_ACTIVE", "esx02", "vmnic2"},
		missTo: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}},
	{cause: "ESXI_VERSION_UNSUPPORTED", effect: "NO_RDMA_DEVICE",
		linked: pair(func(b *facts.Host) { esxi60(b); noDevice("0")(b) }),
		from:   finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, to: finding{"NO_RDMA_DEVICE", "esx02", "esx02"},
		name: "ESXi 6.0 with an RDMA device listed",
		miss: pair(esxi60), missFrom: finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, missTo: finding{"NO_RDMA_DEVICE", "esx02", "esx02"}},
	{cause: "ESXI_VERSION_UNSUPPORTED", effect: "PVRDMA_FIREWALL_CLOSED",
		linked: pair(func(b *facts.Host) { esxi60(b); b.Rulesets = b.Rulesets[:1] }),
		from:   finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, to: finding{"PVRDMA_FIREWALL_CLOSED", "esx02", "pvrdma"},
		name: "ESXi 6.0 whose pvrdma ruleset is open",
		miss: pair(esxi60), missFrom: finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, missTo: finding{"PVRDMA_FIREWALL_CLOSED", "esx02", "pvrdma"}},
	{cause: "ESXI_VERSION_UNSUPPORTED", effect: "PVRDMA_VMKNIC_UNSET",
		linked: pair(func(b *facts.Host) { esxi60(b); b.PVRDMAVmknic.StringValue = "" }),
		from:   finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, to: finding{"PVRDMA_VMKNIC_UNSET", "esx02", "/Net/PVRDMAVmknic"},
		name: "ESXi 6.0 with a tagged vmknic",
		miss: pair(esxi60), missFrom: finding{"ESXI_VERSION_UNSUPPORTED", "esx02", "esx02"}, missTo: finding{"PVRDMA_VMKNIC_UNSET", "esx02", "/Net/PVRDMAVmknic"}},
	{cause: "VM_DEVICE_PROTOCOL_MISMATCH", effect: "ROCE_VERSION_MISMATCH",
		linked: pair(func(b *facts.Host) { v2only(b); roce1(b) }),
		from:   finding{"VM_DEVICE_PROTOCOL_MISMATCH", "esx02", vm02}, to: finding{"ROCE_VERSION_MISMATCH", "esx02", vm02},
		name: "esx02's adapter speaks v1 on a v2-only device; esx03's speaks v1 on a device that has it: its version mismatch is its own",
		miss: func() *facts.Fleet {
			a, b, c := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12"), goodHost("esx03", "192.168.50.13")
			v2only(&b)
			roce1(&b)
			roce1(&c)
			return fleetOf2(a, b, c)
		},
		missFrom: finding{"VM_DEVICE_PROTOCOL_MISMATCH", "esx02", vm02}, missTo: finding{"ROCE_VERSION_MISMATCH", "esx03", "hpc-esx03 (PVRDMA adapter 0)"}},
	{cause: "ROCE_NOT_SUPPORTED", effect: "VM_DEVICE_PROTOCOL_MISMATCH",
		linked: pair(noRoCE),
		from:   finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma0"}, to: finding{"VM_DEVICE_PROTOCOL_MISMATCH", "esx02", vm02},
		name:     "the device without RoCE is an unused second port; the adapter's v1 is missing from the v2-only device PVRDMA uses",
		miss:     pair(func(b *facts.Host) { secondPort(b, "Active", false); v2only(b); roce1(b) }),
		missFrom: finding{"ROCE_NOT_SUPPORTED", "esx02", "vmrdma1"}, missTo: finding{"VM_DEVICE_PROTOCOL_MISMATCH", "esx02", vm02}},
	{cause: "PVRDMA_VMKNIC_OTHER_SUBNET", effect: "VMKPING_UNREACHABLE",
		linked: otherSubnetProbes(false), from: finding{"PVRDMA_VMKNIC_OTHER_SUBNET", "esx02", "vmk2"},
		to:   finding{"VMKPING_UNREACHABLE", "esx01", "vmk1 -> 192.168.60.12 (esx02 vmk2)"},
		name: "esx01's probe to esx03, in esx01's own subnet, is lost too: esx02's tag does not explain it",
		miss: otherSubnetProbes(true), missFrom: finding{"PVRDMA_VMKNIC_OTHER_SUBNET", "esx02", "vmk2"},
		missTo: finding{"VMKPING_UNREACHABLE", "esx01", "vmk1 -> 192.168.50.13 (esx03 vmk1)"}},
	{cause: "TCP_FALLBACK", effect: "VM_PEERS_WITHOUT_RDMA",
		linked: pair(noDevice("0")), from: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"},
		to:   finding{"VM_PEERS_WITHOUT_RDMA", "esx01", "esx01 (hpc-esx01)"},
		name: "esx01 has no RDMA device either: its own TCP_FALLBACK says so, its VMs are no pair with working RDMA on one side",
		miss: func() *facts.Fleet {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			noDevice("0")(&a)
			noDevice("0")(&b)
			return fleetOf2(a, b)
		},
		missFrom: finding{"TCP_FALLBACK", "esx02", "esx02 (hpc-esx02)"}, missTo: finding{"VM_PEERS_WITHOUT_RDMA", "esx01", "esx01 (hpc-esx01)"}},
	{cause: "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", effect: "LOW_MTU",
		linked: guestAt1500(false),
		from:   finding{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "vm1", "vmw_pvrdma0 (hpc-esx01 PVRDMA adapter 0 on esx01)"}, to: finding{"LOW_MTU", "esx01", vm01},
		name: "another VM's adapter on the same host also runs at 1024; its guest was not scanned",
		miss: guestAt1500(true), missFrom: finding{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "vm1", "vmw_pvrdma0 (hpc-esx01 PVRDMA adapter 0 on esx01)"},
		missTo: finding{"LOW_MTU", "esx01", "other-vm (PVRDMA adapter 0)"}},
	{cause: "GUEST_KERNEL_TOO_OLD", effect: "GUEST_NO_PVRDMA_DEVICE",
		linked: oldGuest(true), from: finding{"GUEST_KERNEL_TOO_OLD", "vm1", "vm1"}, to: finding{"GUEST_NO_PVRDMA_DEVICE", "vm1", "vm1"},
		name: "whether the old kernel has the module is unknown: the missing device is not proved to follow from it",
		miss: oldGuest(false), missFrom: finding{"GUEST_KERNEL_TOO_OLD", "vm1", "vm1"}, missTo: finding{"GUEST_NO_PVRDMA_DEVICE", "vm1", "vm1"}},
}

// failingByKey runs the catalogue and indexes its failing findings.
func failingByKey(f *facts.Fleet) (map[string]Finding, []Finding) {
	res := Run(f)
	m := map[string]Finding{}
	for _, x := range res.Findings {
		if x.Status == StatusFail {
			m[x.Host+"|"+x.RuleID+"|"+x.Subject] = x
		}
	}
	return m, res.Findings
}

func (f finding) in(m map[string]Finding) (Finding, bool) {
	x, ok := m[f.host+"|"+f.rule+"|"+f.subject]
	return x, ok
}

func TestCauseEdges(t *testing.T) {
	covered := map[[2]string]bool{}
	for _, c := range edgeCases {
		covered[[2]string{c.cause, c.effect}] = true
		t.Run(c.cause+"->"+c.effect, func(t *testing.T) {
			m, all := failingByKey(c.linked())
			cause, ok := c.from.in(m)
			if !ok {
				t.Fatalf("linked: the cause %s does not fire:\n%s", c.from.key(), dump(all))
			}
			effect, ok := c.to.in(m)
			if !ok || effect.CausedBy == nil || effect.CausedBy.Key() != cause.Key() {
				t.Errorf("linked: %s caused by %+v, want %s:\n%s", c.to.key(), effect.CausedBy, cause.Key(), dump(all))
			}
			if effect.Severity.Rank() > cause.Severity.Rank() {
				t.Errorf("linked: %s (%s) is more severe than its cause (%s)", c.to.key(), effect.Severity, cause.Severity)
			}
			m, all = failingByKey(c.miss())
			cause, ok = c.missFrom.in(m)
			if !ok {
				t.Fatalf("near miss (%s): the cause %s does not fire:\n%s", c.name, c.missFrom.key(), dump(all))
			}
			if effect, ok := c.missTo.in(m); ok && effect.CausedBy != nil && effect.CausedBy.Key() == cause.Key() {
				t.Errorf("near miss (%s): %s is linked to %s", c.name, c.missTo.key(), cause.Key())
			}
		})
	}
	for _, e := range causeEdges {
		if !covered[[2]string{e.Cause, e.Effect}] {
			t.Errorf("cause edge %s -> %s has no linked case and no near miss in edgeCases", e.Cause, e.Effect)
		}
		if len(CauseSources(e.Cause, e.Effect)) == 0 {
			t.Errorf("cause edge %s -> %s cites no source", e.Cause, e.Effect)
		}
	}
}

// An edge without a source, with an unknown one, or between rules that do
// not exist is refused: the package would not load.
func TestCauseEdgesNeedSources(t *testing.T) {
	srcs := map[string]string{"s": "a document"}
	rules := map[string]*Rule{"A": {ID: "A"}, "B": {ID: "B"}}
	if m, err := resolveEdges([]causeEdge{{"A", "B", "why", []string{"s"}}}, srcs, rules); err != nil || m[[2]string{"A", "B"}][0] != "a document" {
		t.Fatalf("valid edge: %v %v", m, err)
	}
	for _, c := range []struct {
		name  string
		edges []causeEdge
		want  string
	}{
		{"no source", []causeEdge{{"A", "B", "why", nil}}, "no source"},
		{"unknown source", []causeEdge{{"A", "B", "why", []string{"t"}}}, `unknown source "t"`},
		{"unknown rule", []causeEdge{{"A", "C", "why", []string{"s"}}}, "does not exist"},
		{"twice", []causeEdge{{"A", "B", "why", []string{"s"}}, {"A", "B", "again", []string{"s"}}}, "declared twice"},
	} {
		if _, err := resolveEdges(c.edges, srcs, rules); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// A link no edge declares is dropped: linkCauses never makes up a cause.
func TestUndeclaredLinkDropped(t *testing.T) {
	fs := []Finding{
		{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Status: StatusFail, Severity: Critical, Host: "esx01", Subject: "vm (PVRDMA adapter 0)"},
		{RuleID: "GUEST_PORT_DOWN", Status: StatusFail, Severity: Critical, Host: "vm", Subject: "vmw_pvrdma0",
			CausedBy: &Cause{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Host: "esx01", Subject: "vm (PVRDMA adapter 0)"}},
	}
	linkCauses(&facts.Fleet{}, (&facts.Fleet{}).DataPath(), fs)
	if fs[1].CausedBy != nil {
		t.Errorf("undeclared link kept: %+v", fs[1].CausedBy)
	}
}

// otherSubnetProbes: esx02 tags vmk2 (another vDS, 192.168.60.12, no
// gateway), and esx01's probes to it get no reply; with third, esx03
// (192.168.50.13, esx01's subnet) does not answer esx01 either.
func otherSubnetProbes(third bool) func() *facts.Fleet {
	return func() *facts.Fleet {
		a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
		wrongTag(&b)
		addPings(&a, "192.168.60.12", false, false)
		hosts := []facts.Host{a, b}
		if third {
			addPings(&hosts[0], "192.168.50.13", false, false)
			hosts = append(hosts, goodHost("esx03", "192.168.50.13"))
		}
		return fleetOf2(hosts...)
	}
}
