package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

func init() { register("plan", newCmdPlan) }

// PlanOptions are the flags of `plan`: scan's connection flags, or an
// offline input instead; where the runbooks go.
type PlanOptions struct {
	Scan  ScanOptions
	Input string
	// Dir receives HOST.md and HOST.sh per plan.
	Dir string
	// Only limits the runbooks to these hosts and guests.
	Only string
	// Print writes one runbook to standard output instead: md or sh.
	Print string
	// Tokens is the token map of a redacted input (--tokens FILE): the
	// plans name the originals.
	Tokens string
}

func newCmdPlan(f *Factory) *cobra.Command {
	opts := &PlanOptions{Scan: ScanOptions{IO: f.IO, Getenv: f.Getenv}}
	cmd := &cobra.Command{
		Use:   "plan --hosts HOST,HOST[,...] | --input PATH",
		Short: "Write each host's fix plan as a Markdown checklist and a shell script",
		Long: `Plan writes the fix plan of every host and guest with a problem (warning or
above) as two files in --dir: HOST.md, a Markdown checklist of the steps
(where each is carried out, its exact command, what to know first, the check
that shows it is already done, the findings it resolves) with the reads that
verify the plan, and HOST.sh, a commented POSIX sh script of the commands
that run on that host (in its ESXi Shell; a guest's in the guest).

The script runs each step's read-only check first and skips the step when
it is already done, so running it again is harmless. Steps carried out
elsewhere (power actions and settings in vCenter, the physical switch, the
server, a guest) and reboots are explicit pauses that say what to do; a
reboot stops the script, and "sh HOST.sh --from N" continues after it.
Commands with a placeholder (an address to choose) are pauses too. Before a
command that disrupts something (maintenance mode, a link renegotiated, an
MTU, a package removal, a driver's configuration) it says what, naming the
vmknic, NIC, VM or packages, and runs it only when you type yes (or y); any
other answer stops it there, and "--from N" resumes at that step. Switch-side
steps come before the host's MTU and flow control. At the end it runs the
plan's verify reads and prints what holds and what does not.

pvrdma-doctor itself only reads: it scans like scan (or reads a bundle, saved
outputs or a transcript with --input, as analyze takes) and writes the files;
you run them. A redacted bundle holds tokens, not your hosts and addresses:
give its token map (--tokens BUNDLE.tokens.json) and the runbooks name the
originals; without it only the checklists are written, every token marked
«…», and no script, whose commands would carry tokens. The planner is checked on the lab's host model
(every scenario and 500 random fleets), and each scenario's ESXi runbook is
run as written on a lab whose stand-in esxcli parses every command as ESXi
does (see docs/rules-and-reports.md, "Root causes and fix plans"), not on
your hosts: read each step before you run it.`,
		Example: `  pvrdma-doctor plan --hosts esx01,esx02 --password-env PVRDMA_DOCTOR_PASSWORD
  pvrdma-doctor plan --input support.tar.gz --dir ./fix
  pvrdma-doctor plan --input support.tar.gz --only esx02 --print sh > esx02.sh`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addScanFlags(fl, &opts.Scan)
	fl.StringVar(&opts.Input, "input", "", "read a bundle, saved outputs or a transcript (`PATH`, as analyze takes) instead of scanning")
	fl.StringVar(&opts.Dir, "dir", "pvrdma-doctor-plan", "write HOST.md and HOST.sh into `DIR` (created)")
	fl.StringVar(&opts.Only, "only", "", "only these hosts and guests (`HOST,...`)")
	fl.StringVar(&opts.Tokens, "tokens", "", "the token map `FILE` of a redacted bundle (BUNDLE.tokens.json): the runbooks name the real hosts and addresses; without it a redacted bundle gives checklists only, every token marked «…», and no scripts")
	fl.StringVar(&opts.Print, "print", "", "print one plan's runbook to standard output instead: md or sh (with --only HOST when several hosts have a plan)")
	return cmd
}

func runPlan(ctx context.Context, opts *PlanOptions) error {
	if opts.Print != "" && opts.Print != "md" && opts.Print != "sh" {
		return usageError("--print %q: md or sh", opts.Print)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	a, redacted, dry, err := planInput(ctx, opts)
	if dry || err != nil {
		return err
	}
	results := a.Results
	// A redacted input without its token map: no command is written
	// (it would carry tokens for addresses and names), the checklists
	// mark every token.
	tokensOnly := redacted && opts.Tokens == ""
	var plans []checks.Plan
	only := map[string]bool{}
	for _, h := range strings.Split(opts.Only, ",") {
		if h = strings.TrimSpace(h); h != "" {
			only[h] = true
		}
	}
	if err := unknownHosts(only, a.Report); err != nil {
		return err
	}
	for _, p := range a.Report.Plans {
		if len(only) == 0 || only[p.Host] {
			plans = append(plans, p)
		}
	}
	out, errOut := opts.Scan.IO.Out, opts.Scan.IO.ErrOut
	if len(plans) == 0 {
		fmt.Fprintln(errOut, "No fix plan: nothing at warning or above"+map[bool]string{true: " on " + opts.Only, false: ""}[opts.Only != ""]+".")
		return incompleteExit(results)
	}
	if opts.Print != "" {
		if len(plans) > 1 {
			var names []string
			for _, p := range plans {
				names = append(names, p.Host)
			}
			return usageError("--print writes one runbook: %d hosts have a plan (%s); choose one with --only", len(plans), strings.Join(names, ", "))
		}
		if tokensOnly && opts.Print == "sh" {
			return WithExitCode(ExitUsage, redactedInputError(opts.Input, 1))
		}
		if opts.Print == "md" {
			if tokensOnly {
				var b bytes.Buffer
				if err := report.WriteRunbookMarkdown(&b, a.Report, plans[0]); err != nil {
					return err
				}
				_, err := io.WriteString(out, redact.MarkRunbook(b.String()))
				return err
			}
			return report.WriteRunbookMarkdown(out, a.Report, plans[0])
		}
		return report.WriteRunbookShell(out, a.Report, plans[0])
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return err
	}
	withheld := 0
	for _, p := range plans {
		if tokensOnly {
			var b bytes.Buffer
			if err := report.WriteRunbookMarkdown(&b, a.Report, p); err != nil {
				return err
			}
			name := filepath.Join(opts.Dir, report.RunbookFileName(redact.MarkedName(p.Host), "md"))
			if err := os.WriteFile(name, []byte(redact.MarkRunbook(b.String())), 0o644); err != nil {
				return err
			}
			withheld++
			fmt.Fprintf(out, "%s: %d steps: %s (no script: the input is redacted)\n", textsafe.Line(p.Host), len(p.Steps), name)
			continue
		}
		for _, f := range []struct {
			ext   string
			write func(*bytes.Buffer) error
		}{
			{"md", func(b *bytes.Buffer) error { return report.WriteRunbookMarkdown(b, a.Report, p) }},
			{"sh", func(b *bytes.Buffer) error { return report.WriteRunbookShell(b, a.Report, p) }},
		} {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				return err
			}
			path := filepath.Join(opts.Dir, report.RunbookFileName(p.Host, f.ext))
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "%s: %s: %s, %s\n", textsafe.Line(p.Host), plural(len(p.Steps), "step", "steps"),
			filepath.Join(opts.Dir, report.RunbookFileName(p.Host, "md")), filepath.Join(opts.Dir, report.RunbookFileName(p.Host, "sh")))
	}
	if withheld > 0 {
		return WithExitCode(ExitIncomplete, redactedInputError(opts.Input, withheld))
	}
	return incompleteExit(results)
}

// planInput is the input of plan: a scan, or --input (which may be a
// redacted bundle: restored with --tokens).
func planInput(ctx context.Context, opts *PlanOptions) (a *Analysis, redacted, dry bool, err error) {
	if opts.Input == "" {
		if opts.Tokens != "" {
			return nil, false, false, usageError("--tokens restores a redacted bundle read with --input: a scan has nothing to restore")
		}
		a, dry, err = inputOrScan(ctx, &opts.Scan, "", "outputs", nil)
		return a, false, dry, err
	}
	if opts.Scan.Hosts != "" || opts.Scan.SSH.HostsFile != "" {
		return nil, false, false, usageError("--input reads saved outputs: it takes no --hosts")
	}
	in, err := loadInput(opts.Input, opts.Scan.IO.In, opts.Scan.IO.ErrOut)
	if err != nil {
		return nil, false, false, err
	}
	meta := report.Meta{Source: opts.Input, Notes: inputNotes(in)}
	results := in.Results
	if opts.Tokens != "" {
		if !in.Redacted() {
			return nil, false, false, usageError("--tokens: %s is not a redacted bundle: there is nothing to restore", opts.Input)
		}
		tm, err := loadTokens(opts.Tokens)
		if err != nil {
			return nil, true, false, WithExitCode(ExitError, err)
		}
		if results, err = redact.Restore(in.Results, tm); err != nil {
			return nil, true, false, WithExitCode(ExitError, fmt.Errorf("--tokens %s: %w", opts.Tokens, err))
		}
		meta.Notes = append(meta.Notes, "redacted bundle restored with its token map: the runbooks name the real hosts and addresses")
	}
	p := &Pipeline{IO: opts.Scan.IO, Getenv: opts.Scan.Getenv, Results: results, Meta: meta}
	return scan.Run(ctx, p.scanOptions(ctx, nil)).Analysis, in.Redacted(), false, nil
}

// redactedInputError says why a redacted input's scripts are not written
// and how to get them.
func redactedInputError(input string, n int) error {
	return fmt.Errorf("%s is a redacted bundle: its host names, addresses and paths are tokens (198.18.x.y, 2001:db8:..., host-001, ...), so %d script(s) "+
		"were not written: their commands would run on your hosts with a token in place of the real value (a firewall opened to the wrong address). "+
		"The checklists mark every token «…». To get the scripts, give the token map written next to the bundle: "+
		"pvrdma-doctor plan --input %s --tokens %s.tokens.json", input, n, input, input)
}

// incompleteExit is the exit status of a run whose plans were written:
// 0, or 5 (incomplete) when a host could not be collected, whose plan may
// be missing.
func incompleteExit(results []hostio.HostResult) error {
	for _, r := range results {
		if r.Status == hostio.StatusNotCollected {
			return WithExitCode(ExitIncomplete, fmt.Errorf("%s was not collected: its plan, if it needs one, is missing", r.Host))
		}
	}
	return nil
}

// unknownHosts refuses names of --only that are neither a host nor a guest
// of the run (a typo must not read as "nothing to fix"), listing those
// that are.
func unknownHosts(only map[string]bool, r *report.Report) error {
	known := map[string]bool{}
	var names []string
	for _, list := range [][]report.Host{r.Hosts, r.Guests} {
		for _, h := range list {
			known[h.Host] = true
			names = append(names, textsafe.Line(h.Host))
		}
	}
	var missing []string
	for h := range only {
		if !known[h] {
			missing = append(missing, textsafe.Line(h))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return usageError("--only %s: not a host or guest of this run; it has %s", strings.Join(missing, ", "), strings.Join(names, ", "))
}
