package report_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/sshrun"
)

// mixedReport scans the simulated lab's "mixed" scenario over SSH and builds
// a deterministic report: fixed clock and version, durations zeroed, lab
// addresses (random ports) removed.
func mixedReport(t *testing.T) *report.Report {
	t.Helper()
	sc, err := fixtures.Load("mixed")
	if err != nil {
		t.Fatal(err)
	}
	l, err := lab.Start(sc, lab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var targets []hostio.Target
	byName := map[string]lab.HostInfo{}
	for _, h := range l.Hosts() {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: h.Addr})
		byName[h.Name] = h
	}
	runner := &sshrun.SSHRunner{ClientConfig: func(tg hostio.Target) (*ssh.ClientConfig, error) {
		h := byName[tg.Name]
		return &ssh.ClientConfig{User: h.User, Auth: sshrun.PasswordAuth(h.Password),
			HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
				if h.HostKey == nil || !bytes.Equal(key.Marshal(), h.HostKey.Marshal()) {
					return fmt.Errorf("host key mismatch for %s", tg.Name)
				}
				return nil
			}, HostKeyAlgorithms: sshrun.HostKeyAlgorithms(h.HostKey.Type())}, nil
	}}
	results := collect.Collect(context.Background(), targets, collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler)})
	scrub := regexp.MustCompile(`127\.0\.0\.1:[0-9]+|\[::1\]:[0-9]+`)
	for i := range results {
		hr := &results[i]
		hr.Duration, hr.Address, hr.Start = 0, "", time.Time{}
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
// go test ./report -run TestGoldenMixed -update.
func TestGoldenMixed(t *testing.T) {
	r := mixedReport(t)
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return report.WriteText(b, r, report.TextOptions{Width: 80}) }},
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
			golden.RequireEqual(t, b.Bytes())
		})
	}
}
