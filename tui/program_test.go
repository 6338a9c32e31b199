package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// TestProgramLiveScanToFix runs the whole program: hosts stream in while
// the user navigates to a finding, copies its fix over OSC 52 and quits.
func TestProgramLiveScanToFix(t *testing.T) {
	m := NewModel(context.Background(), Options{Title: "live test", Hosts: []string{"esx01", "esx02", "esx03"}, Analyze: testAnalyze})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	wait := func(what string, cond func([]byte) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), cond, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	has := func(s string) func([]byte) bool {
		return func(b []byte) bool { return bytes.Contains(b, []byte(s)) }
	}
	wait("first frame", has("collecting: 0 of 3 hosts finished"))

	res := testResults()
	tm.Send(EventMsg{Host: "esx02", Phase: hostio.PhaseCollecting, Done: 2, Total: 9})
	wait("progress", has("collecting 2 of 9"))
	tm.Send(EventMsg{Host: "esx02", Phase: hostio.PhaseDone, Result: &res[1]})
	tm.Send(EventMsg{Host: "esx01", Phase: hostio.PhaseDone, Result: &res[0]})
	tm.Send(EventMsg{Host: "esx03", Phase: hostio.PhaseFailed, Err: res[2].Reason, Result: &res[2]})
	// The renderer writes cell diffs, so wait for text that appears whole:
	// esx03's verdict exists only once an analysis included every host.
	wait("scan analyzed", has("NOT CHECKED: SSH refused"))

	tm.Send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("evidence", has("no RDMA device listed"))
	tm.Send(tea.KeyPressMsg{Code: 'c', Text: "c"})
	osc52 := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(testFindings()[0].Fix))
	wait("OSC 52", has(osc52))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})

	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	out := final.View().Content
	if !strings.Contains(stripANSI(out), "└ no RDMA device listed") {
		t.Fatalf("final screen:\n%s", stripANSI(out))
	}
	testutil.RequireGolden(t, out, golden.RequireEqual)
}
