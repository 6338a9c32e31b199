package checks

import (
	"os/exec"
	"strings"
	"testing"
)

// What the shell reads from a quoted value is exactly the value: checked
// by a real POSIX sh (busybox sh on ESXi reads single quotes the same way).
func TestShellQuoteRoundTripsThroughSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	values := []string{
		"vmnic4", "vmk1", "hpc-node04", "a b", "it's", "'", "''", `\`, `"`, "$(reboot)", "`id`", "$HOME", "a;b", "a|b", "a&b",
		"*", "?", "[a]", "~root", "#x", "!x", "a\\nb", "{a,b}", "-n", "x=y", `evil"; reboot; $(halt) ` + "`id`" + ` | rm -rf / #ünï`,
		"ünïcödé 日本", "a\u00a0b",
	}
	for _, v := range values {
		q := shellArg(v, "PLACEHOLDER")
		out, err := exec.Command(sh, "-c", "printf '%s' "+q).Output()
		if err != nil {
			t.Fatalf("%q -> %s: %v", v, q, err)
		}
		if string(out) != v {
			t.Errorf("%q quoted as %s reads back as %q", v, q, out)
		}
	}
	if shellArg("vmnic4", "") != "vmnic4" || shellArg("a b", "") != "'a b'" || shellArg("it's", "") != `'it'\''s'` {
		t.Error("plain values stay bare, others are single-quoted")
	}
}

// A value that cannot be shown as itself never goes into a fix.
func TestUnshowableValuesStayOutOfFixes(t *testing.T) {
	for _, v := range []string{"vm\x1b]0;PWNED\x07", "a\nb", "a\tb", "x\u202ey", "zw\u200b", "bad\xff", "c1\u009b", "del\x7f", ""} {
		if got := shellArg(v, "vmnicN"); got != "vmnicN" {
			t.Errorf("shellArg(%q) = %q", v, got)
		}
	}
	for _, c := range []struct{ name, world, want string }{
		{"hpc-node04", "2102165", "hpc-node04"},
		{"my vm", "1", "'my vm'"},
		{"vm\x1b]0;PWNED\x07", "2102165", "the VM with world ID 2102165 (its name has control characters; `esxcli vm process list` shows it)"},
		{"", "2102165", "the VM with world ID 2102165"},
		{"vm\x1b", "21$(x)", "the VM"},
	} {
		if got := fixVM(c.name, c.world); got != c.want {
			t.Errorf("fixVM(%q, %q) = %q, want %q", c.name, c.world, got, c.want)
		}
		if strings.ContainsRune(fixVM(c.name, c.world), 0x1b) {
			t.Error("raw ESC in a fix")
		}
	}
}
