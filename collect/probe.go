package collect

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Stage 3: path probes between the hosts' PVRDMA vmknics. For each ordered
// pair (source host, peer) planned, the source sends the size its data
// path is configured for (MTU - 28 with don't-fragment, a few packets at a
// short interval: the RTT); when that is lost or refused, SearchPathMTU
// finds the largest don't-fragment payload that passes with one packet per
// try. Every try is an allowlisted vmkping line and a capture of its own,
// so the facts (and a bundle's replay) see exactly what was sent.

// Probe modes (scan --probes).
const (
	ProbesRing = "ring" // each host probes the next RingPeers hosts in name order
	ProbesAll  = "all"  // every ordered pair
	ProbesOff  = "off"  // no probes
)

// ProbeModes are the values of --probes.
var ProbeModes = []string{ProbesRing, ProbesAll, ProbesOff}

// RTTPackets is the packet count of the configured-size probe of a pair,
// sent ProbeInterval apart; search tries send one packet. ProbeWait is the
// seconds vmkping waits for a reply (-W).
const (
	RTTPackets    = 3
	ProbeInterval = "0.2"
	ProbeWait     = 1
	// StandardPayload is the payload of a full 1500-byte frame, the first
	// size a search tries below the configured one.
	StandardPayload = 1472
	// MinPayload is vmkping's default payload, tried when the standard
	// frame is lost too: if it is lost as well, the peer is unreachable.
	MinPayload = 56
	// MaxPayload is the payload of a 9000-byte frame, the largest the
	// catalogue lets a probe send.
	MaxPayload = 8972
)

// MaxSearchTries is the most one-packet tries SearchPathMTU makes.
const MaxSearchTries = catalog.MaxSearchTries

// Try is what one probe told: whether a reply came back, whether the
// sending host refused the packet itself ("sendto() failed (Message too
// long)": its vmknic MTU), and the round trip of the replies.
type Try struct {
	Payload int
	Passed  bool
	TooLong bool
	// Round is the round of SearchRounds the try was sent in (0 for
	// SearchPathMTU's tries, one after the other).
	Round int
}

// ProbeFunc sends one don't-fragment packet of payload bytes and reports
// the outcome; an error means the try could not be made (connection lost,
// timeout of the scan): the search stops.
type ProbeFunc func(ctx context.Context, payload int) (Try, error)

// Search is the outcome of SearchPathMTU.
type Search struct {
	// Largest is the largest payload that passed (0: none did).
	Largest int
	// SmallestLost is the smallest payload known lost or refused (the
	// configured one when no try was).
	SmallestLost int
	Tries        []Try
	// Rounds is how many rounds of tries SearchRounds sent (each waiting
	// at most once for a lost reply).
	Rounds int
	// Stopped is set when a try could not be made; Largest is then a lower
	// bound only.
	Stopped error
}

// SearchPathMTU finds the largest don't-fragment payload that passes,
// knowing that failed (the configured size, lost or refused) does not:
// first the standard 1472 (when below failed), then, if that passes, a
// binary search between it and failed; if it is lost, MinPayload decides
// whether anything passes (unreachable) before a binary search below 1472.
// Sizes are assumed monotonic (a path that carries N bytes carries fewer);
// at most MaxSearchTries tries for failed <= MaxPayload.
func SearchPathMTU(ctx context.Context, failed int, probe ProbeFunc) Search {
	var s Search
	lo, hi := 0, failed // lo passed (0: none known), hi lost
	try := func(size int) (bool, bool) {
		if s.Stopped != nil || len(s.Tries) >= MaxSearchTries {
			return false, false
		}
		if err := ctx.Err(); err != nil {
			s.Stopped = err
			return false, false
		}
		t, err := probe(ctx, size)
		if err != nil {
			s.Stopped = err
			return false, false
		}
		t.Payload = size
		s.Tries = append(s.Tries, t)
		if t.Passed {
			lo = max(lo, size)
		} else {
			hi = min(hi, size)
		}
		return t.Passed, true
	}
	for _, first := range []int{StandardPayload, MinPayload} {
		if first >= hi {
			continue
		}
		passed, ok := try(first)
		if !ok || passed {
			break
		}
	}
	if lo > 0 {
		for hi-lo > 1 {
			if _, ok := try(lo + (hi-lo)/2); !ok {
				break
			}
		}
	}
	s.Largest, s.SmallestLost = lo, hi
	return s
}

// ProbeSize is the payload of a full frame of mtu bytes (mtu - 28: 20
// bytes of IPv4 and 8 of ICMP header), within the catalogue's bounds.
func ProbeSize(mtu int) int {
	if mtu <= 0 {
		return MaxPayload
	}
	return min(max(mtu-28, MinPayload), MaxPayload)
}

// ProbeLine builds a probe: count packets (RTTPackets at ProbeInterval, or
// one), don't-fragment, ProbeWait seconds for a reply.
func ProbeLine(src ProbeEnd, peer string, payload, count int) (Command, error) {
	interval := ""
	if count > 1 {
		interval = ProbeInterval
	}
	return build(catalog.KindVmkping, src.Vmknic, src.Netstack, strconv.Itoa(count), interval, strconv.Itoa(ProbeWait), strconv.Itoa(payload), peer)
}

// ProbeEnd is one end of a probed path: a host's PVRDMA vmknic, its
// netstack and IPv4 address, and the MTU its data path is configured for
// (the larger of the vmknic's and its distributed switch's).
type ProbeEnd = probeSource

// ProbePair is one planned ordered pair.
type ProbePair struct {
	From, To string
	Src, Dst ProbeEnd
}

// probeEnds returns the hosts with a known vmknic address, sorted: the
// ring the pairs are planned on.
func probeEnds(names []string, src map[string]probeSource) []string {
	var ends []string
	for _, h := range names {
		if src[h].IP != "" {
			ends = append(ends, h)
		}
	}
	sort.Strings(ends)
	return ends
}

// pairsFor returns host's ordered pairs: for ring its next n peers in name
// order that it can probe, for all every peer. A peer it cannot probe (its
// address is the host's own, or the network or broadcast address of the
// host's subnet) is skipped with the reason, and takes no place in the
// ring: one bad peer never stops the probes to the others. The fleet's
// pairs are ordered by ring distance (every host's next peer, then every
// host's second, ...) so that a budget cuts evenly across hosts: the
// host's k-th pair (from 1) is number (k-1)*len(ends)+i, kept when below
// budget (budget <= 0: no cap). Only the host's own pairs are made, so
// planning costs O(pairs of the host) plus the peers skipped. dropped
// counts the host's pairs the budget left out.
func pairsFor(host string, ends []string, src map[string]probeSource, mode string, n, budget int) (kept []ProbePair, dropped int, skipped []string) {
	i := sort.SearchStrings(ends, host)
	if i == len(ends) || ends[i] != host {
		return nil, 0, nil
	}
	want := len(ends) - 1
	if mode != ProbesAll {
		want = min(want, n)
	}
	k := 0
	for d := 1; d < len(ends) && k < want; d++ {
		peer := ends[(i+d)%len(ends)]
		if why := unprobeablePeer(src[host], src[peer]); why != "" {
			skipped = append(skipped, fmt.Sprintf("%s %s not probed: %s", pathNotePrefix, peer, why))
			continue
		}
		k++
		if budget > 0 && (k-1)*len(ends)+i >= budget {
			dropped++
			continue
		}
		kept = append(kept, ProbePair{From: host, To: peer, Src: src[host], Dst: src[peer]})
	}
	return kept, dropped, skipped
}

// pathNotePrefix starts the note on a pair a host did not probe.
const pathNotePrefix = "path to"

// unprobeablePeer says why src cannot probe dst ("" when it can): dst's
// address is src's own, or the network or broadcast address of src's
// subnet (a vmkping there would reach every host of the subnet, or none).
func unprobeablePeer(src, dst probeSource) string {
	if dst.IP == src.IP {
		return fmt.Sprintf("its PVRDMA vmknic address %s is this host's own (an address conflict: a probe would not leave this host)", dst.IP)
	}
	if edge := subnetEdge(src, dst); edge != "" {
		return fmt.Sprintf("its PVRDMA vmknic address %s is %s of this host's subnet %s", dst.IP, edge, src.Net)
	}
	return ""
}

// planFor returns host's pairs and notes on the peers it does not probe
// and the pairs the budget left out.
func (b *probeBoard) planFor(host string, opts Options) ([]ProbePair, []string) {
	b.mu.Lock()
	if b.ends == nil {
		b.ends = probeEnds(b.names, b.sources)
	}
	mine, dropped, notes := pairsFor(host, b.ends, b.sources, opts.ProbeMode, opts.ProbePeers, opts.ProbeBudget)
	b.mu.Unlock()
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("probe budget of %d pairs for the fleet reached: %d paths from this host to its peers not probed, %d probed (raise --probe-budget)",
			opts.ProbeBudget, dropped, len(mine)))
	}
	return mine, notes
}

// probePair runs the probes of one pair: the configured size with
// RTTPackets packets, then, if no reply came back, the search in rounds
// (SearchRounds), as many tries at once as width says, hinted with the
// peer's configured size when it is smaller. Every try's capture says its
// round.
func (h *hostRun) probePair(ctx context.Context, p ProbePair, width int) []hostio.Capture {
	var (
		mu   sync.Mutex
		caps []hostio.Capture
	)
	run := func(payload, count int) (Try, error) {
		c, err := ProbeLine(p.Src, p.Dst.IP, payload, count)
		if err != nil {
			return Try{}, err
		}
		if count == 1 {
			// A search try: the progress counted one command per pair.
			h.mu.Lock()
			h.total++
			h.mu.Unlock()
		}
		select {
		case h.sem <- struct{}{}:
		case <-ctx.Done():
			return Try{}, ctx.Err()
		}
		capt := h.run(ctx, c)
		<-h.sem
		mu.Lock()
		caps = append(caps, capt)
		mu.Unlock()
		h.emit(hostio.PhaseProbing, "")
		if capt.Status != hostio.StatusCollected {
			return Try{}, fmt.Errorf("%s: %s", c.Line, capt.Error)
		}
		ping, err := parse.Vmkping(capt.Stdout)
		if err != nil && ping.Target == "" {
			return Try{}, fmt.Errorf("%s: %v", c.Line, err)
		}
		return Try{Payload: payload, Passed: !ping.Failed() && ping.Received > 0, TooLong: ping.MessageTooLong}, nil
	}
	size := ProbeSize(max(p.Src.MTU, 0))
	first, err := run(size, RTTPackets)
	if err != nil || first.Passed {
		return caps
	}
	var hints []int
	if p.Dst.MTU > 0 && ProbeSize(p.Dst.MTU) < size {
		hints = append(hints, ProbeSize(p.Dst.MTU))
	}
	s := SearchRounds(ctx, size, RoundOptions{Width: width, Hints: hints}, func(ctx context.Context, payload int) (Try, error) { return run(payload, 1) })
	round := map[int]int{}
	for _, t := range s.Tries {
		round[t.Payload] = t.Round
	}
	// The captures in the order sent (the first probe, then by round and
	// size), each with its round.
	for i := range caps {
		if i > 0 {
			caps[i].Round = round[payloadOf(caps[i].Command)]
		}
	}
	sort.SliceStable(caps[1:], func(i, j int) bool {
		a, b := caps[1+i], caps[1+j]
		if a.Round != b.Round {
			return a.Round < b.Round
		}
		return payloadOf(a.Command) < payloadOf(b.Command)
	})
	return caps
}

// SearchWidth is how many tries a pair's search sends at once: its share
// of the host's sessions among the pairs that run together (at most
// sessions of them).
func SearchWidth(sessions, pairs int) int {
	return max(1, sessions/max(1, min(pairs, sessions)))
}

// payloadOf is the -s value of a probe line.
func payloadOf(line string) int { return intFlag(line, "-s") }

// intFlag is the number after flag in a command line (0 without one).
func intFlag(line, flag string) int {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == flag {
			n, _ := strconv.Atoi(f[i+1])
			return n
		}
	}
	return 0
}

// runProbes runs a host's pairs, at most SessionsPerHost of them at once,
// and appends the captures pair by pair in plan order. The host's sessions
// are shared: a pair's search sends SearchWidth tries at a time, so that
// the pairs of a host never wait on each other's lost tries (a pair's
// round waits once).
func (h *hostRun) runProbes(ctx context.Context, pairs []ProbePair) {
	if len(pairs) == 0 {
		return
	}
	out := make([][]hostio.Capture, len(pairs))
	sessions := cap(h.sem)
	slots := make(chan struct{}, sessions)
	width := SearchWidth(sessions, len(pairs))
	var wg sync.WaitGroup
	for i, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-slots }()
			out[i] = h.probePair(ctx, p, width)
		}()
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, caps := range out {
		h.res.Captures = append(h.res.Captures, caps...)
	}
}

// DryRunProbes describes the probes of a fleet for --dry-run: the pairs
// a scan of these hosts would probe (host names; addresses are learned
// from the hosts), and the bound on packets.
func DryRunProbes(names []string, mode string, ringPeers, budget int) (pairs [][2]string, dropped int) {
	src := map[string]probeSource{}
	for i, n := range names {
		src[n] = probeSource{IP: "0.0.0." + strconv.Itoa(i+1)}
	}
	ends := probeEnds(names, src)
	for _, h := range ends {
		kept, n, _ := pairsFor(h, ends, src, mode, ringPeers, budget)
		for _, p := range kept {
			pairs = append(pairs, [2]string{p.From, p.To})
		}
		dropped += n
	}
	return pairs, dropped
}

// ValidProbeMode reports an error for an unknown --probes value.
func ValidProbeMode(mode string) error {
	for _, m := range ProbeModes {
		if m == mode {
			return nil
		}
	}
	return fmt.Errorf("--probes %q: expected one of %s", mode, strings.Join(ProbeModes, ", "))
}
