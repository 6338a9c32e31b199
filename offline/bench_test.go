package offline

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

// BenchmarkLoadBundle reads a 300-host bundle (the mixed scenario's hosts
// repeated) from memory: the archive, its checksums, results and outputs.
func BenchmarkLoadBundle(b *testing.B) {
	in, err := Load(mixedDir)
	if err != nil {
		b.Fatal(err)
	}
	var fleet []collect.HostResult
	for i := 0; len(fleet) < 300; i++ {
		for _, hr := range in.Results {
			hr.Host = fmt.Sprintf("%s-%03d", hr.Host, i)
			fleet = append(fleet, hr)
		}
	}
	var buf bytes.Buffer
	if _, err := bundle.Write(&buf, fleet, bundle.Options{Analyze: testAnalyze}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := LoadReader("bench.tar.gz", bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
