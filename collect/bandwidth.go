package collect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The opt-in bandwidth test (scan --bandwidth-test SERVER:CLIENT,...), as
// seed 002 verifies a PVRDMA data path: after the scan, for each pair in
// turn, ib_send_bw runs as a server on SERVER's PVRDMA device and as a
// client on CLIENT's, to SERVER's PVRDMA interface address, for
// catalog.BandwidthSeconds. It is the one thing the doctor runs that is not
// read-only: never without the flag, listed by --dry-run, bounded by
// timeout(1) on each guest, and the server ends with its one client (or at
// its timeout; the doctor also closes its connection). The captures join
// the guests' results, so reports, bundles and `analyze` show them; the
// rule GUEST_BANDWIDTH_LOW compares the result with the uplink's line rate.
// The guests' devices and addresses are read from their scan's facts
// (facts.BuildGuest).

// BandwidthPair is one server:client pair of guests.
type BandwidthPair struct{ Server, Client string }

// BandwidthTest runs the pairs' tests after a scan (runner: the guests'
// transport; targets: the scan's) and adds their captures, or the reason a
// test was not run as a note, to the guests' results.
func BandwidthTest(runner hostio.Runner, targets []hostio.Target, pairs []BandwidthPair) func(context.Context, []hostio.HostResult) []hostio.HostResult {
	return func(ctx context.Context, results []hostio.HostResult) []hostio.HostResult {
		byName := map[string]hostio.Target{}
		for _, t := range targets {
			byName[t.Name] = t
		}
		idx := map[string]int{}
		for i, r := range results {
			idx[r.Host] = i
		}
		guest := map[string]*facts.Guest{}
		for _, r := range results {
			if r.Role == hostio.RoleGuest {
				g := facts.BuildGuest(r)
				guest[g.Guest] = &g
			}
		}
		for _, p := range pairs {
			note := func(msg string) {
				for _, n := range []string{p.Server, p.Client} {
					if i, ok := idx[n]; ok {
						results[i].Notes = append(results[i].Notes, fmt.Sprintf("bandwidth test %s -> %s not run: %s", p.Client, p.Server, msg))
					}
				}
			}
			sg, cg := guest[p.Server], guest[p.Client]
			if sg == nil || cg == nil || sg.Status == hostio.StatusNotCollected || cg.Status == hostio.StatusNotCollected {
				note("a guest of the pair was not collected")
				continue
			}
			sdev, ip := "", ""
			for _, a := range sg.Adapters {
				if len(a.IPv4) > 0 && sdev == "" {
					sdev, ip = a.Device, a.IPv4[0]
				}
			}
			if len(cg.Adapters) == 0 || sdev == "" {
				note("no PVRDMA device (with an IPv4 address on the server side)")
				continue
			}
			srv, err1 := catalog.BandwidthServer(sdev)
			cli, err2 := catalog.BandwidthClient(cg.Adapters[0].Device, ip)
			if err1 != nil || err2 != nil {
				note(fmt.Sprint(firstErr(err1, err2)))
				continue
			}
			sc, cc, err := runBandwidthPair(ctx, runner, byName[p.Server], byName[p.Client], srv, cli)
			if err != nil {
				note(err.Error())
				continue
			}
			results[idx[p.Server]].Captures = append(results[idx[p.Server]].Captures, sc)
			results[idx[p.Client]].Captures = append(results[idx[p.Client]].Captures, cc)
		}
		return results
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// runBandwidthPair starts the server, gives it a second to listen, runs
// the client, then waits for the server (bounded) and closes both
// connections.
func runBandwidthPair(ctx context.Context, runner hostio.Runner, st, ct hostio.Target, srv, cli hostio.Command) (hostio.Capture, hostio.Capture, error) {
	bound := time.Duration(catalog.BandwidthTimeout+5) * time.Second
	ctx, cancel := context.WithTimeout(ctx, bound+10*time.Second)
	defer cancel()
	st.Role, ct.Role = hostio.RoleGuestBandwidth, hostio.RoleGuestBandwidth
	sconn, err := runner.Open(ctx, st)
	if err != nil {
		return hostio.Capture{}, hostio.Capture{}, fmt.Errorf("connecting to %s: %w", st.Name, err)
	}
	defer sconn.Close()
	cconn, err := runner.Open(ctx, ct)
	if err != nil {
		return hostio.Capture{}, hostio.Capture{}, fmt.Errorf("connecting to %s: %w", ct.Name, err)
	}
	defer cconn.Close()
	sctx, scancel := context.WithTimeout(ctx, bound)
	defer scancel()
	done := make(chan hostio.Capture, 1)
	go func() { done <- runCapture(sctx, sconn, st.Name, srv) }()
	var early *hostio.Capture
	select {
	case <-time.After(time.Second): // the server's listening socket
	case c := <-done:
		if c.Status != hostio.StatusCollected || c.ExitCode != 0 {
			return c, hostio.Capture{}, fmt.Errorf("the server on %s failed before the client started (exit %d: %s)", st.Name, c.ExitCode, strings.TrimSpace(firstLineOf(c.Stderr+c.Stdout)))
		}
		early = &c
	}
	cctx, ccancel := context.WithTimeout(ctx, bound)
	defer ccancel()
	cc := runCapture(cctx, cconn, ct.Name, cli)
	if early != nil {
		return *early, cc, nil
	}
	var sc hostio.Capture
	select {
	case sc = <-done:
	case <-time.After(bound):
		scancel()
		sc = <-done
	}
	return sc, cc, nil
}

// runCapture runs one command and records it as the collector would.
func runCapture(ctx context.Context, conn hostio.Conn, host string, c hostio.Command) hostio.Capture {
	start := time.Now()
	r := conn.Run(ctx, c.Line)
	capt := hostio.Capture{Host: host, Command: c.Line, Kind: c.Kind, Stdout: string(r.Stdout), Stderr: string(r.Stderr),
		ExitCode: r.ExitCode, Start: start, Duration: time.Since(start), Status: hostio.StatusCollected}
	if r.Err != nil {
		capt.Status, capt.Error = hostio.StatusFailed, r.Err.Error()
	}
	return capt
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
