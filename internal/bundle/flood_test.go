package bundle_test

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
)

// floodSize is what a flooding host sends on each of its esxcli commands:
// 3.5 MiB, under the 4 MiB cap of one command; four of them reach the
// 16 MiB cap of a host (issue 24's adversarial re-test).
const floodSize = 3584 << 10

// flooded returns n hosts of the healthy scenario whose first four esxcli
// outputs are floodSize bytes of fill, each its own copy (as a scan holds
// them), and the bytes of output they hold.
func flooded(tb testing.TB, n int, fill lab.Fill) ([]hostio.HostResult, int64) {
	tb.Helper()
	in, err := offline.Load("../../fixtures/scenarios/healthy")
	if err != nil {
		tb.Fatal(err)
	}
	proto := in.Results[0]
	text := fill.Bytes(floodSize)
	var held int64
	out := make([]hostio.HostResult, n)
	for i := range out {
		hr := proto
		hr.Host = fmt.Sprintf("esx%02d.corp.example", i+1)
		hr.Captures = append([]hostio.Capture(nil), proto.Captures...)
		flood := 0
		for j := range hr.Captures {
			c := &hr.Captures[j]
			c.Host = hr.Host
			if flood < 4 && strings.HasPrefix(c.Command, "esxcli") {
				c.Stdout = string(text) // a copy per capture
				flood++
			}
			held += int64(len(c.Stdout) + len(c.Stderr))
		}
		out[i] = hr
	}
	return out, held
}

// A redacted bundle of hosts flooding near the caps costs time in
// proportion to the bytes (BenchmarkBundleFlooded measures it) and holds
// the outputs once: given the results (Consume), the writer redacts them
// in place, so the live heap grows by a fixed margin, not by copies of
// the outputs (the writer before issue 24 held three: the originals, the
// redacted copies and each file's bytes for the archive).
func TestBundleOfFloodedHostsHoldsOutputsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 56 MiB of output")
	}
	for _, fill := range []lab.Fill{lab.FillText, lab.FillIdentifiers} {
		t.Run(string(fill), func(t *testing.T) {
			results, held := flooded(t, 4, fill)
			p := filepath.Join(t.TempDir(), "b.tar.gz")
			var err error
			growth := lab.LiveHeapGrowth(func() {
				_, err = bundle.WriteFile(p, results, bundle.Options{Redact: true, Consume: true, Analyze: testAnalyze})
			})
			if err != nil {
				t.Fatal(err)
			}
			// The live heap is sampled after a forced collection, but what
			// the writer allocates while that collection marks counts as
			// live: on an idle machine the growth is 4-54 MiB, on a CI
			// machine busy with other packages' tests (longer collections)
			// up to 86 MiB was seen. The bound still fails the writer
			// before issue 24, which held two more copies (+2 x held).
			const margin = 48 << 20
			t.Logf("%d MiB held, live heap +%d MiB while writing", held>>20, growth>>20)
			if growth > uint64(held+margin) {
				t.Errorf("live heap grew by %d MiB writing a bundle of %d MiB of output; bound: %d MiB + %d MiB",
					growth>>20, held>>20, held>>20, margin>>20)
			}
			in, err := offline.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Results) != 4 || len(in.Problems) > 0 {
				t.Fatalf("%d hosts read back, problems %v", len(in.Results), in.Problems)
			}
			// Consumed: the caller's results now hold the redacted text.
			for _, c := range results[0].Captures {
				if strings.Contains(c.Host, "corp.example") || fill == lab.FillIdentifiers && len(c.Stdout) > 1<<20 && !strings.Contains(c.Stdout, "02:00:00:00:00:01") {
					t.Fatalf("consumed result not redacted: %q", c.Host)
				}
			}
		})
	}
}

// Without Consume the caller's results are left as they were.
func TestBundleLeavesResultsUnlessConsumed(t *testing.T) {
	results, _ := flooded(t, 1, lab.FillIdentifiers)
	before := results[0].Captures[0].Stdout
	if _, err := bundle.Write(io.Discard, results, bundle.Options{Redact: true, Analyze: testAnalyze}); err != nil {
		t.Fatal(err)
	}
	if results[0].Host != "esx01.corp.example" || results[0].Captures[0].Stdout != before {
		t.Errorf("the caller's results were redacted: %q", results[0].Host)
	}
}

// A closed Abort stops the writer: no bundle, no temporary file.
func TestBundleAbort(t *testing.T) {
	results, _ := flooded(t, 2, lab.FillText)
	dir := t.TempDir()
	abort := make(chan struct{})
	close(abort)
	var temps []string
	_, err := bundle.WriteFile(filepath.Join(dir, "b.tar.gz"), results, bundle.Options{Redact: true, Analyze: testAnalyze, Abort: abort,
		TempFile: func(p string, live bool) {
			if live {
				temps = append(temps, p)
			}
		}})
	if err != bundle.ErrAborted {
		t.Fatalf("err %v, want ErrAborted", err)
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "*")); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(hidden) != 0 {
		t.Errorf("temporary files left: %v (tracked %v)", hidden, temps)
	}
}

// BenchmarkBundleFlooded writes the redacted bundle of 4 hosts holding
// 14 MiB of output each (floodSize on four commands) to io.Discard: the
// throughput of the bundle writer (redaction, analysis, checksums, gzip)
// in bytes of held output per second. bench/bundle.sh measures the same
// end to end over SSH, with peak RSS.
func BenchmarkBundleFlooded(b *testing.B) {
	for _, fill := range []lab.Fill{lab.FillText, lab.FillIdentifiers} {
		b.Run(string(fill), func(b *testing.B) {
			results, held := flooded(b, 4, fill)
			b.SetBytes(held)
			b.ResetTimer()
			for b.Loop() {
				if _, err := bundle.Write(io.Discard, results, bundle.Options{Redact: true, Analyze: testAnalyze}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
