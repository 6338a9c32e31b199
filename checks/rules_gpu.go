package checks

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesGPU are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesGPU = []*Rule{
	{ID: "GPU_FIRMWARE_NOT_EFI", Plan: planGPUFirmware, Severity: Critical, Check: checkGPUFirmwareNotEFI,
		ListedBy: listedGPUVMs},
	{ID: "GPU_64BIT_MMIO_OFF", Plan: planGPUMMIO, Severity: Critical, Check: checkGPU64bitMMIOOff,
		ListedBy: listedGPUVMs},
	{ID: "GPU_MMIO_TOO_SMALL", Plan: planGPUMMIO, Severity: Critical, Check: checkGPUMMIOTooSmall,
		ListedBy: listedGPUVMs},
	{ID: "GPU_DUPLICATE_DEVICE", Plan: planGPUDuplicate, Severity: Critical, Check: checkGPUDuplicateDevice,
		ListedBy: listedGPUVMs},
}

// The checks of this area (prose: catalogue.yaml): GPU passthrough in the VMs PVRDMA serves (seed 003,
// "Calculating the value for 64bitMMIOSizeGB"): EFI firmware, 64-bit MMIO
// and its size, each GPU passed through once. The GPUs' memory comes from
// `esxcli hardware pci list`, which prints no BAR or memory size: it is
// known only where the device name states it ("Tesla V100 PCIe 16GB").

// gpuOf is one passthrough device of a VM with what the host says of it.
type gpuOf struct {
	dev parse.PassthroughDevice
	pci *parse.PCIDevice // nil when the host does not list it
}

// isGPU: a display or 3D controller by the host's PCI listing, else an
// NVIDIA or AMD device by the vendor ID the configuration gives.
func (g gpuOf) isGPU() bool {
	if g.pci != nil {
		return g.pci.IsGPU()
	}
	v := strings.ToLower(g.dev.VendorID)
	return v == "0x10de" || v == "0x1002"
}

func (g gpuOf) label() string {
	s := g.dev.Label
	if g.dev.ID != "" {
		s += " " + g.dev.ID
	}
	if g.pci != nil && g.pci.DeviceName != "" {
		s += " (" + g.pci.DeviceName + ")"
	}
	return s
}

// gpus returns the GPUs a configuration passes through.
func gpus(h *facts.Host, c parse.VMConfig) []gpuOf {
	var out []gpuOf
	for _, d := range c.Passthrough {
		g := gpuOf{dev: d}
		for i := range h.PCIDevices {
			if d.ID != "" && parse.NormalizePCIAddress(h.PCIDevices[i].Address) == parse.NormalizePCIAddress(d.ID) {
				g.pci = &h.PCIDevices[i]
			}
		}
		if g.isGPU() {
			out = append(out, g)
		}
	}
	return out
}

// hostHasPassthroughGPU reports whether the host lists a GPU in passthrough.
func hostHasPassthroughGPU(h *facts.Host) bool {
	for _, p := range h.PCIDevices {
		if p.IsGPU() && p.InPassthrough() {
			return true
		}
	}
	return false
}

// gpuViews calls f for every VM of the host with a GPU in passthrough (by
// its first configuration that lists one). A running PVRDMA VM whose
// configuration was not read is reported not evaluated when the host has a
// GPU in passthrough (it may be the one using it).
func gpuViews(h *facts.Host, r *Reporter, f func(v vmView, c parse.VMConfig, gs []gpuOf)) {
	for _, v := range vmViews(h) {
		if len(v.Configs) == 0 {
			if v.pvrdma() && hostHasPassthroughGPU(h) {
				r.NotEvaluated(v.Name, v.Why)
			}
			continue
		}
		for _, c := range v.Configs {
			if gs := gpus(h, c); len(gs) > 0 {
				f(v, c, gs)
				break
			}
		}
	}
}

func checkGPUFirmwareNotEFI(in *Input, r *Reporter) {
	h := in.Host
	gpuViews(h, r, func(v vmView, c parse.VMConfig, gs []gpuOf) {
		if strings.EqualFold(c.Firmware, "efi") {
			r.Pass(v.Name)
			return
		}
		fw := c.Firmware
		if fw == "" {
			fw = "bios"
		}
		msg := fmt.Sprintf("%s passes through %s but boots %s firmware: GPUs in passthrough need EFI, without it the GPUs do not work and "+
			"%s", v.Name, gpuList(gs), strings.ToUpper(fw), bootFails(v, "the VM does not boot", "the GPUs do not work"))
		msg += disagreement(v, "the firmware", func(c parse.VMConfig) (string, bool) { return c.Firmware, c.Firmware != "" })
		r.Fail(v.Name, msg, offFirst(v.Name)+"vSphere Client: Edit Settings > VM Options > Boot Options > Firmware: EFI. A guest installed under "+
			"BIOS does not boot after the switch: convert its boot disk to GPT/EFI first, or reinstall the guest with EFI.",
			cfgEv(h.Host, c, "Firmware", "no firmware key: the VM boots BIOS"), Ev(h.Host, gs[0].dev.Ref))
	})
}

func gpuList(gs []gpuOf) string {
	var s []string
	for _, g := range gs {
		s = append(s, g.label())
	}
	if len(s) == 1 {
		return "the GPU " + s[0]
	}
	return fmt.Sprintf("%d GPUs (%s)", len(s), strings.Join(s, ", "))
}

// mmioNeed is the GPU memory of a VM and the 64-bit MMIO sizes that fit
// it: Tested, the value seed 003 found to boot (the total framebuffer
// rounded up to a power of two, then doubled: 2 x 16 GB -> 64, 2 x 24 GB
// -> 128, 10 x 16 GB -> 512), and Published, the smaller "next power of
// two above the total" rule published elsewhere (3 x 16 GB -> 64). Known
// is false when a GPU's memory is not known (the host's PCI listing does
// not print it and the device name does not state it).
type mmioNeed struct {
	TotalGB, Tested, Published int
	Known                      bool
	Unknown                    []string // the GPUs whose memory is unknown
	Sizes                      []string // "16 GB (0000:3b:00.0)"
}

func pow2AtLeast(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

func mmioFor(gs []gpuOf) mmioNeed {
	var m mmioNeed
	for _, g := range gs {
		gb, ok := 0, false
		if g.pci != nil {
			gb, ok = g.pci.MemoryGB()
		}
		if !ok {
			m.Unknown = append(m.Unknown, g.label())
			continue
		}
		m.TotalGB += gb
		m.Sizes = append(m.Sizes, fmt.Sprintf("%s: %d GB", g.dev.ID, gb))
	}
	m.Known = len(m.Unknown) == 0 && m.TotalGB > 0
	if m.Known {
		m.Tested = 2 * pow2AtLeast(m.TotalGB)
		m.Published = pow2AtLeast(m.TotalGB + 1)
	}
	return m
}

// mmioSize is a configuration's pciPassthru.64bitMMIOSizeGB (ok=false when
// absent or not a number).
func mmioSize(c parse.VMConfig) (int, bool) {
	s, ok := c.ExtraValue("pciPassthru.64bitMMIOSizeGB")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

func mmio64On(c parse.VMConfig) bool {
	s, _ := c.ExtraValue("pciPassthru.use64bitMMIO")
	return strings.EqualFold(strings.TrimSpace(s), "true")
}

// mmioAdvice says what the sizes are based on.
func (m mmioNeed) advice() string {
	if !m.Known {
		return fmt.Sprintf("`esxcli hardware pci list` prints no GPU memory size and the device name of %s does not state one: take the "+
			"framebuffer size from the card's datasheet, add up all GPUs of the VM, round up to a power of two and to the next one (“Calculating the value for 64bitMMIOSizeGB”: "+
			"2 x 16 GB -> 64, 2 x 24 GB -> 128)", strings.Join(m.Unknown, ", "))
	}
	return fmt.Sprintf("%d GB of GPU memory (%s): “Calculating the value for 64bitMMIOSizeGB” gives %d (the total rounded up to a power of "+
		"two, then to the next one)", m.TotalGB, strings.Join(m.Sizes, ", "), m.Tested)
}

func (m mmioNeed) sizeText() string {
	if m.Known {
		return strconv.Itoa(m.Tested)
	}
	return "SIZE_GB"
}

func checkGPU64bitMMIOOff(in *Input, r *Reporter) {
	h := in.Host
	gpuViews(h, r, func(v vmView, c parse.VMConfig, gs []gpuOf) {
		if mmio64On(c) {
			r.Pass(v.Name)
			return
		}
		m := mmioFor(gs)
		sev := Critical
		msg := fmt.Sprintf("%s passes through %s without 64-bit MMIO (pciPassthru.use64bitMMIO is not TRUE): GPUs map their memory above "+
			"4 GB, and without it %s", v.Name, gpuList(gs), bootFails(v, "the VM does not power on or the GPUs do not work",
			"the GPUs do not work"))
		switch {
		case m.Known && m.TotalGB < 16:
			sev = Info
			msg = fmt.Sprintf("%s passes through %s (%d GB of GPU memory) without 64-bit MMIO: needed for devices mapping 16 GB or more, "+
				"so not for these; set it before adding larger GPUs", v.Name, gpuList(gs), m.TotalGB)
		case !m.Known:
			sev = Warning
			msg += fmt.Sprintf("; it is needed for GPUs with 16 GB or more, and %s", m.advice())
		}
		msg += disagreement(v, "pciPassthru.use64bitMMIO", func(c parse.VMConfig) (string, bool) {
			s, ok := c.ExtraValue("pciPassthru.use64bitMMIO")
			return strings.ToUpper(s), ok
		})
		ev := []Evidence{cfgEv(h.Host, c, "pciPassthru.use64bitMMIO", "no pciPassthru.use64bitMMIO: off"), Ev(h.Host, gs[0].dev.Ref)}
		r.FailSeverity(sev, h.Host, v.Name, msg, offFirst(v.Name)+fmt.Sprintf("vSphere Client: Edit Settings > VM Options > Advanced > Edit "+
			"Configuration: pciPassthru.use64bitMMIO = TRUE and pciPassthru.64bitMMIOSizeGB = %s; or: govc vm.change -vm %s "+
			"-e pciPassthru.use64bitMMIO=TRUE -e pciPassthru.64bitMMIOSizeGB=%s. The size: %s.", m.sizeText(), govcVM(v.Name), m.sizeText(), m.advice()), ev...)
	})
}

func checkGPUMMIOTooSmall(in *Input, r *Reporter) {
	h := in.Host
	gpuViews(h, r, func(v vmView, c parse.VMConfig, gs []gpuOf) {
		if !mmio64On(c) {
			r.Pass(v.Name) // GPU_64BIT_MMIO_OFF sets both keys
			return
		}
		m := mmioFor(gs)
		size, set := mmioSize(c)
		running := v.Proc != nil
		ev := []Evidence{cfgEv(h.Host, c, "pciPassthru.64bitMMIOSizeGB", "no pciPassthru.64bitMMIOSizeGB"), Ev(h.Host, gs[0].dev.Ref)}
		for _, g := range gs {
			if g.pci != nil {
				ev = append(ev, Ev(h.Host, g.pci.Record.RefOf("Device Name")))
			}
		}
		fix := offFirst(v.Name) + fmt.Sprintf("vSphere Client: Edit Settings > VM Options > Advanced > Edit Configuration: "+
			"pciPassthru.64bitMMIOSizeGB = %s; or: govc vm.change -vm %s -e pciPassthru.64bitMMIOSizeGB=%s", m.sizeText(), govcVM(v.Name), m.sizeText())
		dis := disagreement(v, "pciPassthru.64bitMMIOSizeGB", func(c parse.VMConfig) (string, bool) {
			n, ok := mmioSize(c)
			return strconv.Itoa(n), ok
		})
		if !m.Known {
			if !set {
				r.FailSeverity(Warning, h.Host, v.Name, fmt.Sprintf("%s enables 64-bit MMIO for %s but sets no pciPassthru.64bitMMIOSizeGB; %s%s",
					v.Name, gpuList(gs), m.advice(), dis), fix, ev...)
				return
			}
			r.NotEvaluated(v.Name, fmt.Sprintf("pciPassthru.64bitMMIOSizeGB is %d, but %s", size, m.advice()))
			return
		}
		if set && size >= m.Tested {
			r.Pass(v.Name)
			return
		}
		have := "no pciPassthru.64bitMMIOSizeGB"
		if set {
			have = fmt.Sprintf("pciPassthru.64bitMMIOSizeGB = %d", size)
		}
		// Below the guide's value the VM does not power on ("If you set
		// it too low the VM won't boot"): a boot blocker, critical while
		// it is off; a running VM keeps running and fails at its next
		// power-on (its .vmx is what that power-on reads).
		sev := Critical
		msg := fmt.Sprintf("%s has %s for %s; %s: with less, the VM does not power on, and nothing says why", v.Name, have, gpuList(gs), m.advice())
		if running {
			sev = Warning
			msg += fmt.Sprintf("; %s runs now, so it fails at its next power-on with this configuration", v.Name)
		} else {
			msg += fmt.Sprintf("; %s is off: it will not power on with this configuration", v.Name)
		}
		r.FailSeverity(sev, h.Host, v.Name, msg+dis, fix, ev...)
	})
}

func checkGPUDuplicateDevice(in *Input, r *Reporter) {
	h := in.Host
	type use struct {
		vm  string
		c   parse.VMConfig
		dev parse.PassthroughDevice
	}
	byID := map[string][]use{}
	var order []string
	for _, v := range vmViews(h) {
		if len(v.Configs) == 0 {
			if v.pvrdma() && hostHasPassthroughGPU(h) {
				r.NotEvaluated(v.Name, v.Why) // as gpuViews: its devices are unknown
			}
			continue
		}
		c := v.Configs[0]
		for _, d := range c.Passthrough {
			id := parse.NormalizePCIAddress(d.ID)
			if id == "" {
				continue
			}
			if byID[id] == nil {
				order = append(order, id)
			}
			byID[id] = append(byID[id], use{v.Name, c, d})
		}
	}
	sort.Strings(order)
	bad := map[string]bool{}
	for _, id := range order {
		us := byID[id]
		if len(us) < 2 {
			continue
		}
		vms := map[string][]use{}
		var names []string
		for _, u := range us {
			if vms[u.vm] == nil {
				names = append(names, u.vm)
			}
			vms[u.vm] = append(vms[u.vm], u)
		}
		for _, n := range names {
			mine := vms[n]
			var ev []Evidence
			for _, u := range mine {
				ev = append(ev, Ev(h.Host, u.dev.Ref))
			}
			subject := n + " (" + id + ")"
			if len(mine) > 1 {
				bad[n] = true
				r.Fail(subject, fmt.Sprintf("%s has the passthrough device %s %d times (%s): a device added twice keeps the VM from booting%s",
					n, id, len(mine), labels(mine, func(u use) string { return u.dev.Label }), runningNote(h, n)),
					offFirst(n)+fmt.Sprintf("vSphere Client: Edit Settings: remove the extra PCI device entries of %s, then add the "+
						"other GPU you meant (check the PCI addresses the list shows).", id), ev...)
				continue
			}
		}
		// One device in several VMs is one conflict: one finding, on
		// the VM that gives it up (one not running when there is one:
		// it is the one that fails to power on).
		var shared []string
		for _, n := range names {
			if len(vms[n]) == 1 {
				shared = append(shared, n)
			}
		}
		if len(shared) < 2 {
			continue
		}
		give := shared[len(shared)-1]
		for _, n := range shared {
			if !vmRunning(h, n) {
				give = n
				break
			}
		}
		var others []string
		var ev []Evidence
		ev = append(ev, Ev(h.Host, vms[give][0].dev.Ref))
		for _, o := range shared {
			if o != give {
				others = append(others, o)
				ev = append(ev, Ev(h.Host, vms[o][0].dev.Ref))
			}
		}
		bad[give] = true
		msg := fmt.Sprintf("%s passes through %s, which %s also passes through: a passthrough device serves one VM at a time, so whichever "+
			"of them powers on while the other runs fails", give, id, strings.Join(others, ", "))
		if !vmRunning(h, give) {
			msg = fmt.Sprintf("%s passes through %s, which %s also passes through: %s fails at its next power-on while %s runs",
				give, id, strings.Join(others, ", "), give, strings.Join(others, ", "))
		}
		r.Fail(give+" ("+id+")", msg,
			offFirst(give)+fmt.Sprintf("give it its own GPU: vSphere Client: Edit Settings: replace PCI device %s by a free passthrough "+
				"device of %s (`esxcli hardware pci list`: Configured Owner VM Passthru, in no other VM).", id, h.Host), ev...)
	}
	for _, v := range vmViews(h) {
		if !bad[v.Name] && v.passthrough() {
			r.Pass(v.Name)
		}
	}
}

func labels[T any](xs []T, f func(T) string) string {
	var s []string
	for _, x := range xs {
		s = append(s, f(x))
	}
	return strings.Join(s, ", ")
}

// vmRunning reports whether the host runs a VM of that name.
func vmRunning(h *facts.Host, name string) bool {
	for _, p := range h.VMs {
		if p.DisplayName == name {
			return true
		}
	}
	return false
}

// bootFails is what a configuration that keeps a VM from booting means
// for it: off when it is not running, on (it fails at its next power-on)
// when it runs now.
func bootFails(v vmView, off, on string) string {
	if v.Proc != nil {
		return on + "; it runs now, so it fails at its next power-on"
	}
	return off + "; it is off: it will not power on with this configuration"
}

// runningNote says a running VM fails at its next power-on, not now.
func runningNote(h *facts.Host, name string) string {
	if vmRunning(h, name) {
		return "; it runs now, so it fails at its next power-on"
	}
	return ""
}
