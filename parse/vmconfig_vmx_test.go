package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The .vmx of a PVRDMA VM with two GPUs, written the way ESXi writes it.
const pvrdmaVMX = `.encoding = "UTF-8"
config.version = "8"
virtualHW.version = "19"
displayName = "hpc node 'a' $(x) |22q|22 |7C|zz"
guestOS = "ubuntu-64"
firmware = "efi"
memSize = "65536"
sched.mem.min = "65536"
sched.mem.minSize = "65536"
sched.mem.pin = "TRUE"
uuid.bios = "42 1c 6e 8b 3f 2a 9d 01-77 aa 10 20 30 40 50 60"
vc.uuid = "50 1c 2b 3c 4d 5e 6f 70-81 92 a3 b4 c5 d6 e7 f8"
ethernet0.present = "TRUE"
ethernet0.virtualDev = "vmxnet3"
ethernet0.networkName = "VM Network"
ethernet0.addressType = "generated"
ethernet0.generatedAddress = "00:50:56:9c:11:01"
ethernet1.present = "TRUE"
ethernet1.virtualDev = "vrdma"
ethernet1.startConnected = "TRUE"
ethernet1.addressType = "vpx"
ethernet1.generatedAddress = "00:50:56:9c:11:02"
ethernet1.dvs.switchId = "50 1c 9a 3e d3 10 4f 3e-89 94 5e 6c 24 3b 03 a5"
ethernet1.dvs.portId = "12"
ethernet1.dvs.portgroupId = "dvportgroup-1001"
ethernet1.dvs.connectionId = "1234567"
ethernet2.present = "FALSE"
ethernet2.virtualDev = "vrdma"
vrdma1.nativeEndpointSupport = "TRUE"
pciPassthru0.present = "TRUE"
pciPassthru0.id = "00000:059:00.0"
pciPassthru0.deviceId = "0x1b38"
pciPassthru0.vendorId = "0x10de"
pciPassthru1.present = "TRUE"
pciPassthru1.id = "0000:d8:00.0"
pciPassthru1.deviceId = "0x1B38"
pciPassthru1.vendorId = "0x10DE"
pciPassthru.use64bitMMIO = "TRUE"
pciPassthru.64bitMMIOSizeGB = "128"
`

func TestVMConfigFromVMX(t *testing.T) {
	v := parsed(t, VMConfigFromVMX, pvrdmaVMX)
	eq(t, "source", v.Source, "vmx")
	eq(t, "name (|XX escapes decoded)", v.Name, "hpc node 'a' $(x) \"q\" ||zz")
	eq(t, "uuid", v.UUID, "42 1c 6e 8b 3f 2a 9d 01-77 aa 10 20 30 40 50 60")
	eq(t, "vc.uuid", v.InstanceUUID, "50 1c 2b 3c 4d 5e 6f 70-81 92 a3 b4 c5 d6 e7 f8")
	eq(t, "hw", v.HWVersion, 19)
	eq(t, "guest", v.GuestOS, "ubuntu-64")
	eq(t, "fw", v.Firmware, "efi")
	eq(t, "mem", v.MemoryMB, int64(65536))
	eq(t, "resv", v.MemReservationMB, int64(65536))
	eq(t, "resv set", v.MemReservationSet, true)
	eq(t, "pin", v.MemLockedToMax && v.MemLockedToMaxSet, true)
	eq(t, "hw line", v.RefOf("HWVersion").Line, 3)
	eq(t, "hw text", v.RefOf("HWVersion").Text, `virtualHW.version = "19"`)
	if len(v.Adapters) != 2 {
		t.Fatalf("adapters (ethernet2 is not present): %+v", v.Adapters)
	}
	pv := v.PVRDMA()
	if len(pv) != 1 {
		t.Fatalf("pvrdma %+v", pv)
	}
	a := pv[0]
	eq(t, "label", a.Label, "ethernet1")
	eq(t, "mac", a.MAC, "00:50:56:9c:11:02")
	eq(t, "start", a.StartConnected && a.StartConnectedSet, true)
	eq(t, "connected unknown", a.ConnectedSet, false)
	eq(t, "dvs", a.DVSUUID, "50 1c 9a 3e d3 10 4f 3e-89 94 5e 6c 24 3b 03 a5")
	eq(t, "pg", a.PortgroupKey, "dvportgroup-1001")
	eq(t, "adapter ref", a.Line, 19)
	eq(t, "start ref", a.RefOf("StartConnected").Line, 20)
	eq(t, "std network", v.Adapters[0].Network, "VM Network")
	if len(v.Passthrough) != 2 {
		t.Fatalf("passthrough %+v", v.Passthrough)
	}
	eq(t, "vmx decimal bus", v.Passthrough[0].ID, "0000:3b:00.0")
	eq(t, "hex bus", v.Passthrough[1].ID, "0000:d8:00.0")
	eq(t, "vendor", v.Passthrough[1].VendorID, "0x10de")
	eq(t, "device", v.Passthrough[1].DeviceID, "0x1b38")
	mm, ok := v.ExtraValue("pcipassthru.64bitmmiosizegb")
	eq(t, "mmio", mm+" "+map[bool]string{true: "ok"}[ok], "128 ok")
	eq(t, "mmio ref", v.ExtraRef("pciPassthru.64bitMMIOSizeGB").Line, 39)
	eq(t, "native", v.Extra["vrdma1.nativeEndpointSupport"], "TRUE")
}

// A .vmx without firmware boots BIOS; a bad line is skipped and reported,
// the other keys are kept.
func TestVMConfigFromVMXPartial(t *testing.T) {
	v, err := VMConfigFromVMX("displayName = \"db\"\nthis is not vmx\nmemSize = \"4096\"\nethernet1.virtualDev = \"VRDMA\"\n")
	sk, partial := Skipped(err)
	if !partial || len(sk) != 1 || sk[0].Line != 2 {
		t.Fatalf("%+v %v", sk, err)
	}
	eq(t, "name", v.Name, "db")
	eq(t, "fw", v.Firmware, "bios")
	eq(t, "fw ref", v.Refs["Firmware"].Line, 0)
	eq(t, "mem", v.MemoryMB, int64(4096))
	eq(t, "resv unset", v.MemReservationSet, false)
	eq(t, "pvrdma", len(v.PVRDMA()), 1)
	if _, err := VMConfigFromVMX(""); err == nil {
		t.Error("empty .vmx read as a VM")
	}
	if _, err := VMConfigFromVMX("garbage\nmore garbage\n"); err == nil {
		t.Error("garbage read as a VM")
	} else if _, partial := Skipped(err); partial {
		t.Error("garbage is not a partial .vmx")
	}
	// The sample of a real .vmx.
	s := parseSample(t, VMConfigFromVMX, "vmx__intel_mfd_esxi_base_vmx_hw13.txt")
	eq(t, "sample hw", s.HWVersion, 13)
	eq(t, "sample guest", s.GuestOS, "other-64")
	eq(t, "sample pin", s.MemLockedToMax, true)
	eq(t, "sample adapters", len(s.Adapters), 1)
	eq(t, "sample no pvrdma", len(s.PVRDMA()), 0)
}

func TestNormalizePCIAddress(t *testing.T) {
	for in, want := range map[string]string{
		"0000:3B:00.0":   "0000:3b:00.0",
		"00000:059:00.0": "0000:3b:00.0",
		"00000:216:00.1": "0000:d8:00.1",
		"00000:999:00.0": "00000:999:00.0", // bus > 255: kept as written
		" weird ":        "weird",
		"0000:3b:00.8":   "0000:3b:00.8", // function > 7
		"0000:3b:0.0":    "0000:3b:0.0",
		"00000:059:0A.7": "0000:3b:0a.7",
		"65536:000:00.0": "65536:000:00.0",
		"99999:000:00.0": "99999:000:00.0", // segment > 0xffff
		"0000:3b:00.0.1": "0000:3b:00.0.1",
		"0000:3b:00:0.0": "0000:3b:00:0.0",
	} {
		eq(t, in, NormalizePCIAddress(in), want)
		eq(t, in+" (the regexp form)", NormalizePCIAddress(in), normalizePCIAddressByRegexp(in))
	}
}

// normalizePCIAddressByRegexp is NormalizePCIAddress as the two address
// forms are written: the hand-written reader must agree with it on any
// input (FuzzNormalizePCIAddress).
func normalizePCIAddressByRegexp(s string) string {
	s = strings.TrimSpace(s)
	if m := regexp.MustCompile(`^([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$`).FindStringSubmatch(s); m != nil {
		return strings.ToLower(fmt.Sprintf("%s:%s:%s.%s", m[1], m[2], m[3], m[4]))
	}
	if m := regexp.MustCompile(`^([0-9]{5}):([0-9]{3}):([0-9a-fA-F]{2})\.([0-7])$`).FindStringSubmatch(s); m != nil {
		seg, _ := strconv.Atoi(m[1])
		bus, _ := strconv.Atoi(m[2])
		if seg <= 0xffff && bus <= 0xff {
			return strings.ToLower(fmt.Sprintf("%04x:%02x:%s.%s", seg, bus, m[3], m[4]))
		}
	}
	return s
}

func FuzzNormalizePCIAddress(f *testing.F) {
	for _, s := range []string{"0000:3B:00.0", "00000:059:00.0", "00000:999:00.0", " weird ", "0000:3b:00.0.1", "\u00a00000:3b:00.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizePCIAddress(s), normalizePCIAddressByRegexp(s); got != want {
			t.Errorf("NormalizePCIAddress(%q) = %q, the regexp form gives %q", s, got, want)
		}
	})
}

func TestPCIDeviceGPU(t *testing.T) {
	pci := parseSampleN(t, HardwarePCIList, "esxcli_hardware_pci_list__cn_blog_x540_ixgbe_lsi_passthru.txt", 2)
	eq(t, "nic not gpu", pci[0].IsGPU(), false)
	eq(t, "nic not passthru", pci[0].InPassthrough(), false)
	eq(t, "lsi passthru", pci[1].InPassthrough(), true)
	_, ok := pci[1].MemoryGB()
	eq(t, "no size printed", ok, false)
	g := PCIDevice{DeviceName: "GV100GL [Tesla V100 PCIe 16GB]", DeviceClassName: "3D controller"}
	gb, ok := g.MemoryGB()
	eq(t, "v100", gb, 16)
	eq(t, "v100 ok", ok, true)
	eq(t, "gpu", g.IsGPU(), true)
	for _, name := range []string{"GA102GL [A40]", "Tesla P40", "GV100 16GB/32GB"} {
		if gb, ok := (PCIDevice{DeviceName: name}).MemoryGB(); ok {
			t.Errorf("%q: %d GB read from a name that does not state one size", name, gb)
		}
	}
}

func FuzzVMConfigFromVMX(f *testing.F) {
	f.Add(pvrdmaVMX)
	fuzzOne(f, VMConfigFromVMX, func(t *testing.T, text string, v VMConfig) {
		if v.Line > 0 {
			checkRef(t, text, v.Ref)
		}
		for k, r := range v.Refs {
			checkRef(t, text, r)
			if r.Line == 0 {
				t.Fatalf("ref of %s without a line", k)
			}
		}
		for _, a := range v.Adapters {
			if !strings.HasPrefix(a.Label, "ethernet") {
				t.Fatalf("adapter %q", a.Label)
			}
			for _, r := range a.Refs {
				checkRef(t, text, r)
			}
			if a.Line > 0 {
				checkRef(t, text, a.Ref)
			}
		}
	})
}
