package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/diff"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

func init() { register("diff", newCmdDiff) }

// DiffOptions are the flags and dependencies of `diff`.
type DiffOptions struct {
	IO       *IOStreams
	Old, New string
	Output   string
}

func newCmdDiff(f *Factory) *cobra.Command {
	opts := &DiffOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changed between two bundles: facts and findings",
		Long: `Diff analyses OLD and NEW with the current rules (each may be anything
'analyze' accepts: bundles, unpacked bundles, folders of saved outputs,
transcripts) and prints what changed, one line per change:

  esx01 vmk1 MTU 9000 -> 1500
  esx02 vmrdma0 State Active -> Down
  esx01 VM hpc-node03 adapter 0 Active MTU 1024 -> 4096
  finding TCP_FALLBACK new on esx02: esx02 (hpc-node04) (critical)
  finding LOW_MTU resolved on esx01: hpc-node03 (PVRDMA adapter 0)

A host on one side only is reported as added or removed, and its findings
as "not in OLD (host added)" / "not in NEW (host removed)", never as new or
resolved. Hosts are matched by name, so compare bundles that are both unredacted, or
both redacted with the same token map ('bundle --tokens', 'redact --tokens').
Runtime values (VM world IDs, ping round-trip times, RDMA counters) are not
compared. The exit status is 0 whether or not something changed.`,
		Example: `  pvrdma-doctor diff before.tar.gz after.tar.gz
  pvrdma-doctor diff before.tar.gz ./saved-outputs/ --output json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			return runDiff(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

func runDiff(opts *DiffOptions) error {
	if opts.Output != "text" && opts.Output != "json" {
		return usageError("unknown --output %q: use text or json", opts.Output)
	}
	if opts.Old == "-" && opts.New == "-" {
		return usageError("only one of OLD and NEW can be standard input")
	}
	var sides [2]diff.Side
	var inputs [2]*offline.Input
	for i, p := range []string{opts.Old, opts.New} {
		in, err := loadInput(p, opts.IO.In, opts.IO.ErrOut)
		if err != nil {
			return err
		}
		a := analyze(in.Results, report.Meta{Source: in.Source()})
		inputs[i] = in
		sides[i] = diff.Side{Label: p, Fleet: a.Fleet, Findings: a.Checks.Findings}
	}
	if inputs[0].Redacted() != inputs[1].Redacted() {
		fmt.Fprintln(opts.IO.ErrOut, "warning: one input is redacted and the other is not: host and VM names will not match")
	}
	d := diff.Compare(sides[0], sides[1])
	if opts.Output == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	// Names and values in the text come from hosts: controls shown escaped.
	var text strings.Builder
	if err := d.WriteText(&text); err != nil {
		return err
	}
	_, err := io.WriteString(opts.IO.Out, textsafe.Clean(text.String()))
	return err
}
