package adversarial

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// The attack, in a real terminal: `analyze` of a pasted session
// whose VM is named vm<ESC>]0;PWNED<BEL><ESC>[2J, run in tmux. The pane
// title is not PWNED, the screen shows the name escaped, and "copy fix"
// (OSC 52, which tmux turns into a paste buffer) copies the fix as shown,
// naming the VM by its world ID.
func TestHostileSessionInTmux(t *testing.T) {
	tmux := testutil.RequireTmux(t)
	bin := testutil.Binary(t)
	dir := t.TempDir()
	var tr strings.Builder
	for _, hr := range loadMixed(t) {
		if hr.Host != "esx02" {
			continue
		}
		for _, c := range hr.Captures {
			tr.WriteString("[root@esx02:~] " + c.Command + "\n" + strings.ReplaceAll(c.Stdout, "hpc-node04", "vm\x1b]0;PWNED\x07\x1b[2J"))
		}
	}
	tr.WriteString("[root@esx02:~] \n")
	session := filepath.Join(dir, "session.txt")
	os.WriteFile(session, []byte(tr.String()), 0o600)

	tm := testutil.StartTmux(t, tmux, "sec", bin+" analyze "+session+"; sleep 30")
	tm.Run("set", "-g", "set-clipboard", "on")
	tm.WaitFor("overview", "hosts analyzed")
	tm.Keys("Enter")
	tm.WaitFor("host screen", `vm\x1b]0;PWNED\x07\x1b[2J`)
	tm.Keys("Down", "Enter") // NO_RDMA_DEVICE, whose fix names the PVRDMA VMs
	tm.WaitFor("finding screen", "Fix (c copies):")
	if title := tm.Run("display", "-p", "-t", "sec", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Fatalf("the VM name set the terminal title: %q", title)
	}
	tm.Keys("c")
	var buf string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, err := tm.Try("show-buffer")
		if err == nil {
			buf = out
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing copied: %s", out)
		}
	}
	if strings.ContainsAny(buf, "\x1b\x07") || !strings.Contains(buf, "the VM with world ID 2102165") {
		t.Fatalf("copied fix: %q", buf)
	}
}
