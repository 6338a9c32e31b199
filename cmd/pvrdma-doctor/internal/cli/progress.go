package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// progressView shows a scan's progress on a terminal (stderr): a compact
// status block, redrawn in place, with one line per host in progress
// under a summary line; hosts that end badly get a permanent line above
// the block. It is also the io.Writer log lines go through, so that they
// print above the block instead of tearing it.
type progressView struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	total  int
	start  time.Time
	order  map[string]int
	active map[string]hostio.Event
	done   int
	failed int
	part   int
	drawn  int // lines of the block currently on screen
	dirty  bool
	over   bool
	stop   chan struct{}
}

// maxActiveLines bounds the hosts listed in the block.
const maxActiveLines = 8

func newProgressView(w io.Writer, targets []hostio.Target, width int) *progressView {
	if width <= 20 {
		width = 80
	}
	v := &progressView{w: w, width: width, total: len(targets), start: time.Now(),
		order: map[string]int{}, active: map[string]hostio.Event{}, stop: make(chan struct{})}
	for i, t := range targets {
		v.order[t.Name] = i
	}
	go v.loop()
	return v
}

// stderrWidth is the terminal width of stderr (0 if unknown).
func stderrWidth(s *IOStreams) int {
	if f, ok := s.ErrOut.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			return w
		}
	}
	return 0
}

func (v *progressView) loop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			v.mu.Lock()
			if v.dirty && !v.over {
				v.redrawLocked()
			}
			v.mu.Unlock()
		case <-v.stop:
			return
		}
	}
}

// Event is the collect.Options.Progress callback.
func (v *progressView) Event(ev hostio.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.over {
		return
	}
	switch ev.Phase {
	case hostio.PhaseDone, hostio.PhaseFailed:
		delete(v.active, ev.Host)
		v.done++
		if line := v.finishedLine(ev); line != "" {
			v.clearLocked()
			fmt.Fprintln(v.w, v.fit(line))
		}
	default:
		v.active[ev.Host] = ev
	}
	v.dirty = true
	if v.done >= v.total {
		v.finishLocked()
		return
	}
	if ev.Phase == hostio.PhaseDone || ev.Phase == hostio.PhaseFailed {
		v.redrawLocked()
	}
}

// finishedLine is the permanent line for a host that ended: only hosts
// with a problem get one (the summary counts the rest).
func (v *progressView) finishedLine(ev hostio.Event) string {
	r := ev.Result
	if r == nil {
		v.failed++
		return fmt.Sprintf("✗ %s: %s", ev.Host, ev.Err)
	}
	switch r.Status {
	case hostio.StatusNotCollected:
		v.failed++
		return fmt.Sprintf("✗ %s not collected: %s", r.Host, r.Reason)
	case hostio.StatusPartial:
		v.part++
		return fmt.Sprintf("! %s partial: %s", r.Host, r.Reason)
	}
	return ""
}

// Write prints log lines above the block.
func (v *progressView) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.over {
		v.clearLocked()
		v.dirty = true
	}
	return v.w.Write(p)
}

func (v *progressView) clearLocked() {
	if v.drawn > 0 {
		fmt.Fprintf(v.w, "\r\x1b[%dA\x1b[J", v.drawn)
		v.drawn = 0
	}
}

func (v *progressView) fit(s string) string {
	s = textsafe.Line(s) // host names, reasons and errors may hold anything
	if r := []rune(s); len(r) > v.width-1 {
		return string(r[:v.width-2]) + "…"
	}
	return s
}

func (v *progressView) redrawLocked() {
	v.clearLocked()
	lines := []string{fmt.Sprintf("Scanning %d hosts: %d done (%d not collected, %d partial), %d in progress  %s",
		v.total, v.done, v.failed, v.part, len(v.active), time.Since(v.start).Round(time.Second))}
	hosts := make([]string, 0, len(v.active))
	for h := range v.active {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return v.order[hosts[i]] < v.order[hosts[j]] })
	for i, h := range hosts {
		if i == maxActiveLines {
			lines = append(lines, fmt.Sprintf("  … and %d more", len(hosts)-maxActiveLines))
			break
		}
		ev := v.active[h]
		s := fmt.Sprintf("  %-20s %s", h, ev.Phase)
		if ev.Total > 0 {
			s += fmt.Sprintf(" %d/%d", ev.Done, ev.Total)
		}
		lines = append(lines, s)
	}
	for _, l := range lines {
		fmt.Fprintln(v.w, v.fit(l))
	}
	v.drawn = len(lines)
	v.dirty = false
}

// finishLocked erases the block once every host has ended and leaves one
// summary line.
func (v *progressView) finishLocked() {
	v.clearLocked()
	fmt.Fprintln(v.w, v.fit(fmt.Sprintf("Scanned %d hosts in %s: %d not collected, %d partial",
		v.total, time.Since(v.start).Round(100*time.Millisecond), v.failed, v.part)))
	v.over = true
	close(v.stop)
}
