package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

func init() { register("redact", newCmdRedact) }

// RedactOptions are the flags and dependencies of `redact`.
type RedactOptions struct {
	IO      *IOStreams
	In, Out string
	Tokens  string
	// Names: --redact-names.
	Names bool
}

func newCmdRedact(f *Factory) *cobra.Command {
	opts := &RedactOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "redact IN OUT.tar.gz",
		Short: "Write a redacted copy of a bundle (or of saved outputs or a transcript)",
		Long: `Redact reads IN (anything 'analyze' accepts: a bundle made with --no-redact,
an unpacked bundle, a folder of saved outputs, a transcript) and writes OUT,
a bundle in which host names, IPv4/IPv6 and MAC addresses, UUIDs, VM names
and datastore paths are replaced by consistent fake tokens. Facts, findings
and reports in OUT are recomputed from the redacted outputs with the current
rules, so they hold no original identifier either.

The token map (original -> token) is written to OUT.tokens.json with mode
0600: keep it, never send it with the bundle. A bundle that is already
redacted is refused.`,
		Example: `  pvrdma-doctor redact internal.tar.gz shareable.tar.gz
  pvrdma-doctor redact ./saved-outputs/ shareable.tar.gz
  pvrdma-doctor redact june.tar.gz june-shareable.tar.gz --tokens may-shareable.tar.gz.tokens.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.In, opts.Out = args[0], args[1]
			return runRedact(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Tokens, "tokens", "", "reuse the token map `FILE` of an earlier bundle, so that the same host gets the same token")
	cmd.Flags().BoolVar(&opts.Names, "redact-names", false, "also replace distributed switch and port group names and vCenter object IDs (vm-42, dvportgroup-67) by tokens")
	return cmd
}

// checkRedactPaths refuses an OUT that is IN itself (possibly through
// another path): writing it would replace the unredacted original.
func checkRedactPaths(in, out string) error {
	if in == "-" {
		return nil
	}
	same := filepath.Clean(in) == filepath.Clean(out)
	if ai, err := filepath.Abs(in); err == nil {
		if ao, err := filepath.Abs(out); err == nil && ai == ao {
			same = true
		}
	}
	if so, err := os.Stat(out); err == nil {
		if si, err := os.Stat(in); err == nil && os.SameFile(si, so) {
			same = true
		}
	}
	if same {
		return usageError("OUT %s is the input %s: redacting in place would replace the unredacted original; write the redacted copy to another file", out, in)
	}
	return nil
}

func runRedact(opts *RedactOptions) error {
	if err := checkRedactPaths(opts.In, opts.Out); err != nil {
		return err
	}
	if err := checkTokenMapFree(opts.Out, BundleFlags{Tokens: opts.Tokens}); err != nil {
		return err
	}
	in, err := loadInput(opts.In, opts.IO.In, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	if in.Redacted() {
		return WithExitCode(ExitError, fmt.Errorf("%s is already redacted", opts.In))
	}
	source := in.Source()
	if in.Manifest != nil && in.Manifest.Source != "" {
		source = in.Manifest.Source
	}
	meta := report.Meta{Source: source}
	if in.Partial() {
		meta.Notes = append(meta.Notes, fmt.Sprintf("PARTIAL INPUT: %d problem(s) while reading the original bundle", len(in.Problems)))
	}
	if err := writeBundle(opts.Out, in.Results, analysis.Options{Meta: meta}, BundleFlags{Tokens: opts.Tokens, RedactNames: opts.Names}, opts.IO.ErrOut, bundleRun{consume: true}); err != nil {
		if _, ok := err.(*exitCodeError); ok {
			return err
		}
		return WithExitCode(ExitError, err)
	}
	if in.Partial() {
		return WithExitCode(ExitIncomplete, nil)
	}
	return nil
}
