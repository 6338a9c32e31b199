package facts

import (
	"testing"
)

// The RoCE MTU an Ethernet MTU carries after 96 bytes of RoCE v2 headers.
func TestRDMAMTUFor(t *testing.T) {
	for eth, want := range map[int]int{1500: 1024, 2200: 2048, 4191: 2048, 4192: 4096, 9000: 4096, 1100: 512} {
		if got := RDMAMTUFor(eth); got != want {
			t.Errorf("RDMAMTUFor(%d) = %d, want %d", eth, got, want)
		}
	}
}
