package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// bigVMX is a .vmx of a PVRDMA VM with n adapters and n passthrough GPUs
// on top of pvrdmaVMX (about 40 lines plus 12 per adapter/GPU).
func bigVMX(n int) string {
	var b strings.Builder
	b.WriteString(pvrdmaVMX)
	for i := 2; i < n+2; i++ {
		fmt.Fprintf(&b, "ethernet%d.present = \"TRUE\"\nethernet%d.virtualDev = \"vrdma\"\nethernet%d.startConnected = \"TRUE\"\n"+
			"ethernet%d.generatedAddress = \"00:50:56:9c:%02x:%02x\"\nethernet%d.dvs.switchId = \"50 1c 9a 3e d3 10 4f 3e-89 94 5e 6c 24 3b 03 a5\"\n"+
			"ethernet%d.dvs.portgroupId = \"dvportgroup-1001\"\nvrdma%d.nativeEndpointSupport = \"TRUE\"\n", i, i, i, i, i/256, i%256, i, i, i)
		fmt.Fprintf(&b, "pciPassthru%d.present = \"TRUE\"\npciPassthru%d.id = \"00000:%03d:00.0\"\npciPassthru%d.deviceId = \"0x1b38\"\n"+
			"pciPassthru%d.vendorId = \"0x10de\"\npciPassthru%d.systemId = \"5f1a2b3c\"\n", i, i, i%256, i, i, i)
	}
	return b.String()
}

func benchVMX(b *testing.B, n int) {
	benchParse(b, bigVMX(n), func(text string) error {
		v, err := VMConfigFromVMX(text)
		if err == nil && len(v.PVRDMA()) != n+1 {
			err = fmt.Errorf("%d PVRDMA adapters, want %d", len(v.PVRDMA()), n+1)
		}
		return err
	})
}

// A typical .vmx (one PVRDMA adapter, two GPUs) and a huge one: the
// conversion is linear in the file.
func BenchmarkVMConfigFromVMX(b *testing.B)    { benchVMX(b, 0) }
func BenchmarkVMConfigFromVMX500(b *testing.B) { benchVMX(b, 500) }

// The .vmx reader's work is linear: 4x the adapters allocate about 4x.
func TestVMXWorkGrowsLinearly(t *testing.T) {
	small, large := bigVMX(200), bigVMX(800)
	a := testutil.Allocated(func() { VMConfigFromVMX(small) })
	c := testutil.Allocated(func() { VMConfigFromVMX(large) })
	if ratio := float64(c) / float64(a); ratio > 6 {
		t.Errorf("4x the input allocates %.1fx the memory (%d -> %d bytes): not linear", ratio, a, c)
	}
}
