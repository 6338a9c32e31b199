package collect

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestLimitedWriterReadFrom(t *testing.T) {
	src := strings.Repeat("esxcli output line\n", 5000) // ~95 KB, several reads
	lw := &limitedWriter{n: maxOutput}
	n, err := io.Copy(lw, strings.NewReader(src))
	if err != nil || n != int64(len(src)) || string(lw.Bytes()) != src {
		t.Fatalf("io.Copy = %d, %v; content equal: %v", n, err, string(lw.Bytes()) == src)
	}
	// The limit still holds: the write that would pass it fails.
	small := &limitedWriter{n: 100}
	if _, err := io.Copy(small, bytes.NewReader(make([]byte, 300))); err == nil || !strings.Contains(err.Error(), "output exceeds") {
		t.Fatalf("over the limit: err = %v", err)
	}
	// io.Copy goes through ReadFrom: no 32 KiB buffer per copy.
	allocs := testing.AllocsPerRun(20, func() {
		w := &limitedWriter{n: maxOutput}
		io.Copy(w, io.LimitReader(strings.NewReader(src), 10))
	})
	if allocs > 4 {
		t.Errorf("io.Copy into limitedWriter: %.0f allocations, want <= 4", allocs)
	}
}
