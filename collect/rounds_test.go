package collect

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"
)

// path is a modelled path: the sending vmknic refuses payloads above
// refuse at once (0: never), the path carries up to pass, and a size it
// carries is lost anyway when lossy says so (a dropped packet).
type modelPath struct {
	refuse, pass int
	lossy        func(payload int) bool
}

func (p modelPath) try(payload int) Try {
	switch {
	case p.refuse > 0 && payload > p.refuse:
		return Try{TooLong: true}
	case payload > p.pass:
		return Try{}
	case p.lossy != nil && p.lossy(payload):
		return Try{}
	}
	return Try{Passed: true}
}

// limit is the largest payload a path without loss carries (0: below
// MinPayload, unreachable).
func (p modelPath) limit() int {
	l := p.pass
	if p.refuse > 0 {
		l = min(l, p.refuse)
	}
	if l < MinPayload {
		return 0
	}
	return l
}

func (p modelPath) probe(calls *int, mu *sync.Mutex) ProbeFunc {
	return func(_ context.Context, payload int) (Try, error) {
		mu.Lock()
		*calls++
		mu.Unlock()
		return p.try(payload), nil
	}
}

// simFlight runs a round's tries on a simulated clock: a try that gets a
// reply is back after passRTT, a refused one at once, a lost one after the
// reply wait (ProbeWait seconds). Its clock at the end is the time the
// search took; whole waits in it are the rounds of probe waits it cost.
type simFlight struct {
	p        modelPath
	now      time.Duration
	seq      int
	pending  []simTry
	inFlight int
	most     int // the most tries in flight at once
}

type simTry struct {
	at      time.Duration
	seq     int
	payload int
	try     Try
}

const passRTT = time.Millisecond

func (f *simFlight) start(payload int) {
	t := f.p.try(payload)
	d := passRTT
	switch {
	case t.TooLong:
		d = 0
	case !t.Passed:
		d = ProbeWait * time.Second
	}
	f.seq++
	f.pending = append(f.pending, simTry{at: f.now + d, seq: f.seq, payload: payload, try: t})
	f.inFlight++
	f.most = max(f.most, f.inFlight)
}

func (f *simFlight) next() flown {
	sort.Slice(f.pending, func(i, j int) bool {
		if f.pending[i].at != f.pending[j].at {
			return f.pending[i].at < f.pending[j].at
		}
		return f.pending[i].seq < f.pending[j].seq
	})
	t := f.pending[0]
	f.pending = f.pending[1:]
	f.now = t.at
	f.inFlight--
	return flown{payload: t.payload, try: t.try}
}

// waits is how many whole probe waits a simulated search took.
func (f *simFlight) waits() int { return int(f.now / (ProbeWait * time.Second)) }

func width(n int) RoundOptions { return RoundOptions{Width: n} }

// On every path MTU from nothing to a 9000 frame, with any number of
// tries in flight, the rounds find exactly what the binary search finds,
// in at most MaxSearchRounds rounds that wait at most once each (counted
// on a simulated clock, not measured), within MaxRoundTries.
func TestSearchRoundsFindsEveryLimitExactly(t *testing.T) {
	for pass := 0; pass < MaxPayload; pass++ {
		p := modelPath{pass: pass}
		calls := 0
		bin := SearchPathMTU(context.Background(), MaxPayload, limitProbe(pass, 0, &calls))
		w := 1 + pass%8
		f := &simFlight{p: p}
		s := searchRounds(context.Background(), MaxPayload, width(w), f)
		if s.Largest != bin.Largest || s.SmallestLost != bin.SmallestLost || s.Largest != p.limit() {
			t.Fatalf("limit %d: rounds found %d..%d, binary %d..%d", pass, s.Largest, s.SmallestLost, bin.Largest, bin.SmallestLost)
		}
		if s.Rounds > MaxSearchRounds || len(s.Tries) > MaxRoundTries || f.waits() > MaxSearchRounds {
			t.Fatalf("limit %d: %d rounds, %d tries, %d waits (%s)", pass, s.Rounds, len(s.Tries), f.waits(), f.now)
		}
		if f.most > w {
			t.Fatalf("limit %d: %d tries in flight, width %d", pass, f.most, w)
		}
		for _, tr := range s.Tries {
			if tr.Round < 1 || tr.Round > s.Rounds {
				t.Fatalf("limit %d: try %+v outside rounds 1..%d", pass, tr, s.Rounds)
			}
		}
	}
}

// The rounds and the binary search agree on random paths: any configured
// size, a sending vmknic that refuses above its MTU (at once: no wait),
// hints, any width; a local refusal is told from a loss on the way the
// same way by both (the smallest size that failed was refused or lost).
// On lossy paths (a size the path carries dropped now and then) both keep
// only what the tries prove: the largest size that got a reply, the
// smallest above it that did not; the rounds are exact whenever none of
// their own tries was dropped.
func TestSearchRoundsAgainstBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for i := 0; i < 20000; i++ {
		failed := MinPayload + rng.IntN(MaxPayload-MinPayload+1)
		p := modelPath{pass: rng.IntN(MaxPayload + 1)}
		if rng.IntN(3) == 0 {
			p.refuse = MinPayload + rng.IntN(MaxPayload-MinPayload)
		}
		lossy := rng.IntN(4) == 0
		dropped := map[int]bool{}
		if lossy {
			q := 0.05 + rng.Float64()*0.3
			p.lossy = func(payload int) bool {
				// The same size is dropped for both searches.
				if _, ok := dropped[payload]; !ok {
					dropped[payload] = rng.Float64() < q
				}
				return dropped[payload]
			}
		}
		var hints []int
		for range rng.IntN(MaxHints + 1) {
			hints = append(hints, MinPayload+rng.IntN(MaxPayload-MinPayload))
		}
		w := 1 + rng.IntN(10)
		o := width(w)
		o.Hints = hints
		f := &simFlight{p: p}
		s := searchRounds(context.Background(), failed, o, f)
		calls := 0
		var mu sync.Mutex
		bin := SearchPathMTU(context.Background(), failed, p.probe(&calls, &mu))

		if s.Rounds > MaxSearchRounds || len(s.Tries) > MaxRoundTries || f.waits() > MaxSearchRounds || f.most > w {
			t.Fatalf("case %d: %d rounds, %d tries, %d waits, %d in flight (width %d)", i, s.Rounds, len(s.Tries), f.waits(), f.most, w)
		}
		for _, sr := range []Search{s, bin} {
			assertSound(t, i, failed, sr)
		}
		sawDrop := false
		for _, tr := range s.Tries {
			sawDrop = sawDrop || dropped[tr.Payload] && tr.Payload <= p.limit()
		}
		truth := min(p.limit(), failed-1)
		if truth < MinPayload {
			truth = 0
		}
		if !sawDrop && s.Largest != truth {
			t.Fatalf("case %d: no drop seen, found %d, the path carries %d (%+v)", i, s.Largest, truth, s.Tries)
		}
		if !lossy {
			if s.Largest != bin.Largest || s.SmallestLost != bin.SmallestLost {
				t.Fatalf("case %d: rounds %d..%d, binary %d..%d", i, s.Largest, s.SmallestLost, bin.Largest, bin.SmallestLost)
			}
			if refused(s) != refused(bin) {
				t.Fatalf("case %d: rounds say refused=%v, binary %v", i, refused(s), refused(bin))
			}
		}
	}
}

// assertSound: a search claims only what its tries show.
func assertSound(t *testing.T, i, failed int, s Search) {
	t.Helper()
	passed, failedAt := map[int]bool{}, map[int]bool{failed: true}
	for _, tr := range s.Tries {
		if tr.Passed {
			passed[tr.Payload] = true
		} else {
			failedAt[tr.Payload] = true
		}
	}
	if s.Largest != 0 && !passed[s.Largest] {
		t.Fatalf("case %d: largest %d never passed: %+v", i, s.Largest, s.Tries)
	}
	for size := range passed {
		if size > s.Largest {
			t.Fatalf("case %d: %d passed, above the largest %d", i, size, s.Largest)
		}
	}
	if !failedAt[s.SmallestLost] {
		t.Fatalf("case %d: smallest lost %d never failed: %+v", i, s.SmallestLost, s.Tries)
	}
}

// refused reports whether the smallest size that failed above the largest
// that passed was refused by the sender (nil tries: the configured size).
func refused(s Search) bool {
	for _, tr := range s.Tries {
		if tr.Payload == s.SmallestLost {
			return tr.TooLong
		}
	}
	return false
}

// The common case is one round: a switch port at 1500 (1472 passes, 1473
// is lost), or a path that stops at a hint (the peer's configured size).
func TestSearchRoundsOneRoundAtAHint(t *testing.T) {
	for _, c := range []struct {
		pass  int
		hints []int
	}{{1472, nil}, {3972, []int{3972}}, {8000, []int{9100, 8000}}} {
		f := &simFlight{p: modelPath{pass: c.pass}}
		o := width(2)
		o.Hints = c.hints
		s := searchRounds(context.Background(), MaxPayload, o, f)
		if s.Largest != c.pass || s.SmallestLost != c.pass+1 || s.Rounds != 1 || f.waits() != 1 {
			t.Errorf("path %d, hints %v: %d..%d in %d rounds, %d waits", c.pass, c.hints, s.Largest, s.SmallestLost, s.Rounds, f.waits())
		}
	}
	// Unreachable: MinPayload lost in round 1 ends the search.
	f := &simFlight{p: modelPath{pass: 10}}
	s := searchRounds(context.Background(), MaxPayload, width(4), f)
	if s.Largest != 0 || s.SmallestLost != MinPayload || s.Rounds != 1 || len(s.Tries) > 4 {
		t.Errorf("unreachable: %+v", s)
	}
}

// Live (goroutines calling the probe): the same answers, the tries of a
// round really in flight together (up to the width), a failing try
// stopping the search, a cancelled context too.
func TestSearchRoundsLive(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	release := make(chan struct{})
	two := make(chan struct{}) // closed once two tries are in flight
	closed := false
	p := modelPath{pass: 5000}
	probe := func(_ context.Context, payload int) (Try, error) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 2 && !closed {
			closed = true
			close(two)
		}
		mu.Unlock()
		<-two // the first try waits for the second: they are sent together
		tr := p.try(payload)
		if !tr.Passed {
			<-release // a lost try waits
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return tr, nil
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case release <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	s := SearchRounds(context.Background(), MaxPayload, width(4), probe)
	close(done)
	if s.Largest != 5000 || s.SmallestLost != 5001 || s.Rounds > MaxSearchRounds || most > 4 || most < 2 {
		t.Errorf("live search: %d..%d in %d rounds, at most %d in flight", s.Largest, s.SmallestLost, s.Rounds, most)
	}

	boom := errors.New("connection lost")
	n := 0
	s = SearchRounds(context.Background(), MaxPayload, width(1), func(context.Context, int) (Try, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 3 {
			return Try{}, boom
		}
		return Try{Passed: true}, nil
	})
	if !errors.Is(s.Stopped, boom) || len(s.Tries) != 2 || s.Largest == 0 {
		t.Errorf("stop: %+v", s)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = SearchRounds(ctx, MaxPayload, width(3), func(context.Context, int) (Try, error) {
		t.Error("a try was sent after the context ended")
		return Try{}, nil
	})
	if !errors.Is(s.Stopped, context.Canceled) || len(s.Tries) != 0 {
		t.Errorf("cancelled: %+v", s)
	}
}
