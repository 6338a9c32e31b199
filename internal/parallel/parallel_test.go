package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestForCallsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, grain int }{{0, 1}, {1, 1}, {3, 4}, {7, 1}, {1000, 4}, {64, 0}} {
		counts := make([]atomic.Int32, tc.n)
		For(tc.n, tc.grain, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("n=%d grain=%d: index %d called %d times", tc.n, tc.grain, i, c)
			}
		}
	}
}

func TestForRunsSideBySide(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: nothing runs side by side")
	}
	// Two indexes that each wait for the other can only finish when they
	// run at the same time (the timeout only ends a failing run).
	a, b := make(chan struct{}), make(chan struct{})
	wait := func(ch chan struct{}) {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Error("the two indexes did not run side by side")
		}
	}
	For(2, 1, func(i int) {
		if i == 0 {
			close(a)
			wait(b)
		} else {
			close(b)
			wait(a)
		}
	})
}

func TestForSmallWorkStaysOnCaller(t *testing.T) {
	// Fewer indexes than two grains: no goroutine is started, so fn may
	// rely on running in order.
	var order []int
	For(5, 4, func(i int) { order = append(order, i) })
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
}
