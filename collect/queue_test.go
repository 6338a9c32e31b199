package collect_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// gateRunner holds every Open until the test releases it, and says which
// host is connecting.
type gateRunner struct {
	opened  chan string
	release chan struct{}
}

func (g gateRunner) Name() string { return "gate" }
func (g gateRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	g.opened <- t.Name
	<-g.release
	return nil, errors.New("refused")
}

// A host's duration is its own time, from when a concurrency slot was
// free; the wait for the slot is reported apart (issue 24.3: a host of a
// 5 s host timeout was reported at 13,965 ms).
func TestDurationLeavesOutTheQueue(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := gateRunner{opened: make(chan string), release: make(chan struct{})}
	done := make(chan []hostio.HostResult)
	queued := make(chan string, 2)
	go func() {
		done <- collect.Collect(context.Background(), []hostio.Target{{Name: "a"}, {Name: "b"}},
			collect.Options{Runner: g, Concurrency: 1, Now: clock.Now, Progress: func(e hostio.Event) {
				if e.Phase == hostio.PhaseQueued {
					queued <- e.Host
				}
			}})
	}()
	<-queued
	<-queued            // both hosts are waiting from the same instant
	first := <-g.opened // holds the only slot; the other host queues
	clock.Advance(10 * time.Second)
	g.release <- struct{}{}
	second := <-g.opened
	clock.Advance(2 * time.Second)
	g.release <- struct{}{}
	res := <-done
	by := map[string]hostio.HostResult{res[0].Host: res[0], res[1].Host: res[1]}
	if r := by[first]; r.Duration != 10*time.Second || r.QueueWait != 0 {
		t.Errorf("first host %s: duration %s, queue %s; want 10s, 0", first, r.Duration, r.QueueWait)
	}
	if r := by[second]; r.Duration != 2*time.Second || r.QueueWait != 10*time.Second {
		t.Errorf("second host %s: duration %s, queue %s; want 2s, 10s", second, r.Duration, r.QueueWait)
	}
}
