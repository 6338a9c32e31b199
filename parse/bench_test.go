package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// vmListing generates an `esxcli vm process list` of n VMs.
func vmListing(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "vm-%05d (prod; $(x))\n   World ID: %d\n   Process ID: 0\n   VMX Cartel ID: %d\n   UUID: 56 4d 12 f0 01 11 99 9e-24 51 75 dc de 5f 4b 10\n   Display Name: vm-%05d\n   Config File: /vmfs/volumes/ds/vm-%05d/vm-%05d.vmx\n\n", i, 1000000+i, 999999+i, i, i, i)
	}
	return b.String()
}

// session generates a pasted SSH session of at least size bytes.
func session(size int) string {
	block := "[root@esx01:~] esxcli rdma device list\n" + strings.SplitN(rdmaList, "\n", 2)[1] + "[root@esx02:~] esxcli vm process list\n" + vmListing(3)
	return strings.Repeat(block, size/len(block)+1)
}

// benchParse times parse over text, reporting bytes per second; an error
// fails the benchmark.
func benchParse(b *testing.B, text string, parse func(string) error) {
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if err := parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func benchVM(b *testing.B, n int) {
	benchParse(b, vmListing(n), func(text string) error {
		vms, err := VMProcessList(text)
		if err == nil && len(vms) != n {
			err = fmt.Errorf("%d VMs, want %d", len(vms), n)
		}
		return err
	})
}

func BenchmarkVMProcessList1000(b *testing.B)  { benchVM(b, 1000) }
func BenchmarkVMProcessList5000(b *testing.B)  { benchVM(b, 5000) }
func BenchmarkVMProcessList20000(b *testing.B) { benchVM(b, 20000) }

func benchTranscript(b *testing.B, size int) {
	benchParse(b, session(size), func(text string) error {
		cmds, err := SplitTranscript(text)
		if err == nil && len(cmds) == 0 {
			err = fmt.Errorf("no commands")
		}
		return err
	})
}

func BenchmarkSplitTranscript1MB(b *testing.B)  { benchTranscript(b, 1<<20) }
func BenchmarkSplitTranscript10MB(b *testing.B) { benchTranscript(b, 10<<20) }

// TestWorkGrowsLinearly checks, without timing anything, that 4x the input
// allocates about 4x the memory: a reader that re-scans or re-copies the
// text per record (quadratic) would allocate about 16x. The time per byte
// is measured by the benchmarks above (go test -bench).
func TestWorkGrowsLinearly(t *testing.T) {
	vmSmall, vmLarge := vmListing(2000), vmListing(8000)
	trSmall, trLarge := session(1<<20), session(4<<20)
	cases := []struct {
		name         string
		small, large func()
	}{
		{"vm process list", func() { VMProcessList(vmSmall) }, func() { VMProcessList(vmLarge) }},
		{"transcript", func() { SplitTranscript(trSmall) }, func() { SplitTranscript(trLarge) }},
	}
	for _, c := range cases {
		small, large := testutil.Allocated(c.small), testutil.Allocated(c.large)
		ratio := float64(large) / float64(small)
		t.Logf("%s: %d -> %d bytes allocated for 4x the input (x%.1f)", c.name, small, large, ratio)
		if ratio > 6 {
			t.Errorf("%s: 4x the input allocates x%.1f: not linear", c.name, ratio)
		}
	}
}

// floodLines is n bytes of lines of 150 characters, all alike: a host
// flooding a table command. The first line looks like a header wider than
// a terminal, so every line of the same width once joined it (issue 24:
// a minute of CPU for 3.5 MiB).
func floodLines(n int) string {
	line := strings.Repeat("vmk1 10.1.2.3 fe80::250:56ff:fe8a:1a0 00:50:56:8a:0e:01 ", 3)[:149] + "\n"
	return strings.Repeat(line, n/len(line))
}

// BenchmarkTableFlood parses near-cap floods as a table; the cost grows
// with the bytes (compare the two sizes).
func BenchmarkTableFlood1MB(b *testing.B)   { benchTableFlood(b, 1<<20) }
func BenchmarkTableFlood3_5MB(b *testing.B) { benchTableFlood(b, 3584<<10) }

func benchTableFlood(b *testing.B, n int) {
	text := floodLines(n)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		RDMADeviceList(text)
	}
}
