package checks

// The typed actions of fix plans: what a step does (ActionKind) and what
// it does it to (Params). docs/report-schema.md lists every kind and the
// parameters it takes; the lab's host model (fixtures/internal/scenariogen/
// model, effects.go) gives each kind its effect on a simulated host, from
// the same JSON.

// ActionKind names what a plan step does.
type ActionKind string

// The actions of the envelope (plan.go makes them).
const (
	ActPowerOffVMs      ActionKind = "power_off_vms"     // shut down VMs (VMs)
	ActMigrateVMs       ActionKind = "migrate_vms"       // move running VMs to other hosts (VMs)
	ActEnterMaintenance ActionKind = "enter_maintenance" // the host into maintenance mode
	ActReboot           ActionKind = "reboot"            // reboot the host (in maintenance mode)
	ActExitMaintenance  ActionKind = "exit_maintenance"  // the host out of maintenance mode
	ActPowerOnVMs       ActionKind = "power_on_vms"      // power VMs on (VMs; BindHCA: those whose adapter must bind)
)

// The host's hardware, drivers and network.
const (
	ActInstallNIC      ActionKind = "install_nic"           // install an RoCE NIC (the host powers off)
	ActUpgradeESXi     ActionKind = "upgrade_esxi"          // upgrade ESXi (Version: the minimum)
	ActEnableModule    ActionKind = "enable_module"         // enable a VMkernel module (Module; NICs, Family)
	ActSetModuleParams ActionKind = "set_module_params"     // set module parameters, merged (Module, Set; Current when read)
	ActSetUplinks      ActionKind = "set_uplinks"           // make Uplinks the vDS's only uplinks (Switch, Uplinks or NewNIC)
	ActNICUp           ActionKind = "nic_up"                // bring an administratively down uplink up (NIC, Device)
	ActRepairLink      ActionKind = "repair_link"           // repair a physical link (NIC, Device)
	ActTagVmknic       ActionKind = "tag_vmknic"            // set /Net/PVRDMAVmknic (Vmknic)
	ActSetVmknicIPv4   ActionKind = "set_vmknic_ipv4"       // give a vmknic a static IPv4 address (Vmknic)
	ActEnableRuleset   ActionKind = "enable_ruleset"        // enable a firewall ruleset (Ruleset)
	ActRestoreRules    ActionKind = "restore_ruleset_rules" // restore a ruleset's port rules (Ruleset)
	ActAllowIP         ActionKind = "allow_ip"              // allow addresses through a ruleset (Ruleset, IPs)
	ActSetVmknicMTU    ActionKind = "set_vmknic_mtu"        // a vmknic's MTU (Vmknic, MTU)
	ActSetVDSMTU       ActionKind = "set_vds_mtu"           // a vDS's MTU (Switch, MTU)
	ActSetSwitchMTU    ActionKind = "set_switch_mtu"        // the physical switch ports' MTU (Hosts, MTU; Probe)
	ActSetPause        ActionKind = "set_pause"             // global pause on an uplink (NIC)
	ActSetSwitchFlow   ActionKind = "set_switch_flow"       // PFC or pause on the uplink's switch port (NIC, Mode, Priority)
)

// VM settings (the VM powered off).
const (
	ActVMMemoryPin       ActionKind = "vm_memory_pin"       // reserve all guest memory (VM)
	ActVMUpgradeHardware ActionKind = "vm_upgrade_hardware" // virtual hardware version (VM, Version: the minimum)
	ActVMSetGuestOS      ActionKind = "vm_set_guest_os"     // the guest OS type (VM, Value)
	ActVMReplaceAdapter  ActionKind = "vm_replace_adapter"  // the PVRDMA adapter replaced by a VMXNET3 one (VM, Adapter)
	ActVMSetNetwork      ActionKind = "vm_set_network"      // the adapter on a distributed port group (VM, Adapter, Switch)
	ActVMConnectAdapter  ActionKind = "vm_connect_adapter"  // connected, and at power-on (VM, Adapter)
	ActVMSetProtocol     ActionKind = "vm_set_protocol"     // the adapter's device protocol (VM, Adapter, Value)
	ActVMSetFirmware     ActionKind = "vm_set_firmware"     // the VM's firmware (VM, Value)
	ActVMSetExtraConfig  ActionKind = "vm_set_extra_config" // advanced settings (VM, Set)
	ActVMRemoveDevice    ActionKind = "vm_remove_device"    // a passthrough device's extra or shared entry (VM, Device)
)

// Inside a Linux guest.
const (
	ActGuestSetMTU        ActionKind = "guest_set_mtu"           // the PVRDMA interface's MTU, persisted (Netdev, MTU)
	ActGuestReloadDriver  ActionKind = "guest_reload_driver"     // vmw_pvrdma reloaded after the IB modules (Device; MTU, Port: what it shows after)
	ActGuestLoadDriver    ActionKind = "guest_load_driver"       // vmw_pvrdma loaded (Device)
	ActGuestPersistOrder  ActionKind = "guest_persist_order"     // the load order kept across boots
	ActGuestInstallRDMA   ActionKind = "guest_install_rdma_core" // rdma-core's verbs provider (Value: apt or yum)
	ActGuestReplaceMOFED  ActionKind = "guest_replace_mofed"     // MLNX_OFED's libraries replaced by rdma-core (Value: the codename)
	ActGuestInstallModule ActionKind = "guest_install_modules"   // the kernel's RDMA modules (Version: the kernel release)
	ActGuestUpgradeKernel ActionKind = "guest_upgrade_kernel"    // a kernel with vmw_pvrdma (Version: the minimum)
	ActGuestSetIPv4       ActionKind = "guest_set_ipv4"          // an address on the PVRDMA interface (Netdev)
	ActGuestLinkUp        ActionKind = "guest_link_up"           // the PVRDMA interface up (Netdev)
)

// What no action can model.
const (
	ActInvestigate ActionKind = "investigate" // look at what nothing collected explains (Note); resolves nothing
	ActFollowFix   ActionKind = "follow_fix"  // a rule without a contribution: its finding's own fix (Note); not modelled
)

// ActionKinds lists every kind, in the order docs/report-schema.md
// documents them.
var ActionKinds = []ActionKind{ActPowerOffVMs, ActMigrateVMs, ActEnterMaintenance, ActReboot, ActExitMaintenance, ActPowerOnVMs, ActInstallNIC,
	ActUpgradeESXi, ActEnableModule, ActSetModuleParams, ActSetUplinks, ActNICUp, ActRepairLink, ActTagVmknic, ActSetVmknicIPv4,
	ActEnableRuleset, ActRestoreRules, ActAllowIP, ActSetVmknicMTU, ActSetVDSMTU, ActSetSwitchMTU, ActSetPause, ActSetSwitchFlow,
	ActVMMemoryPin, ActVMUpgradeHardware, ActVMSetGuestOS, ActVMReplaceAdapter, ActVMSetNetwork, ActVMConnectAdapter, ActVMSetProtocol,
	ActVMSetFirmware, ActVMSetExtraConfig, ActVMRemoveDevice, ActGuestSetMTU, ActGuestReloadDriver, ActGuestLoadDriver,
	ActGuestPersistOrder, ActGuestInstallRDMA, ActGuestReplaceMOFED, ActGuestInstallModule, ActGuestUpgradeKernel, ActGuestSetIPv4,
	ActGuestLinkUp, ActInvestigate, ActFollowFix}

// Action is one typed action on the plan's host (or guest).
type Action struct {
	Kind ActionKind `json:"action"`
	// Host is the host or guest the action is carried out on (the plan's).
	Host   string `json:"host"`
	Params Params `json:"params"`
}

// Params are an action's parameters; each kind uses the ones its comment
// names (docs/report-schema.md).
type Params struct {
	VMs []string `json:"vms,omitempty"`
	// BindHCA are the VMs whose PVRDMA adapter binds to the HCA at this
	// power-on (power_on_vms).
	BindHCA []string `json:"bind_hca,omitempty"`
	VM      string   `json:"vm,omitempty"`
	Module  string   `json:"module,omitempty"`
	// Set are the parameters (name=value) a module or VM setting gets.
	Set []Setting `json:"set,omitempty"`
	// Current is the module's option string as read; absent when it was
	// not read (the command then reads it and merges).
	Current *string `json:"current,omitempty"`
	// Family is the NIC family the step is about ("E810", "ConnectX-5").
	Family string `json:"family,omitempty"`
	// Package is the driver bundle that carries Module.
	Package string   `json:"package,omitempty"`
	Switch  string   `json:"switch,omitempty"`
	Uplinks []string `json:"uplinks,omitempty"`
	// NewNIC: the uplink is the port of the NIC install_nic adds.
	NewNIC  bool     `json:"new_nic,omitempty"`
	NIC     string   `json:"nic,omitempty"`
	NICs    []string `json:"nics,omitempty"`
	Device  string   `json:"device,omitempty"`
	Vmknic  string   `json:"vmknic,omitempty"`
	MTU     int      `json:"mtu,omitempty"`
	Ruleset string   `json:"ruleset,omitempty"`
	IPs     []string `json:"ips,omitempty"`
	// Hosts are the hosts whose switch ports a switch action changes.
	Hosts []string `json:"hosts,omitempty"`
	// Probe is the vmkping that proves a switch MTU change; Unmeasured:
	// no probe measured the switch ports yet (the step applies only if
	// the probe fails once the host sends jumbo frames).
	Probe      string `json:"probe,omitempty"`
	Unmeasured bool   `json:"unmeasured,omitempty"`
	// MAC is the PVRDMA adapter's MAC, which names its guest interface
	// when the guest was not scanned.
	MAC string `json:"mac,omitempty"`
	// Mode is pfc or pause (set_switch_flow); Priority the PFC priority.
	Mode     string `json:"mode,omitempty"`
	Priority int    `json:"priority,omitempty"`
	Adapter  string `json:"adapter,omitempty"`
	Value    string `json:"value,omitempty"`
	Version  string `json:"version,omitempty"`
	Netdev   string `json:"netdev,omitempty"`
	// Port: after the step the guest's port must be ACTIVE.
	Port bool `json:"port,omitempty"`
	// Config is the command that reads the VM's configuration (.vmx), for
	// the verify read of a VM setting.
	Config string `json:"config,omitempty"`
	// Note is what an investigate or follow_fix step says.
	Note string `json:"note,omitempty"`
}

// Setting is one name=value a step sets.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
