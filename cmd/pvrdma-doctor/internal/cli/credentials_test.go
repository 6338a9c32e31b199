package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// artefacts are every output of a run: stdout, stderr, and every file in
// dir (bundles unpacked member by member, token maps, report files).
func artefacts(t *testing.T, dir, stdout, stderr string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{"stdout": []byte(stdout), "stderr": []byte(stderr)}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		out[p] = b
		if strings.HasSuffix(p, ".tar.gz") {
			for n, data := range archiveFiles(t, p) {
				out[p+"!"+n] = data
			}
		}
		return nil
	})
	return out
}

// leaks returns where any secret appears, as itself or base64-encoded.
func leaks(arts map[string][]byte, secrets ...string) []string {
	var found []string
	for where, b := range arts {
		for _, s := range secrets {
			for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s)), strconv.Quote(s)[1 : len(s)+1]} {
				if bytes.Contains(b, []byte(form)) {
					found = append(found, fmt.Sprintf("%s holds %q", where, form))
				}
			}
		}
	}
	return found
}

// The credential part of the adversarial campaign: scans of the simulated
// lab with a password (right and wrong, from the environment and from a
// file), at every log level and format, into every report format and a
// bundle (redacted and not), never put the password into any artefact.
func TestPasswordNeverInAnyArtefact(t *testing.T) {
	const secret = "Pw-9f3K!x$QZ-s3cr3t"
	const wrong = "Wr0ng-Pw-7hJ2-guess"
	dir, kh := startLab(t, "mixed", lab.Options{Password: secret, KeyboardInteractiveOnly: true,
		Faults: map[string]lab.Fault{"esx03": {DropAfter: 6}}})
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte(secret+"\n"), 0o600)
	formats := []string{"json", "text", "markdown", "html", "junit", "sarif"}
	runs := 0
	for i, level := range []string{"debug", "info", "warn", "error"} {
		for j, logFormat := range []string{"text", "json"} {
			n := i*2 + j
			out := filepath.Join(dir, fmt.Sprintf("run%d", n))
			os.Mkdir(out, 0o700)
			args := []string{"scan", "--hosts-file", filepath.Join(dir, "hosts"), "--ssh-config", filepath.Join(dir, "none"),
				"--known-hosts", kh, "--log-level", level, "--log-format", logFormat, "-o", formats[n%len(formats)],
				"--bundle", filepath.Join(out, "b.tar.gz"), "--connect-timeout", "5s"}
			pw := secret
			switch n % 4 {
			case 1:
				args = append(args, "--no-redact")
			case 2:
				pw = wrong // every host refuses the login
			}
			if n%3 == 0 {
				args = append(args, "--password-file", pwFile)
				pw = secret
			} else {
				args = append(args, "--password-env", "PD_PW")
			}
			code, stdout, stderr := runWithEnv(map[string]string{"PD_PW": pw}, args...)
			runs++
			if code == ExitError || code == ExitUsage {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			if pw == wrong && !strings.Contains(stdout+stderr, "auth") {
				t.Errorf("wrong password: no authentication failure reported:\n%s", stderr)
			}
			if l := leaks(artefacts(t, out, stdout, stderr), secret, wrong); len(l) > 0 {
				t.Fatalf("%v: %s", args, strings.Join(l, "\n"))
			}
		}
	}
	t.Logf("%d scans (4 log levels x 2 log formats, 6 report formats, bundles redacted and not, right and wrong password): no leak", runs)
}

// A key whose passphrase only the agent knows: the scan logs in through
// the agent, and neither the passphrase nor the key appears anywhere; a
// passphrase-protected key given with -i alone is refused before any
// connection (no passphrase is ever asked for or guessed).
func TestKeyPassphraseNeverInAnyArtefact(t *testing.T) {
	const passphrase = "Kp-4dG#passphrase-88"
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "test key", []byte(passphrase))
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(blk)
	sshPub, _ := ssh.NewPublicKey(pub)
	dir, kh := startLab(t, "healthy", lab.Options{AuthorizedKeys: []ssh.PublicKey{sshPub}, Password: "unused-" + passphrase})
	keyFile := filepath.Join(dir, "id_ed25519")
	os.WriteFile(keyFile, keyPEM, 0o600)

	// The agent: an in-process keyring on a Unix socket, holding the key.
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer ln.Close()
	ring := agent.NewKeyring()
	if err := ring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(ring, c); c.Close() }()
		}
	}()
	secrets := []string{passphrase, strings.Split(string(keyPEM), "\n")[2]}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"agent", map[string]string{"SSH_AUTH_SOCK": sock}, ExitOK},
		{"encrypted key file, no agent", map[string]string{}, ExitUsage},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
		os.Mkdir(out, 0o700)
		code, stdout, stderr := runWithEnv(tc.env, "scan", "--hosts-file", filepath.Join(dir, "hosts"), "--ssh-config", filepath.Join(dir, "none"),
			"--known-hosts", kh, "-i", keyFile, "--log-level", "debug", "-o", "json", "--bundle", filepath.Join(out, "b.tar.gz"), "--no-redact",
			"--connect-timeout", "5s")
		if code != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.want, stderr)
		}
		if l := leaks(artefacts(t, out, stdout, stderr), secrets...); len(l) > 0 {
			t.Fatalf("%s: %s", tc.name, strings.Join(l, "\n"))
		}
	}
}

// Nothing pvrdma-doctor runs locally can carry a secret in its argument
// list: it spawns no process at all (no os/exec, no StartProcess, no
// syscall.Exec outside tests), and no flag takes a password as its value.
// internal/testutil (which drives the built binary in tmux) counts as test
// code: only test files may import it.
func TestNoProcessSpawnedAndNoPasswordFlag(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files int
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
			strings.Contains(p, "/bench/") || strings.Contains(p, "/.") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.HasSuffix(imp.Path.Value, `/internal/testutil"`) {
				t.Errorf("%s imports internal/testutil, which only tests may use", p)
			}
		}
		if strings.Contains(filepath.ToSlash(p), "/internal/testutil/") {
			return nil
		}
		// The lab hosts' stand-ins for ESXi's own commands (a program the
		// OpenSSH lab's sshd runs in place of esxcli) are programs of
		// their own, never linked into pvrdma-doctor: package main only.
		if strings.Contains(filepath.ToSlash(p), "/fixtures/standin/") && f.Name.Name == "main" {
			return nil
		}
		files++
		for _, imp := range f.Imports {
			if imp.Path.Value == `"os/exec"` {
				t.Errorf("%s imports os/exec", p)
			}
		}
		src, _ := os.ReadFile(p)
		if bytes.Contains(src, []byte("StartProcess(")) || bytes.Contains(src, []byte("syscall.Exec(")) || bytes.Contains(src, []byte("ForkExec(")) {
			t.Errorf("%s starts a process", p)
		}
		return nil
	})
	if files < 50 {
		t.Fatalf("only %d source files found", files)
	}
	scan := NewRootCmd(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: os.Getenv})
	c, _, err := scan.Find([]string{"scan"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"password", "pass", "passphrase", "pw"} {
		if c.Flags().Lookup(name) != nil {
			t.Errorf("scan has a --%s flag: a password on the command line is visible to every user (ps)", name)
		}
	}
}

// startLab starts a scenario's lab with opts as given (startScanLab sets
// its own password) and returns a folder with its hosts file, and its
// known_hosts file.
func startLab(t *testing.T, scenario string, opts lab.Options) (dir, knownHosts string) {
	t.Helper()
	l, dir := startLabDir(t, loadScenario(t, scenario), opts)
	return dir, labKnownHosts(t, l, dir)
}
