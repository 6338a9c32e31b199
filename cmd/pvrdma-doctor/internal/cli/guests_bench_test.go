package cli

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// BenchmarkDemoScanGuests times the demo's scan (collection over SSH and
// analysis) of the mixed lab without and with its Linux guests: the guest
// side's share of the demo scan's wall time.
//
//	go test ./cli -run '^$' -bench DemoScanGuests -count 5
//
// The rtt1ms variants serve the same lab over a simulated LAN (1 ms round
// trip, 2 ms per command): context for bench/RESULTS.md ("Guests"), not
// the measure, which is the in-process demo (zero latency).
func BenchmarkDemoScanGuests(b *testing.B) {
	sc := loadScenario(b, "mixed")
	for _, lan := range []struct {
		prefix string
		opts   lab.Options
	}{{"", lab.Options{}}, {"rtt1ms-", lab.Options{RTT: time.Millisecond, CmdLatency: 2 * time.Millisecond}}} {
		l, err := lab.Start(sc, lan.opts)
		if err != nil {
			b.Fatal(err)
		}
		targets, runner := labTargets(l)
		var hostsOnly []hostio.Target
		for _, t := range targets {
			if t.Role != hostio.RoleGuest {
				hostsOnly = append(hostsOnly, t)
			}
		}
		for _, c := range []struct {
			name    string
			targets []hostio.Target
		}{{"hosts", hostsOnly}, {"hosts+guests", targets}} {
			b.Run(lan.prefix+c.name, func(b *testing.B) {
				for b.Loop() {
					res := collect.Collect(context.Background(), c.targets, collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler)})
					analyze(res, report.Meta{Source: "bench"})
				}
			})
		}
		l.Close()
	}
}
