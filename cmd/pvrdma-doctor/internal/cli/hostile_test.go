package cli

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// pwned is the VM display name of issue 17: set the terminal title, ring,
// clear the screen.
const pwned = "vm\x1b]0;PWNED\x07\x1b[2J"

// hostileTranscript is a pasted SSH session of the mixed scenario's esx02
// (no RDMA device, two PVRDMA VMs: findings that name the VMs in their
// message and fix) in which hpc-node04 is renamed to name.
func hostileTranscript(t *testing.T, name string) string {
	t.Helper()
	in, err := offline.Load(filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "mixed"))
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
	// --details: the concise text names information findings without
	// their messages, where the VM's name is.
	for _, format := range []string{"text", "markdown", "html"} {
		_, out, stderr := runCLI(t, "", "analyze", tr, "--output", format, "--details")
		if c := rawControl(out + stderr); c != "" {
			t.Errorf("%s: raw %q reaches the output:\n%s", format, c, out)
		}
		visible := `\x1b]0;PWNED\x07\x1b[2J`
		if format == "markdown" {
			visible = `\x1b]0;PWNED\x07\x1b\[2J` // '[' is escaped in Markdown prose
		}
		if !strings.Contains(out, visible) {
			t.Errorf("%s: the VM name is not shown escaped (%s):\n%s", format, visible, out)
		}
		if !strings.Contains(out, `vm\x1b]0;PWNED`) {
			t.Errorf("%s: %s", format, out)
		}
	}
	_, out, _ := runCLI(t, "", "analyze", tr, "--output", "json")
	if !strings.Contains(out, `vm\u001b]0;PWNED\u0007\u001b[2J`) {
		t.Errorf("json does not keep the exact name:\n%s", out)
	}
}

// The other human sinks of the CLI: `parse` text output, error messages,
// the input warnings of `analyze`, and the live progress lines.
func TestCLISinksShowControlsEscaped(t *testing.T) {
	vmList := "vm\x1b]0;PWNED\x07\u202e\n   World ID: 2102165\n   Display Name: vm\x1b]0;PWNED\x07\u202e\n   Config File: /vmfs/volumes/ds/x\xff/x.vmx\n"
	code, out, stderr := runCLI(t, vmList, "parse", "--command", "esxcli vm process list")
	if code != ExitOK || rawControl(out+stderr) != "" || !strings.Contains(out, `vm\x1b]0;PWNED\x07\u202e`) || !strings.Contains(out, `x\xff`) {
		t.Errorf("parse text: exit %d\n%q\n%s", code, out, stderr)
	}
	// JSON keeps the exact value.
	_, out, _ = runCLI(t, vmList, "parse", "--command", "esxcli vm process list", "--output", "json")
	if !strings.Contains(out, `vm\u001b]0;PWNED\u0007‮`) {
		t.Errorf("parse json: %q", out)
	}

	// An error message that quotes a hostile path.
	dir := t.TempDir()
	bad := filepath.Join(dir, "case\x1b[2J.tar.gz")
	code, out, stderr = runCLI(t, "", "analyze", bad)
	if code == ExitOK || rawControl(out+stderr) != "" || !strings.Contains(stderr, `case\x1b[2J.tar.gz`) {
		t.Errorf("error: exit %d %q", code, stderr)
	}

	// A pasted session whose ignored commands and problems carry controls.
	tr := filepath.Join(dir, "s.txt")
	os.WriteFile(tr, []byte(hostileTranscript(t, pwned)+"[root@esx02:~] cat /etc/\x1b]0;x\x07motd\nhello\n[root@esx02:~] \n"), 0o600)
	_, out, stderr = runCLI(t, "", "analyze", tr, "--output", "text")
	if rawControl(out+stderr) != "" || !strings.Contains(stderr, `/etc/\x1b]0;x\x07motd`) {
		t.Errorf("analyze warnings: %q", stderr)
	}

	// `rules explain` of an unknown, hostile rule ID.
	_, out, stderr = runCLI(t, "", "rules", "explain", "X\x1b[2J")
	if rawControl(out+stderr) != "" {
		t.Errorf("rules explain: %q", stderr)
	}
}

func TestProgressLinesShowControlsEscaped(t *testing.T) {
	var buf strings.Builder
	targets := []hostio.Target{{Name: "esx01"}, {Name: "esx02"}}
	v := newProgressView(&buf, targets, 200)
	v.Event(hostio.Event{Host: "esx01", Phase: hostio.PhaseFailed, Err: "dial: \x1b]52;c;cm0=\x07 refused"})
	v.Event(hostio.Event{Host: "esx02", Phase: hostio.PhaseDone, Result: &hostio.HostResult{Host: "esx02",
		Status: hostio.StatusPartial, Reason: "`esxcli vm process list`: vm\x1b]0;PWNED\x07"}})
	out := buf.String()
	// The view's own cursor movements are the only escape sequences.
	own := regexp.MustCompile(`\r\x1b\[\d+A\x1b\[J`)
	if c := rawControl(own.ReplaceAllString(out, "")); c != "" {
		t.Fatalf("raw %q in progress output: %q", c, out)
	}
	if !strings.Contains(out, `dial: \x1b]52;c;cm0=\x07 refused`) || !strings.Contains(out, `vm\x1b]0;PWNED\x07`) {
		t.Fatalf("progress: %q", out)
	}
}

// `diff` names what changed between two inputs: hosts' own names included.
func TestDiffShowsControlsEscaped(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(hostileTranscript(t, "hpc-node04")), 0o600)
	os.WriteFile(b, []byte(strings.ReplaceAll(hostileTranscript(t, pwned), "vmk1", "vmk1\x1b]52;c;eA==\x07")), 0o600)
	_, out, stderr := runCLI(t, "", "diff", a, b)
	if c := rawControl(out + stderr); c != "" || !strings.Contains(out, `\x1b]`) {
		t.Fatalf("diff: raw %q or nothing escaped:\n%s\n%s", c, out, stderr)
	}
}

// Log lines (--log-format text) quote values that hold control characters
// (log/slog's text handler escapes them); JSON logs keep the exact value,
// JSON-escaped. The test keeps it that way.
func TestLogLinesShowControlsEscaped(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf strings.Builder
		f := &SSHFlags{LogLevel: "debug", LogFormat: format}
		l, err := f.scanLogger(&buf, slog.LevelDebug)
		if err != nil {
			t.Fatal(err)
		}
		l.Warn("command failed: "+pwned, "host", "esx\u202e01", "err", errors.New("sh: "+pwned+"\xff"), "vm\x1b[2J", 1)
		out := buf.String()
		if format == "json" {
			// A machine format: the exact value, JSON-escaped (no raw C0 byte).
			var rec map[string]any
			if err := json.Unmarshal([]byte(out), &rec); err != nil || rec["msg"] != "command failed: "+pwned ||
				strings.ContainsAny(strings.TrimSuffix(out, "\n"), "\x1b\x07\n") {
				t.Errorf("json log: %v %q", err, out)
			}
			continue
		}
		if c := rawControl(out); c != "" || !strings.Contains(out, `PWNED`) {
			t.Errorf("%s log: raw %q in %q", format, c, out)
		}
	}
}
