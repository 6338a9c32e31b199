package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

func init() {
	register("bundle", func(f *Factory) *cobra.Command { return newCmdBundle(f, nil) })
}

// BundleFlags are the export flags shared by scan --bundle, bundle and redact.
type BundleFlags struct {
	// Path is the bundle to write ("" for none).
	Path string
	// NoRedact keeps host names, addresses and VM names in the bundle.
	NoRedact bool
	// Tokens is an earlier token map to reuse (same tokens across bundles).
	Tokens string
	// RedactNames also tokenises distributed switch and port group names
	// and vCenter managed-object IDs (--redact-names).
	RedactNames bool
	// AlreadyRedacted: the results come from a redacted bundle (analyze):
	// they are exported as they are, without a second redaction or a
	// token map, and the manifest still says redacted.
	AlreadyRedacted bool
	// Identifiers are what the scan itself adds to the results (SSH
	// users, dialled addresses, local paths), redacted with the rest.
	Identifiers []redact.Token
}

// addRedactFlags registers --no-redact and --tokens.
func addRedactFlags(fl *pflag.FlagSet, b *BundleFlags) {
	fl.BoolVar(&b.NoRedact, "no-redact", false, "keep host names, IP/MAC addresses, UUIDs, VM names and datastore paths in the bundle (the manifest says so)")
	fl.StringVar(&b.Tokens, "tokens", "", "reuse the token map `FILE` of an earlier bundle, so that the same host gets the same token (for diff)")
	fl.BoolVar(&b.RedactNames, "redact-names", false, "also replace distributed switch and port group names and vCenter object IDs (vm-42, dvportgroup-67) by tokens")
}

// loadTokens reads a token map written next to an earlier bundle.
func loadTokens(path string) (*redact.TokenMap, error) {
	if path == "" {
		return nil, nil
	}
	b, err := hostio.ReadFileCapped(path, hostio.MaxTokenMapFile)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	var tm redact.TokenMap
	if err := json.Unmarshal(b, &tm); err != nil {
		return nil, fmt.Errorf("--tokens %s: not a token map: %w", path, err)
	}
	return &tm, nil
}

// bundleOptions are the bundle writer's options for a run analysed with
// with (its header, its config): the bundle's report is that analysis of
// the redacted results, so that it says what the user saw.
func bundleOptions(with analysis.Options, bf BundleFlags) (bundle.Options, error) {
	tm, err := loadTokens(bf.Tokens)
	if err != nil {
		return bundle.Options{}, err
	}
	if tm != nil && bf.NoRedact {
		return bundle.Options{}, usageError("--tokens makes no sense with --no-redact")
	}
	if bf.AlreadyRedacted && (tm != nil || bf.NoRedact) {
		return bundle.Options{}, usageError("the input is already redacted: --tokens and --no-redact do not apply")
	}
	return bundle.Options{
		Redact: !bf.NoRedact && !bf.AlreadyRedacted, RedactNames: bf.RedactNames, AlreadyRedacted: bf.AlreadyRedacted, Tokens: tm, ToolVersion: Version, Now: with.Meta.Now, Source: with.Meta.Source,
		Analyze: func(rs []hostio.HostResult, redact func(string) string) bundle.Analysis {
			return *analysis.Run(rs, with.Redacted(redact))
		},
		HTML:        bundleHTML,
		Identifiers: bf.Identifiers,
	}, nil
}

// bundleHTML renders report.html inside bundles.
var bundleHTML = report.WriteHTML

// checkTokenMapFree refuses to write a redacted bundle to path when the
// token map of an earlier bundle is already there: overwriting it would lose
// the only way to read a bundle that may already have been shared. Reusing
// that same map (--tokens pointing at it) is fine: the new map extends it.
func checkTokenMapFree(path string, bf BundleFlags) error {
	if bf.NoRedact || bf.AlreadyRedacted {
		return nil
	}
	tp := bundle.TokensPath(path)
	st, err := os.Stat(tp)
	if err != nil {
		return nil
	}
	if bf.Tokens != "" {
		if reused, err := os.Stat(bf.Tokens); err == nil && os.SameFile(st, reused) {
			return nil
		}
	}
	return usageError("%s already exists: it is the token map of an earlier bundle, and writing %s would overwrite it; "+
		"choose another output file, or move the old bundle and its token map away first", tp, path)
}

// bundleRun is how one bundle is written: consume gives the results to
// the writer (bundle.Options.Consume: nothing uses them afterwards), abort
// stops it (a second Ctrl-C).
type bundleRun struct {
	consume bool
	abort   <-chan struct{}
}

// writeBundle writes results to path, its report analysed with with, and
// tells the user where it went.
func writeBundle(path string, results []hostio.HostResult, with analysis.Options, bf BundleFlags, errOut io.Writer, run bundleRun) error {
	if err := checkTokenMapFree(path, bf); err != nil {
		return err
	}
	if with.Meta.Version == "" {
		with.Meta.Version = Version
	}
	opts, err := bundleOptions(with, bf)
	if err != nil {
		return err
	}
	opts.Consume, opts.Abort, opts.TempFile = run.consume, run.abort, trackTempFile
	w, err := bundle.WriteFile(path, results, opts)
	if errors.Is(err, bundle.ErrAborted) {
		fmt.Fprintf(errOut, "Bundle %s not written: interrupted (its temporary file was removed).\n", path)
		return err
	}
	if err != nil && w == nil {
		return fmt.Errorf("writing the bundle: %w", err)
	}
	switch {
	case bf.AlreadyRedacted:
		fmt.Fprintf(errOut, "Bundle written to %s, kept as it was: the input was already redacted, so it was not redacted again and no token map was written (the original map stays with whoever made the bundle).\n", path)
	case w.Tokens != nil:
		fmt.Fprintf(errOut, "Bundle written to %s (redacted). Token map: %s - keep it private, never send it with the bundle.\n",
			path, bundle.TokensPath(path))
	default:
		fmt.Fprintf(errOut, "Bundle written to %s (NOT redacted: it contains host names, addresses and VM names).\n", path)
	}
	return err
}

// bundleExporter is the Pipeline.Bundle hook (the TUI's export action),
// its report analysed as the run's (with, called at each export); it
// prints nothing, the TUI owns the screen and shows the outcome.
func bundleExporter(with func() analysis.Options, bf BundleFlags) func(string, []hostio.HostResult) error {
	return func(path string, results []hostio.HostResult) error {
		return writeBundle(path, results, with(), bf, io.Discard, bundleRun{})
	}
}

// BundleOptions are the flags and dependencies of `bundle`.
type BundleOptions struct {
	Scan ScanOptions
	// Output is -o: the format of the report printed once the bundle is
	// written ("": the verdict line), as -o is everywhere else.
	Output string
}

// newCmdBundle builds the command; runF, when set, runs instead of runBundle with
// the options the flags built (tests).
func newCmdBundle(f *Factory, runF func(context.Context, *BundleOptions) error) *cobra.Command {
	opts := &BundleOptions{Scan: ScanOptions{IO: f.IO, Getenv: f.Getenv}}
	cmd := &cobra.Command{
		Use:   "bundle --hosts HOST[,HOST...] --out FILE.tar.gz",
		Short: "Collect a support bundle from ESXi hosts (redacted by default)",
		Long: `Bundle scans the hosts exactly like 'scan' (same SSH options, same read-only
commands) and writes everything to one .tar.gz instead of showing a report:
every raw command output, the per-command status, the parsed facts, the
findings and the report (JSON and HTML), with a manifest holding the SHA-256
of every file.

Host names, IP and MAC addresses, UUIDs, VM names and datastore paths are
replaced by consistent fake tokens (host-001, 198.18.50.11, 02:00:00:00:00:01,
vm-0001, ...) so that the bundle can be shared; the map back to the real
names is written next to the bundle (FILE.tar.gz.tokens.json, mode 0600) and
never inside it. Passwords and keys never enter a bundle.

Analyse a bundle anywhere, later, with the rules of that pvrdma-doctor
version:  pvrdma-doctor analyze FILE.tar.gz

The exit status is 0 when the bundle was written, whatever it found. It
prints the verdict, or with -o FORMAT the report (-o is the report format,
as in every command; the bundle file is --out, also spelt --bundle).`,
		Example: `  export PVRDMA_DOCTOR_PASSWORD='...'
  pvrdma-doctor bundle --hosts esx01,esx02 --password-env PVRDMA_DOCTOR_PASSWORD --out support.tar.gz
  pvrdma-doctor bundle --hosts esx01 --password-env PVRDMA_DOCTOR_PASSWORD --out today.tar.gz --tokens last-week.tar.gz.tokens.json
  pvrdma-doctor bundle --hosts esx01 --password-env PVRDMA_DOCTOR_PASSWORD --out internal.tar.gz --no-redact`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runBundle(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addScanFlags(fl, &opts.Scan)
	fl.StringVar(&opts.Scan.Bundle.Path, "out", "", "bundle file to write, e.g. `support.tar.gz` (required)")
	fl.StringVar(&opts.Scan.Bundle.Path, "bundle", "", "the same as --out")
	fl.StringVarP(&opts.Output, "output", "o", "", "print the report in this format once the bundle is written: text, json, markdown, html, junit or sarif (default: the verdict line)")
	addRedactFlags(fl, &opts.Scan.Bundle)
	addConfigFlag(fl, &opts.Scan.Report)
	return cmd
}

func runBundle(ctx context.Context, opts *BundleOptions) error {
	if o := opts.Output; o != "" && !slices.Contains(outputFormats, o) {
		if opts.Scan.Bundle.Path != "" || !looksLikeBundleFile(o) {
			return usageError("-o %q is not a report format (%s): -o is the format, as in every command; write the bundle with --out FILE.tar.gz",
				o, strings.Join(outputFormats, ", "))
		}
		// Before 30.4, -o named the bundle file: still understood, said.
		fmt.Fprintf(opts.Scan.IO.ErrOut, "warning: -o FILE is deprecated for bundle: use --out %s (-o is the report format)\n", o)
		opts.Scan.Bundle.Path, opts.Output = o, ""
	}
	if opts.Scan.Bundle.Path == "" {
		return usageError("--out FILE.tar.gz is required: where to write the bundle")
	}
	if _, err := loadTokens(opts.Scan.Bundle.Tokens); err != nil {
		return usageError("%v", err)
	}
	if err := checkTokenMapFree(opts.Scan.Bundle.Path, opts.Scan.Bundle); err != nil {
		return err
	}
	if err := opts.Scan.Report.loadConfig(); err != nil {
		return err
	}
	p, err := scanPipeline(ctx, &opts.Scan)
	if err != nil {
		return err
	}
	if opts.Scan.closeRunner != nil {
		defer opts.Scan.closeRunner()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The verdict printed and the bundle's report come from one analysis
	// with one config (the run's): the bundle is written from the
	// analysis options its report was built with. Only the report is kept
	// past the bundle write (which consumes the results): the verdict
	// line, or the report -o asks for.
	so := p.scanOptions(ctx, nil)
	so.KeepReport = opts.Output != ""
	so.Bundle = func(ctx context.Context, results []hostio.HostResult, with analysis.Options) error {
		return writeBundle(opts.Scan.Bundle.Path, results, with, opts.Scan.Bundle, opts.Scan.IO.ErrOut, bundleRun{consume: true, abort: abortOf(ctx)})
	}
	out := scan.Run(ctx, so)
	if err := out.BundleErr; err != nil {
		if _, ok := err.(*exitCodeError); ok {
			return err
		}
		if errors.Is(err, bundle.ErrAborted) {
			fmt.Fprintln(opts.Scan.IO.Out, out.Verdict)
			return WithExitCode(ExitIncomplete, err)
		}
		return WithExitCode(ExitError, err)
	}
	if out.Report != nil {
		return writeReport(opts.Scan.IO.Out, opts.Output, out.Report, false, opts.Scan.Getenv, false)
	}
	fmt.Fprintln(opts.Scan.IO.Out, out.Verdict)
	return nil
}

// looksLikeBundleFile says whether an -o value is a file name (the
// deprecated -o FILE of bundle) rather than a mistyped format.
func looksLikeBundleFile(s string) bool {
	return strings.ContainsAny(s, "/\\") || strings.HasSuffix(s, ".tar.gz") || strings.HasSuffix(s, ".tgz") || strings.HasSuffix(s, ".tar")
}
