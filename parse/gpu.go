package parse

import (
	"regexp"
	"strconv"
	"strings"
)

// IsGPU reports whether a PCI device is a graphics or compute accelerator:
// its Device Class Name is a display, VGA or 3D controller (class 0x03xx).
func (p PCIDevice) IsGPU() bool {
	n := strings.ToLower(p.DeviceClassName)
	if strings.Contains(n, "display") || strings.Contains(n, "vga") || strings.Contains(n, "3d controller") {
		return true
	}
	c := strings.ToLower(p.Record.Get("Device Class"))
	return strings.HasPrefix(c, "0x03")
}

// InPassthrough reports whether the host has the device configured for
// VM passthrough (Configured Owner "VM Passthru", or the pciPassthru
// module bound to it).
func (p PCIDevice) InPassthrough() bool {
	return strings.EqualFold(strings.TrimSpace(p.ConfiguredOwner), "VM Passthru") ||
		strings.EqualFold(strings.TrimSpace(p.CurrentOwner), "VM Passthru") ||
		strings.EqualFold(strings.TrimSpace(p.ModuleName), "pciPassthru")
}

var reDeviceGB = regexp.MustCompile(`(?i)\b([0-9]{1,4})\s?GB\b`)

// MemoryGB is the device memory (GPU framebuffer) in GB when the Device
// Name states it ("GV100GL [Tesla V100 PCIe 16GB]"). `esxcli hardware pci
// list` prints no BAR or memory size, so ok is false for a device whose
// name does not say, and the size must come from the card's datasheet.
func (p PCIDevice) MemoryGB() (gb int, ok bool) {
	m := reDeviceGB.FindAllStringSubmatch(p.DeviceName, -1)
	if len(m) != 1 {
		return 0, false // none, or two sizes: not one card's memory
	}
	n, err := strconv.Atoi(m[0][1])
	if err != nil || n == 0 {
		return 0, false
	}
	return n, true
}
