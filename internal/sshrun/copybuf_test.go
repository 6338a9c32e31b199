package sshrun

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestLimitedWriterReadFrom(t *testing.T) {
	src := strings.Repeat("esxcli output line\n", 5000) // ~95 KB, several reads
	out := newCmdOutput(hostio.DefaultMaxCommandOutput, nil)
	lw, _ := out.writers()
	n, err := io.Copy(lw, strings.NewReader(src))
	stdout, _ := out.take()
	if err != nil || n != int64(len(src)) || string(stdout) != src {
		t.Fatalf("io.Copy = %d, %v; content equal: %v", n, err, string(stdout) == src)
	}
	// The limit still holds: the write that would pass it fails.
	small, _ := newCmdOutput(100, nil).writers()
	if _, err := io.Copy(small, bytes.NewReader(make([]byte, 300))); !hostio.IsOutputCap(err) || !strings.Contains(err.Error(), "output over the cap") {
		t.Fatalf("over the limit: err = %v", err)
	}
	// io.Copy goes through ReadFrom: no 32 KiB buffer per copy.
	w, _ := newCmdOutput(hostio.DefaultMaxCommandOutput, nil).writers()
	allocs := testing.AllocsPerRun(20, func() {
		io.Copy(w, io.LimitReader(strings.NewReader(src), 10))
	})
	if allocs > 4 {
		t.Errorf("io.Copy into limitedWriter: %.0f allocations, want <= 4", allocs)
	}
}
