package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const cmdPCI = "esxcli hardware pci list"

// withGPUs puts GPUs in passthrough on the host (name "" = a device name
// that does not state the memory) and passes the given ones through to
// the PVRDMA VM with the extra .vmx lines.
func withGPUs(names map[string]string, vmGPUs []string, extra string) func(h *facts.Host) {
	return func(h *facts.Host) {
		collected(h, cmdPCI)
		line := 1
		for _, addr := range sortedAddrs(names) {
			h.PCIDevices = append(h.PCIDevices, parse.PCIDevice{Address: addr, DeviceName: names[addr], VendorID: "0x10de",
				DeviceClassName: "3D controller", ConfiguredOwner: "VM Passthru", CurrentOwner: "VM Passthru", ModuleName: "pciPassthru",
				Record: rec(cmdPCI, "Address", addr, "Device Name", names[addr]), Ref: ref(cmdPCI, line, addr)})
			line += 30
		}
		withVMX(func(s string) string {
			for i, a := range vmGPUs {
				var seg, bus, slot, fn int
				fmt.Sscanf(a, "%x:%x:%x.%d", &seg, &bus, &slot, &fn)
				s += fmt.Sprintf("pciPassthru%d.id = \"%05d:%03d:%02x.%d\"\npciPassthru%d.vendorId = \"0x10de\"\npciPassthru%d.present = \"TRUE\"\n",
					i, seg, bus, slot, fn, i, i)
			}
			return s + extra
		})(h)
	}
}

func sortedAddrs(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

var p40s = map[string]string{"0000:3b:00.0": "GP102GL [Tesla P40 24GB]", "0000:d8:00.0": "GP102GL [Tesla P40 24GB]"}

const mmio = "pciPassthru.use64bitMMIO = \"TRUE\"\npciPassthru.64bitMMIOSizeGB = \"%d\"\n"

func TestGPUFirmwareNotEFI(t *testing.T) {
	runCases(t, "GPU_FIRMWARE_NOT_EFI", []ruleCase{
		{name: "EFI: passes", hosts: one(withGPUs(p40s, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 128))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "BIOS (no firmware key): fires", exact: true,
			hosts: one(func(h *facts.Host) {
				withGPUs(p40s, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 128))(h)
				h.VMConfigs[0], _ = parse.VMConfigFromVMX(strings.Replace(healthyVMX(vmName), "firmware = \"efi\"\n", "", 1) +
					"pciPassthru0.id = \"00000:059:00.0\"\npciPassthru0.vendorId = \"0x10de\"\n")
				h.VMConfigs[0].Command = "cat '" + vmxPath + "'"
				h.VMConfigs[0].Passthrough[0].Command = h.VMConfigs[0].Command
			}),
			want: []want{{"esx01", vmName, StatusFail, Critical, "boots BIOS firmware", "pciPassthru0.id"}}},
		{name: "no GPU passed through: nothing to check", hosts: one(withVMX(nil)), exact: true, want: nil},
	})
}

func TestGPU64bitMMIOOff(t *testing.T) {
	runCases(t, "GPU_64BIT_MMIO_OFF", []ruleCase{
		{name: "on: passes", hosts: one(withGPUs(p40s, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 128))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "off with 48 GB of GPUs: critical, recommends seed 003's 128", exact: true,
			hosts: one(withGPUs(p40s, []string{"0000:3b:00.0", "0000:d8:00.0"}, "")),
			want:  []want{{"esx01", vmName, StatusFail, Critical, "without 64-bit MMIO", "pciPassthru0.id"}}},
		{name: "off, memory unknown: warning that says why", exact: true,
			hosts: one(withGPUs(map[string]string{"0000:3b:00.0": "GA100 [A100 PCIe]"}, []string{"0000:3b:00.0"}, "")),
			want:  []want{{"esx01", vmName, StatusFail, Warning, "prints no GPU memory size and the device name of pciPassthru0 0000:3b:00.0 (GA100 [A100 PCIe]) does not state one", ""}}},
		{name: "off with one 8 GB card: info", exact: true,
			hosts: one(withGPUs(map[string]string{"0000:3b:00.0": "TU104GL [Tesla T4 8GB]"}, []string{"0000:3b:00.0"}, "")),
			want:  []want{{"esx01", vmName, StatusFail, Info, "not for these", ""}}},
	})
	fs := runRule(t, "GPU_64BIT_MMIO_OFF", one(withGPUs(p40s, []string{"0000:3b:00.0", "0000:d8:00.0"}, ""))()...)
	for _, f := range fs {
		if f.Status == StatusFail && !strings.Contains(f.Fix, "-e pciPassthru.use64bitMMIO=TRUE -e pciPassthru.64bitMMIOSizeGB=128") {
			t.Errorf("fix %q", f.Fix)
		}
	}
}

func TestGPUMMIOTooSmall(t *testing.T) {
	two := []string{"0000:3b:00.0", "0000:d8:00.0"}
	notRunning := func(h *facts.Host) { h.VMs = nil }
	runCases(t, "GPU_MMIO_TOO_SMALL", []ruleCase{
		{name: "seed 003: 2 x 24 GB at 128 passes", hosts: one(withGPUs(p40s, two, fmt.Sprintf(mmio, 128))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		// Below the guide's value the VM does not boot: a running VM
		// fails at its next power-on (warning), an off one will not power
		// on (critical).
		{name: "2 x 24 GB at 64, running: warning, fails at its next power-on", hosts: one(withGPUs(p40s, two, fmt.Sprintf(mmio, 64))), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "“Calculating the value for 64bitMMIOSizeGB” gives 128 (the total rounded up to a power of two, then to the next one): with less, the VM does not power on", "64bitMMIOSizeGB = \"64\""}}},
		{name: "2 x 24 GB at 32, running: warning, fails at its next power-on", hosts: one(withGPUs(p40s, two, fmt.Sprintf(mmio, 32))), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "runs now, so it fails at its next power-on", ""}}},
		{name: "2 x 24 GB at 32, vCenter only (not running here): critical", exact: true,
			hosts: one(both(withGPUs(p40s, two, fmt.Sprintf(mmio, 32)), notRunning)),
			want:  []want{{"esx01", vmName, StatusFail, Critical, "is off: it will not power on with this configuration", ""}}},
		// 2 x A100 80 GB = 160 GB: 256, then 512; at 256 a powered-off VM
		// does not power on: critical (the expert review's case).
		{name: "2 x A100 80 GB at 256, off: critical, the fix is 512", exact: true,
			hosts: one(both(withGPUs(map[string]string{"0000:3b:00.0": "GA100 [A100 PCIe 80GB]", "0000:d8:00.0": "GA100 [A100 PCIe 80GB]"}, two, fmt.Sprintf(mmio, 256)), notRunning)),
			want:  []want{{"esx01", vmName, StatusFail, Critical, "160 GB of GPU memory", ""}}},
		{name: "2 x A100 80 GB at 512 passes", exact: true,
			hosts: one(both(withGPUs(map[string]string{"0000:3b:00.0": "GA100 [A100 PCIe 80GB]", "0000:d8:00.0": "GA100 [A100 PCIe 80GB]"}, two, fmt.Sprintf(mmio, 512)), notRunning)),
			want:  []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "size unknown from the listing: not evaluated, says why", exact: true,
			hosts: one(withGPUs(map[string]string{"0000:3b:00.0": "GA100 [A100 PCIe]"}, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 64))),
			want:  []want{{"esx01", vmName, StatusNotEvaluated, "", "`esxcli hardware pci list` prints no GPU memory size", ""}}},
		{name: "64-bit MMIO off: left to GPU_64BIT_MMIO_OFF", hosts: one(withGPUs(p40s, two, "")), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
	})
	for total, want := range map[int][2]int{32: {64, 64}, 48: {128, 64}, 128: {256, 256}, 160: {512, 256}, 80: {256, 128}, 16: {32, 32}} {
		m := mmioFor([]gpuOf{{dev: parse.PassthroughDevice{ID: "x"}, pci: &parse.PCIDevice{DeviceName: fmt.Sprintf("X %dGB", total)}}})
		if m.Tested != want[0] || m.Published != want[1] {
			t.Errorf("%d GB: tested %d published %d, want %v", total, m.Tested, m.Published, want)
		}
	}
}

func TestGPUDuplicateDevice(t *testing.T) {
	runCases(t, "GPU_DUPLICATE_DEVICE", []ruleCase{
		{name: "two different GPUs: passes", hosts: one(withGPUs(p40s, []string{"0000:3b:00.0", "0000:d8:00.0"}, fmt.Sprintf(mmio, 128))), exact: true,
			want: []want{{"esx01", vmName, StatusPass, "", "", ""}}},
		{name: "the same GPU twice: fires", hosts: one(withGPUs(p40s, []string{"0000:3b:00.0", "0000:3b:00.0"}, fmt.Sprintf(mmio, 128))), exact: true,
			want: []want{{"esx01", vmName + " (0000:3b:00.0)", StatusFail, Critical, "2 times (pciPassthru0, pciPassthru1)", "pciPassthru1.id"}}},
		{name: "a GPU a powered-off VM also uses: one conflict, one finding, on the VM that fails at its next power-on", exact: true,
			hosts: one(func(h *facts.Host) {
				withGPUs(p40s, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 128))(h)
				addVMX(h, "/vmfs/volumes/ds/train/train.vmx", "displayName = \"train\"\nfirmware = \"efi\"\npciPassthru0.id = \"0000:3b:00.0\"\npciPassthru0.present = \"TRUE\"\n")
			}),
			want: []want{{"esx01", vmName, StatusPass, "", "", ""},
				{"esx01", "train (0000:3b:00.0)", StatusFail, Critical, "train fails at its next power-on while hpc-esx01 runs", ""}}},
		{name: "a powered-off VM vCenter reports with the same GPU (its own address form): one finding, on it", exact: true,
			hosts: one(func(h *facts.Host) {
				withGPUs(p40s, []string{"0000:3b:00.0"}, fmt.Sprintf(mmio, 128))(h)
				h.VMConfigs = append(h.VMConfigs, parse.VMConfig{Source: "vcenter", Name: "infer-02", Firmware: "efi",
					Ref:         parse.Ref{Command: "vCenter: VirtualMachine infer-02 config"},
					Passthrough: []parse.PassthroughDevice{{Label: "PCI device 0", ID: "0000:3B:00.0", Ref: parse.Ref{Command: "vCenter: VirtualMachine infer-02 config"}}}})
			}),
			want: []want{{"esx01", vmName, StatusPass, "", "", ""},
				{"esx01", "infer-02 (0000:3b:00.0)", StatusFail, Critical, "which hpc-esx01 also passes through", ""}}},
	})
}
