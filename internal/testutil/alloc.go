package testutil

import "runtime"

// Allocated returns the bytes f allocates: deterministic for a given input,
// unlike its running time, so tests can check that work grows linearly
// without timing anything.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
