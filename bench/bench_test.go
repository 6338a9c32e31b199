// Package bench holds the fleet benchmark (run.sh, benchtool) and the Go
// benchmarks of the pipeline pieces at 1,000 hosts.
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

const fleetSize = 1000

func fleet(b *testing.B) *fixtures.Scenario {
	b.Helper()
	sc := fixtures.MustLoad(b, "healthy")
	return fixtures.Fleet(sc, fleetSize)
}

// BenchmarkCollect1000Hosts scans 1,000 in-process lab hosts over real SSH
// (loopback, no simulated latency), probes on, every host at once.
func BenchmarkCollect1000Hosts(b *testing.B) {
	l, err := lab.Start(fleet(b), lab.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	targets, runner := labRunner(b, l)
	opts := collect.Options{Runner: runner, Concurrency: fleetSize, Probes: true, Logger: slog.New(slog.DiscardHandler)}
	b.ReportAllocs()
	for b.Loop() {
		res := collect.Collect(context.Background(), targets, opts)
		for _, r := range res {
			if r.Status != hostio.StatusCollected {
				b.Fatalf("%s: %s %s", r.Host, r.Status, r.Reason)
			}
		}
	}
}

// labRunner is the lab's hosts as targets and an SSH runner that logs in
// to them with their password, checking their host keys.
func labRunner(tb testing.TB, l *lab.Lab) ([]hostio.Target, hostio.Runner) {
	var targets []hostio.Target
	var lines []string
	var pw, user string
	for _, h := range l.Hosts() {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: h.Addr})
		lines = append(lines, h.KnownHostsLine)
		pw, user = h.Password, h.User
	}
	cb := knownHostsCallback(tb, lines)
	return targets, &sshrun.SSHRunner{ClientConfig: func(hostio.Target) (*ssh.ClientConfig, error) {
		return &ssh.ClientConfig{User: user, Auth: sshrun.PasswordAuth(pw), HostKeyCallback: cb}, nil
	}}
}

func knownHostsCallback(b testing.TB, lines []string) ssh.HostKeyCallback {
	f := b.TempDir() + "/known_hosts"
	var all []byte
	for _, l := range lines {
		all = append(all, l+"\n"...)
	}
	if err := writeFile(f, all); err != nil {
		b.Fatal(err)
	}
	cb, err := knownhosts.New(f)
	if err != nil {
		b.Fatal(err)
	}
	return cb
}

// BenchmarkAnalyze1000Hosts is what `analyze` does with a 1,000-host
// capture set: analysis.Run (facts, checks, report) + the JSON report.
func BenchmarkAnalyze1000Hosts(b *testing.B) {
	sc := fleet(b)
	targets := make([]hostio.Target, len(sc.Hosts))
	for i, h := range sc.Hosts {
		targets[i] = hostio.Target{Name: h.Name}
	}
	results := collect.Collect(context.Background(), targets, collect.Options{
		Runner: sc.Runner(), Concurrency: fleetSize, Probes: true})
	meta := report.Meta{Source: "bench", Now: time.Unix(0, 0), Version: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		a := analysis.Run(results, analysis.Options{Meta: meta})
		if err := report.WriteJSON(io.Discard, a.Report); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeFleets is analysis.Run and the JSON report of a healthy
// fleet and of a faulty one (the "mixed" scenario `lab serve` serves by
// default, hosts with faults) at two sizes: a fleet with faults must
// cost what a healthy one does, and the cost per host must not grow with
// the fleet. It reports CPU time and allocated bytes per host.
func BenchmarkAnalyzeFleets(b *testing.B) {
	for _, scenario := range []string{"healthy", "mixed"} {
		for _, n := range []int{100, 1000} {
			b.Run(fmt.Sprintf("%s/%d", scenario, n), func(b *testing.B) {
				sc := fixtures.Fleet(fixtures.MustLoad(b, scenario), n)
				targets := make([]hostio.Target, len(sc.Hosts))
				for i, h := range sc.Hosts {
					targets[i] = hostio.Target{Name: h.Name}
				}
				results := collect.Collect(context.Background(), targets, collect.Options{
					Runner: sc.Runner(), Concurrency: n, Probes: true})
				meta := report.Meta{Source: "bench", Now: time.Unix(0, 0), Version: "bench"}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cpu0 := cpuTime()
				b.ReportAllocs()
				for b.Loop() {
					a := analysis.Run(results, analysis.Options{Meta: meta})
					if err := report.WriteJSON(io.Discard, a.Report); err != nil {
						b.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*n), "CPU-µs/host")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/host")
			})
		}
	}
}

// cpuTime is the process's CPU time so far (user and system, every
// thread: the garbage collector's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
