package report_test

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// mixedReport collects the "mixed" scenario (in memory) and builds
// a deterministic report: fixed clock and version, durations and queue
// waits zeroed (a loaded machine queues a host for a millisecond), lab
// addresses (random ports) removed.
func mixedReport(t *testing.T) *report.Report {
	t.Helper()
	sc := fixtures.MustLoad(t, "mixed")
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: "127.0.0.1:22"})
	}
	// The scenario answers in memory (the SSH end-to-end tests cross the
	// real lab); the collector and the pipeline are the scan's own.
	runner := sc.Runner()
	results := collect.Collect(context.Background(), targets, collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler)})
	scrub := regexp.MustCompile(`127\.0\.0\.1:[0-9]+|\[::1\]:[0-9]+`)
	for i := range results {
		hr := &results[i]
		hr.Duration, hr.QueueWait, hr.Address, hr.Start = 0, 0, "", time.Time{}
		hr.Reason = scrub.ReplaceAllString(hr.Reason, "ADDR")
		for j := range hr.Notes {
			hr.Notes[j] = scrub.ReplaceAllString(hr.Notes[j], "ADDR")
		}
		for j := range hr.Captures {
			c := &hr.Captures[j]
			c.Duration, c.Start = 0, time.Time{}
			c.Error = scrub.ReplaceAllString(c.Error, "ADDR")
		}
	}
	return analysis.Run(results, analysis.Options{Meta: report.Meta{Source: "golden: simulated lab, scenario mixed", Version: "test",
		Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}).Report
}

// Golden files: testdata/TestGoldenMixed/<format>.golden; regenerate with
// make generate (go generate ./...).
func TestGoldenMixed(t *testing.T) {
	r := mixedReport(t)
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return report.WriteText(b, r, report.TextOptions{Width: 80}) }},
		{"text-120", func(b *bytes.Buffer) error { return report.WriteText(b, r, report.TextOptions{Width: 120}) }},
		{"text-details", func(b *bytes.Buffer) error {
			return report.WriteText(b, r, report.TextOptions{Width: 80, Details: true})
		}},
		{"json", func(b *bytes.Buffer) error { return report.WriteJSON(b, r) }},
		{"markdown", func(b *bytes.Buffer) error { return report.WriteMarkdown(b, r) }},
		{"html", func(b *bytes.Buffer) error { return report.WriteHTML(b, r) }},
		{"junit", func(b *bytes.Buffer) error { return report.WriteJUnit(b, r) }},
		{"sarif", func(b *bytes.Buffer) error { return report.WriteSARIF(b, r) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			testutil.RequireGolden(t, b.Bytes(), golden.RequireEqual)
		})
	}
}
