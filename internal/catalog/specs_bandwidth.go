package catalog

import (
	"fmt"
	"net/netip"
	"regexp"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The opt-in bandwidth test (scan --bandwidth-test, seed 002): ib_send_bw
// between two guests, the server on one, the client on the other. These
// are the only commands that are not read-only (they load the link for a
// few seconds): they are in neither the ESXi nor the guest catalogue, are
// allowed only on the connections of the bandwidth test
// (hostio.RoleGuestBandwidth), are bounded by timeout(1) on the guest, and
// the server side ends with its one client (or at its timeout).

// The bandwidth test's kinds.
const (
	KindGuestBWServer hostio.Kind = "guest_ib_send_bw_server"
	KindGuestBWClient hostio.Kind = "guest_ib_send_bw_client"
)

// BandwidthSeconds is how long the client sends (ib_send_bw -D), and
// BandwidthTimeout the bound timeout(1) puts on either side.
const (
	BandwidthSeconds = 5
	BandwidthTimeout = 30
)

var bwPrefix = fmt.Sprintf("timeout %d ib_send_bw --report_gbits -F -D %d -d ", BandwidthTimeout, BandwidthSeconds)

var (
	reBWServer = regexp.MustCompile(`^` + regexp.QuoteMeta(bwPrefix) + `(` + argGuestRDMADev.Pattern + `)$`)
	reBWClient = regexp.MustCompile(`^` + regexp.QuoteMeta(bwPrefix) + `(` + argGuestRDMADev.Pattern + `) ([0-9]{1,3}(?:\.[0-9]{1,3}){3})$`)
	reBWDev    = regexp.MustCompile(`^` + argGuestRDMADev.Pattern + `$`)
)

var bandwidthSpecs = []*Spec{
	{Kind: KindGuestBWServer, Stage: 3, Line: bwPrefix + "<dev>", Template: bwPrefix + "<dev>",
		Allow:  regexp.QuoteMeta(bwPrefix) + "(" + argGuestRDMADev.Pattern + ")",
		When:   "--bandwidth-test: on the server guest of a pair, its PVRDMA device",
		Parser: List(parse.PerftestBW, func(v *parse.BandwidthResult, l string) { v.Command = l }, func(f *GuestFacts) *[]parse.BandwidthResult { return &f.BandwidthServer })},
	{Kind: KindGuestBWClient, Stage: 3, Line: bwPrefix + "<dev> <server IPv4>", Template: bwPrefix + "<dev> <server IPv4>",
		Allow:  regexp.QuoteMeta(bwPrefix) + "(" + argGuestRDMADev.Pattern + ") ([0-9]{1,3}(?:\\.[0-9]{1,3}){3})",
		When:   "--bandwidth-test: on the client guest of a pair, to the server's PVRDMA interface address",
		Parser: List(parse.PerftestBW, func(v *parse.BandwidthResult, l string) { v.Command = l }, func(f *GuestFacts) *[]parse.BandwidthResult { return &f.Bandwidth })},
}

// BandwidthSpecs returns the bandwidth test's two commands.
func BandwidthSpecs() []*Spec { return bandwidthSpecs }

// BandwidthServer is the server command on a guest RDMA device.
func BandwidthServer(dev string) (hostio.Command, error) {
	if !reBWDev.MatchString(dev) {
		return hostio.Command{}, fmt.Errorf("refusing a bandwidth test on %q: not an RDMA device name", dev)
	}
	return hostio.Command{Kind: KindGuestBWServer, Line: bwPrefix + dev, Stage: 3}, nil
}

// BandwidthClient is the client command from a guest RDMA device to the
// server's IPv4 address.
func BandwidthClient(dev, server string) (hostio.Command, error) {
	a, err := netip.ParseAddr(server)
	if !reBWDev.MatchString(dev) || err != nil || !a.Is4() || a.String() != server {
		return hostio.Command{}, fmt.Errorf("refusing a bandwidth test from %q to %q: not an RDMA device name and an IPv4 address", dev, server)
	}
	return hostio.Command{Kind: KindGuestBWClient, Line: bwPrefix + dev + " " + server, Stage: 3}, nil
}

// BandwidthAllowed reports whether line is exactly one of the bandwidth
// test's commands.
func BandwidthAllowed(line string) bool {
	if reBWServer.MatchString(line) {
		return true
	}
	m := reBWClient.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	a, err := netip.ParseAddr(m[2])
	return err == nil && a.Is4() && a.String() == m[2]
}
