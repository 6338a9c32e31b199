package plan_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// stepOf is one action rendered as a plan's step n, as the planner
// places it.
func stepOf(n int, host string, v plan.Value) checks.PlanStep {
	r := plan.Render(host, v)
	return checks.PlanStep{N: n, Phase: plan.PhaseHost, Action: v.Kind(), Params: v, On: r.On, Text: r.Text, Command: r.Command,
		Warnings: r.Warnings, Pause: r.Pause, Require: r.Require, Check: r.Check, Verify: r.Verify}
}

// block is the script's lines for step n: from its `if step n` to the fi
// that closes it.
func block(script string, n int) []string {
	lines := strings.Split(script, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, fmt.Sprintf("if step %d ", n)) {
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == "fi" {
					return lines[i:j]
				}
			}
		}
	}
	return nil
}

// Derived from the kinds: each registered kind's example, rendered as the
// one step of a plan (a host's, and a guest action also in its guest's own
// plan, where the script runs it), gets before its command a confirm
// that says what it disrupts and names every object its parameters name;
// a step the script does not run (a person's) says it in its pause; the
// checklist says it beside the command. A kind that disrupts nothing is
// run without asking.
func TestEveryDisruptiveCommandIsConfirmed(t *testing.T) {
	rep := &report.Report{Tool: report.Tool{Version: "test"}, Source: "test", GeneratedAt: time.Unix(0, 0).UTC()}
	for _, k := range plan.Kinds() {
		v := plan.KindExample(t, k)
		hosts := []string{"esx01"}
		if plan.Render("esx01", v).On == "guest" && plan.VMOf(v) == "" {
			hosts = append(hosts, "vm01")
		}
		for _, host := range hosts {
			d := plan.DisruptionOf(host, v)
			st := stepOf(1, host, v)
			p := checks.Plan{Host: host, Steps: []checks.PlanStep{st}}
			var sh, md bytes.Buffer
			if err := report.WriteRunbookShell(&sh, rep, p); err != nil {
				t.Fatal(err)
			}
			if err := report.WriteRunbookMarkdown(&md, rep, p); err != nil {
				t.Fatal(err)
			}
			lines := block(sh.String(), 1)
			if lines == nil {
				t.Fatalf("%s on %s: no step 1 in\n%s", k, host, sh.String())
			}
			run, confirm := -1, -1
			for i, l := range lines {
				l = strings.TrimLeft(l, "\t")
				if st.Command != "" && strings.HasPrefix(l, st.Command+" || {") {
					run = i
				}
				if strings.HasPrefix(l, "confirm ") {
					confirm = i
					if !strings.HasPrefix(l, "confirm 1 ") {
						t.Errorf("%s on %s: the confirm does not name its step: %s", k, host, l)
					}
				}
			}
			if !d.Disrupts() {
				if confirm >= 0 {
					t.Errorf("%s on %s: disrupts nothing (%s), yet asks: %s", k, host, d.None, lines[confirm])
				}
				if strings.Contains(md.String(), "**Disrupts:**") {
					t.Errorf("%s on %s: disrupts nothing, yet the checklist says it does", k, host)
				}
				continue
			}
			for _, o := range plan.Objects(host, v) {
				if !strings.Contains(d.What, o) {
					t.Errorf("%s on %s: %q does not name %q", k, host, d.What, o)
				}
			}
			said := textsafe.ShellQuote(textsafe.Line("Disrupts: " + d.What + "."))
			switch {
			case run >= 0 && (confirm < 0 || confirm > run):
				t.Errorf("%s on %s: the script runs `%s` without a confirm before it:\n%s", k, host, st.Command, strings.Join(lines, "\n"))
			case run >= 0 && lines[confirm] != "\t\tconfirm 1 "+said && lines[confirm] != "\tconfirm 1 "+said:
				t.Errorf("%s on %s: the confirm does not say what it disrupts (%s): %s", k, host, d.What, lines[confirm])
			case run < 0 && !strings.Contains(strings.ReplaceAll(strings.Join(lines, "\n"), `'\''`, `'`), textsafe.Line("Disrupts: "+d.What+".")):
				t.Errorf("%s on %s: a person's step that disrupts does not say so in its pause:\n%s", k, host, strings.Join(lines, "\n"))
			}
			if !strings.Contains(md.String(), "> **Disrupts:** ") {
				t.Errorf("%s on %s: the checklist does not say what it disrupts:\n%s", k, host, md.String())
			}
		}
	}
}
