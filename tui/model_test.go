package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func mustContain(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("screen lacks %q:\n%s", w, s)
		}
	}
}

func mustNotContain(t *testing.T, s string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(s, b) {
			t.Fatalf("screen should not show %q:\n%s", b, s)
		}
	}
}

// lineWith returns the first screen line containing s.
func lineWith(t *testing.T, scr, s string) string {
	t.Helper()
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line with %q:\n%s", s, scr)
	return ""
}

func TestOverviewShowsFleetAndHosts(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	scr := screen(m)
	mustContain(t, scr, "PVRDMA is BROKEN", "test fleet (hand-built)", "HOST", "CRIT", "WARN", "RDMA", "VMS")
	row := lineWith(t, scr, "esx02")
	if !strings.HasPrefix(row, "  esx02") {
		t.Errorf("esx02 should not be selected: %q", row)
	}
	mustContain(t, lineWith(t, scr, "esx03"), "failed", "NOT CHECKED: SSH refused")
	mustContain(t, lineWith(t, scr, "esx01"), "▶ esx01", "done 1.2s", "DEGRADED")
	// Keys are hinted in the footer.
	mustContain(t, scr, "enter open", "? help", "q quit")
}

func TestDrillDownToEvidenceAndBack(t *testing.T) {
	m := newTestModel(t, 100, 30, nil)
	press(t, m, "j", "enter")
	scr := screen(m)
	mustContain(t, scr, "pvrdma-doctor › esx02", "TEST_TCP_FALLBACK", "not eval")
	// Failures first: the critical finding is selected.
	mustContain(t, lineWith(t, scr, "TEST_TCP_FALLBACK"), "▶ critical")

	press(t, m, "enter")
	scr = screen(m)
	mustContain(t, scr, "pvrdma-doctor › esx02 › TEST_TCP_FALLBACK",
		"CRITICAL TEST_TCP_FALLBACK  PVRDMA traffic between hosts falls back to TCP",
		"Why it matters: When one of two hosts",
		"Fix (c copies): On esx02: install an RoCE NIC",
		"Evidence 1 of 2 (tab: next): `esxcli rdma device list`: no RDMA device listed",
		"Paired Uplink", "└ no RDMA device listed")

	// tab: the second evidence is on another host, with its line highlighted.
	press(t, m, "tab")
	scr = screen(m)
	mustContain(t, scr, "Evidence 2 of 2 (tab: next): line 3 of `esxcli rdma device list` on esx01")
	mustContain(t, lineWith(t, scr, "vmrdma0  nmlx5_rdma"), "▶ 3 │")

	// esc goes back to the same list, same selection, then to the overview.
	press(t, m, "esc")
	mustContain(t, lineWith(t, screen(m), "TEST_TCP_FALLBACK"), "▶ critical")
	press(t, m, "esc")
	mustContain(t, lineWith(t, screen(m), "esx02"), "▶ esx02")
	press(t, m, "esc") // nothing above the overview: stays
	if len(m.stack) != 1 {
		t.Fatalf("stack = %d screens", len(m.stack))
	}
}

func TestEvidenceLineScrolledIntoView(t *testing.T) {
	m := newTestModel(t, 80, 24, nil)
	press(t, m, "enter", "enter") // esx01 -> its warning finding
	scr := screen(m)
	mustContain(t, scr, "TEST_LOW_MTU", "line 18 of `vsish -e cat")
	hit := lineWith(t, scr, "Active MTU:1024")
	if !strings.HasPrefix(hit, "▶ 18 │") {
		t.Fatalf("evidence line not highlighted: %q", hit)
	}
	// The output starts far above: line 1 is scrolled away, the hit is in view.
	mustNotContain(t, scr, " 1 │ PVRDMA Device Properties")
	// The highlight is styled, not just marked.
	if !strings.Contains(m.View().Content, stHit.Render("▶ 18 │    Active MTU:1024")) {
		t.Fatal("evidence line is not rendered with the highlight style")
	}
	// j/k scroll the output; g jumps to its top.
	press(t, m, "g")
	mustContain(t, screen(m), " 1 │ PVRDMA Device Properties")
	// Mouse wheel scrolls too (the page is one document).
	for range 5 {
		run(t, m, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	mustNotContain(t, screen(m), " 1 │ PVRDMA Device Properties")
	for range 5 {
		run(t, m, tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	}
	mustContain(t, screen(m), " 1 │ PVRDMA Device Properties")
	// Scrolling reaches everything: the fix, in full, above the output.
	press(t, m, "g")
	mustContain(t, screen(m), "modprobe -r vmw_pvrdma && modprobe vmw_pvrdma.")
}

func TestWhyTruncatedAndExpanded(t *testing.T) {
	m := newTestModel(t, 60, 16, nil)
	press(t, m, "j", "enter", "enter")
	scr := screen(m)
	// Folded: why and fix give way, the evidence shows on the first screen.
	mustContain(t, scr, "(w: all)", "Evidence 1 of 2", "Paired Uplink")
	press(t, m, "w")
	scr = screen(m)
	mustNotContain(t, scr, "(w: all)")
	mustContain(t, scr, "  bandwidth.", "Fix (c copies)")
	// Unfolded, scrolling reaches the evidence.
	press(t, m, "G")
	mustContain(t, screen(m), "Evidence 1 of 2", "no RDMA device listed")
	press(t, m, "w")
	mustContain(t, screen(m), "(w: all)", "Evidence 1 of 2")
}

func TestCopyFixUsesOSC52(t *testing.T) {
	m := newTestModel(t, 100, 30, nil)
	press(t, m, "j", "enter", "enter")
	_, cmd := m.Update(keyMsg("c"))
	if cmd == nil {
		t.Fatal("c returned no command")
	}
	msgs := execCmd(cmd)
	want := testFindings()[0].Fix
	if len(msgs) != 1 || fmt.Sprint(msgs[0]) != want {
		t.Fatalf("clipboard message = %#v, want the fix %q", msgs, want)
	}
	if got := fmt.Sprintf("%T", msgs[0]); got != "tea.setClipboardMsg" {
		t.Fatalf("c produced %s, not tea.SetClipboard", got)
	}
	mustContain(t, screen(m), "fix copied to the clipboard")
	// On a list, c explains instead of copying.
	press(t, m, "esc")
	_, cmd = m.Update(keyMsg("c"))
	if cmd != nil {
		t.Fatal("c on a list should not copy")
	}
	mustContain(t, screen(m), "open a finding to copy its fix")
}

func TestFilterHostsAndFindings(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	press(t, m, "/", "T", "C", "P")
	scr := screen(m)
	mustContain(t, scr, "filter: TCP")
	// Matches the rule ID found on esx02 only.
	mustContain(t, scr, "▶ esx02")
	mustNotContain(t, scr, "esx01", "esx03")
	press(t, m, "enter") // keep the filter, leave the input
	if m.mode != inputNone || m.top().filter != "TCP" {
		t.Fatalf("mode %v filter %q", m.mode, m.top().filter)
	}
	press(t, m, "enter") // opens esx02
	mustContain(t, screen(m), "pvrdma-doctor › esx02")
	press(t, m, "/", "z", "z")
	mustContain(t, screen(m), "no finding shown")
	press(t, m, "backspace", "backspace", "m", "t", "u")
	scr = screen(m)
	mustContain(t, scr, "TEST_LOW_MTU")
	mustNotContain(t, scr, "TEST_TCP_FALLBACK")
	press(t, m, "esc") // esc in the input clears the filter
	mustContain(t, screen(m), "TEST_TCP_FALLBACK")
	press(t, m, "esc", "esc") // back to the overview: its filter, then no filter
	mustContain(t, screen(m), "esx01", "esx03")
}

func TestSeverityToggles(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	// On the overview, a host whose problems are all hidden is hidden
	// (issue 37.9): esx02 has a critical finding only, esx01 a warning.
	press(t, m, "1")
	scr := screen(m)
	if strings.Contains(scr, "esx02 ") || !strings.Contains(scr, "esx01") {
		t.Errorf("critical hidden: the overview still shows esx02, or lost esx01:\n%s", scr)
	}
	press(t, m, "1")
	mustContain(t, screen(m), "esx02")
	press(t, m, "j", "enter")
	press(t, m, "1")
	scr = screen(m)
	mustNotContain(t, scr, "TEST_TCP_FALLBACK")
	mustContain(t, scr, "[1] critical: hidden · [2] warning: shown · [3] info: shown")
	press(t, m, "3")
	scr = screen(m)
	mustContain(t, scr, "no finding shown")
	mustContain(t, scr, "[1] critical: hidden", "[3] info: hidden")
	press(t, m, "1", "3")
	mustContain(t, screen(m), "TEST_TCP_FALLBACK", "TEST_LOW_MTU")
}

func TestHealthyHostSaysSo(t *testing.T) {
	m := newTestModel(t, 100, 24, func(o *Options) {
		o.Analyze = func(rs []hostio.HostResult) (*reportT, *factsT) {
			rep, fl := testAnalyze(rs)
			rep.Findings = rep.Findings[:0]
			rep.Hosts[0].Critical, rep.Hosts[0].Warning = 0, 0
			return rep, fl
		}
	})
	press(t, m, "enter")
	mustContain(t, screen(m), "No problem found on esx01: 1 check passed.")
}

func TestLiveCollectionProgress(t *testing.T) {
	var mu sync.Mutex
	var calls [][]string
	m := NewModel(context.Background(), Options{Hosts: []string{"esx01", "esx02", "esx03"}, Analyze: testAnalyze,
		Rescan: func(_ context.Context, hosts []string) {
			mu.Lock()
			calls = append(calls, hosts)
			mu.Unlock()
		}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	scr := screen(m)
	mustContain(t, scr, "Scanning: 0 of 3 hosts done, 0 in progress, 3 queued", "collecting: 0 of 3 hosts finished")
	mustContain(t, lineWith(t, scr, "esx02"), "queued")

	res := testResults()
	run(t, m, EventMsg{Host: "esx01", Phase: hostio.PhaseConnecting})
	run(t, m, EventMsg{Host: "esx02", Phase: hostio.PhaseCollecting, Done: 3, Total: 14})
	run(t, m, EventMsg{Host: "esx03", Phase: hostio.PhaseWaiting})
	scr = screen(m)
	mustContain(t, lineWith(t, scr, "esx01"), "connecting")
	mustContain(t, lineWith(t, scr, "esx02"), "collecting 3 of 14")
	mustContain(t, lineWith(t, scr, "esx03"), "waiting for peers")
	run(t, m, EventMsg{Host: "esx02", Phase: hostio.PhaseProbing, Done: 14, Total: 17})
	mustContain(t, lineWith(t, screen(m), "esx02"), "probing 14 of 17")

	// A finished host only counts: the analysis runs once, when the
	// collection ends.
	run(t, m, EventMsg{Host: "esx02", Phase: hostio.PhaseDone, Done: 17, Total: 17, Result: &res[1]})
	scr = screen(m)
	// The headline is the scan's progress, not a verdict over one host.
	mustContain(t, scr, "Scanning: 1 of 3 hosts done, 2 in progress", "collecting: 1 of 3 hosts finished")
	mustNotContain(t, scr, "PVRDMA is")
	mustNotContain(t, lineWith(t, scr, "esx02"), "BROKEN")
	mustContain(t, lineWith(t, scr, "esx01"), "connecting")

	// A host still being collected cannot be rescanned.
	press(t, m, "k", "r")
	mustContain(t, screen(m), "esx01 still being collected")

	run(t, m, EventMsg{Host: "esx03", Phase: hostio.PhaseFailed, Err: res[2].Reason, Result: &res[2]})
	run(t, m, EventMsg{Host: "esx01", Phase: hostio.PhaseDone, Result: &res[0]})
	scr = screen(m)
	mustContain(t, scr, "3 hosts scanned", "PVRDMA is BROKEN")
	mustNotContain(t, scr, "Scanning:")
	mustContain(t, lineWith(t, scr, "esx03"), "failed")

	// r rescans the selected host, R every host.
	press(t, m, "j", "r")
	mustContain(t, lineWith(t, screen(m), "esx02"), "queued")
	mustContain(t, screen(m), "Scanning: 2 of 3 hosts done, 0 in progress, 1 queued")
	press(t, m, "R")
	mustContain(t, screen(m), "still being collected")
	for _, r := range res {
		r := r
		run(t, m, EventMsg{Host: r.Host, Phase: hostio.PhaseDone, Result: &r})
	}
	press(t, m, "R")
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || strings.Join(calls[0], ",") != "esx02" || strings.Join(calls[1], ",") != "esx01,esx02,esx03" {
		t.Fatalf("rescans = %v", calls)
	}
}

// The analysis runs once, when the collection ends (not per finished
// host), and no verdict shows while it runs.
func TestAnalysisRunsOnceWhenCollectionEnds(t *testing.T) {
	n := 0
	m := NewModel(context.Background(), Options{Hosts: []string{"esx01", "esx02"},
		Analyze: func(rs []hostio.HostResult) (*reportT, *factsT) { n++; return testAnalyze(rs) }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	res := testResults()
	_, c1 := m.Update(EventMsg{Host: "esx01", Phase: hostio.PhaseDone, Result: &res[0]})
	if c1 != nil {
		t.Fatal("an analysis started while a host was still being collected")
	}
	_, c2 := m.Update(EventMsg{Host: "esx02", Phase: hostio.PhaseDone, Result: &res[1]})
	if c2 == nil {
		t.Fatal("no analysis when the collection ended")
	}
	scr := screen(m)
	mustContain(t, scr, "Analyzing 2 hosts...")
	mustContain(t, scr, "analyzing")
	msgs := execCmd(c2)
	if scr := screen(m); strings.Contains(scr, msgs[0].(analysisMsg).rep.Verdict) {
		t.Fatalf("the verdict shows before the analysis ended:\n%s", scr)
	}
	_, c3 := m.Update(msgs[0])
	if c3 != nil {
		t.Fatal("a second analysis of the same results")
	}
	if n != 1 || len(m.rep.Hosts) != 2 {
		t.Fatalf("analyses = %d, hosts in report = %d", n, len(m.rep.Hosts))
	}
	mustContain(t, screen(m), wrap(m.rep.Verdict, 98)[0])
}

// q quits while an analysis is running: it never waits for it.
func TestQuitWhileAnalyzing(t *testing.T) {
	held := make(chan struct{})
	defer close(held)
	m := NewModel(context.Background(), Options{Hosts: []string{"esx01"},
		Analyze: func(rs []hostio.HostResult) (*reportT, *factsT) { <-held; return testAnalyze(rs) }})
	res := testResults()
	if _, c := m.Update(EventMsg{Host: "esx01", Phase: hostio.PhaseDone, Result: &res[0]}); c == nil || !m.analyzing {
		t.Fatal("no analysis when the collection ended")
	}
	// The analysis command is never run here: it stays held.
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil {
		t.Fatal("q gave no command while analyzing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit while analyzing")
	}
}

func TestRescanAndBundleUnavailableOffline(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	press(t, m, "r")
	mustContain(t, screen(m), "rescan is not available")
	press(t, m, "b")
	mustContain(t, screen(m), "support bundle export is not available")
}

func TestFindingGoneAfterRescan(t *testing.T) {
	m := NewModel(context.Background(), Options{Hosts: []string{"esx02"}, Analyze: testAnalyze,
		Rescan: func(context.Context, []string) {}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	res := testResults()
	run(t, m, EventMsg{Host: "esx02", Phase: hostio.PhaseDone, Result: &res[1]})
	press(t, m, "enter", "enter")
	mustContain(t, screen(m), "Fix (c copies)")
	fixed := res[1]
	fixed.Host = "esx02"
	m.opts.Analyze = func(rs []hostio.HostResult) (*reportT, *factsT) {
		rep, fl := testAnalyze(rs)
		rep.Findings = nil
		return rep, fl
	}
	run(t, m, EventMsg{Host: "esx02", Phase: hostio.PhaseDone, Result: &fixed})
	mustContain(t, screen(m), "This finding is no longer reported.")
}

func TestBundleExport(t *testing.T) {
	var got string
	m := newTestModel(t, 120, 24, func(o *Options) {
		o.BundlePath = "bundle-x.tar.gz"
		o.ExportBundle = func(path string) error {
			got = path
			if strings.Contains(path, "bad") {
				return errors.New("disk full")
			}
			return nil
		}
	})
	press(t, m, "b")
	mustContain(t, screen(m), "write support bundle to: bundle-x.tar.gz")
	// Keys go to the prompt, not to the screen: q types a q.
	press(t, m, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "q", "z")
	press(t, m, "enter")
	if got != "bundle-x.qz" {
		t.Fatalf("exported to %q", got)
	}
	mustContain(t, screen(m), "support bundle written to bundle-x.qz")
	press(t, m, "b", "ctrl+c")
	if m.mode != inputBundle {
		// ctrl+c quits even from a prompt; the model stays in the prompt.
		t.Fatal("prompt closed")
	}
	m.mode = inputNone
	press(t, m, "b")
	m.input.SetValue("bad.tgz")
	press(t, m, "enter")
	mustContain(t, screen(m), "bundle not written: disk full")
	press(t, m, "b", "esc")
	mustContain(t, screen(m), "[1] critical: shown")
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := newTestModel(t, 80, 24, nil)
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s does not quit", k)
		}
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	m := newTestModel(t, 80, 40, nil)
	press(t, m, "?")
	scr := screen(m)
	for _, g := range m.keys.groups() {
		for _, b := range g {
			mustContain(t, scr, b.Help().Key, b.Help().Desc)
		}
	}
	press(t, m, "?")
	mustContain(t, screen(m), "HOST")
}

func TestTopologyMarksBreaks(t *testing.T) {
	m := newTestModel(t, 120, 40, nil)
	press(t, m, "j", "t")
	scr := screen(m)
	mustContain(t, scr, "pvrdma-doctor › esx02 › topology", "VM hpc-node04",
		"✗ no physical HCA", "vmknic vmk1 · MTU 9000", "switch rdma-dvs · MTU 9000 · uplinks vmnic2",
		"✗ no RDMA device is paired with vmnic2", "this host has no RDMA device", "TEST_TCP_FALLBACK")
	press(t, m, "esc", "k", "t")
	scr = screen(m)
	mustContain(t, scr, "RDMA device vmrdma0 · Active · RDMA MTU 4096", "! MTU 1024 below the 4096 the path allows",
		"Path MTU 9000")
	mustNotContain(t, scr, "✗")
	press(t, m, "esc", "j", "j", "t")
	mustContain(t, screen(m), "✗ not collected: cannot connect")
}

func TestLayoutExactAtEverySize(t *testing.T) {
	sizes := [][2]int{{80, 24}, {160, 48}, {40, 12}, {24, 8}, {250, 60}}
	walks := [][]string{nil, {"j", "enter"}, {"j", "enter", "enter"}, {"enter", "enter"}, {"j", "t"}, {"?"}, {"/", "e"}}
	for _, sz := range sizes {
		for _, walk := range walks {
			m := newTestModel(t, sz[0], sz[1], nil)
			press(t, m, walk...)
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) != sz[1] {
				t.Fatalf("%dx%d after %v: %d lines", sz[0], sz[1], walk, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != sz[0] {
					t.Fatalf("%dx%d after %v: line %d is %d cells wide: %q", sz[0], sz[1], walk, i, w, ansi.Strip(l))
				}
			}
		}
	}
}

func TestHostOutputCannotInjectEscapes(t *testing.T) {
	res := testResults()
	res[1].Captures[0].Stdout = "Name\n\x1b[2J\x1b]52;c;ZXZpbA==\x07evil\tcol\n"
	m := NewModel(context.Background(), Options{Hosts: []string{"esx02"}, Results: res[1:2], Analyze: testAnalyze})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(t, m, "enter", "enter")
	out := m.View().Content
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x07") {
		t.Fatal("raw escape sequences from host output reached the screen")
	}
	mustContain(t, screen(m), `\x1b[2J\x1b]52;c;ZXZpbA==\x07evil        col`)
}

// footer returns the last line of the screen.
func footer(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-1]
}

// TestFooterFitsAt80Columns: the keys that lead on are all in the footer
// of an 80-column overview, none cut off.
func TestFooterFitsAt80Columns(t *testing.T) {
	live := func(o *Options) {
		o.Rescan = func(context.Context, []string) {}
		o.ExportBundle = func(string) error { return nil }
	}
	m := newTestModel(t, 80, 24, live)
	f := footer(m)
	mustContain(t, f, "enter open", "esc ", "/ filter", "r rescan", "b bundle", "? help", "q quit")
	mustNotContain(t, f, "…")
	for _, walk := range [][]string{nil, {"j", "enter"}, {"j", "enter", "enter"}, {"t"}, {"?"}} {
		for w := 30; w <= 200; w += 7 {
			m := newTestModel(t, w, 24, live)
			press(t, m, walk...)
			f := footer(m)
			mustNotContain(t, f, "…")
			mustContain(t, f, "? help", "q quit")
			if w >= 80 && len(walk) > 0 && walk[0] != "?" {
				mustContain(t, f, "esc back")
			}
		}
	}
}

// TestFooterFollowsWhyToggle: w swaps the evidence for the full text, and
// the footer says how to get the evidence back.
func TestFooterFollowsWhyToggle(t *testing.T) {
	m := newTestModel(t, 80, 24, nil)
	press(t, m, "j", "enter", "enter")
	mustContain(t, footer(m), "w why", "tab/n evidence")
	press(t, m, "w")
	mustContain(t, footer(m), "w evidence")
	mustNotContain(t, footer(m), "w why", "tab/n")
	press(t, m, "w")
	mustContain(t, footer(m), "w why")
}

// TestOverviewFilterIgnoresNotEvaluated: a rule ID matches the hosts where
// that rule fails, not those where it could not be evaluated.
func TestOverviewFilterIgnoresNotEvaluated(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	press(t, m, "/", "L", "O", "W", "_", "M", "T", "U", "enter")
	scr := screen(m)
	mustContain(t, scr, "esx01")
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "esx02 ") || strings.Contains(l, "esx03 ") {
			t.Fatalf("TEST_LOW_MTU is only not evaluated on esx02/esx03, yet the filter lists: %q\n%s", l, scr)
		}
	}
	// A failing finding still matches.
	press(t, m, "esc", "/", "F", "A", "L", "L", "B", "A", "C", "K", "enter")
	mustContain(t, screen(m), "esx02 ")
}

// TestBundleExportNamesTokenMap: after a redacted bundle, the message says
// where its token map is, in full, even at 80 columns.
func TestBundleExportNamesTokenMap(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/pvrdma-doctor-bundle-20260301-120000.tar.gz"
	m := newTestModel(t, 80, 24, func(o *Options) {
		o.BundlePath = path
		o.ExportBundle = func(p string) error {
			if err := os.WriteFile(p, []byte("bundle"), 0o600); err != nil {
				return err
			}
			if strings.Contains(p, "redacted") {
				return os.WriteFile(p+".tokens.json", []byte("{}"), 0o600)
			}
			return nil
		}
	})
	press(t, m, "b", "enter")
	scr := screen(m)
	mustContain(t, scr, "support bundle written to")
	mustNotContain(t, scr, "token map")

	m.input.SetValue("")
	press(t, m, "b")
	m.input.SetValue(dir + "/redacted.tar.gz")
	press(t, m, "enter")
	scr = screen(m)
	flat := strings.Join(strings.Fields(scr), " ")
	mustContain(t, flat, dir+"/redacted.tar.gz.tokens.json", "keep it private")
	if n := len(strings.Split(scr, "\n")); n != 24 {
		t.Fatalf("screen has %d lines", n)
	}
}

// TestHostNotesShownAndMarked: a host key note is wrapped in full on the
// host screen and the host is marked on the overview, with a legend.
func TestHostNotesShownAndMarked(t *testing.T) {
	note := "host key NOT verified (--insecure-ignore-host-key): the connection to 10.0.0.1:22 could be intercepted"
	withNote := func(o *Options) { o.Results[0].Notes = []string{note} }
	for _, w := range []int{80, 120, 160} {
		m := newTestModel(t, w, 24, withNote)
		scr := screen(m)
		mustContain(t, lineWith(t, scr, "esx01"), "esx01 !")
		mustNotContain(t, lineWith(t, scr, "esx02"), "!")
		mustContain(t, scr, "! 1 host with notes")
		press(t, m, "enter")
		scr = screen(m)
		var noteLines []string
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, "SEVERITY") {
				break
			}
			if strings.HasPrefix(l, " ! note:") || len(noteLines) > 0 {
				noteLines = append(noteLines, l)
			}
		}
		sameWords(t, "note", w, wordsOf(noteLines), "! note: "+note)
		// The findings list still shows its rows under the longer header.
		mustContain(t, scr, "TEST_LOW_MTU")
	}
}

// "Copy fix" puts exactly the text shown on the clipboard: a control
// sequence in a host-supplied value is copied as its visible escape, never
// raw (an OSC 52 in a VM name must not reach the clipboard or the screen).
func TestCopyFixCopiesWhatIsShown(t *testing.T) {
	hostile := func(rs []hostio.HostResult) (*reportT, *factsT) {
		r, f := testAnalyze(rs)
		for i := range r.Findings {
			if r.Findings[i].Fix != "" {
				r.Findings[i].Fix = "power-cycle vm\x1b]52;c;cm0gLXJmIH4=\x07 \u202eevil"
			}
		}
		return r, f
	}
	m := newTestModel(t, 120, 40, func(o *Options) { o.Analyze = hostile })
	press(t, m, "j", "enter", "enter")
	if s := m.View().Content; strings.Contains(s, "\x1b]52") || strings.Contains(s, "\u202e") {
		t.Fatal("raw control sequence on screen")
	}
	shown := `power-cycle vm\x1b]52;c;cm0gLXJmIH4=\x07 \u202eevil`
	mustContain(t, screen(m), shown)
	var copied []tea.Msg
	_, cmd := m.Update(keyMsg("c"))
	copied = execCmd(cmd)
	if len(copied) != 1 {
		t.Fatalf("copy produced %v", copied)
	}
	if got := fmt.Sprint(copied[0]); got != shown {
		t.Fatalf("clipboard gets %q, the screen shows %q", got, shown)
	}
}

// Two quick Escapes reach the program as one alt+esc: they close two
// levels, as two separate presses do.
func TestTwoQuickEscapesCloseTwoLevels(t *testing.T) {
	m := newTestModel(t, 80, 24, nil)
	press(t, m, "j", "enter", "enter")
	if len(m.stack) != 3 {
		t.Fatalf("stack %d", len(m.stack))
	}
	run(t, m, tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt})
	if len(m.stack) != 1 {
		t.Fatalf("after ESC ESC the stack has %d screens, want the overview", len(m.stack))
	}
}

// On the path matrix, ←→ (and h l) only move the column, even at its
// edges: they never go back or open; esc goes back, enter opens.
func TestMatrixArrowsNeverGoBackOrOpen(t *testing.T) {
	opts := pathRun(t)
	m := newTestModel(t, 80, 24, func(o *Options) { *o = opts })
	press(t, m, "m")
	press(t, m, "left", "left", "h")
	if _, ok := m.page().(*matrixPage); !ok || len(m.stack) != 2 {
		t.Fatalf("← at the first column left the matrix (stack %d)", len(m.stack))
	}
	mustContain(t, screen(m), "first column (esc goes back)")
	press(t, m, "right", "right", "right", "right", "right", "l")
	if _, ok := m.page().(*matrixPage); !ok {
		t.Fatal("→ at the last column opened something")
	}
	press(t, m, "enter")
	if _, ok := m.page().(*pairPage); !ok {
		t.Fatal("enter did not open the pair")
	}
	press(t, m, "esc", "esc")
	if len(m.stack) != 1 {
		t.Fatalf("esc esc: stack %d", len(m.stack))
	}
}

// At 60x20 and 80x24 every finding shows its evidence on the first
// screen, and scrolling reaches every line of the page.
func TestFindingShowsEvidenceAtSmallSizes(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}} {
		m := newTestModel(t, size[0], size[1], nil)
		for _, walk := range [][]string{{"enter", "enter"}, {"j", "enter", "enter"}, {"j", "enter", "j", "enter"}} {
			press(t, m, "esc", "esc", "esc", "g")
			press(t, m, walk...)
			p, ok := m.page().(*findingPage)
			if !ok {
				t.Fatalf("%v: not a finding", walk)
			}
			scr := screen(m)
			f, _ := p.finding()
			if len(f.Evidence) > 0 && !strings.Contains(scr, "│") && !strings.Contains(scr, "└") {
				t.Errorf("%dx%d %v: no evidence line on the first screen:\n%s", size[0], size[1], walk, scr)
			}
			lay, _ := p.layout()
			all := lay.lines()
			seen := map[int]bool{}
			press(t, m, "g")
			for range len(all) + 2 {
				for i := p.offset; i < min(p.offset+m.bodyHeight(), len(all)); i++ {
					seen[i] = true
				}
				press(t, m, "j")
			}
			if len(seen) != len(all) {
				t.Errorf("%dx%d %v: scrolling reached %d of %d lines", size[0], size[1], walk, len(seen), len(all))
			}
		}
	}
}

type panicPage struct{ scrollPage }

func (p *panicPage) Update(tea.Msg) (page, tea.Cmd) { return p, nil }

func (p *panicPage) crumbs(trail []string) []string { return append(trail, "broken") }

func (panicPage) View() []string { panic("broken section") }

// A page that panics on a broken section says so; the UI keeps running.
func TestBrokenPageDoesNotCrash(t *testing.T) {
	m := newTestModel(t, 80, 24, nil)
	m.push(&panicPage{scrollPage{s: m.shared, name: "esx01", lines: func() []string { return nil }}})
	scr := screen(m)
	mustContain(t, scr, "screen could not be shown: internal error (broken section")
	press(t, m, "esc")
	mustContain(t, screen(m), "HOST")
}

// s opens the readiness table of the whole fleet from any screen; esc
// goes back to where it was opened.
func TestReadinessPage(t *testing.T) {
	m := newTestModel(t, 120, 40, nil)
	press(t, m, "j", "enter", "s")
	scr := screen(m)
	mustContain(t, scr, "pvrdma-doctor › esx02 › readiness", "READINESS: host setup for PVRDMA",
		"HOST   NIC  UPLINK  TAG  FW  MTU  LOSSLESS", "esx02  ✗", "1 PVRDMA VM", "✓ done  ✗ not done  ? not read  - does not apply",
		"✗ no RDMA device")
	press(t, m, "s") // already there: nothing opens on top
	press(t, m, "esc")
	mustContain(t, screen(m), "pvrdma-doctor › esx02")
	mustNotContain(t, screen(m), "READINESS")
}

// Evidence wider than the screen scrolls sideways (issue 37.9): < and >
// move every output line by 20 columns, the label says where it is.
func TestEvidenceScrollsSideways(t *testing.T) {
	m := newTestModel(t, 50, 30, nil)
	press(t, m, "j", "enter", "enter", "tab")
	scr := screen(m)
	mustContain(t, strings.Join(strings.Fields(scr), " "), "< >: sideways, from column 1 of")
	before := lineWith(t, scr, "▶ 3 │")
	press(t, m, ">")
	scr = screen(m)
	mustContain(t, strings.Join(strings.Fields(scr), " "), "< >: sideways, from column 21 of")
	if strings.Contains(scr, "▶ 3 │") {
		t.Errorf("> did not scroll the output sideways:\n%s", scr)
	}
	press(t, m, "<")
	if got := lineWith(t, screen(m), "▶ 3 │"); got != before {
		t.Errorf("< did not scroll back: %q, was %q", got, before)
	}
}
