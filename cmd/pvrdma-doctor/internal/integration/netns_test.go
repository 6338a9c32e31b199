package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

// The path MTU searches (collect.SearchRounds, which the collector runs,
// and collect.SearchPathMTU, the binary search it replaced) against a real
// network: Linux network namespaces, one per "host", joined by veth
// pairs to a bridge in a "switch" namespace. The hosts' interfaces carry
// 9000-byte frames; the switch ports (the bridge side of each veth) have
// different MTUs, and the bridge silently drops a frame larger than the
// port it leaves by, as a switch port does. One host's own interface is
// below 9000: its larger probes are refused locally ("message too long").
// The probe is Linux `ping -M do -s SIZE -c 1 -W 0.3` run inside the
// sender's namespace; every ordered pair's discovered MTU must equal what
// the topology carries. Addresses (10.77.0.0/24) exist only inside the
// namespaces.

type nsHost struct {
	name, ns, ip string
	mtu, port    int // the host's interface MTU, its switch port's
}

func needNetns(t *testing.T) {
	t.Helper()
	must := os.Getenv("CI") != "" && os.Geteuid() == 0
	skip := func(format string, args ...any) {
		t.Helper()
		if must {
			t.Fatalf("CI runs as root and must run the network namespace test: "+format, args...)
		}
		t.Skipf("network namespace test skipped: "+format, args...)
	}
	if os.Geteuid() != 0 {
		skip("needs root to create network namespaces (running as uid %d)", os.Geteuid())
	}
	for _, tool := range []string{"ip", "ping"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip("%s not installed (scripts/test-deps.sh installs iproute2 and iputils-ping)", tool)
		}
	}
	probe := fmt.Sprintf("pdprobe%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		skip("ip netns add failed: %v: %s", err, out)
	}
	_ = exec.Command("ip", "netns", "del", probe).Run()
}

func run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func TestPathMTUSearchOverNetworkNamespaces(t *testing.T) {
	needNetns(t)
	id := strconv.Itoa(os.Getpid())
	sw := "pdsw" + id
	hosts := []*nsHost{
		{name: "h1", mtu: 9000, port: 9000},
		{name: "h2", mtu: 9000, port: 1500},
		{name: "h3", mtu: 9000, port: 4000},
		{name: "h4", mtu: 9000, port: 9000},
		{name: "h5", mtu: 2000, port: 9000},
	}
	// Namespaces go even when the test fails half-way.
	t.Cleanup(func() {
		for _, h := range hosts {
			if h.ns != "" {
				_ = exec.Command("ip", "netns", "del", h.ns).Run()
			}
		}
		_ = exec.Command("ip", "netns", "del", sw).Run()
	})
	run(t, "ip", "netns", "add", sw)
	run(t, "ip", "-n", sw, "link", "add", "br0", "type", "bridge")
	run(t, "ip", "-n", sw, "link", "set", "br0", "mtu", "9000")
	run(t, "ip", "-n", sw, "link", "set", "br0", "up")
	run(t, "ip", "-n", sw, "link", "set", "lo", "up")
	for i, h := range hosts {
		h.ns = "pd" + h.name + "-" + id
		h.ip = fmt.Sprintf("10.77.0.%d", i+1)
		run(t, "ip", "netns", "add", h.ns)
		port := "p" + h.name
		// The veth is made in the switch namespace; its host end moves.
		run(t, "ip", "-n", sw, "link", "add", port, "mtu", strconv.Itoa(h.port), "type", "veth", "peer", "name", "eth0", "mtu", strconv.Itoa(h.mtu), "netns", h.ns)
		run(t, "ip", "-n", sw, "link", "set", port, "master", "br0")
		run(t, "ip", "-n", sw, "link", "set", port, "up")
		run(t, "ip", "-n", h.ns, "addr", "add", h.ip+"/24", "dev", "eth0")
		run(t, "ip", "-n", h.ns, "link", "set", "eth0", "up")
		run(t, "ip", "-n", h.ns, "link", "set", "lo", "up")
	}
	// The bridge's own MTU follows its smallest port; keep it out of the way.
	run(t, "ip", "-n", sw, "link", "set", "br0", "mtu", "9000")

	probe := func(src, dst *nsHost) collect.ProbeFunc {
		return func(ctx context.Context, payload int) (collect.Try, error) {
			cmd := exec.CommandContext(ctx, "ip", "netns", "exec", src.ns, "ping", "-n", "-M", "do", "-s", strconv.Itoa(payload), "-c", "1", "-W", "0.3", dst.ip)
			out, err := cmd.CombinedOutput()
			text := string(out)
			tr := collect.Try{Payload: payload, Passed: err == nil && strings.Contains(text, " 1 received"),
				TooLong: strings.Contains(strings.ToLower(text), "message too long")}
			if err != nil && !tr.TooLong && !strings.Contains(text, "packet loss") {
				return tr, fmt.Errorf("ping %s -> %s: %v: %s", src.name, dst.name, err, text)
			}
			return tr, nil
		}
	}
	// What the topology carries from src to dst (request and reply): the
	// sender's interface (larger is refused locally, exactly), the
	// sender's switch port on the way into the bridge, the receiver's port
	// on the way out and the receiver's interface. Linux's veth and bridge
	// accept a frame up to 4 bytes over the MTU where it enters a device
	// (is_skb_forwardable allows a VLAN header, VLAN_HLEN), measured here
	// as: into the bridge through the sender's port, MTU + 4; out of it to
	// the receiver's port, MTU; into the receiver's interface, MTU + 4.
	want := func(src, dst *nsHost) int { return min(src.mtu, src.port+4, dst.port, dst.mtu+4) }

	// Reachability first (ARP settles), then every ordered pair at once.
	for _, h := range hosts[1:] {
		if tr, err := probe(hosts[0], h)(context.Background(), 56); err != nil || !tr.Passed {
			if tr2, err2 := probe(hosts[0], h)(context.Background(), 56); err2 != nil || !tr2.Passed {
				t.Fatalf("h1 cannot reach %s at all: %v %v", h.name, err, err2)
			}
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, src := range hosts {
		for _, dst := range hosts {
			if src == dst {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := probe(src, dst)
				// Every host is configured for 9000 (the vDS); h5's own
				// interface refuses more than 2000.
				configured := collect.ProbeSize(9000)
				first, err := p(context.Background(), configured)
				got, bin := configured+28, configured+28
				var tries, rounds, binTries int
				if err == nil && !first.Passed {
					s := collect.SearchRounds(context.Background(), configured, collect.RoundOptions{Width: 4}, p)
					err, tries, rounds = s.Stopped, len(s.Tries), s.Rounds
					got = s.Largest + 28
					b := collect.SearchPathMTU(context.Background(), configured, p)
					if err == nil {
						err = b.Stopped
					}
					bin, binTries = b.Largest+28, len(b.Tries)
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("%s -> %s: %v", src.name, dst.name, err)
					return
				}
				if got != want(src, dst) || bin != got {
					t.Errorf("%s -> %s: discovered path MTU %d in %d rounds (binary search %d), the namespaces carry %d", src.name, dst.name, got, rounds, bin, want(src, dst))
				}
				if tries > collect.MaxRoundTries || rounds > collect.MaxSearchRounds || binTries > collect.MaxSearchTries {
					t.Errorf("%s -> %s: %d tries in %d rounds (binary search: %d tries)", src.name, dst.name, tries, rounds, binTries)
				}
			}()
		}
	}
	wg.Wait()
}
