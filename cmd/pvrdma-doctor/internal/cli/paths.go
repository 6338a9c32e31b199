package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

func init() {
	register("paths", func(f *Factory) *cobra.Command { return newCmdPaths(f, nil) })
}

// PathsOptions are the flags of `paths`: scan's connection and probe
// flags, an offline input instead, and the output format.
type PathsOptions struct {
	Scan   ScanOptions
	Input  string
	Output string
}

// newCmdPaths builds the command; runF, when set, runs instead of runPaths with
// the options the flags built (tests).
func newCmdPaths(f *Factory, runF func(context.Context, *PathsOptions) error) *cobra.Command {
	opts := &PathsOptions{Scan: ScanOptions{IO: f.IO, Getenv: f.Getenv}}
	cmd := &cobra.Command{
		Use:   "paths --hosts HOST,HOST[,...] | --input PATH",
		Short: "Measure the path MTU and latency between every pair of PVRDMA hosts",
		Long: `Paths prints the path matrix alone: for every ordered pair of hosts, the
largest don't-fragment frame that gets from one host's PVRDMA vmknic to the
other's (path MTU), its round trip and loss.

It connects like scan (the same SSH flags; one connection per host), runs the
same read-only host commands (they name each host's PVRDMA
vmknic, its address and configured MTU), then probes every ordered pair
(--probes all by default; --probes ring for the next three hosts only;
--probe-budget caps the pairs). Per pair: 3 packets of the configured size
(MTU - 28, -d, 0.2 s apart, 1 s wait); if no reply, a binary search with
one-packet tries (-c 1 -W 1, at most 14) for the largest payload that passes.

With --input it reads the probes of a bundle, a folder of saved outputs or a
transcript instead (nothing is sent).

The table marks each cell: ! blocked (frames lost on the way), < refused by
the sender's own vmknic MTU, -- unreachable, ~ lossy, . not probed.`,
		Example: `  pvrdma-doctor paths --hosts esx01,esx02,esx03 --password-env PVRDMA_DOCTOR_PASSWORD
  pvrdma-doctor paths --hosts-file hosts.txt -i ~/.ssh/esxi_ed25519 --output json
  pvrdma-doctor paths --hosts-file hosts.txt --probes ring
  pvrdma-doctor paths --input support.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPaths(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addScanFlags(fl, &opts.Scan)
	_ = fl.Set("probes", collect.ProbesAll)
	fl.Lookup("probes").DefValue = collect.ProbesAll
	fl.StringVar(&opts.Input, "input", "", "read the probes of a bundle, saved outputs or a transcript (`PATH`, as analyze takes) instead of scanning")
	fl.StringVarP(&opts.Output, "output", "o", "text", "output format: text (the matrix) or json (the pairs)")
	return cmd
}

func runPaths(ctx context.Context, opts *PathsOptions) error {
	if opts.Output != "text" && opts.Output != "json" {
		return usageError("--output %q: paths writes text or json", opts.Output)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	a, dry, err := inputOrScan(ctx, &opts.Scan, opts.Input, "probes", func() error {
		mode, err := opts.Scan.probeMode()
		if err == nil && mode == collect.ProbesOff {
			err = usageError("paths needs probes: --probes ring or all")
		}
		return err
	})
	if dry || err != nil {
		return err
	}
	paths := report.BuildPaths(a.Fleet)
	out := opts.Scan.IO.Out
	if opts.Output == "json" {
		if paths == nil {
			paths = &report.Paths{Pairs: []report.Pair{}}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(paths); err != nil {
			return err
		}
	} else {
		report.WritePathsText(out, paths)
		for _, r := range a.Results {
			if r.Status == hostio.StatusNotCollected {
				fmt.Fprintf(out, "\nnot reached: %s: %s\n", r.Host, r.Reason)
			}
			for _, n := range r.Notes {
				fmt.Fprintf(out, "\nnote: %s: %s\n", r.Host, n)
			}
		}
	}
	if paths == nil {
		return WithExitCode(ExitIncomplete, fmt.Errorf("no path was probed"))
	}
	bad := 0
	for _, x := range paths.Pairs {
		if x.Status == report.PairBlocked || x.Status == report.PairUnreachable {
			bad++
		}
	}
	if bad > 0 {
		return WithExitCode(ExitCritical, fmt.Errorf("%d of %d measured paths are blocked or unreachable", bad, len(paths.Pairs)))
	}
	return nil
}

// inputOrScan analyses the captures of a command that reads like analyze
// (--input PATH: a bundle, saved outputs or a transcript; what names what
// it reads there) or scans like scan (check, when given, vets the scan's
// flags first), through scan.Run; dry is set when --dry-run printed what a
// scan would run.
func inputOrScan(ctx context.Context, opts *ScanOptions, input, what string, check func() error) (a *Analysis, dry bool, err error) {
	switch {
	case input != "" && (opts.Hosts != "" || opts.SSH.HostsFile != ""):
		return nil, false, usageError("--input reads saved %s: it takes no --hosts", what)
	case input != "":
		in, err := loadInput(input, opts.IO.In, opts.IO.ErrOut)
		if err != nil {
			return nil, false, err
		}
		p := &Pipeline{IO: opts.IO, Getenv: opts.Getenv, Results: in.Results, Meta: report.Meta{Source: input, Notes: inputNotes(in)}}
		return scan.Run(ctx, p.scanOptions(ctx, nil)).Analysis, false, nil
	case opts.SSH.DryRun:
		return nil, true, runScan(ctx, opts)
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, false, err
		}
	}
	p, err := scanPipeline(ctx, opts)
	if err != nil {
		return nil, false, err
	}
	if opts.closeRunner != nil {
		defer opts.closeRunner()
	}
	// These commands name the scan by its targets, hosts and guests alike,
	// and apply no config.
	p.Meta, p.Report = report.Meta{Source: fmt.Sprintf("scan of %d host(s)", len(p.Targets))}, nil
	return scan.Run(ctx, p.scanOptions(ctx, nil)).Analysis, false, nil
}
