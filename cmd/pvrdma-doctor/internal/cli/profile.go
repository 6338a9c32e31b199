package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// Hidden profiling flags for performance work (bench/PROFILE.md):
//
//	pvrdma-doctor --cpuprofile cpu.out --memprofile mem.out scan ...
//	go tool pprof -top cpu.out
func init() {
	rootHooks = append(rootHooks, addProfileFlags)
}

func addProfileFlags(root *cobra.Command) {
	var cpuFile, memFile string
	pf := root.PersistentFlags()
	pf.StringVar(&cpuFile, "cpuprofile", "", "write a CPU profile of the command to FILE")
	pf.StringVar(&memFile, "memprofile", "", "write a heap profile (allocations) at the end of the command to FILE")
	pf.MarkHidden("cpuprofile")
	pf.MarkHidden("memprofile")
	var cpuOut *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if cpuFile == "" {
			return nil
		}
		f, err := os.Create(cpuFile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		cpuOut = f
		return nil
	}
	// cobra runs PersistentPostRunE only when the command succeeded; a
	// scan with findings exits non-zero, so Run calls it again after
	// Execute: stop is idempotent.
	stop := func() error {
		if cpuOut != nil {
			pprof.StopCPUProfile()
			cpuOut.Close()
			cpuOut = nil
		}
		if memFile != "" {
			f, err := os.Create(memFile)
			if err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
			defer f.Close()
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
			memFile = ""
		}
		return nil
	}
	root.PersistentPostRunE = func(*cobra.Command, []string) error { return stop() }
}
