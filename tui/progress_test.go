package tui

import (
	"context"
	"fmt"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// TestProgressCostsFramesNotEvents feeds 200 hosts x 40 commands of
// progress through the feed Program.Send uses, with a frame tick the test
// fires itself every 500 events: the UI gets one wake message and one
// tick per frame (so one or two renders), not one per event; every host's
// latest state and every finished result still reach the UI, and the
// collection's end makes one analysis.
func TestProgressCostsFramesNotEvents(t *testing.T) {
	const hosts, commands, perFrame = 200, 40, 500
	names := make([]string, hosts)
	for i := range names {
		names[i] = fmt.Sprintf("esx%03d", i)
	}
	var mu sync.Mutex
	analyses := 0
	m := NewModel(context.Background(), Options{Hosts: names,
		Analyze: func(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
			mu.Lock()
			analyses++
			mu.Unlock()
			return testAnalyze(rs)
		}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	wakes, ticks, msgs, renders := 0, 0, 0, 0
	m.feed = newProgressFeed(func() { wakes++ })
	m.tick = func() tea.Cmd { ticks++; return nil } // the test fires the frame
	deliver := func(msg tea.Msg) {
		msgs++
		_, cmd := m.Update(msg)
		for _, out := range execCmd(cmd) {
			if _, ok := out.(analysisMsg); ok {
				msgs++
				m.Update(out)
			}
		}
		_ = m.View()
		renders++
	}
	pendingWake := 0
	sent := 0
	frame := func() {
		for ; pendingWake < wakes; pendingWake++ {
			deliver(progressMsg{})
		}
		deliver(frameMsg{})
	}
	results := make([]hostio.HostResult, hosts)
	for c := 1; c <= commands; c++ {
		for i, h := range names {
			ev := hostio.Event{Host: h, Phase: hostio.PhaseCollecting, Done: c, Total: commands}
			if c == commands {
				results[i] = hostio.HostResult{Host: h, Transport: "test", Status: hostio.StatusNotCollected, Reason: "connection refused"}
				ev = hostio.Event{Host: h, Phase: hostio.PhaseDone, Done: c, Total: commands, Result: &results[i]}
			}
			m.feed.add(ev)
			sent++
			if sent%perFrame == 0 {
				frame()
			}
			if c == commands/2 && i == hosts-1 {
				// Mid-way, each host shows its latest counters.
				frame()
				mustContain(t, lineWith(t, screen(m), "esx007"), fmt.Sprintf("collecting %d of %d", c, commands))
			}
		}
	}
	frame()
	frames := sent/perFrame + 2
	if sent != hosts*commands || m.feed.events != sent {
		t.Fatalf("sent %d events, the feed saw %d", sent, m.feed.events)
	}
	// Two messages per frame (the wake and the tick) and the analysis.
	if msgs > 2*frames+1 || renders > 2*frames {
		t.Fatalf("%d events cost %d messages and %d renders for %d frames, want O(frames)", sent, msgs, renders, frames)
	}
	if ticks != wakes || wakes > frames {
		t.Fatalf("%d wakes, %d ticks for %d frames", wakes, ticks, frames)
	}
	for _, r := range m.rows {
		if r.result == nil || r.phase != hostio.PhaseDone || r.done != commands {
			t.Fatalf("host %s: phase %s, %d of %d, result %v", r.name, r.phase, r.done, r.total, r.result != nil)
		}
	}
	if analyses != 1 || m.rep == nil {
		t.Fatalf("%d analyses (report %v), want one when the collection ended", analyses, m.rep != nil)
	}
}

// TestProgressFeedKeepsEveryResult: a host's newer state replaces its older
// one within a frame, but a finished result is never replaced by what
// follows it (a rescan started in the same frame).
func TestProgressFeedKeepsEveryResult(t *testing.T) {
	f := newProgressFeed(nil)
	res := hostio.HostResult{Host: "esx01"}
	f.add(hostio.Event{Host: "esx01", Phase: hostio.PhaseCollecting, Done: 1, Total: 3})
	f.add(hostio.Event{Host: "esx02", Phase: hostio.PhaseConnecting})
	f.add(hostio.Event{Host: "esx01", Phase: hostio.PhaseDone, Result: &res})
	f.add(hostio.Event{Host: "esx01", Phase: hostio.PhaseConnecting})
	f.add(hostio.Event{Host: "esx01", Phase: hostio.PhaseCollecting, Done: 2, Total: 3})
	got := f.take()
	want := []string{"esx01 done true", "esx02 connecting false", "esx01 collecting false"}
	if len(got) != len(want) {
		t.Fatalf("took %d events, want %d: %+v", len(got), len(want), got)
	}
	for i, ev := range got {
		if s := fmt.Sprintf("%s %s %v", ev.Host, ev.Phase, ev.Result != nil); s != want[i] {
			t.Errorf("event %d = %q, want %q", i, s, want[i])
		}
	}
	if len(f.take()) != 0 {
		t.Fatal("a frame took the same events twice")
	}
}

// A progressMsg changes nothing on screen (it only schedules the frame
// that takes the progress in): View returns the screen it drew last
// instead of drawing it again; any other message draws anew. The footer's
// key hints are measured once per set of hints and width.
func TestProgressMsgReusesTheLastFrame(t *testing.T) {
	m := newTestModel(t, 100, 24, nil)
	m.tick = func() tea.Cmd { return nil }
	first := m.View().Content
	// Changed behind the UI's back: only a redraw would show it.
	m.rows[0].phase = hostio.PhaseConnecting
	m.version++
	m.Update(progressMsg{})
	if got := m.View().Content; got != first {
		t.Fatalf("a progressMsg redrew the screen:\n%s", got)
	}
	m.Update(frameMsg{})
	if got := m.View().Content; got == first {
		t.Error("a frameMsg did not redraw the screen")
	}
	// The reuse lasts one View: a second one without a message draws anew.
	m.Update(progressMsg{})
	_ = m.View()
	m.rows[0].phase = hostio.PhaseCollecting
	m.version++
	if m.reuseFrame {
		t.Error("the reused frame outlived one View")
	}

	footer := m.footerLine()
	key := m.footerKey
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 24})
	if m.footerLine() == footer || m.footerKey == key {
		t.Errorf("the footer kept its 100-column hints at 60 columns: %q", m.footerLine())
	}
	if again := m.footerLine(); again != m.footer {
		t.Errorf("the memoised footer %q differs from the one drawn %q", m.footer, again)
	}
}
