package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
)

// confirmStep is an action rendered as step n of a plan.
func confirmStep(n int, host string, v plan.Value) checks.PlanStep {
	r := plan.Render(host, v)
	return checks.PlanStep{N: n, Phase: plan.PhaseHost, Action: v.Kind(), Params: v, On: r.On, Text: r.Text, Command: r.Command,
		Warnings: r.Warnings, Pause: r.Pause, Require: r.Require, Check: r.Check, Verify: r.Verify}
}

// runConfirmScript writes the plan's runbook and runs it with /bin/sh,
// stdin the answers, in a directory whose stand-ins (names) record their
// argv in argv and print nothing (so no check shows a step done), or
// print what outputs gives them: the output, the argv lines, and whether
// the script exited 0.
func runConfirmScript(t *testing.T, p checks.Plan, answers string, names []string, outputs map[string]string) (string, []string, bool) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	rep := &Report{Tool: Tool{Version: "test"}, Source: "test", GeneratedAt: time.Unix(0, 0).UTC()}
	var b bytes.Buffer
	if err := WriteRunbookShell(&b, rep, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argv := filepath.Join(dir, "argv")
	for _, n := range names {
		body := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> '" + argv + "'\n"
		if o, ok := outputs[n]; ok {
			body += "printf '%s\\n' '" + o + "'\n"
		}
		if n == "sudo" {
			body += "exec \"$@\"\n"
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "plan.sh")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, path)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(answers)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	ran, _ := os.ReadFile(argv)
	return out.String(), strings.Split(strings.TrimSpace(string(ran)), "\n"), err == nil
}

func ranLine(argv []string, want string) bool {
	for _, l := range argv {
		if l == want {
			return true
		}
	}
	return false
}

// A disruptive command runs only on an explicit yes: no answer, an empty
// line, "no" or anything else stops the script before it, saying nothing
// of the step was run and how to resume; "yes" and "y", in any case, run
// it. A harmless command before it runs without asking.
func TestConfirmRefusesAnythingButYes(t *testing.T) {
	p := checks.Plan{Host: "esx01", Steps: []checks.PlanStep{
		confirmStep(1, "esx01", plan.EnableRuleset{Ruleset: "pvrdma"}),
		confirmStep(2, "esx01", plan.SetPause{NIC: "vmnic5"}),
	}}
	const run = "esxcli network nic pauseParams set -n vmnic5 -r true -t true"
	for _, c := range []struct {
		answers string
		runs    bool
	}{
		{"", false}, {"\n", false}, {"no\n", false}, {"n\n", false}, {"yess\n", false}, {"Enter\n", false},
		{"yes\n", true}, {"YES\n", true}, {"y\n", true}, {"Yes\n", true},
	} {
		out, argv, ok := runConfirmScript(t, p, c.answers, []string{"esxcli"}, nil)
		if !ranLine(argv, "esxcli network firewall ruleset set -e true -r pvrdma") {
			t.Errorf("%q: the harmless step 1 did not run: %v\n%s", c.answers, argv, out)
		}
		if !strings.Contains(out, "!!! Disrupts: vmnic5's link on esx01 goes down for a few seconds") ||
			!strings.Contains(out, "Type yes to run it, anything else stops here: ") {
			t.Errorf("%q: no confirm naming vmnic5:\n%s", c.answers, out)
		}
		// (The stand-in shows no state, so the verify reads end the
		// script with status 1 either way.)
		if ranLine(argv, run) != c.runs || ok || strings.Contains(out, "Stopped:") == c.runs {
			t.Errorf("%q: ran %v, want %v:\n%s", c.answers, ranLine(argv, run), c.runs, out)
		}
		if !c.runs && !strings.Contains(out, "Stopped: nothing of step 2 was run. Run this script again with --from 2") {
			t.Errorf("%q: does not say how to resume:\n%s", c.answers, out)
		}
	}
}

// A removal shows what the package manager would remove (its dry run:
// the packages that depend on the verbs libraries too) before it asks,
// and runs without -y, so the package manager asks again.
func TestRemovalListsWhatGoesBeforeItAsks(t *testing.T) {
	p := checks.Plan{Host: "vm01", Steps: []checks.PlanStep{confirmStep(1, "vm01", plan.GuestReplaceMOFED{Value: "jammy"})}}
	names := []string{"sudo", "apt-get", "ibv_devices"}
	dry := "Purg openmpi-bin [4.1.2-2]"
	out, argv, ok := runConfirmScript(t, p, "no\n", names, map[string]string{"apt-get": dry})
	purge := "apt-get purge " + strings.Join(plan.MOFEDPurge, " ")
	if ok || ranLine(argv, purge) || ranLine(argv, "sudo "+purge) {
		t.Errorf("after no: the purge ran (%v):\n%s", argv, out)
	}
	list, confirm := strings.Index(out, dry), strings.Index(out, "!!! Disrupts: removes "+strings.Join(plan.MOFEDPurge, " "))
	if list < 0 || confirm < 0 || list > confirm {
		t.Errorf("the dry run's list (%d) does not come before the confirm (%d):\n%s", list, confirm, out)
	}
	if !ranLine(argv, "apt-get -s purge "+strings.Join(plan.MOFEDPurge, " ")) {
		t.Errorf("no dry run: %v", argv)
	}
	_, argv, _ = runConfirmScript(t, p, "yes\n", names, map[string]string{"apt-get": dry})
	if !ranLine(argv, "sudo "+purge) || !ranLine(argv, purge) {
		t.Errorf("after yes: the purge did not run as rendered: %v", argv)
	}
	for _, l := range argv {
		if strings.Contains(l, "purge") && strings.Contains(l, "-y") {
			t.Errorf("a removal without asking: %s", l)
		}
	}
}
