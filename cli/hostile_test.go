package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/textsafe"
)

// pwned is the VM display name of issue 17: set the terminal title, ring,
// clear the screen.
const pwned = "vm\x1b]0;PWNED\x07\x1b[2J"

// hostileTranscript is a pasted SSH session of the mixed scenario's esx02
// (no RDMA device, two PVRDMA VMs: findings that name the VMs in their
// message and fix) in which hpc-node04 is renamed to name.
func hostileTranscript(t *testing.T, name string) string {
	t.Helper()
	in, err := bundle.Load(filepath.Join("..", "fixtures", "scenarios", "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, hr := range in.Results {
		if hr.Host != "esx02" {
			continue
		}
		for _, c := range hr.Captures {
			b.WriteString("[root@esx02:~] " + c.Command + "\n" + strings.ReplaceAll(c.Stdout, "hpc-node04", name))
		}
	}
	b.WriteString("[root@esx02:~] \n")
	return b.String()
}

// rawControl returns the first character of s that textsafe would have
// escaped, other than the ESC of SGR colour sequences the report itself
// writes (none here: output is not a terminal), or "".
func rawControl(s string) string {
	for _, r := range s {
		if textsafe.Unsafe(r) {
			return string(r)
		}
	}
	return ""
}

// The acceptance case of issue 17: the escape sequences in a VM name are
// printed visibly in text and Markdown, inert in HTML, and kept exactly in
// JSON.
func TestAnalyzeHostileVMNameIsShownEscaped(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "session.txt")
	if err := os.WriteFile(tr, []byte(hostileTranscript(t, pwned)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		_, out, stderr := runCLI(t, "", "analyze", tr, "--output", format)
		if c := rawControl(out + stderr); c != "" {
			t.Errorf("%s: raw %q reaches the output:\n%s", format, c, out)
		}
		visible := `\x1b]0;PWNED\x07\x1b[2J`
		if format == "markdown" {
			// Markdown escapes '\', ']' and '[' in prose; inline code keeps them.
			visible = `\\x1b\]0;PWNED\\x07\\x1b\[2J`
		}
		if !strings.Contains(out, visible) {
			t.Errorf("%s: the VM name is not shown escaped (%s):\n%s", format, visible, out)
		}
		if format == "text" && !strings.Contains(out, `vm\x1b]0;PWNED`) {
			t.Errorf("text: %s", out)
		}
	}
	_, out, _ := runCLI(t, "", "analyze", tr, "--output", "json")
	if !strings.Contains(out, `vm\u001b]0;PWNED\u0007\u001b[2J`) {
		t.Errorf("json does not keep the exact name:\n%s", out)
	}
}
