package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Signals: the first Ctrl-C (or SIGTERM) cancels the run's context, so a
// scan closes its connections and reports what it has; the second makes
// it report at once (collect.Options.Abort), whatever is still running;
// if the process has not ended hardStop after that, it exits.

type abortKey struct{}

// withAbort returns ctx carrying the channel closed on a second signal.
func withAbort(ctx context.Context, abort <-chan struct{}) context.Context {
	return context.WithValue(ctx, abortKey{}, abort)
}

// abortOf returns the channel closed on a second signal (nil: never).
func abortOf(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	ch, _ := ctx.Value(abortKey{}).(<-chan struct{})
	return ch
}

// hardStop is how long the process may take, after the second signal, to
// print its report before it exits anyway.
const hardStop = 10 * time.Second

// interruptSays is what the first signal prints: a command that makes no
// report (lab serve) says what it does instead (setInterruptMessage).
var interruptSays atomic.Value

const defaultInterrupt = "interrupted: finishing the report with what was collected (Ctrl-C again to report at once)"

// setInterruptMessage sets what the first Ctrl-C prints for this run.
func setInterruptMessage(s string) { interruptSays.Store(s) }

func interruptMessage() string {
	if s, ok := interruptSays.Load().(string); ok && s != "" {
		return s
	}
	return defaultInterrupt
}

// watchSignals implements the signal sequence until finished is closed.
// Nothing is printed unless a signal really arrived.
func watchSignals(sigs <-chan os.Signal, finished <-chan struct{}, cancel context.CancelFunc, abort chan<- struct{}, errOut io.Writer, exit func(int)) {
	select {
	case <-finished:
		return
	case <-sigs:
	}
	fmt.Fprintln(errOut, "\n"+interruptMessage())
	cancel()
	select {
	case <-finished:
		return
	case <-sigs:
	}
	fmt.Fprintln(errOut, "interrupted again: reporting what was collected now")
	close(abort)
	t := time.NewTimer(hardStop)
	defer t.Stop()
	select {
	case <-finished:
	case <-sigs:
		exit(ExitIncomplete)
	case <-t.C:
		fmt.Fprintln(errOut, "the report could not be finished in time: quitting")
		exit(ExitIncomplete)
	}
}

// tempFiles are the temporary files being written (a bundle before its
// rename): a process that exits at once (a third signal, or a report not
// out in time) removes them first, so that an interrupted export never
// leaves a partial file behind.
var tempFiles struct {
	mu   sync.Mutex
	live map[string]bool
}

// trackTempFile records a temporary file while it exists
// (bundle.Options.TempFile).
func trackTempFile(path string, live bool) {
	tempFiles.mu.Lock()
	defer tempFiles.mu.Unlock()
	if tempFiles.live == nil {
		tempFiles.live = map[string]bool{}
	}
	if live {
		tempFiles.live[path] = true
	} else {
		delete(tempFiles.live, path)
	}
}

// removeTempFiles removes the temporary files still being written.
func removeTempFiles() {
	tempFiles.mu.Lock()
	defer tempFiles.mu.Unlock()
	for p := range tempFiles.live {
		os.Remove(p)
		delete(tempFiles.live, p)
	}
}

// exitNow ends the process at once, temporary files removed.
func exitNow(code int) {
	removeTempFiles()
	os.Exit(code)
}
