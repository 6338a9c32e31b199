package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
)

// redact IN OUT with OUT being IN (by the same or another path) is refused
// and leaves the original untouched.
func TestRedactRefusesInPlace(t *testing.T) {
	dir := t.TempDir()
	// The unredacted original: a transcript.
	orig := filepath.Join(dir, "orig.txt")
	rdma, _ := os.ReadFile(filepath.Join(healthyDir, "esx01", "esxcli_rdma_device_list.txt"))
	text := "[root@esx01:~] esxcli rdma device list\n" + string(rdma)
	os.WriteFile(orig, []byte(text), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(orig, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, out := range []string{orig, filepath.Join(sub, "..", "orig.txt"), link} {
		code, _, stderr := runCLI(t, "", "redact", orig, out)
		if code != ExitUsage || !strings.Contains(stderr, "unredacted original") {
			t.Fatalf("redact %s %s: exit %d %s", orig, out, code, stderr)
		}
		if b, _ := os.ReadFile(orig); string(b) != text {
			t.Fatalf("the original was changed")
		}
		if _, err := os.Stat(bundle.TokensPath(out)); err == nil {
			t.Fatalf("a token map was written next to %s", out)
		}
	}
}

// A redacted bundle's token map is never overwritten: redact and bundle
// refuse the output file (exit 2, naming the map); a bundle without a token
// map may be overwritten; reusing the same map with --tokens is allowed.
func TestBundleOutputKeepsTokenMap(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shared.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, out); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	tokens := bundle.TokensPath(out)
	before, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatal(err)
	}
	bundleBefore, _ := os.ReadFile(out)
	code, _, stderr := runCLI(t, "", "redact", "../../../../fixtures/scenarios/mixed", out)
	if code != ExitUsage || !strings.Contains(stderr, tokens) || !strings.Contains(stderr, "already exists") {
		t.Fatalf("redact over a bundle with a token map: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "bundle", "--hosts", "esx01", "-o", out)
	if code != ExitUsage || !strings.Contains(stderr, tokens) {
		t.Fatalf("bundle -o over a token map: exit %d %s", code, stderr)
	}
	if after, _ := os.ReadFile(tokens); string(after) != string(before) {
		t.Fatal("the token map was overwritten")
	}
	if after, _ := os.ReadFile(out); string(after) != string(bundleBefore) {
		t.Fatal("the bundle was overwritten")
	}
	// Reusing that very map extends it: allowed.
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, out, "--tokens", tokens); code != ExitOK {
		t.Fatalf("redact --tokens OUT.tokens.json: %d %s", code, stderr)
	}
	// A bundle without a token map may be overwritten.
	os.Remove(tokens)
	if code, _, stderr := runCLI(t, "", "redact", "../../../../fixtures/scenarios/mixed", out); code != ExitOK {
		t.Fatalf("overwrite a bundle without a token map: %d %s", code, stderr)
	}
}

// A redacted bundle holds none of the identifiers the doctor itself adds:
// hosts-file addresses (NAME ADDRESS:PORT), an ssh_config alias's HostName,
// the SSH user, the operator's home directory and file paths, host key
// fingerprints (issue #18). The hosts are reached under customer-like
// names through a dialler that maps them to the loopback lab.
func TestRedactedBundleHidesWhatTheDoctorAdds(t *testing.T) {
	sc := loadScenario(t, "mixed")
	l := lab.StartTB(t, sc, lab.Options{User: "jsmith", Password: "pw"})
	addr := map[string]string{}
	keys := map[string]ssh.PublicKey{}
	for _, h := range l.Hosts() {
		addr[h.Name], keys[h.Name] = h.Addr, h.HostKey
	}
	fake := map[string]string{ // customer address -> lab host
		"esx01-mgmt.corp.example.com:2201": "esx01",
		"esx02-real.corp.example.com:2202": "esx02",
		"10.20.30.40:2203":                 "esx03",
	}
	testDial = func(ctx context.Context, network, a string) (net.Conn, error) {
		h, ok := fake[a]
		if !ok {
			return nil, fmt.Errorf("test dialler: unexpected address %s", a)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr[h])
	}
	defer func() { testDial = nil }()

	home := filepath.Join(t.TempDir(), "home", "jsmith")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	kh := filepath.Join(home, ".ssh", "known_hosts")
	// esx03 is left unknown: its reason names its fingerprint and the file.
	known := knownhosts.Line([]string{knownhosts.Normalize("esx01-mgmt.corp.example.com:2201")}, keys["esx01"]) + "\n" +
		knownhosts.Line([]string{knownhosts.Normalize("esx02-real.corp.example.com:2202")}, keys["esx02"]) + "\n"
	writeTestFile(t, kh, known)
	writeTestFile(t, filepath.Join(home, ".ssh", "config"), "Host esx02\n  HostName esx02-real.corp.example.com\n  Port 2202\n  User jsmith\n")
	hosts := filepath.Join(home, "hosts.txt")
	writeTestFile(t, hosts, "esx01 esx01-mgmt.corp.example.com:2201\nesx03 10.20.30.40:2203\n")
	out := filepath.Join(t.TempDir(), "b.tar.gz")

	code, stdout, stderr := runWithEnv(map[string]string{"PW": "pw", "USER": "jsmith"}, "scan", "--hosts", "esx02", "--hosts-file", hosts,
		"--user", "jsmith", "--password-env", "PW", "--output", "json", "--no-probes", "--bundle", out)
	if code == ExitError || code == ExitUsage {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The unredacted report does name them: the test would catch a leak.
	secrets := []string{"jsmith", "corp.example.com", "esx01-mgmt", "esx02-real", "10.20.30.40", home, kh,
		ssh.FingerprintSHA256(keys["esx03"]), strings.TrimPrefix(ssh.FingerprintSHA256(keys["esx03"]), "SHA256:")}
	for _, s := range []string{"jsmith", "esx01-mgmt.corp.example.com", ssh.FingerprintSHA256(keys["esx03"])} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the report does not mention %q: the bundle check below proves nothing", s)
		}
	}
	// The same scan bundled with --no-redact, then redacted by `redact`,
	// which knows only what the results say.
	raw := filepath.Join(t.TempDir(), "raw.tar.gz")
	code, _, stderr = runWithEnv(map[string]string{"PW": "pw"}, "scan", "--hosts", "esx02", "--hosts-file", hosts, "--user", "jsmith",
		"--password-env", "PW", "--output", "json", "--no-probes", "--bundle", raw, "--no-redact")
	if code == ExitError || code == ExitUsage {
		t.Fatalf("--no-redact scan: exit %d: %s", code, stderr)
	}
	redacted := filepath.Join(t.TempDir(), "redacted.tar.gz")
	if code, _, errOut := runCLI(t, "", "redact", raw, redacted); code != ExitOK {
		t.Fatalf("redact: exit %d: %s", code, errOut)
	}
	checkNoLeak(t, out, secrets, l)
	checkNoLeak(t, redacted, secrets, l)
}

func checkNoLeak(t *testing.T, bundlePath string, secrets []string, l *lab.Lab) {
	t.Helper()
	files := archiveFiles(t, bundlePath)
	if len(files) < 5 {
		t.Fatalf("bundle has %d files", len(files))
	}
	for name, data := range files {
		for _, s := range secrets {
			if strings.Contains(name, s) || bytes.Contains(data, []byte(s)) {
				i := bytes.Index(data, []byte(s))
				t.Errorf("%s: %s leaks %q: ...%s...", filepath.Base(bundlePath), name, s, data[max(0, i-60):min(len(data), i+len(s)+60)])
			}
		}
		for _, h := range l.Hosts() {
			if bytes.Contains(data, []byte(h.Addr)) {
				t.Errorf("%s leaks the lab address %s", name, h.Addr)
			}
		}
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
