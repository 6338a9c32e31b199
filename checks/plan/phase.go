package plan

import "slices"

// Phase names a part of a plan; phases run in PhaseOrder.
type Phase string

// The phases of a plan, in order. prepare, reboot and power_on are the
// generic envelope (checks' planner makes them); rules place their actions in the
// others.
const (
	PhasePrepare     Phase = "prepare"     // VMs off, others migrated, maintenance mode
	PhaseHardware    Phase = "hardware"    // install a NIC, upgrade ESXi (the host powers off)
	PhaseDriver      Phase = "driver"      // modules and module parameters (take effect at the reboot)
	PhaseReboot      Phase = "reboot"      // the reboot, out of maintenance mode
	PhaseUplinks     Phase = "uplinks"     // vDS uplinks and links (PVRDMA VMs off)
	PhaseSwitch      Phase = "switch"      // the physical switch ports: before the host's MTU and flow control
	PhaseHost        Phase = "host"        // vmknic, firewall, MTU, lossless Ethernet
	PhaseVM          Phase = "vm"          // VM settings (the VM off)
	PhasePowerOn     Phase = "power_on"    // the VMs back on
	PhaseGuest       Phase = "guest"       // inside the guests
	PhaseInvestigate Phase = "investigate" // what nothing collected explains
)

// PhaseOrder is the order of the phases. The switch side comes before
// the host's: a host whose MTU is above its switch ports' loses its jumbo
// frames there (“Setting up a 100GbE PVRDMA Network on vCenter 7” sets up
// the physical switch first, as the jumbo frame fixes of the rules do), and
// lossless Ethernet is set on the switch port before the host's NIC asks
// for it.
var PhaseOrder = []Phase{PhasePrepare, PhaseHardware, PhaseDriver, PhaseReboot, PhaseUplinks, PhaseSwitch, PhaseHost, PhaseVM,
	PhasePowerOn, PhaseGuest, PhaseInvestigate}

// PhaseRank is a phase's place in PhaseOrder.
func PhaseRank(p Phase) int { return slices.Index(PhaseOrder, p) }
