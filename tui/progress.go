package tui

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// frameInterval is how often the UI takes in the collection's progress:
// 20 frames a second, however many events (1,000 hosts x ~40 commands
// are tens of thousands) arrive in between.
const frameInterval = time.Second / 20

// progressFeed is the collection's progress shared between the collector
// (Program.Send, from any goroutine) and the UI loop: events only update
// it, under its mutex; the UI takes what changed once a frame. Each
// host keeps only its latest state (its phase and counters), except that a
// finished result is never dropped (a rescan's new events come after it).
// The first event after a frame wakes the UI with one message (wake);
// the next frame's tick takes everything that came meanwhile, so N
// events cost O(frames) messages and renders, not O(N).
type progressFeed struct {
	wake func() // sends progressMsg to the UI loop

	mu      sync.Mutex
	pending []hostio.Event
	last    map[string]int // host -> index in pending of its latest event
	armed   bool           // a progressMsg is on its way or a tick pending
	events  int            // events added (tests)
}

// progressMsg tells the UI that progress is waiting; it answers with one
// tick (frameMsg) a frame later.
type progressMsg struct{}

// frameMsg is the frame tick: the UI takes the progress in.
type frameMsg struct{}

func newProgressFeed(wake func()) *progressFeed {
	return &progressFeed{wake: wake, last: map[string]int{}}
}

// add records one event; it wakes the UI only when no frame is pending.
func (f *progressFeed) add(ev hostio.Event) {
	f.mu.Lock()
	f.events++
	if i, ok := f.last[ev.Host]; ok && f.pending[i].Result == nil {
		f.pending[i] = ev // the host's newer state replaces its older one
	} else {
		f.last[ev.Host] = len(f.pending)
		f.pending = append(f.pending, ev)
	}
	wake := !f.armed
	f.armed = true
	f.mu.Unlock()
	if wake && f.wake != nil {
		f.wake()
	}
}

// take returns the events recorded since the last frame, in order, and
// lets the next event wake the UI again.
func (f *progressFeed) take() []hostio.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.pending
	f.pending = nil
	clear(f.last)
	f.armed = false
	return out
}

// frameTick is the tick that follows a progressMsg (tests replace it with
// a tick they fire themselves).
func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// onFrame takes in the progress of the last frame: each event as if it
// had come alone (onEvent), so per-host states, finished results and the
// one analysis when the collection ends are as before.
func (s *shared) onFrame() tea.Cmd {
	if s.feed == nil {
		return nil
	}
	var cmds []tea.Cmd
	for _, ev := range s.feed.take() {
		if c := s.onEvent(ev); c != nil {
			cmds = append(cmds, c)
		}
	}
	return tea.Batch(cmds...)
}
