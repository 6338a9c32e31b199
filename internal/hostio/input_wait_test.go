//go:build unix

package hostio

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A pipe nobody writes to ends after InputWait once, however the caller
// reads it: offline.Load peeks (bufio) then reads, which waited InputWait
// twice (60 s for a documented 30 s, issue 38.5); and the wait is spent in
// the poller, not in a loop of reads returning 0.
func TestPipeWithoutWriterWaitsOnceWithoutSpinning(t *testing.T) {
	withWait(t, 600*time.Millisecond)
	f, err := OpenInput(mkfifo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := pipeReads.Load()
	start := time.Now()
	br := bufio.NewReader(f)
	_, perr := br.Peek(512)
	_, rerr := io.ReadAll(br)
	took := time.Since(start)
	if perr == nil || rerr == nil || !strings.Contains(rerr.Error(), "nothing wrote to within 600ms") {
		t.Errorf("peek: %v, read: %v", perr, rerr)
	}
	// It waits the whole InputWait (no upper bound: a loaded machine may
	// be late; the read count below is what shows it does not spin).
	if took < InputWait {
		t.Errorf("the input ended after %s, before the wait of %s", took, InputWait)
	}
	if n := pipeReads.Load() - before; n > 4 {
		t.Errorf("%d reads while waiting %s for a writer: a busy loop", n, InputWait)
	}
	// A writer that comes within the wait is read at once.
	p := mkfifo(t)
	g, err := OpenInput(p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	go func() {
		time.Sleep(100 * time.Millisecond)
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Write([]byte("late writer\n"))
			w.Close()
		}
	}()
	if b, err := io.ReadAll(g); err != nil || string(b) != "late writer\n" {
		t.Errorf("late writer: %q %v", b, err)
	}
}

// The wait the documentation gives for a pipe is InputWait, the one
// constant behind the wait and its error text.
func TestPipeWaitAsDocumented(t *testing.T) {
	re := regexp.MustCompile(`(?s)pipe[^.]*?bounded by (\d+) s`)
	found := false
	for _, doc := range []string{"../../README.md", "../../docs/security.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			found = true
			if m[1]+"s" != InputWait.String() {
				t.Errorf("%s says a pipe's wait is bounded by %s s; InputWait is %s", doc, m[1], InputWait)
			}
		}
	}
	if !found {
		t.Error("neither README.md nor docs/security.md says what bounds a pipe's wait (\"pipe ... bounded by N s\")")
	}
}
