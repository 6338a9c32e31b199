package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// VM settings, changed with the VM powered off. Each names its VM and
// Config, the command that reads the VM's configuration (.vmx), for the
// verify read (none when the plan does not know it).

// vmxVerify reads a VM's .vmx for a VM setting.
func vmxVerify(config, vm, expect string, m ...Match) []Read {
	if config == "" {
		return nil
	}
	return []Read{{Command: config, On: "esxi", Expect: vm + ": " + expect, Match: m}}
}

// VMMemoryPin reserves all guest memory.
type VMMemoryPin struct {
	VM     string `json:"vm,omitempty"`
	Config string `json:"config,omitempty"`
}

const KindVMMemoryPin Kind = "vm_memory_pin"

var _ = register[VMMemoryPin]()

func (VMMemoryPin) Kind() Kind { return KindVMMemoryPin }
func (VMMemoryPin) About() string {
	return "reserve all guest memory"
}

func (a VMMemoryPin) TargetVM() string              { return a.VM }
func (a VMMemoryPin) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMMemoryPin) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings > Memory > Reservation: \"Reserve all guest memory (All locked)\".", a.VM),
		Command: "govc vm.change -vm " + govcVM(a.VM) + " -memory-pin=true", Sets: sets(a.VM+" on "+host+": memory reservation", "all guest memory, locked")}
}

func (a VMMemoryPin) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, "all guest memory reserved", vmxLine("sched.mem.pin", "TRUE"))}
}

// VMUpgradeHardware upgrades a VM's virtual hardware to at least
// Version.
type VMUpgradeHardware struct {
	VM      string `json:"vm,omitempty"`
	Version string `json:"version,omitempty"`
	Config  string `json:"config,omitempty"`
}

const KindVMUpgradeHardware Kind = "vm_upgrade_hardware"

var _ = register[VMUpgradeHardware]()

func (VMUpgradeHardware) Kind() Kind { return KindVMUpgradeHardware }
func (VMUpgradeHardware) About() string {
	return "virtual hardware at least `version`"
}

func (a VMUpgradeHardware) TargetVM() string              { return a.VM }
func (a VMUpgradeHardware) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

// MergeKey: one upgrade per VM, to the highest minimum asked.
func (a VMUpgradeHardware) MergeKey() string { return a.VM }

func (a VMUpgradeHardware) Merge(o Value) Value {
	a.Version = higher(a.Version, o.(VMUpgradeHardware).Version)
	return a
}

func (a VMUpgradeHardware) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Upgrade %s's compatibility to hardware version %s or later (take a snapshot first).", a.VM, a.Version),
		Command: "govc vm.upgrade -vm " + govcVM(a.VM), Sets: sets(a.VM+" on "+host+": virtual hardware version", ">= "+a.Version)}
}

func (a VMUpgradeHardware) Reads(string) Reads {
	n, _ := strconv.Atoi(a.Version)
	return Reads{Verify: vmxVerify(a.Config, a.VM, "hardware version "+a.Version+" or later", vmxLine("virtualHW.version", atLeastRE(n)))}
}

// VMSetGuestOS sets a VM's guest OS type (Value: the guest ID the data
// gives, "" for the admin to choose: GUEST_ID).
type VMSetGuestOS struct {
	VM     string `json:"vm,omitempty"`
	Value  string `json:"value,omitempty"`
	Config string `json:"config,omitempty"`
}

const KindVMSetGuestOS Kind = "vm_set_guest_os"

var _ = register[VMSetGuestOS]()

func (VMSetGuestOS) Kind() Kind { return KindVMSetGuestOS }
func (VMSetGuestOS) About() string {
	return "the guest OS type; `value`: the guest ID the data gives (the scanned guest's distribution, else for a generic type otherLinux64Guest), else none"
}

func (a VMSetGuestOS) TargetVM() string              { return a.VM }
func (a VMSetGuestOS) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMSetGuestOS) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: guestOSText(a),
		Command: "govc vm.change -vm " + govcVM(a.VM) + " -g " + ShellArg(a.Value, "GUEST_ID"), Sets: sets(a.VM+" on "+host+": guest OS type", "64-bit Linux")}
}

// guestOSText names the guest ID the command sets, or asks for one.
func guestOSText(a VMSetGuestOS) string {
	if a.Value == "" || !Showable(a.Value) {
		return fmt.Sprintf("Set %s's guest OS type to its 64-bit Linux distribution (Edit Settings > VM Options > Guest OS).", a.VM)
	}
	return fmt.Sprintf("Set %s's guest OS type to %s, or to its 64-bit Linux distribution's own type (Edit Settings > VM Options > Guest OS).", a.VM, a.Value)
}

func (a VMSetGuestOS) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, "a 64-bit Linux guest OS type",
		Match{Line: `^guestOS = "[a-z]*(linux|rhel|centos|ubuntu|debian|sles|oracle|rocky|alma|photon|amazon|asianux)[a-z0-9_]*-64"$`})}
}

// VMReplaceAdapter replaces a VM's PVRDMA adapter by a VMXNET3 one.
//
// Device is the adapter's name in govc (vCenter's device list:
// "ethernet-0"), Portgroup the port group it is on (vCenter's data); each
// "" when no source gives it (the command then has a placeholder).
type VMReplaceAdapter struct {
	VM        string `json:"vm,omitempty"`
	Adapter   string `json:"adapter,omitempty"`
	Device    string `json:"device,omitempty"`
	Portgroup string `json:"portgroup,omitempty"`
	Config    string `json:"config,omitempty"`
}

const KindVMReplaceAdapter Kind = "vm_replace_adapter"

var _ = register[VMReplaceAdapter]()

func (VMReplaceAdapter) Kind() Kind { return KindVMReplaceAdapter }
func (VMReplaceAdapter) About() string {
	return "replace the PVRDMA adapter by a VMXNET3 one (a guest PVRDMA does not support); `device`: the adapter's name in govc, `portgroup`: its port group, both from vCenter"
}

func (a VMReplaceAdapter) TargetVM() string              { return a.VM }
func (a VMReplaceAdapter) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMReplaceAdapter) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("PVRDMA has no driver for %s's guest: replace its PVRDMA adapter %s by a VMXNET3 adapter on the same port "+
		"group (Edit Settings), or run the RDMA workload in a 64-bit Linux VM instead.", a.VM, a.Adapter),
		Command: fmt.Sprintf("govc device.remove -vm %s %s && govc vm.network.add -vm %s -net %s -net.adapter vmxnet3",
			govcVM(a.VM), govcDevice(a.Device), govcVM(a.VM), govcPortgroup(a.Portgroup)),
		Sets: sets(a.VM+" on "+host+": "+a.Adapter, "vmxnet3")}
}

func (a VMReplaceAdapter) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, a.Adapter+" is VMXNET3", vmxLine(a.Adapter+".virtualDev", "vmxnet3"))}
}

// VMSetNetwork puts a VM's adapter on a distributed port group of Switch:
// Portgroup, the one vCenter shows its PVRDMA adapters on ("" when the
// data names none, or several). Device is the adapter's name in govc.
type VMSetNetwork struct {
	VM        string `json:"vm,omitempty"`
	Switch    string `json:"switch,omitempty"`
	Adapter   string `json:"adapter,omitempty"`
	Device    string `json:"device,omitempty"`
	Portgroup string `json:"portgroup,omitempty"`
	Config    string `json:"config,omitempty"`
}

const KindVMSetNetwork Kind = "vm_set_network"

var _ = register[VMSetNetwork]()

func (VMSetNetwork) Kind() Kind { return KindVMSetNetwork }
func (VMSetNetwork) About() string {
	return "the adapter on a port group of the PVRDMA vDS; `device`: the adapter's name in govc, `portgroup`: the one vCenter shows the PVRDMA adapters on"
}

func (a VMSetNetwork) TargetVM() string              { return a.VM }
func (a VMSetNetwork) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMSetNetwork) Words(host string) Words {
	text := fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter) > Browse: a distributed port group of %s.", a.VM, a.Adapter, a.Switch)
	if a.Portgroup != "" && Showable(a.Portgroup) {
		text = fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter) > Browse: %s, the distributed port group of %s the PVRDMA adapters use.",
			a.VM, a.Adapter, a.Portgroup, a.Switch)
	}
	return Words{On: "vcenter", Pause: true, Text: text,
		Command: fmt.Sprintf("govc vm.network.change -vm %s -net %s %s", govcVM(a.VM), govcPortgroup(a.Portgroup), govcDevice(a.Device)),
		Sets:    sets(a.VM+" ("+a.Adapter+") on "+host+": backing", a.Switch)}
}

func (a VMSetNetwork) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, a.Adapter+" on a distributed port", Match{Line: `^` + regexp.QuoteMeta(a.Adapter) + `\.dvs\.switchId = "`})}
}

// VMConnectAdapter connects a VM's adapter, and at power-on.
// Device is the adapter's name in govc ("" when no source gives it).
type VMConnectAdapter struct {
	VM      string `json:"vm,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	Device  string `json:"device,omitempty"`
	Config  string `json:"config,omitempty"`
}

const KindVMConnectAdapter Kind = "vm_connect_adapter"

var _ = register[VMConnectAdapter]()

func (VMConnectAdapter) Kind() Kind { return KindVMConnectAdapter }
func (VMConnectAdapter) About() string {
	return "the adapter connected, and connected at power-on; `device`: its name in govc, from vCenter"
}

func (a VMConnectAdapter) TargetVM() string              { return a.VM }
func (a VMConnectAdapter) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMConnectAdapter) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter): check Connected and Connect At Power On.", a.VM, a.Adapter),
		Command: fmt.Sprintf("govc device.connect -vm %s %s", govcVM(a.VM), govcDevice(a.Device)),
		Sets:    sets(a.VM+" ("+a.Adapter+") on "+host+": connected at power on", "yes")}
}

func (a VMConnectAdapter) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, a.Adapter+" connects at power-on", vmxLine(a.Adapter+".startConnected", "TRUE"))}
}

// VMSetProtocol sets the device protocol (RoCE v Value) of a VM's
// adapter.
type VMSetProtocol struct {
	VM      string `json:"vm,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	Value   string `json:"value,omitempty"`
	Config  string `json:"config,omitempty"`
}

const KindVMSetProtocol Kind = "vm_set_protocol"

var _ = register[VMSetProtocol]()

func (VMSetProtocol) Kind() Kind { return KindVMSetProtocol }
func (VMSetProtocol) About() string {
	return "the adapter's device protocol (RoCE version)"
}

func (a VMSetProtocol) TargetVM() string              { return a.VM }
func (a VMSetProtocol) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMSetProtocol) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter) > Device protocol: RoCE v%s.", a.VM, orPlaceholder(a.Adapter, "the PVRDMA adapter"), a.Value),
		Sets: sets("device protocol of "+a.VM+" on "+host, "RoCE v"+a.Value)}
}

func (a VMSetProtocol) Reads(string) Reads {
	return Reads{Verify: []Read{{Command: vsishProps, VM: a.VM, On: "esxi", Expect: "RoCE version:" + a.Value, Match: []Match{LineOf("RoCE version:" + a.Value)}}}}
}

// VMSetFirmware sets a VM's firmware (Value).
type VMSetFirmware struct {
	VM     string `json:"vm,omitempty"`
	Value  string `json:"value,omitempty"`
	Config string `json:"config,omitempty"`
}

const KindVMSetFirmware Kind = "vm_set_firmware"

var _ = register[VMSetFirmware]()

func (VMSetFirmware) Kind() Kind { return KindVMSetFirmware }
func (VMSetFirmware) About() string {
	return "the VM's firmware"
}

func (a VMSetFirmware) TargetVM() string              { return a.VM }
func (a VMSetFirmware) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMSetFirmware) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings > VM Options > Boot Options > Firmware: EFI.", a.VM),
		Warnings: []string{"a guest installed under BIOS does not boot after the switch: convert its boot disk to GPT/EFI first, or reinstall with EFI"},
		Sets:     sets(a.VM+" on "+host+": firmware", "EFI")}
}

func (a VMSetFirmware) Reads(string) Reads {
	return Reads{Verify: vmxVerify(a.Config, a.VM, "firmware efi", vmxLine("firmware", "efi"))}
}

// VMSetExtraConfig sets advanced settings of a VM.
type VMSetExtraConfig struct {
	VM     string    `json:"vm,omitempty"`
	Set    []Setting `json:"set,omitempty"`
	Config string    `json:"config,omitempty"`
}

const KindVMSetExtraConfig Kind = "vm_set_extra_config"

var _ = register[VMSetExtraConfig]()

func (VMSetExtraConfig) Kind() Kind { return KindVMSetExtraConfig }
func (VMSetExtraConfig) About() string {
	return "advanced settings (`.vmx` entries)"
}

func (a VMSetExtraConfig) TargetVM() string              { return a.VM }
func (a VMSetExtraConfig) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMSetExtraConfig) Words(host string) Words {
	w := Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings > VM Options > Advanced > Edit Configuration: %s.", a.VM, SettingsText(a.Set))}
	var es []string
	for _, x := range a.Set {
		es = append(es, "-e "+ShellArg(x.Name+"="+x.Value, "KEY=VALUE"))
		w.Sets = append(w.Sets, Effect{a.VM + " on " + host + ": " + x.Name, x.Value})
	}
	w.Command = "govc vm.change -vm " + govcVM(a.VM) + " " + strings.Join(es, " ")
	return w
}

func (a VMSetExtraConfig) Reads(string) Reads {
	var m []Match
	for _, x := range a.Set {
		if strings.EqualFold(x.Value, "FALSE") {
			m = append(m, Match{Line: vmxLine(x.Name, "[Tt][Rr][Uu][Ee]").Line, Absent: true}) // off: not TRUE
		} else {
			m = append(m, vmxLine(x.Name, regexp.QuoteMeta(x.Value)))
		}
	}
	return Reads{Verify: vmxVerify(a.Config, a.VM, SettingsText(a.Set), m...)}
}

// VMRemoveDevice removes a VM's extra or shared entry of the passthrough
// device Device.
type VMRemoveDevice struct {
	VM     string `json:"vm,omitempty"`
	Device string `json:"device,omitempty"`
	Config string `json:"config,omitempty"`
}

const KindVMRemoveDevice Kind = "vm_remove_device"

var _ = register[VMRemoveDevice]()

func (VMRemoveDevice) Kind() Kind { return KindVMRemoveDevice }
func (VMRemoveDevice) About() string {
	return "a passthrough device's extra or shared entry removed"
}

func (a VMRemoveDevice) TargetVM() string              { return a.VM }
func (a VMRemoveDevice) ForVM(vm, config string) Value { a.VM, a.Config = vm, config; return a }

func (a VMRemoveDevice) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("On %s: Edit Settings: remove its extra entry of PCI device %s, or replace it by a free passthrough device "+
		"(`esxcli hardware pci list`: Configured Owner VM Passthru, in no other VM).", a.VM, a.Device),
		Sets: sets("passthrough device "+a.Device+" on "+host, "used once, by one VM")}
}

func (VMRemoveDevice) Reads(string) Reads { return Reads{} }

func (VMRemoveDevice) Unverified() string {
	return "which entry to remove, or which free device replaces it, is the admin's choice; the rescan shows it"
}
