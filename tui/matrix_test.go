package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// pathRun is a scan of a lab whose esx03's switch port carries only 1500
// (every path from and to it blocked), probed --probes all, analysed by
// the real pipeline.
func pathRun(t testing.TB) Options {
	t.Helper()
	fl, net, err := fixtures.PathLab(4, map[int]int{2: 1500})
	if err != nil {
		t.Fatal(err)
	}
	net.RTT = 30 * time.Microsecond
	var targets []hostio.Target
	var names []string
	for _, h := range fl.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name})
		names = append(names, h.Name)
	}
	res := collect.Collect(context.Background(), targets, collect.Options{Runner: fl.Runner(), Probes: true, ProbeMode: collect.ProbesAll,
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }})
	an := func(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
		a := analysis.Run(rs, analysis.Options{Meta: report.Meta{Source: "path lab", Version: "test", Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}})
		return a.Report, a.Fleet
	}
	return Options{Title: "path lab", Hosts: names, Results: res, Analyze: an}
}

// The matrix page: m from the overview, the blocked row and column in
// red, ←→ and ↑↓ move the cell, enter shows the pair's probes.
func TestMatrixScreens(t *testing.T) {
	walks := []struct {
		name string
		keys []string
	}{
		{"matrix", []string{"m"}},
		{"matrix_cell", []string{"m", "j", "j", "right"}},
		{"matrix_pair", []string{"m", "right", "right", "enter"}},
	}
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, w := range walks {
			t.Run(fmt.Sprintf("%s_%dx%d", w.name, size[0], size[1]), func(t *testing.T) {
				opts := pathRun(t)
				m := newTestModel(t, size[0], size[1], func(o *Options) { *o = opts })
				press(t, m, w.keys...)
				testutil.RequireGolden(t, m.View().Content, golden.RequireEqual)
			})
		}
	}
	opts := pathRun(t)
	m := newTestModel(t, 160, 48, func(o *Options) { *o = opts })
	press(t, m, "m", "right", "right", "enter")
	out := stripANSI(m.View().Content)
	for _, want := range []string{"esx0001 -> esx0003: blocked, path MTU 1500 of 9000 configured (RDMA MTU 1024)", "critical PATH_MTU_BLOCKED",
		"1500 B  1 sent, 1 received", "1501 B  1 sent, 0 received: lost", "vmkping -I vmk1 -c 1 -W 1 -d -s 1473 192.168.50.7"} {
		if !strings.Contains(out, want) {
			t.Errorf("pair page lacks %q:\n%s", want, out)
		}
	}
	press(t, m, "esc", "esc")
	if _, ok := m.page().(*overviewPage); !ok {
		t.Errorf("esc twice does not return to the overview: %T", m.page())
	}
}

// The matrix in the running program (teatest): opened from the overview
// once the analysis is in, a failing pair opened with enter.
func TestMatrixProgram(t *testing.T) {
	opts := pathRun(t)
	tm := teatest.NewTestModel(t, NewModel(context.Background(), opts), teatest.WithInitialTermSize(120, 30))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait("BROKEN")
	tm.Send(tea.KeyPressMsg{Code: 'm', Text: "m"})
	wait("fleet minimum 1500")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyRight})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyRight})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("smallest first")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if out := stripANSI(final.View().Content); !strings.Contains(out, "esx0001 -> esx0003") {
		t.Fatalf("final screen:\n%s", out)
	}
}
