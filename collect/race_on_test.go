//go:build race

package collect_test

// raceSlowdown stretches the short timeouts of the hostile-host tests under
// the race detector, which slows SSH throughput several times.
const raceSlowdown = 8
