package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runTimed runs the CLI and fails the test if it takes long: reading an
// endless file without a cap would never end, so a bound of a minute
// proves the cap without measuring speed (issue 23).
func runTimed(t *testing.T, args ...string) (int, string) {
	t.Helper()
	start := time.Now()
	code, out, errOut := runCLI(t, "", args...)
	if d := time.Since(start); d > time.Minute {
		t.Errorf("%v took %s", args, d)
	}
	return code, out + errOut
}

// Files read whole are capped: a 1 GiB file (sparse: it costs nothing
// here) fails at once with a clear error instead of growing to gigabytes
// (issue #18), and /dev/zero, a device, is refused before any read (issue
// 24.6).
func TestWholeFileReadsAreCapped(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	writeTestFile(t, hosts, "esx01\n")
	transcript := filepath.Join(dir, "session.txt")
	writeTestFile(t, transcript, "[root@esx01:~] esxcli rdma device list\n"+rdmaOut)
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1 << 30)
	f.Close()
	for _, in := range []struct{ path, want string }{{big, "larger than"}, {"/dev/zero", "is a character device, not a file"}} {
		for _, args := range [][]string{
			{"scan", "--hosts", "esx01", "--password-file", in.path, "--known-hosts", filepath.Join(dir, "kh")},
			{"scan", "--hosts", "esx01", "--ssh-config", in.path, "--known-hosts", filepath.Join(dir, "kh"), "--dry-run"},
			{"scan", "--hosts-file", in.path, "--dry-run"},
			{"parse", "--command", "esxcli network nic list", in.path},
			{"redact", "--tokens", in.path, transcript, filepath.Join(dir, "out.tar.gz")},
			{"analyze", "--config", in.path, transcript},
		} {
			code, out := runTimed(t, args...)
			if code == ExitOK || !strings.Contains(out, in.want) {
				t.Errorf("%v: exit %d, %q; want %q", args, code, out, in.want)
			}
		}
	}
}

// Host names with NUL, escape or BOM bytes are refused with the bytes
// escaped, never echoed raw.
func TestHostsFileRejectsControlBytesAndBOM(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"nul":  "esx\x0001\n",
		"esc":  "esx01 \x1b[31m10.0.0.1\n",
		"bom":  "\uFEFFesx01\nesx02\n",
		"utf8": "esx\xff01\n",
	} {
		p := filepath.Join(dir, name)
		writeTestFile(t, p, content)
		code, out := runTimed(t, "scan", "--hosts-file", p, "--dry-run")
		if code != ExitUsage || !strings.Contains(out, "invalid host") {
			t.Errorf("%s: exit %d, %q", name, code, out)
		}
		if strings.ContainsAny(out, "\x00\x1b\uFEFF") {
			t.Errorf("%s: raw control bytes echoed: %q", name, out)
		}
	}
	if code, out := runTimed(t, "scan", "--hosts", "esx\x1b01", "--dry-run"); code != ExitUsage || strings.Contains(out, "\x1b") {
		t.Errorf("--hosts with ESC: exit %d, %q", code, out)
	}
}

// --bundle never replaces a device node, a directory or a symlink, and
// says so before scanning.
func TestBundlePathMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "b.tar.gz")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/null", dir, link} {
		code, out := runTimed(t, "scan", "--hosts", "esx01", "--bundle", p, "--insecure-ignore-host-key")
		if code != ExitUsage || !strings.Contains(out, "not a regular file") {
			t.Errorf("--bundle %s: exit %d, %q", p, code, out)
		}
	}
}
