package analysis_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// The analysis of a fleet costs the same per host at any size: no rule,
// plan or report walks the whole fleet once per host. Counted in bytes
// allocated (deterministic, unlike time): 8x the hosts may allocate at
// most 1.35x per host. A fleet-wide walk per host shows at once (a
// per-host walk of every peer's vmknic allocated 3.2x per host from 100
// to 1,000 hosts before the reach index). Both the healthy fleet and the
// faulty one (lab serve's default scenario, whose findings, causes and
// plans are the costly part).
func TestAnalysisAllocatesTheSamePerHostAtAnySize(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses 1,080 hosts")
	}
	for _, scenario := range []string{"healthy", "mixed"} {
		t.Run(scenario, func(t *testing.T) {
			perHost := func(n int) float64 {
				sc := fixtures.Fleet(fixtures.MustLoad(t, scenario), n)
				targets := make([]hostio.Target, len(sc.Hosts))
				for i, h := range sc.Hosts {
					targets[i] = hostio.Target{Name: h.Name}
				}
				results := collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Concurrency: 64, Probes: true})
				meta := report.Meta{Source: "test", Now: time.Unix(0, 0), Version: "test"}
				b := testutil.Allocated(func() {
					a := analysis.Run(results, analysis.Options{Meta: meta})
					if err := report.WriteJSON(io.Discard, a.Report); err != nil {
						t.Fatal(err)
					}
				})
				return float64(b) / float64(n)
			}
			small, large := perHost(60), perHost(480)
			t.Logf("%s: %.0f bytes per host at 60 hosts, %.0f at 480", scenario, small, large)
			if large > 1.35*small {
				t.Errorf("%s: %.0f bytes allocated per host at 480 hosts, %.0f at 60 (%.2fx): a cost grows with the fleet per host",
					scenario, large, small, large/small)
			}
		})
	}
}
