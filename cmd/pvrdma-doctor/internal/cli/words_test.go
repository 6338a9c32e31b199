package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// Words that mean what they say (issue 30.4): -o is the format everywhere,
// contradicting flags are refused, and the messages of the corner cases
// are one clear line.

func TestBundleOutputFlags(t *testing.T) {
	dir := t.TempDir()
	// -o json is a format: never a file named "json".
	code, _, errOut := runCLI(t, "", "bundle", "--hosts", "esx01", "-o", "jsn")
	if code != ExitUsage || !strings.Contains(errOut, "--out FILE.tar.gz") {
		t.Errorf("bundle -o jsn: exit %d %s", code, errOut)
	}
	if _, err := os.Stat("jsn"); err == nil {
		t.Error("a file named jsn was written")
	}
	code, _, errOut = runCLI(t, "", "bundle", "--hosts", "esx01", "-o", "json")
	if code != ExitUsage || !strings.Contains(errOut, "--out FILE.tar.gz is required") {
		t.Errorf("bundle -o json without --out: exit %d %s", code, errOut)
	}
	// The old -o FILE still works, and says it is deprecated.
	l, ldir := startScanLab(t, "single", lab.Options{})
	kh := labKnownHosts(t, l, ldir)
	old := filepath.Join(dir, "old.tar.gz")
	code, out, errOut := runWithEnv(map[string]string{"PD_PW": testPassword}, "bundle", "--hosts-file", filepath.Join(ldir, "hosts"),
		"--ssh-config", filepath.Join(ldir, "ssh_config"), "--known-hosts", kh, "--password-env", "PD_PW", "-o", old, "--log-level", "error")
	if code != ExitOK || !strings.Contains(errOut, "deprecated") || !strings.Contains(out, "PVRDMA") {
		t.Errorf("bundle -o FILE: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(old); err != nil {
		t.Error(err)
	}
	// --out FILE -o json: the bundle, and the report as JSON.
	out2 := filepath.Join(dir, "new.tar.gz")
	code, out, errOut = runWithEnv(map[string]string{"PD_PW": testPassword}, "bundle", "--hosts-file", filepath.Join(ldir, "hosts"),
		"--ssh-config", filepath.Join(ldir, "ssh_config"), "--known-hosts", kh, "--password-env", "PD_PW", "--out", out2, "-o", "json", "--log-level", "error")
	if code != ExitOK || !strings.HasPrefix(strings.TrimSpace(out), "{") {
		t.Errorf("bundle --out -o json: exit %d\n%.200s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(out2); err != nil {
		t.Error(err)
	}
}

func TestConflictingProbeFlagsRefused(t *testing.T) {
	code, _, errOut := runCLI(t, "", "scan", "--hosts", "esx01", "--no-probes", "--probes", "all", "--dry-run")
	if code != ExitUsage || !strings.Contains(errOut, "contradict") {
		t.Errorf("exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "scan", "--hosts", "esx01", "--no-probes", "--probes", "off", "--dry-run"); code != ExitOK {
		t.Errorf("--no-probes --probes off: exit %d %s", code, errOut)
	}
}

func TestEmptyHostsFileSaysNoHosts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts.txt")
	if err := os.WriteFile(f, []byte("# none yet\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "", "scan", "--hosts-file", f, "--password-env", "X")
	if code != ExitUsage || !strings.Contains(errOut, "no hosts given: "+f+" lists none") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("exit %d %q", code, errOut)
	}
}

// A folder without command outputs (a temp folder full of build caches)
// is refused in one line, before anything in it is read.
func TestAnalyzeRefusesAFolderWithoutOutputs(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "go-build123", "ab")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 5<<20)
	for i, name := range []string{"a.a", "b.test", "c"} {
		if err := os.WriteFile(filepath.Join(cache, name), big[:len(big)-i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "analyze", dir, "-o", "text")
	if code != ExitError || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "holds no command outputs") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A truncated bundle is one error, not a warning per missing file.
func TestTruncatedBundleIsOneError(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "demo.tar.gz")
	if code, _, errOut := runCLI(t, "", "demo", "-o", "json", "--bundle", b); code == ExitError || code == ExitUsage {
		t.Fatalf("demo: %d %s", code, errOut)
	}
	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.tar.gz")
	if err := os.WriteFile(cut, data[:len(data)/4], 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI(t, "", "analyze", cut, "-o", "text")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "error: the archive is truncated") || !strings.Contains(lines[0], "missing because of it") {
		t.Errorf("stderr (%d lines):\n%s", len(lines), errOut)
	}
	if !strings.Contains(out, "PARTIAL INPUT") {
		t.Errorf("the report does not say the input is partial:\n%s", out)
	}
}

func TestLabServeInterruptSaysItStops(t *testing.T) {
	if m := interruptMessage(); !strings.Contains(m, "finishing the report") {
		t.Errorf("default %q", m)
	}
	setInterruptMessage("interrupted: stopping the lab")
	defer setInterruptMessage("")
	if m := interruptMessage(); strings.Contains(m, "report") {
		t.Errorf("lab serve says %q", m)
	}
}
