package offline

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// mixedBundle writes a bundle of the mixed scenario's first n hosts (its
// hosts repeated under new names when n is larger).
func mixedBundle(tb testing.TB, n int) []byte {
	in, err := Load(mixedDir)
	if err != nil {
		tb.Fatal(err)
	}
	var fleet []hostio.HostResult
	for i := 0; len(fleet) < n; i++ {
		for _, hr := range in.Results {
			if i > 0 {
				hr.Host = fmt.Sprintf("%s-%03d", hr.Host, i)
			}
			fleet = append(fleet, hr)
		}
	}
	var buf bytes.Buffer
	if _, err := bundle.Write(&buf, fleet[:n], bundle.Options{Now: time.Unix(0, 0), Analyze: testAnalyze}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkLoadBundle reads a 300-host bundle (the mixed scenario's hosts
// repeated) from memory: the archive, its checksums, results and outputs.
func BenchmarkLoadBundle(b *testing.B) {
	data := mixedBundle(b, 300)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := LoadReader("bench.tar.gz", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
