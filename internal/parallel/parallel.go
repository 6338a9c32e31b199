// Package parallel runs independent pieces of work side by side on the
// machine's cores: the hosts of a fleet (facts), the rules of the
// catalogue (checks). Callers write each result to its own slot and join
// them in order, so the outcome does not depend on the schedule.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines,
// each taking the next index as it finishes one, and returns when all are
// done. Each goroutine is given at least grain indexes (work too small to
// share runs on the caller's goroutine). A panic in fn is not recovered:
// fn must recover what it can fail on, as the engine's guards do.
func For(n, grain int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(grain, 1))
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
