package collect

import (
	"context"
	"slices"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// The path MTU search the collector runs: k-ary rounds instead of one try
// after another. A lost try costs its whole reply wait (-W 1), a try that
// passes only a round trip, and a size the sending vmknic refuses nothing
// (`sendto() failed (Message too long)` at once). So a round sends many
// sizes, smallest first, several at a time (up to the pair's share of the
// host's sessions): the sizes below the path MTU come back at once and
// the next sizes up go out, and the first batch with a size that does not
// come back ends the round. Whatever the path, a round waits once, and
// its sizes split what is still unknown so finely that MaxSearchRounds
// rounds of them reach the exact byte from MinPayload to MaxPayload
// (21 sizes a round: 21^3 >= 8917 possible path MTUs). SearchPathMTU, the
// binary search, stays as the reference the tests compare it with.

// MaxSearchRounds is the most rounds SearchRounds makes (each waits at
// most once, ProbeWait seconds), and MaxRoundTries the most one-packet
// tries it sends to one peer.
const (
	MaxSearchRounds = catalog.MaxSearchRounds
	MaxRoundTries   = catalog.MaxRoundTries
)

// MaxHints is how many hints a search takes.
const MaxHints = 2

// RoundOptions are the knobs of SearchRounds.
type RoundOptions struct {
	// Width is how many tries are sent at once (below 1: one at a time):
	// the pair's share of its host's sessions.
	Width int
	// Hints are payloads the path is likely to stop at (the peer's
	// configured size): round 1 also tries each and the size above, so
	// that a path stopping there is exact after one round. At most
	// MaxHints are used.
	Hints []int
}

func (o RoundOptions) width() int { return max(1, o.Width) }

// SearchRounds finds the largest don't-fragment payload that passes,
// knowing that failed (the configured size, lost or refused) does not, in
// at most MaxSearchRounds rounds of concurrent tries (see above). It gives
// what SearchPathMTU gives on a path where sizes are monotonic (a path
// that carries N bytes carries fewer): the same Largest and SmallestLost,
// exact, and 0 when MinPayload is lost too (unreachable); every Try says
// its Round. On a lossy path it keeps the largest size that got a reply
// and the smallest above it that did not, as SearchPathMTU does. The
// tries run on goroutines, each calling probe.
func SearchRounds(ctx context.Context, failed int, o RoundOptions, probe ProbeFunc) Search {
	return searchRounds(ctx, failed, o, &goFlight{ctx: ctx, probe: probe, done: make(chan flown, MaxRoundTries)})
}

// flight sends the tries of a round and hands back each one's outcome as
// it comes: goroutines calling a ProbeFunc live, a simulated clock in the
// tests (which measure the rounds of waits a search costs).
type flight interface {
	start(payload int)
	// next blocks until a try started and not yet returned finishes.
	next() flown
}

type flown struct {
	payload int
	try     Try
	err     error
}

type goFlight struct {
	ctx   context.Context
	probe ProbeFunc
	done  chan flown
}

func (g *goFlight) start(payload int) {
	go func() {
		t, err := g.probe(g.ctx, payload)
		g.done <- flown{payload, t, err}
	}()
}

func (g *goFlight) next() flown { return <-g.done }

func searchRounds(ctx context.Context, failed int, o RoundOptions, f flight) Search {
	var s Search
	// lo: the largest size that passed (MinPayload-1 stands for none:
	// below MinPayload the peer is unreachable); hi: the smallest size
	// above it that did not.
	lo, hi := MinPayload-1, failed
	hints := o.Hints[:min(len(o.Hints), MaxHints)]
	for round := 1; round <= MaxSearchRounds && hi-lo > 1; round++ {
		var extra []int
		if round == 1 {
			extra = append(extra, MinPayload, StandardPayload, StandardPayload+1)
			for _, h := range hints {
				extra = append(extra, h, h+1)
			}
		}
		sizes := roundSizes(lo, hi, MaxSearchRounds-round+1, extra)
		tries, err := sweep(ctx, sizes, o, f)
		for i := range tries {
			tries[i].Round = round
			if tries[i].Passed {
				lo = max(lo, tries[i].Payload)
			}
		}
		for _, t := range tries {
			if !t.Passed && t.Payload > lo {
				hi = min(hi, t.Payload)
			}
		}
		s.Tries = append(s.Tries, tries...)
		s.Rounds = round
		if err != nil {
			s.Stopped = err
			break
		}
		if lo < MinPayload {
			break // MinPayload lost too: unreachable
		}
	}
	s.Largest, s.SmallestLost = lo, hi
	if lo < MinPayload {
		s.Largest = 0
	}
	return s
}

// sweep sends a round's sizes smallest first, o.width() at a time: a
// batch is sent together and the next one, of larger sizes, only when
// every try of the batch got a reply (a size above one that did not is
// lost or refused too). So a round waits for a lost reply once, even on a
// lossy path (a dropped packet ends the round as the path MTU would; the
// tries after it say which it was). It returns the tries made, by size,
// and the first error (no batch is sent after it). Which sizes are sent
// depends on the path only, never on which reply came first: a replay
// sends the same.
func sweep(ctx context.Context, sizes []int, o RoundOptions, f flight) ([]Try, error) {
	got := make([]Try, 0, len(sizes))
	w := o.width()
	for start := 0; start < len(sizes); start += w {
		if err := ctx.Err(); err != nil {
			return got, err
		}
		batch := sizes[start:min(start+w, len(sizes))]
		for _, size := range batch {
			f.start(size)
		}
		var firstErr error
		allPassed := true
		for range batch {
			r := f.next()
			if r.err != nil {
				if firstErr == nil {
					firstErr = r.err
				}
				continue
			}
			r.try.Payload = r.payload
			got = append(got, r.try)
			allPassed = allPassed && r.try.Passed
		}
		if firstErr != nil || !allPassed {
			slices.SortFunc(got, func(a, b Try) int { return a.Payload - b.Payload })
			return got, firstErr
		}
	}
	return got, nil
}

// RoundSizes is the most evenly spaced sizes of a round: 21 gaps a round
// resolve the 8917 possible path MTUs from MinPayload to MaxPayload in
// MaxSearchRounds rounds (21^3 = 9261).
const RoundSizes = catalog.SearchRoundSizes

// roundSizes are the sizes of a round between lo (passed) and hi (not
// passed), ascending: k evenly spaced sizes, k+1 being the smallest base
// whose left-th power covers the hi-lo possible path MTUs, so that every
// gap left is resolved by left-1 more rounds (at most RoundSizes: only a
// dropped packet, which can leave a wider gap, makes that too few, and the
// search then ends with a bound, not the exact size); plus the extra sizes
// that fall between lo and hi.
func roundSizes(lo, hi, left int, extra []int) []int {
	m := hi - lo
	if m <= 1 || left < 1 {
		return nil
	}
	b := intRoot(m, left, RoundSizes+1)
	var sizes []int
	for i := 1; i < b; i++ {
		sizes = append(sizes, lo+i*m/b)
	}
	for _, e := range extra {
		if e > lo && e < hi {
			sizes = append(sizes, e)
		}
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// intRoot is the smallest b >= 1 with b^r >= m, at most most.
func intRoot(m, r, most int) int {
	b := 1
	for b < most && pow(b, r) < m {
		b++
	}
	return b
}

func pow(b, r int) int {
	p := 1
	for range r {
		p *= b
	}
	return p
}
