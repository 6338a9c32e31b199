package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The flags of the opt-in bandwidth test (scan --bandwidth-test
// SERVER:CLIENT,...); the test itself is collect.BandwidthTest.

// parseBWPairs reads --bandwidth-test: SERVER:CLIENT pairs of guests given
// with --guests/--guests-file.
func parseBWPairs(v string, guests []hostio.Target) ([]collect.BandwidthPair, error) {
	if v == "" {
		return nil, nil
	}
	known := map[string]bool{}
	for _, g := range guests {
		known[g.Name] = true
	}
	var out []collect.BandwidthPair
	for _, p := range strings.Split(v, ",") {
		s, c, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok || s == "" || c == "" || s == c {
			return nil, usageError("--bandwidth-test %q: expected SERVER:CLIENT pairs of two different guests", p)
		}
		for _, n := range []string{s, c} {
			if !known[n] {
				return nil, usageError("--bandwidth-test: %s is not a guest given with --guests or --guests-file", n)
			}
		}
		out = append(out, collect.BandwidthPair{Server: s, Client: c})
	}
	return out, nil
}

// dryRunBandwidth lists, in a text dry run, what the bandwidth test would
// run (the JSON dry run lists the read-only scan only).
func dryRunBandwidth(w io.Writer, format string, pairs []collect.BandwidthPair) {
	if len(pairs) == 0 || format == "json" {
		return
	}
	fmt.Fprintf(w, "\nBandwidth test (--bandwidth-test; NOT read-only: loads the link for %ds per pair), after the scan, one pair at a time:\n", catalog.BandwidthSeconds)
	for _, p := range pairs {
		fmt.Fprintf(w, "  %s (server)  %s\n", p.Server, catalog.BandwidthSpecs()[0].TemplateLine())
		fmt.Fprintf(w, "  %s (client)  %s\n", p.Client, catalog.BandwidthSpecs()[1].TemplateLine())
	}
}
