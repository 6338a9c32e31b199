package adversarial

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The attack, in a real terminal: `analyze` of a pasted session
// whose VM is named vm<ESC>]0;PWNED<BEL><ESC>[2J, run in tmux. The pane
// title is not PWNED, the screen shows the name escaped, and "copy fix"
// (OSC 52, which tmux turns into a paste buffer) copies the fix as shown,
// naming the VM by its world ID.
func TestHostileSessionInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end (builds the binary, runs tmux)")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (scripts/test-deps.sh installs it)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pvrdma-doctor")
	build := exec.Command("go", "build", "-o", bin, "./cmd/pvrdma-doctor")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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

	sock := fmt.Sprintf("pvrdma-sec-%d", os.Getpid())
	tm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command(tmux, "-L", sock, "kill-server").Run() })
	tm("-f", "/dev/null", "new-session", "-d", "-s", "sec", "-x", "120", "-y", "40", bin+" analyze "+session+"; sleep 30")
	tm("set", "-g", "set-clipboard", "on")
	waitFor := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			scr := tm("capture-pane", "-p", "-t", "sec")
			if strings.Contains(scr, want) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", want, scr)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	keys := func(ks ...string) {
		for _, k := range ks {
			tm("send-keys", "-t", "sec", k)
			time.Sleep(80 * time.Millisecond)
		}
	}
	waitFor("hosts analyzed")
	keys("Enter")
	waitFor(`vm\x1b]0;PWNED\x07\x1b[2J`)
	keys("Down", "Enter") // NO_RDMA_DEVICE, whose fix names the PVRDMA VMs
	waitFor("Fix (c copies):")
	if title := tm("display", "-p", "-t", "sec", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Fatalf("the VM name set the terminal title: %q", title)
	}
	keys("c")
	var buf string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, err := exec.Command(tmux, "-L", sock, "show-buffer").CombinedOutput()
		if err == nil {
			buf = string(out)
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
