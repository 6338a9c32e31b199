package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// bigFleet is n hosts with perHost findings each (a mix of severities).
func bigFleet(n, perHost int) ([]string, []hostio.HostResult, func([]hostio.HostResult) (*report.Report, *facts.Fleet)) {
	names := make([]string, n)
	results := make([]hostio.HostResult, n)
	var fs []checks.Finding
	sevs := []checks.Severity{checks.Critical, checks.Warning, checks.Info}
	for i := range n {
		name := fmt.Sprintf("esx%04d.lab.example.com", i)
		names[i] = name
		results[i] = hostio.HostResult{Host: name, Transport: "ssh", Status: hostio.StatusCollected, Duration: time.Second,
			Captures: []hostio.Capture{{Host: name, Command: cmdRDMAList, Stdout: "Name  Driver\n", Status: hostio.StatusCollected}}}
		for j := range perHost {
			fs = append(fs, checks.Finding{RuleID: fmt.Sprintf("RULE_%02d", j), Severity: sevs[j%3], Status: checks.StatusFail,
				Host: name, Subject: fmt.Sprintf("vm-%d-%d (PVRDMA adapter 0)", i, j), Message: "a problem that needs a fix, described at some length",
				Fix: "do this", Evidence: []checks.Evidence{{Host: name, Command: cmdRDMAList, Line: 1}}})
		}
	}
	analyze := func(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
		fl := &facts.Fleet{}
		checks.SortFindings(fs)
		return report.Build(rs, fl, checks.Result{Findings: fs}, nil, report.Meta{Source: "bench", Now: time.Unix(0, 0)}), fl
	}
	return names, results, analyze
}

// bigFleetModel is the model of bigFleet(1000, 20) in a w x h terminal.
func bigFleetModel(w, h int) *Model {
	names, results, analyze := bigFleet(1000, 20)
	m := NewModel(context.Background(), Options{Hosts: names, Results: results, Analyze: analyze})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// benchView times rendering m's current screen.
func benchView(b *testing.B, m *Model) {
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkOverview1000Hosts renders one frame of the overview of 1,000
// hosts with 20 findings each (the budget is 16 ms per frame).
func BenchmarkOverview1000Hosts(b *testing.B) {
	m := bigFleetModel(200, 60)
	press(b, m, "j", "j", "pgdown", "pgdown") // somewhere in the middle
	benchView(b, m)
}

// BenchmarkOverview1000HostsKeypress is a key press (move down, filter
// cache intact) followed by a frame.
func BenchmarkOverview1000HostsKeypress(b *testing.B) {
	m := bigFleetModel(200, 60)
	down := keyMsg("j")
	b.ResetTimer()
	for b.Loop() {
		m.Update(down)
		_ = m.View()
	}
}

// BenchmarkOverview1000HostsFiltered types one filter character (the
// filter runs over every host and its findings) and renders.
func BenchmarkOverview1000HostsFiltered(b *testing.B) {
	m := bigFleetModel(200, 60)
	press(b, m, "/")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.input.SetValue(fmt.Sprintf("esx0%d", i%10))
		m.syncFilter()
		_ = m.View()
	}
}

// BenchmarkFinding renders a finding with its evidence output.
func BenchmarkFinding(b *testing.B) {
	m := bigFleetModel(200, 60)
	press(b, m, "enter", "enter")
	benchView(b, m)
}

func TestBigFleetVirtualizesRows(t *testing.T) {
	m := bigFleetModel(120, 24)
	press(t, m, "G")
	scr := screen(m)
	mustContain(t, scr, "▶ esx0999.lab.example.com", "  esx0983.lab.example.com")
	mustNotContain(t, scr, "esx0982.lab.example.com", "esx0000")
	press(t, m, "g")
	mustContain(t, screen(m), "▶ esx0000.lab.example.com")
}
