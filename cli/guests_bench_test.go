package cli

import (
	"context"
	"log/slog"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// BenchmarkDemoScanGuests times the demo's scan (collection over SSH and
// analysis) of the mixed lab without and with its Linux guests: the guest
// side's share of the demo scan's wall time.
//
//	go test ./cli -run '^$' -bench DemoScanGuests -count 5
func BenchmarkDemoScanGuests(b *testing.B) {
	sc, err := fixtures.Load("mixed")
	if err != nil {
		b.Fatal(err)
	}
	l, err := lab.Start(sc, lab.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
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
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res := collect.Collect(context.Background(), c.targets, collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler)})
				analyze(res, report.Meta{Source: "bench"})
			}
		})
	}
}
