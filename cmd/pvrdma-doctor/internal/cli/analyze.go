package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

func init() { register("analyze", newCmdAnalyze) }

// AnalyzeOptions are the flags and dependencies of `analyze`.
type AnalyzeOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	// Path is a bundle, an unpacked bundle, a folder of saved outputs or a
	// transcript; "-" reads a bundle or transcript from standard input.
	Path   string
	Report ReportOptions
}

const analyzeInputsHelp = `PATH may be:
  - a support bundle (FILE.tar.gz from 'scan --bundle' or 'bundle'), or the
    folder it was unpacked into;
  - a folder of saved outputs: one folder per host, one file per command,
    named after the command ("esxcli rdma device list" ->
    esx01/esxcli_rdma_device_list.txt; optional <name>.stderr and
    <name>.exit), like the scenario folders of the repository;
  - a pasted SSH transcript: a text file of "[root@esx01:~] esxcli ..." (or
    "~ # esxcli ...", "$ ssh root@esx01 esxcli ...", "> esxcli --server
    esx01 ...") prompts, each followed by its output. A transcript covering
    several hosts is split by the host its prompts (or commands) name;
    without any, it is one host. Commands are recognized however they were
    typed (short or long options, localcli, vCLI, --formatter=xml|keyvalue|csv|json,
    esxcfg-nics/-vmknic/-vswitch -l); others are passed over quietly;
  - in both, one bad line loses nothing else: an unreadable block or row
    (or an author's "..." elision) is skipped, and the report says per host
    what was read, what was skipped (with its line) and which checks that
    left not evaluated;
  - "-": a bundle or transcript on standard input.`

func newCmdAnalyze(f *Factory) *cobra.Command {
	opts := &AnalyzeOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "analyze PATH",
		Short: "Analyze a support bundle, saved outputs or an SSH transcript offline",
		Long: `Analyze runs the parsers and rules of this pvrdma-doctor on outputs collected
earlier, without connecting to any host. The findings are those the current
rules give for the saved outputs: a bundle analysed here shows the same
findings as the scan that made it, and newer rules apply to old bundles.

` + analyzeInputsHelp + `

Damaged input (truncated archive, checksum mismatch, missing outputs, a
bundle from a newer pvrdma-doctor) is reported on standard error; what can
still be read is analysed, the report says the input is partial, and the exit
status is 5 (incomplete) unless critical findings make it 4.

On a terminal the interactive UI opens (read-only: no rescans); otherwise, or
with --output, the report is printed.`,
		Example: `  pvrdma-doctor analyze support.tar.gz
  pvrdma-doctor analyze support.tar.gz --output json > report.json
  pvrdma-doctor analyze ./saved-outputs/            # esx01/esxcli_rdma_device_list.txt, ...
  pvrdma-doctor analyze session.txt                 # a pasted SSH session
  pbpaste | pvrdma-doctor analyze - --output text`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			return runAnalyze(cmd.Context(), opts)
		},
	}
	addReportFlags(cmd.Flags(), &opts.Report)
	return cmd
}

// loadInput loads an analyze input and prints what was damaged or ignored.
func loadInput(path string, in io.Reader, errOut io.Writer) (*offline.Input, error) {
	var inp *offline.Input
	var err error
	if path == "-" {
		inp, err = offline.LoadReader("standard input", hostio.StoppableReader(in))
	} else {
		inp, err = offline.Load(path)
	}
	if err != nil {
		return nil, WithExitCode(ExitError, err)
	}
	for _, p := range summarizeProblems(inp.Problems) {
		fmt.Fprintf(errOut, "%s: %s\n", textsafe.Line(path), textsafe.Line(p))
	}
	if n := len(inp.Ignored); n > 0 {
		fmt.Fprintf(errOut, "%s: %d input(s) ignored:\n", textsafe.Line(path), n)
		for i, s := range inp.Ignored {
			if i == 20 {
				fmt.Fprintf(errOut, "  ... and %d more\n", n-20)
				break
			}
			fmt.Fprintf(errOut, "  %s\n", textsafe.Line(s))
		}
	}
	return inp, nil
}

// inputNotes are the report notes of an offline input.
func inputNotes(in *offline.Input) []string {
	var notes []string
	if in.Partial() {
		notes = append(notes, fmt.Sprintf("PARTIAL INPUT: %d problem(s) while reading %s; findings cover only what could be read", len(in.Problems), in.Path))
		for _, p := range summarizeProblems(in.Problems) {
			notes = append(notes, "partial input: "+p)
		}
	}
	if len(in.Ignored) > 0 {
		notes = append(notes, fmt.Sprintf("%d input(s) ignored (not pvrdma-doctor command outputs)", len(in.Ignored)))
	}
	if in.Redacted() {
		notes = append(notes, "redacted bundle: host names, addresses, UUIDs and VM names are tokens (the token map is kept by whoever made the bundle)")
	}
	if in.Manifest != nil && in.Manifest.Tool.Version != "" && in.Manifest.Tool.Version != Version {
		notes = append(notes, fmt.Sprintf("bundle made by pvrdma-doctor %s, analysed with the rules of %s", in.Manifest.Tool.Version, Version))
	}
	return notes
}

func runAnalyze(ctx context.Context, opts *AnalyzeOptions) error {
	if err := opts.Report.validate(); err != nil {
		return err
	}
	in, err := loadInput(opts.Path, opts.IO.In, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	in.DropListings()
	return analyzePipeline(opts, in).Run(ctx)
}

// analyzePipeline is the pipeline that analyses a loaded offline input.
func analyzePipeline(opts *AnalyzeOptions, in *offline.Input) *Pipeline {
	meta := report.Meta{Source: in.Source(), Notes: inputNotes(in)}
	targets := make([]hostio.Target, len(in.Results))
	for i, hr := range in.Results {
		targets[i] = hostio.Target{Name: hr.Host}
	}
	p := &Pipeline{
		IO: opts.IO, Getenv: opts.Getenv, Report: &opts.Report, Targets: targets, Meta: meta,
		Results: in.Results, Partial: in.Partial(),
	}
	// Exporting a redacted bundle keeps it as it is: redacting tokens
	// again would only produce a useless identity token map.
	p.Bundle = bundleExporter(p.analysisOptions, BundleFlags{AlreadyRedacted: in.Redacted()})
	if in.Kind == offline.KindTranscript || in.Kind == offline.KindSaved {
		// Per host: what was read, what was skipped and what that cost.
		p.Export = inputSummaryExport(in, opts.IO.ErrOut)
	}
	return p
}

// summarizeProblems says an input's problems once per cause: a truncated
// archive is one error (the files its manifest lists after the cut are
// missing because of it, not each on its own), and files ignored for the
// same reason are counted, not listed.
func summarizeProblems(problems []string) []string {
	var out []string
	truncated := ""
	missing, large, links := 0, 0, 0
	for _, p := range problems {
		switch {
		case strings.Contains(p, "the archive is truncated or corrupt"):
			truncated = p
		case strings.HasSuffix(p, "is listed in the manifest but missing from the bundle"):
			missing++
		case strings.Contains(p, " is too large ("):
			large++
		case strings.HasSuffix(p, "is a symbolic link: not followed"):
			links++
		default:
			out = append(out, "warning: "+p)
		}
	}
	var head []string
	switch {
	case truncated != "":
		head = append(head, fmt.Sprintf("error: %s; %d file(s) its manifest lists are missing because of it. What could be read is analysed; ask for the bundle again",
			strings.TrimSuffix(truncated, ": it and later files are missing"), missing))
	case missing > 0:
		head = append(head, fmt.Sprintf("warning: %d file(s) listed in the manifest are missing from the bundle", missing))
	}
	if large > 0 {
		head = append(head, fmt.Sprintf("warning: %d file(s) larger than one command's output cap ignored", large))
	}
	if links > 0 {
		head = append(head, fmt.Sprintf("warning: %d symbolic link(s) not followed", links))
	}
	return append(head, out...)
}
