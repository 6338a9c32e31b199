package plan

import (
	"fmt"
	"strings"
)

// What each kind's command interrupts while it runs (or at the boot it
// waits for), named by the objects of its parameters: a runbook asks for
// an explicit yes before a command that disrupts, saying what it
// disrupts, and the checklist prints it beside the command. Every
// registered kind declares it (a test fails for one that does not); a
// kind that interrupts nothing says why.

// Disrupting is a kind's declaration of what carrying it out interrupts.
type Disrupting interface {
	Disrupts(host string) Disruption
}

// Disruption is what an action interrupts: What names it with its objects
// (the vmknic, the NIC, the VMs, the packages); when What is empty the
// action interrupts nothing and None says why.
type Disruption struct {
	What string
	None string
}

// Disrupts reports whether the action interrupts anything.
func (d Disruption) Disrupts() bool { return d.What != "" }

// DisruptionOf is what action v interrupts on host, as its kind declares
// it; a kind that declares nothing counts as disruptive.
func DisruptionOf(host string, v Value) Disruption {
	if d, ok := v.(Disrupting); ok {
		return d.Disrupts(host)
	}
	// A kind that declares nothing is asked about, never run unasked.
	return Disruption{What: fmt.Sprintf("what %s interrupts is not declared: read the step before running it", v.Kind())}
}

func disrupts(format string, a ...any) Disruption {
	return Disruption{What: fmt.Sprintf(format, a...)}
}

func calm(why string) Disruption { return Disruption{None: why} }

// vmsText names VMs, every one of them: a confirm names all it stops.
func vmsText(vms []string) string {
	if len(vms) == 0 {
		return "the VMs"
	}
	return strings.Join(vms, ", ")
}

// inGuest is where a guest action runs: the VM it names in a host's plan,
// else the plan's guest.
func inGuest(vm, host string) string {
	if vm != "" {
		return vm
	}
	return host
}

// The envelope.

func (a PowerOffVMs) Disrupts(host string) Disruption {
	return disrupts("%s shut down on %s: their guests and RDMA jobs stop until the plan powers them on again", vmsText(a.VMs), host)
}

func (a MigrateVMs) Disrupts(string) Disruption {
	return calm("vMotion moves the running VMs without stopping them")
}

func (EnterMaintenance) Disrupts(host string) Disruption {
	return disrupts("running VMs on %s must be powered off or migrated first; %s stops taking new VMs until it leaves maintenance mode", host, host)
}

func (Reboot) Disrupts(host string) Disruption {
	return disrupts("%s restarts: every VM still on it and its management connection (this shell) stop until it is back", host)
}

func (ExitMaintenance) Disrupts(host string) Disruption {
	return calm(host + " takes VMs again; nothing running stops")
}

func (PowerOnVMs) Disrupts(string) Disruption {
	return calm("it starts VMs the plan shut down; nothing running stops")
}

// The host's hardware, drivers and network.

func (a InstallNIC) Disrupts(host string) Disruption {
	return disrupts("%s powers off for the new NIC of %s: every VM on it stops until it is back", host, orPlaceholder(a.Switch, "the PVRDMA vDS"))
}

func (a UpgradeESXi) Disrupts(host string) Disruption {
	return disrupts("%s reboots into ESXi %s or later: every VM on it must be off or migrated first", host, a.Version)
}

func (a EnableModule) Disrupts(host string) Disruption {
	return disrupts("%s loads at the next boot of %s and from then on drives %s: nothing changes before the reboot, "+
		"and a driver that fails to load leaves them without an RDMA device", a.Module, host, nicsText(a.NICs))
}

func (a SetModuleParams) Disrupts(host string) Disruption {
	return disrupts("%s's option string is replaced (its other options kept) and loads at the next boot of %s on every port it drives (%s): "+
		"nothing changes before the reboot, and options the driver rejects leave those ports without a driver and their links down",
		a.Module, host, nicsText(a.NICs))
}

func (a SetUplinks) Disrupts(host string) Disruption {
	return disrupts("the uplinks of %s on %s change to %s: traffic of %s on %s stops while the uplinks move, and on any uplink taken away for good",
		a.Switch, host, a.target(), a.Switch, host)
}

func (a NICUp) Disrupts(string) Disruption {
	return calm(a.NIC + " is administratively down: nothing runs on it that could stop")
}

func (a RepairLink) Disrupts(string) Disruption {
	return calm("the link of " + a.NIC + " is down: nothing runs on it that could stop")
}

func (a TagVmknic) Disrupts(string) Disruption {
	return calm("/Net/PVRDMAVmknic takes effect at the next PVRDMA driver load; " + a.Vmknic + "'s traffic does not stop")
}

func (a SetVmknicIPv4) Disrupts(host string) Disruption {
	return disrupts("%s on %s gets a new static address: connections to its current address (vMotion, storage, PVRDMA peers) drop", a.Vmknic, host)
}

func (a EnableRuleset) Disrupts(string) Disruption {
	return calm("enabling the " + a.Ruleset + " ruleset opens its ports; no connection is closed")
}

func (a RestoreRules) Disrupts(string) Disruption {
	return calm("the refresh reloads the firewall's rules with the " + a.Ruleset + " ports restored; established connections stay")
}

func (a AllowIP) Disrupts(string) Disruption {
	return calm("adding allowed addresses to the " + a.Ruleset + " ruleset closes nothing")
}

func (a SetVmknicMTU) Disrupts(host string) Disruption {
	return disrupts("traffic on %s on %s pauses while its MTU changes to %d; frames above the switch ports' MTU are dropped until the switch side matches",
		a.Vmknic, host, a.MTU)
}

func (a SetVDSMTU) Disrupts(string) Disruption {
	return disrupts("traffic on %s pauses on every member host while its MTU changes to %d (their uplinks may reset); frames above the switch ports' MTU are dropped until the switch side matches",
		a.Switch, a.MTU)
}

func (a SetSwitchMTU) Disrupts(string) Disruption {
	return disrupts("the switch ports of %s may go down for a few seconds while their MTU changes to %d: traffic on them stops",
		strings.Join(a.Hosts, ", "), a.MTU)
}

func (a SetPause) Disrupts(host string) Disruption {
	return disrupts("%s's link on %s goes down for a few seconds while it renegotiates flow control: traffic on it stops", a.NIC, host)
}

func (a SetSwitchFlow) Disrupts(string) Disruption {
	return disrupts("the switch port of %s renegotiates flow control: its link may go down for a few seconds, and traffic on it stops", a.NIC)
}

// Notes.

func (Investigate) Disrupts(string) Disruption { return calm("a look at the host; it changes nothing") }

func (FollowFix) Disrupts(string) Disruption {
	return calm("the finding's own fix, in words: a person reads it before doing anything")
}

// VM settings, changed with the VM off (the plan shuts it down first).

func (a VMMemoryPin) Disrupts(string) Disruption {
	return calm("a memory reservation of " + a.VM + "; the VM keeps running")
}

func (a VMUpgradeHardware) Disrupts(string) Disruption {
	return calm(a.VM + " is off at this point of the plan; the upgrade takes effect at its next power-on")
}

func (a VMSetGuestOS) Disrupts(string) Disruption {
	return calm(a.VM + " is off at this point of the plan; the type is read at its next power-on")
}

func (a VMReplaceAdapter) Disrupts(string) Disruption {
	return disrupts("%s loses its PVRDMA adapter %s: RDMA in the guest stops, and the new VMXNET3 adapter comes up with a new MAC address", a.VM, a.Adapter)
}

func (a VMSetNetwork) Disrupts(string) Disruption {
	return disrupts("%s's adapter %s moves to another port group of %s: its connections on the old network drop", a.VM, a.Adapter, a.Switch)
}

func (a VMConnectAdapter) Disrupts(string) Disruption {
	return calm(a.VM + "'s adapter " + a.Adapter + " is not connected: nothing runs on it that could stop")
}

func (a VMSetProtocol) Disrupts(string) Disruption {
	return calm(a.VM + " is off at this point of the plan; the protocol is read at its next power-on")
}

func (a VMSetFirmware) Disrupts(string) Disruption {
	return disrupts("%s boots with EFI from now on: a guest installed under BIOS no longer boots", a.VM)
}

func (a VMSetExtraConfig) Disrupts(string) Disruption {
	return calm(a.VM + " is off at this point of the plan; the settings are read at its next power-on")
}

func (a VMRemoveDevice) Disrupts(string) Disruption {
	return disrupts("%s loses its entry of PCI device %s: whatever it ran on that device stops", a.VM, a.Device)
}

// Inside the guests.

func (a GuestSetMTU) Disrupts(host string) Disruption {
	return disrupts("traffic on %s in %s pauses while its MTU changes to %d; frames above its peers' MTU are dropped until they match",
		orPlaceholder(a.Netdev, "the PVRDMA interface"), inGuest(a.VM, host), a.MTU)
}

func (a GuestReloadDriver) Disrupts(host string) Disruption {
	return disrupts("vmw_pvrdma is unloaded in %s: every RDMA connection of %s drops (the unload fails while a process holds the device)",
		inGuest(a.VM, host), orPlaceholder(a.Device, "its PVRDMA device"))
}

func (GuestLoadDriver) Disrupts(string) Disruption {
	return calm("vmw_pvrdma is not loaded: nothing uses it that could stop")
}

func (GuestPersistOrder) Disrupts(string) Disruption {
	return calm("a boot script; it changes nothing until the next boot")
}

func (GuestInstallRDMA) Disrupts(string) Disruption {
	return calm("it installs packages and removes none")
}

func (GuestReplaceMOFED) Disrupts(host string) Disruption {
	return disrupts("removes %s and every package that depends on them in %s; the list above shows what", strings.Join(MOFEDPurge, " "), host)
}

func (GuestInstallModule) Disrupts(string) Disruption {
	return calm("it installs the kernel's modules and loads vmw_pvrdma, not loaded yet")
}

func (GuestUpgradeKernel) Disrupts(host string) Disruption {
	return disrupts("%s reboots into the new kernel: its jobs stop until it is back", host)
}

func (a GuestSetIPv4) Disrupts(string) Disruption {
	return calm("it adds an address to " + a.Netdev + "; the addresses it has stay")
}

func (a GuestLinkUp) Disrupts(string) Disruption {
	return calm(a.Netdev + " is down: nothing runs on it that could stop")
}
