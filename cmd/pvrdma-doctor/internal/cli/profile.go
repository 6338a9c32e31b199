package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// Hidden profiling flags for performance work (bench/PROFILE.md):
//
//	pvrdma-doctor --cpuprofile cpu.out --memprofile mem.out scan ...
//	go tool pprof -top cpu.out
//	pvrdma-doctor --trace trace.out scan ...   (where goroutines wait)
//	go tool trace -pprof=sched trace.out > sched.pprof
func init() {
	rootHooks = append(rootHooks, addProfileFlags)
}

func addProfileFlags(root *cobra.Command) {
	var cpuFile, memFile, traceFile string
	pf := root.PersistentFlags()
	pf.StringVar(&traceFile, "trace", "", "write an execution trace of the command to FILE")
	pf.MarkHidden("trace")
	pf.StringVar(&cpuFile, "cpuprofile", "", "write a CPU profile of the command to FILE")
	pf.StringVar(&memFile, "memprofile", "", "write a heap profile (allocations) at the end of the command to FILE")
	pf.MarkHidden("cpuprofile")
	pf.MarkHidden("memprofile")
	var cpuOut, traceOut *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		var err error
		if traceOut, err = startRecording("trace", traceFile, trace.Start); err != nil {
			return err
		}
		cpuOut, err = startRecording("cpuprofile", cpuFile, pprof.StartCPUProfile)
		return err
	}
	// cobra runs PersistentPostRunE only when the command succeeded; a
	// scan with findings exits non-zero, so Run calls it again after
	// Execute: stop is idempotent.
	stop := func() error {
		if traceOut != nil {
			trace.Stop()
			traceOut.Close()
			traceOut = nil
		}
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

// startRecording creates file (none when it is "") and starts writing a
// recording to it; flag names the flag in errors.
func startRecording(flag, file string, start func(io.Writer) error) (*os.File, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return f, nil
}
