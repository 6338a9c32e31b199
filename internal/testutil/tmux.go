// Package testutil holds helpers shared by the tests of several packages:
// building the real binary, driving it in tmux, reading bundle archives.
// Only test files import it.
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RequireTmux skips an end-to-end test under -short or when tmux is not
// installed, and returns the path of tmux otherwise.
func RequireTmux(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test (builds the binary, runs tmux): skipped with -short")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (scripts/test-deps.sh installs it): skipping the end-to-end test")
	}
	return tmux
}

// Binary builds the real pvrdma-doctor binary into a temporary folder of
// the test and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pvrdma-doctor")
	build := exec.Command("go", "build", "-o", bin, "github.com/pvrdma-doctor/pvrdma-doctor/cmd/pvrdma-doctor")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Tmux is a tmux server of the test's own (its own -L socket) running one
// 120x40 session; the server is killed when the test ends.
type Tmux struct {
	t             testing.TB
	tmux, sock    string
	session       string
	keyPause      time.Duration
	screenTimeout time.Duration
}

// StartTmux starts tmux (the path RequireTmux returned) with one detached
// session named session running the shell command cmd.
func StartTmux(t testing.TB, tmux, session, cmd string) *Tmux {
	t.Helper()
	tm := &Tmux{
		t: t, tmux: tmux, session: session,
		sock:          fmt.Sprintf("pvrdma-%s-%d", session, os.Getpid()),
		keyPause:      80 * time.Millisecond,
		screenTimeout: 30 * time.Second,
	}
	t.Cleanup(func() { _ = exec.Command(tmux, "-L", tm.sock, "kill-server").Run() })
	tm.Run("-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd)
	return tm
}

// Try runs a tmux command on the test's server and returns its output.
func (tm *Tmux) Try(args ...string) (string, error) {
	out, err := exec.Command(tm.tmux, append([]string{"-L", tm.sock}, args...)...).CombinedOutput()
	return string(out), err
}

// Run runs a tmux command on the test's server; a failure fails the test.
func (tm *Tmux) Run(args ...string) string {
	tm.t.Helper()
	out, err := tm.Try(args...)
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return out
}

// Screen returns what the session's pane shows.
func (tm *Tmux) Screen() string { return tm.Run("capture-pane", "-p", "-t", tm.session) }

// WaitFor waits until the screen shows every one of want and returns it;
// the test fails, naming what, when it does not within 30 seconds.
func (tm *Tmux) WaitFor(what string, want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(tm.screenTimeout)
	for {
		scr := tm.Screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%s: screen never showed %q:\n%s", what, want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Keys sends keys one at a time, with a pause after each (a lone Esc is
// told from an escape sequence by a pause).
func (tm *Tmux) Keys(ks ...string) {
	tm.t.Helper()
	for _, k := range ks {
		tm.Run("send-keys", "-t", tm.session, k)
		time.Sleep(tm.keyPause)
	}
}
