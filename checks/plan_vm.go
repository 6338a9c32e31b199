package checks

import (
	"fmt"
	"strings"
)

// The VM settings part of a host's fix plan: every VM and GPU finding is a
// change to a VM's settings, made while the VM is powered off, so its VM
// joins the plan's one power_off / power_on pair; each finding gets one
// vm_settings step (its own fix) that names the setting it leaves.

// vmRules are the rules whose fixes change VM settings.
var vmRules = []string{
	"VM_GUEST_NOT_LINUX64", "VM_HW_VERSION_TOO_OLD", "VM_MEMORY_NOT_RESERVED", "VM_PVRDMA_NOT_ON_DVS",
	"VM_PEERS_ON_DIFFERENT_DVS", "VM_ADAPTER_DISCONNECTED", "VM_DEVICE_PROTOCOL_MISMATCH", "NATIVE_ENDPOINTS_UNAVAILABLE",
	"GPU_FIRMWARE_NOT_EFI", "GPU_64BIT_MMIO_OFF", "GPU_MMIO_TOO_SMALL", "GPU_DUPLICATE_DEVICE",
}

// vmPlanSteps returns the vm_settings steps of the host's VM findings (at
// warning or above) and the VMs they power-cycle.
func (b *planBuilder) vmPlanSteps() (steps []PlanStep, vms []string) {
	dupStep := map[string]int{} // passthrough device -> its one step
	for _, rule := range vmRules {
		for _, f := range b.of(rule) {
			if f.CausedBy != nil && b.hasFinding(f.CausedBy.Key()) {
				continue // fixed with its cause
			}
			vm := vmSettingsSubject(f.Subject)
			if f.RuleID == "VM_DEVICE_PROTOCOL_MISMATCH" {
				vm = vmOfSubject(f.Subject)
			}
			res := append([]Finding{f}, b.consequencesOf(f)...)
			text := f.Fix
			if rest, ok := strings.CutPrefix(text, offFirst(vm)); ok {
				text = "On " + shellArg(vm, "the VM") + ": " + rest // the plan's power_off step turned it off
			}
			s := PlanStep{Action: "vm_settings", Text: text, Resolves: cite(res...), Sets: b.vmEffects(f, vm)}
			if f.RuleID == "GPU_DUPLICATE_DEVICE" {
				// One step per device, whichever VMs list it.
				_, id, _ := strings.Cut(strings.TrimSuffix(f.Subject, ")"), " (")
				if i, ok := dupStep[id]; ok {
					steps[i].Resolves = append(steps[i].Resolves, cite(res...)...)
					vms = append(vms, vm)
					continue
				}
				dupStep[id] = len(steps)
			}
			if f.RuleID == "VM_ADAPTER_DISCONNECTED" {
				// Connecting an adapter needs no power cycle.
				steps = append(steps, s)
				continue
			}
			steps = append(steps, s)
			vms = append(vms, vm)
		}
	}
	return steps, dedupe(vms)
}

func (b *planBuilder) hasFinding(key string) bool {
	for _, f := range b.fs {
		if f.Key() == key {
			return true
		}
	}
	return false
}

// vmEffects are the settings a VM finding's step leaves, so that two steps
// never set one VM setting to different values.
func (b *planBuilder) vmEffects(f Finding, vm string) []Effect {
	on := func(what, state string) []Effect { return []Effect{{vm + " on " + b.h.Host + ": " + what, state}} }
	switch f.RuleID {
	case "VM_MEMORY_NOT_RESERVED":
		return on("memory reservation", "all guest memory, locked")
	case "VM_HW_VERSION_TOO_OLD":
		need := minHWPVRDMA
		for _, v := range vmViews(b.h) {
			if v.Name == vm {
				for _, c := range v.Configs {
					if n, _ := hwNeeded(c); n > need {
						need = n
					}
				}
			}
		}
		return on("virtual hardware version", fmt.Sprintf(">= %d", need))
	case "VM_GUEST_NOT_LINUX64":
		return on("guest OS type", "64-bit Linux")
	case "VM_PVRDMA_NOT_ON_DVS", "VM_PEERS_ON_DIFFERENT_DVS":
		return []Effect{{f.Subject + " on " + b.h.Host + ": backing", "the PVRDMA vDS"}}
	case "VM_ADAPTER_DISCONNECTED":
		return []Effect{{f.Subject + " on " + b.h.Host + ": connected at power on", "yes"}}
	case "VM_DEVICE_PROTOCOL_MISMATCH":
		return []Effect{{"device protocol of " + f.Subject, "a RoCE version the host's device supports"}}
	case "GPU_FIRMWARE_NOT_EFI":
		return on("firmware", "EFI")
	case "GPU_64BIT_MMIO_OFF":
		return append(on("pciPassthru.use64bitMMIO", "TRUE"), on("pciPassthru.64bitMMIOSizeGB", b.mmioTarget(vm))...)
	case "GPU_MMIO_TOO_SMALL":
		return on("pciPassthru.64bitMMIOSizeGB", b.mmioTarget(vm))
	case "GPU_DUPLICATE_DEVICE":
		_, id, _ := strings.Cut(strings.TrimSuffix(f.Subject, ")"), " (")
		return []Effect{{"passthrough device " + id + " on " + b.h.Host, "used once, by one VM"}}
	}
	return nil
}

// mmioTarget is the 64-bit MMIO size the plan sets for a VM (the value
// both MMIO steps name).
func (b *planBuilder) mmioTarget(vm string) string {
	for _, v := range vmViews(b.h) {
		if v.Name != vm {
			continue
		}
		for _, c := range v.Configs {
			if gs := gpus(b.h, c); len(gs) > 0 {
				return mmioFor(gs).sizeText()
			}
		}
	}
	return "SIZE_GB"
}
