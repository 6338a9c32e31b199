// Package cli holds the cobra commands of pvrdma-doctor. Each subcommand
// lives in its own file, registers itself with register() from init(), and
// follows the gh CLI style: a NewCmdX function that only parses flags into
// an Options struct holding injected dependencies, and a runX function that
// does the work (tests call runX with fakes, or pass a runF to NewCmdX).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// Exit codes, documented in README.md ("Exit codes").
const (
	ExitOK         = 0
	ExitError      = 1 // the tool itself failed (bad input file, I/O error)
	ExitUsage      = 2 // wrong flags or arguments
	ExitWarning    = 3 // findings at warning severity (and --fail-on warning)
	ExitCritical   = 4 // findings at critical severity
	ExitIncomplete = 5 // some hosts or commands could not be collected, or part of the analysis failed
)

// ExitError carries a process exit code through cobra.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCodeError) Unwrap() error { return e.err }

// WithExitCode wraps err so that Main exits with code. A nil err with a
// non-zero code exits silently with that code.
func WithExitCode(code int, err error) error { return &exitCodeError{code, err} }

// usageError marks a user mistake in flags or arguments; an input whose
// reading a signal ended (hostio.ErrInputStopped) is no mistake: exit 1.
func usageError(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	for _, x := range a {
		if e, ok := x.(error); ok && errors.Is(e, hostio.ErrInputStopped) {
			return WithExitCode(ExitError, inputStopped{err})
		}
	}
	return WithExitCode(ExitUsage, err)
}

// inputStopped is an error whose input a signal ended.
type inputStopped struct{ error }

func (inputStopped) Unwrap() error { return hostio.ErrInputStopped }

// IOStreams are the process's standard streams, injectable in tests.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// StdoutTTY is true when Out is an interactive terminal.
	StdoutTTY bool
	// StdinTTY is true when In is an interactive terminal.
	StdinTTY bool
}

// SystemIO returns the real process streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
	}
}

// Factory carries the dependencies every command may need.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Version string
}

type cmdConstructor struct {
	name string
	new  func(*Factory) *cobra.Command
}

var registry []cmdConstructor

// register adds a top-level subcommand; called from init() in each file.
func register(name string, f func(*Factory) *cobra.Command) {
	registry = append(registry, cmdConstructor{name, f})
}

// rootHooks adjust the root command once the tree is built (hidden flags
// such as --cpuprofile, internal/cli/profile.go); appended from init().
var rootHooks []func(*cobra.Command)

// signalsReady is called once Main handles signals (a test's child
// process says so to its parent).
var signalsReady = func() {}

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "dev"

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "pvrdma-doctor",
		Short: "Diagnose VMware PVRDMA (paravirtual RDMA over RoCE) across a fleet of ESXi hosts",
		Long: `pvrdma-doctor finds why RDMA inside VMs is slow or broken: TCP fallback,
RDMA MTU stuck at 1024, PVRDMA adapters without a physical HCA, missing vmknic
tags, closed firewall rulesets and more. It runs read-only commands on ESXi
hosts over SSH, parses them, and reports each problem with its evidence and
the exact command that fixes it.

Try it without any ESXi:  pvrdma-doctor demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       f.Version,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return WithExitCode(ExitUsage, fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath()))
	})
	cmds := append([]cmdConstructor(nil), registry...)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		root.AddCommand(c.new(f))
	}
	for _, h := range rootHooks {
		h(root)
	}
	return root
}

// Main runs the CLI with the real process environment and returns the exit code.
//
// The first Ctrl-C (or SIGTERM) cancels the run's context: a scan stops
// collecting and still reports what it has (hosts and commands not finished
// are "not collected", exit status 5). A second one makes it report at once
// with what it has; a third, or a report not finished 10s later, quits.
func Main() int {
	ctx, cancelCtx := context.WithCancel(context.Background())
	defer cancelCtx()
	cancel := func() {
		cancelCtx()
		// An input still being read (a pipe, standard input, a password
		// prompt) has nothing to report: it ends now, and so does the run.
		hostio.StopInputs()
	}
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	io := SystemIO()
	finished := make(chan struct{})
	defer close(finished)
	abort := make(chan struct{})
	go watchSignals(sigs, finished, cancel, abort, io.ErrOut, exitNow)
	limitScanMemory = true
	signalsReady()
	return RunContext(withAbort(ctx, abort), os.Args[1:], io, os.Getenv)
}

// Run executes the CLI with the given arguments and streams.
func Run(args []string, io *IOStreams, getenv func(string) string) int {
	return RunContext(context.Background(), args, io, getenv)
}

// RunContext is Run with a context that cancels the command (Ctrl-C).
func RunContext(ctx context.Context, args []string, io *IOStreams, getenv func(string) string) int {
	f := &Factory{IO: io, Getenv: getenv, Version: Version}
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if post := root.PersistentPostRunE; post != nil {
		// Flush what a root hook started (profiles) also when the command
		// failed, which cobra's own post-run skips; hooks are idempotent.
		if perr := post(root, nil); err == nil {
			err = perr
		}
	}
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, hostio.ErrInputStopped) {
		// A signal ended the reading of an input: nothing was done.
		fmt.Fprintln(io.ErrOut, "Error:", textsafe.Clean(err.Error()))
		return ExitError
	}
	var ec *exitCodeError
	if errors.As(err, &ec) {
		if ec.err != nil {
			fmt.Fprintln(io.ErrOut, "Error:", textsafe.Clean(ec.err.Error()))
		}
		return ec.code
	}
	fmt.Fprintln(io.ErrOut, "Error:", textsafe.Clean(err.Error()))
	// cobra reports unknown commands and wrong argument counts as plain errors.
	if msg := err.Error(); strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "accepts ") ||
		strings.HasPrefix(msg, "requires ") || strings.HasPrefix(msg, "unknown flag") {
		return ExitUsage
	}
	return ExitError
}
