package facts

import (
	"fmt"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A pair's Rounds come from its tries' captures (the round each was sent
// in); a search that recorded none (a bundle of the binary search, one try
// after another) counts a round per try; a pair whose configured size
// passed has none.
func TestPathPairRounds(t *testing.T) {
	reply := func(ip string, size int) string {
		return fmt.Sprintf("PING %s (%s): %d data bytes\n%d bytes from %s: icmp_seq=0 ttl=64 time=0.030 ms\n\n--- %s ping statistics ---\n1 packets transmitted, 1 packets received, 0%% packet loss\nround-trip min/avg/max = 0.030/0.030/0.030 ms\n", ip, ip, size, size+8, ip, ip)
	}
	lost := func(ip string, size, n int) string {
		return fmt.Sprintf("PING %s (%s): %d data bytes\n\n--- %s ping statistics ---\n%d packets transmitted, 0 packets received, 100%% packet loss\n", ip, ip, size, ip, n)
	}
	try := func(ip string, size, round int, passed bool) hostio.Capture {
		out := lost(ip, size, 1)
		if passed {
			out = reply(ip, size)
		}
		c := capture(catalog.KindVmkping, fmt.Sprintf("vmkping -I vmk1 -c 1 -W 1 -d -s %d %s", size, ip), out)
		c.Round = round
		return c
	}
	first := func(ip string, passed bool) hostio.Capture {
		out := lost(ip, 8972, 3)
		if passed {
			out = reply(ip, 8972)
		}
		return capture(catalog.KindVmkping, "vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 "+ip, out)
	}
	h := BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		first("10.0.0.2", false),
		try("10.0.0.2", 56, 1, true), try("10.0.0.2", 1472, 1, true), try("10.0.0.2", 4301, 1, false),
		try("10.0.0.2", 4000, 2, true), try("10.0.0.2", 4100, 2, false),
		try("10.0.0.2", 4050, 3, true), try("10.0.0.2", 4051, 3, false),
		first("10.0.0.3", false), // an older scan: the binary search recorded no rounds
		try("10.0.0.3", 1472, 0, true), try("10.0.0.3", 5222, 0, false), try("10.0.0.3", 3347, 0, false),
		first("10.0.0.4", true),
	}})
	got := map[string]int{}
	for _, pp := range pathPairs(&h, func(string) (PeerAddr, bool) { return PeerAddr{}, false }) {
		got[pp.Target] = pp.Rounds
		if pp.Target == "10.0.0.2" && (pp.MTU != 4078 || !pp.Exact) {
			t.Errorf("10.0.0.2: MTU %d exact %v", pp.MTU, pp.Exact)
		}
	}
	if got["10.0.0.2"] != 3 || got["10.0.0.3"] != 3 || got["10.0.0.4"] != 0 {
		t.Errorf("rounds by target: %v", got)
	}
}
