package parse

import (
	"fmt"
	"strings"
	"testing"
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

func benchVM(b *testing.B, n int) {
	text := vmListing(n)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		vms, err := VMProcessList(text)
		if err != nil || len(vms) != n {
			b.Fatal(err, len(vms))
		}
	}
}

func BenchmarkVMProcessList1000(b *testing.B)  { benchVM(b, 1000) }
func BenchmarkVMProcessList5000(b *testing.B)  { benchVM(b, 5000) }
func BenchmarkVMProcessList20000(b *testing.B) { benchVM(b, 20000) }

func benchTranscript(b *testing.B, size int) {
	text := session(size)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		cmds, err := SplitTranscript(text)
		if err != nil || len(cmds) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSplitTranscript1MB(b *testing.B)  { benchTranscript(b, 1<<20) }
func BenchmarkSplitTranscript10MB(b *testing.B) { benchTranscript(b, 10<<20) }

// TestScalingLinear checks that 4x the VMs costs well under 16x the time
// (a quadratic reader would fail), using testing.Benchmark.
func TestScalingLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	small := testing.Benchmark(func(b *testing.B) { benchVM(b, 2000) })
	large := testing.Benchmark(func(b *testing.B) { benchVM(b, 8000) })
	if small.NsPerOp() == 0 {
		t.Skip("timer too coarse")
	}
	ratio := float64(large.NsPerOp()) / float64(small.NsPerOp())
	t.Logf("2000 VMs %v/op, 8000 VMs %v/op, ratio %.1f", small.NsPerOp(), large.NsPerOp(), ratio)
	if ratio > 10 {
		t.Errorf("4x input cost %.1fx time: not linear", ratio)
	}
}
