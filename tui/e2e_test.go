package tui

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// TestE2EDemoInTmux drives the real binary in a real terminal (tmux): from
// the overview of `demo` to the evidence and the fix of a TCP_FALLBACK
// finding, using the keys the screens hint, then quits and checks the exit
// status. The expected evidence and fix come from the same binary's JSON
// report, so the test follows the scenario as it evolves.
func TestE2EDemoInTmux(t *testing.T) {
	tmux := testutil.RequireTmux(t)
	bin := testutil.Binary(t)

	// What the TUI must show: the TCP_FALLBACK finding of the first host
	// that has one, per the JSON report of the same scenario.
	out, _ := exec.Command(bin, "demo", "--output", "json").Output()
	var rep struct {
		Hosts []struct {
			Host string `json:"host"`
		} `json:"hosts"`
		Findings []checks.Finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("demo --output json: %v\n%s", err, out)
	}
	order := map[string]int{}
	for i, h := range rep.Hosts {
		order[h.Host] = i
	}
	var want []checks.Finding
	for _, f := range rep.Findings {
		if f.RuleID == "TCP_FALLBACK" && f.Status == checks.StatusFail {
			want = append(want, f)
		}
	}
	if len(want) == 0 {
		t.Fatal("the demo's default scenario has no TCP_FALLBACK finding")
	}
	sort.SliceStable(want, func(i, j int) bool { return order[want[i].Host] < order[want[j].Host] })
	f := want[0]
	if len(f.Evidence) == 0 || f.Fix == "" {
		t.Fatalf("TCP_FALLBACK finding without evidence or fix: %+v", f)
	}
	ev := f.Evidence[0]
	evText := strings.TrimSpace(ev.Text)
	if ev.Line == 0 || evText == "" {
		evText = ev.Note
	}
	evText = prefix(evText, 30)
	fixText := prefix(f.Fix, 40)

	tm := testutil.StartTmux(t, tmux, "e2e", fmt.Sprintf("%s demo; echo EXIT=$?; sleep 30", bin))
	waitFor, keys := tm.WaitFor, tm.Keys

	scr := waitFor("overview", "6 hosts, 7 guests scanned", "enter open", "/ filter", "? help")
	if !strings.Contains(scr, "PVRDMA is BROKEN") {
		t.Fatalf("overview without the fleet verdict:\n%s", scr)
	}
	// The footer hints "/ filter": filter the hosts by the rule, open the first.
	keys("/")
	waitFor("filter prompt", "filter:")
	keys("TCP_FALLBACK", "Enter")
	waitFor("filtered overview", "filter: TCP_FALLBACK (esc clears)", "▶ "+f.Host)
	keys("Enter")
	waitFor("host screen", "pvrdma-doctor › "+f.Host, "TCP_FALLBACK")
	// Same on the host's findings, then open the finding.
	keys("/")
	waitFor("filter prompt", "filter:")
	keys("TCP_FALLBACK", "Enter", "Enter")
	scr = waitFor("finding screen", "pvrdma-doctor › "+f.Host+" › TCP_FALLBACK", "Fix (c copies):", "c copy fix")
	if !strings.Contains(scr, fixText) {
		t.Fatalf("fix %q not shown:\n%s", fixText, scr)
	}
	// The evidence: the highlighted line (▶) holds the evidence text.
	hit := ""
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(l, "▶") {
			hit = l
		}
	}
	if !strings.Contains(hit, evText) {
		t.Fatalf("evidence %q not highlighted (marked line %q):\n%s", evText, hit, scr)
	}
	if !strings.Contains(scr, "`"+ev.Command+"`") {
		t.Fatalf("evidence command %q not named:\n%s", ev.Command, scr)
	}
	// c copies (OSC 52) and says so; q quits with the documented status.
	keys("c")
	waitFor("copy", "fix copied to the clipboard")
	keys("q")
	scr = waitFor("exit", "EXIT=")
	if !strings.Contains(scr, "EXIT=4") || !strings.Contains(scr, "PVRDMA is BROKEN") {
		t.Fatalf("after quitting: want the verdict and exit status 4 (critical):\n%s", scr)
	}
}

// prefix returns the first n runes of s.
func prefix(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
