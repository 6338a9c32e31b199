//go:build !race

package collect_test

// raceSlowdown stretches the short timeouts of the hostile-host tests under
// the race detector (see race_on_test.go).
const raceSlowdown = 1
