package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// hostInputSummary is what an offline input (transcript, saved outputs)
// gave for one host: the commands read, what of their output was skipped
// (with the input's line numbers), which checks that cost, and the
// commands passed over.
type hostInputSummary struct {
	Host    string
	Read    []string
	Skipped []string
	Cost    []string
	Other   []string
}

// lines renders the summary as report notes.
func (s hostInputSummary) lines() []string {
	var out []string
	if len(s.Read) > 0 {
		out = append(out, fmt.Sprintf("input: read %d command(s): %s", len(s.Read), strings.Join(s.Read, "; ")))
	}
	for _, sk := range s.Skipped {
		out = append(out, "input: skipped "+sk)
	}
	if len(s.Cost) > 0 {
		out = append(out, "input: not evaluated because of what was skipped: "+strings.Join(s.Cost, ", "))
	}
	if len(s.Other) > 0 {
		out = append(out, fmt.Sprintf("input: passed over %d command(s) that are not pvrdma-doctor's: %s", len(s.Other), strings.Join(s.Other, ", ")))
	}
	return out
}

// summarizeInput builds the per-host summaries of an offline input from
// what the loader read, the facts (what each output's parser skipped) and
// the check results (what was not evaluated because of it).
func summarizeInput(in *offline.Input, fleet *facts.Fleet, res *checks.Result) []hostInputSummary {
	reads := map[string]offline.HostRead{}
	for _, r := range in.Read {
		reads[r.Host] = r
	}
	var out []hostInputSummary
	for _, h := range fleet.Hosts {
		rd, known := reads[h.Host]
		s := hostInputSummary{Host: h.Host}
		where := map[string]offline.ReadCommand{}
		for _, c := range rd.Commands {
			if c.Replaced {
				continue
			}
			where[c.Command] = c
			read := fmt.Sprintf("`%s` (%s)", c.Typed, c.Where())
			if c.Command != c.Typed {
				read = fmt.Sprintf("`%s` (%s, read as `%s`)", c.Typed, c.Where(), c.Command)
			}
			s.Read = append(s.Read, read)
		}
		// lineOf maps a line of a command's output to the input's line.
		lineOf := func(cmd string, n int) string {
			c, ok := where[cmd]
			switch {
			case ok && c.File != "":
				return fmt.Sprintf("%s line %d", c.File, n)
			case ok && c.Line > 0:
				return fmt.Sprintf("line %d", c.Line+n)
			}
			return fmt.Sprintf("%s line %d", catalog.FileName(cmd), n)
		}
		var kinds []string
		for k := range h.Sources {
			kinds = append(kinds, string(k))
		}
		sort.Strings(kinds)
		costly := map[string]bool{}
		for _, k := range kinds {
			for _, src := range h.Sources[hostio.Kind(k)] {
				if !known && src.Status == hostio.StatusCollected {
					s.Read = append(s.Read, fmt.Sprintf("`%s`", src.Command))
				}
				for _, sk := range src.Skipped {
					cmd := src.Command
					s.Skipped = append(s.Skipped, fmt.Sprintf("`%s`: %s", cmd, sk.Describe(func(n int) string { return lineOf(cmd, n) })))
					costly[src.Command] = true
				}
			}
		}
		for _, e := range h.Errors {
			s.Skipped = append(s.Skipped, fmt.Sprintf("`%s`: the whole output (%s: %s)", e.Command, lineOf(e.Command, e.Line), e.Message))
			costly[e.Command] = true
		}
		if len(costly) > 0 && res != nil {
			seen := map[string]bool{}
			for _, f := range res.Findings {
				if f.Host != h.Host || f.Status != checks.StatusNotEvaluated {
					continue
				}
				for cmd := range costly {
					if strings.Contains(f.Message, "`"+cmd+"`") && !seen[f.RuleID+f.Subject] {
						seen[f.RuleID+f.Subject] = true
						s.Cost = append(s.Cost, fmt.Sprintf("%s (%s)", f.RuleID, f.Subject))
					}
				}
			}
		}
		for _, o := range rd.Other {
			s.Other = append(s.Other, fmt.Sprintf("%s `%s`", o.Where(), o.Typed))
		}
		out = append(out, s)
	}
	return out
}

// inputSummaryExport is the Pipeline.Export hook of analyze for a
// transcript or saved outputs: it adds each host's input summary to the
// report (host notes) and prints it on errOut.
func inputSummaryExport(in *offline.Input, errOut io.Writer) func(*Analysis) error {
	return func(a *Analysis) error {
		sums := summarizeInput(in, a.Fleet, &a.Checks)
		byHost := map[string][]string{}
		for _, s := range sums {
			byHost[s.Host] = s.lines()
			if len(s.Skipped)+len(s.Other) == 0 {
				continue
			}
			fmt.Fprintf(errOut, "%s: %s\n", textsafe.Clean(in.Path), textsafe.Clean(s.Host))
			for _, l := range s.lines() {
				fmt.Fprintf(errOut, "  %s\n", textsafe.Clean(l))
			}
		}
		for i := range a.Report.Hosts {
			a.Report.Hosts[i].Notes = append(a.Report.Hosts[i].Notes, byHost[a.Report.Hosts[i].Host]...)
		}
		for _, o := range in.Other {
			fmt.Fprintf(errOut, "%s: passed over (not pvrdma-doctor's, no host): %s\n", textsafe.Clean(in.Path), textsafe.Clean(o))
		}
		return nil
	}
}
