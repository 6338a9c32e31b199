package sshrun_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// These tests drive the production SSH transport (NewSSHRunner: ssh_config,
// credentials, known_hosts) against the simulated lab: real SSH servers on
// loopback, collected by the real collector.

var loadScenario = fixtures.MustLoad

func hostInfo(t *testing.T, l *lab.Lab, name string) lab.HostInfo {
	t.Helper()
	for _, h := range l.Hosts() {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no lab host %s", name)
	return lab.HostInfo{}
}

type setupOpts struct {
	knownHosts string
	policy     sshrun.HostKeyPolicy
	creds      *sshrun.Credentials
	config     *sshrun.SSHConfig
	user       string
}

func newRunner(t *testing.T, o setupOpts) *sshrun.SSHRunner {
	t.Helper()
	db, err := sshrun.LoadHostKeyDB(o.knownHosts, o.policy)
	if err != nil {
		t.Fatal(err)
	}
	r := sshrun.NewSSHRunner(sshrun.SSHSetup{Credentials: o.creds, HostKeys: db, Config: o.config, User: o.user, Home: t.TempDir()})
	t.Cleanup(func() { r.Close() })
	return r
}

func password(l *lab.Lab) *sshrun.Credentials {
	return &sshrun.Credentials{Password: l.Hosts()[0].Password, HasPassword: true}
}

func scan(t *testing.T, r hostio.Runner, targets []hostio.Target, o collect.Options) map[string]hostio.HostResult {
	t.Helper()
	o.Runner = r
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	out := map[string]hostio.HostResult{}
	for _, res := range collect.Collect(context.Background(), targets, o) {
		out[res.Host] = res
	}
	return out
}

func commandCount(l *lab.Lab) int {
	n := 0
	for _, h := range l.Hosts() {
		n += len(l.Stats(h.Name).Commands)
	}
	return n
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// An unknown host key is refused by default, with its SHA256 fingerprint
// and how to accept it; nothing runs on the host. With accept-new the key
// is recorded (file created 0600) and a second, strict scan verifies it.
func TestUnknownHostKeyRefusedThenAcceptNewRecordsIt(t *testing.T) {
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{})
	kh := filepath.Join(t.TempDir(), "sub", "known_hosts")

	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, creds: password(l)}), l.Targets(), collect.Options{})
	for _, h := range l.Hosts() {
		r := res[h.Name]
		fp := ssh.FingerprintSHA256(h.HostKey)
		if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "unknown host key") ||
			!strings.Contains(r.Reason, fp) || !strings.Contains(r.Reason, "--accept-new-host-keys") ||
			!strings.Contains(r.Reason, "ssh-keyscan") {
			t.Errorf("%s: %s %q; want an unknown-host-key error naming %s", h.Name, r.Status, r.Reason, fp)
		}
	}
	if n := commandCount(l); n != 0 {
		t.Errorf("%d commands reached hosts with unverified keys", n)
	}
	if _, err := os.Stat(kh); !os.IsNotExist(err) {
		t.Errorf("strict mode must not create known_hosts: %v", err)
	}

	res = scan(t, newRunner(t, setupOpts{knownHosts: kh, policy: sshrun.HostKeyAcceptNew, creds: password(l)}), l.Targets(), collect.Options{})
	for _, h := range l.Hosts() {
		if r := res[h.Name]; r.Status != hostio.StatusCollected {
			t.Errorf("accept-new: %s: %s %q", h.Name, r.Status, r.Reason)
		}
	}
	st, err := os.Stat(kh)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("known_hosts created with mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(kh)
	for _, h := range l.Hosts() {
		if strings.Count(string(b), h.KnownHostsLine+"\n") != 1 {
			t.Errorf("known_hosts should hold %q exactly once:\n%s", h.KnownHostsLine, b)
		}
	}

	res = scan(t, newRunner(t, setupOpts{knownHosts: kh, creds: password(l)}), l.Targets(), collect.Options{})
	for _, h := range l.Hosts() {
		if r := res[h.Name]; r.Status != hostio.StatusCollected {
			t.Errorf("second strict scan: %s: %s %q", h.Name, r.Status, r.Reason)
		}
	}
	if b2, _ := os.ReadFile(kh); string(b2) != string(b) {
		t.Errorf("a scan of known hosts changed known_hosts")
	}
}

// A changed host key is refused under every policy but insecure, naming the
// known_hosts line; accept-new does not overwrite it.
func TestChangedHostKeyAlwaysRefused(t *testing.T) {
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{})
	kh := filepath.Join(t.TempDir(), "known_hosts")
	// A comment line first, so the recorded line numbers are 2 and 3.
	var b strings.Builder
	b.WriteString("# test\n")
	for _, h := range l.Hosts() {
		b.WriteString(h.KnownHostsLine + "\n")
	}
	writeFile(t, kh, b.String(), 0o600)
	if err := l.RotateHostKey("esx02"); err != nil {
		t.Fatal(err)
	}
	newKey := hostInfo(t, l, "esx02").HostKey
	for _, policy := range []sshrun.HostKeyPolicy{sshrun.HostKeyStrict, sshrun.HostKeyAcceptNew} {
		res := scan(t, newRunner(t, setupOpts{knownHosts: kh, policy: policy, creds: password(l)}), l.Targets(), collect.Options{})
		r := res["esx02"]
		want := []string{"HOST KEY MISMATCH", kh + ":3", ssh.FingerprintSHA256(newKey), "ssh-keygen -R"}
		for _, w := range want {
			if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, w) {
				t.Errorf("policy %d: esx02 %s %q; want it to contain %q", policy, r.Status, r.Reason, w)
			}
		}
		if res["esx01"].Status != hostio.StatusCollected {
			t.Errorf("policy %d: esx01 should be collected: %q", policy, res["esx01"].Reason)
		}
	}
	if got, _ := os.ReadFile(kh); string(got) != b.String() {
		t.Errorf("known_hosts was modified after a key mismatch:\n%s", got)
	}
	if n := len(l.Stats("esx02").Commands); n != 0 {
		t.Errorf("%d commands sent to a host whose key changed", n)
	}

	// Insecure mode connects, and every host's report says keys were not verified.
	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, policy: sshrun.HostKeyInsecure, creds: password(l)}),
		append(l.Targets(), hostio.Target{Name: "nowhere", Addr: refusedAddr(t)}), collect.Options{})
	if res["esx02"].Status != hostio.StatusCollected {
		t.Errorf("insecure: esx02 %s %q", res["esx02"].Status, res["esx02"].Reason)
	}
	for name, r := range res {
		if strings.Join(r.Notes, "\n") != sshrun.InsecureHostKeyNote {
			t.Errorf("insecure: %s notes %q; want the host-key warning", name, r.Notes)
		}
	}
}

// refusedAddr returns a loopback address nothing listens on.
func refusedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A missing known_hosts file is an empty database; an unreadable one is an
// error; a malformed line is skipped with a warning naming the file and
// line, as OpenSSH does (issue #18), and the other lines still count.
func TestKnownHostsFileStates(t *testing.T) {
	dir := t.TempDir()
	if _, err := sshrun.LoadHostKeyDB(filepath.Join(dir, "absent"), sshrun.HostKeyStrict); err != nil {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	_, signer := newKey(t)
	good := knownhosts.Line([]string{"esx02"}, signer.PublicKey())
	writeFile(t, bad, "esx01 ssh-ed25519 not-base64!!\n"+good+"\nesx03 garbage\n", 0o600)
	db, err := sshrun.LoadHostKeyDB(bad, sshrun.HostKeyStrict)
	if err != nil {
		t.Fatalf("malformed lines: %v", err)
	}
	if w := db.Warnings(); len(w) != 2 || !strings.Contains(w[0], bad+":1:") || !strings.Contains(w[1], bad+":3:") {
		t.Errorf("warnings %q; want lines 1 and 3 of %s", w, bad)
	}
	if err := db.Callback()("esx02:22", nil, signer.PublicKey()); err != nil {
		t.Errorf("the good line after a bad one: %v", err)
	}
	_, other := newKey(t)
	var changed *sshrun.HostKeyChangedError
	if err := db.Callback()("esx02:22", nil, other.PublicKey()); !errors.As(err, &changed) || !strings.Contains(err.Error(), bad+":2") {
		t.Errorf("changed key: %v; want a mismatch naming %s:2", err, bad)
	}
	if _, err := sshrun.LoadHostKeyDB("/dev/zero", sshrun.HostKeyStrict); err == nil {
		t.Errorf("/dev/zero as known_hosts should be an error")
	}
	if _, err := sshrun.LoadHostKeyDB(dir, sshrun.HostKeyStrict); err == nil {
		t.Errorf("a directory as known_hosts should be an error")
	}
}

// Many hosts accepted concurrently into one file: one intact line each.
func TestAcceptNewConcurrentAppends(t *testing.T) {
	l := lab.StartTB(t, fixtures.Fleet(loadScenario(t, "healthy"), 40), lab.Options{})
	kh := filepath.Join(t.TempDir(), "known_hosts")
	writeFile(t, kh, "# no trailing newline", 0o600)
	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, policy: sshrun.HostKeyAcceptNew, creds: password(l)}),
		l.Targets(), collect.Options{Concurrency: 40})
	for name, r := range res {
		if r.Status != hostio.StatusCollected {
			t.Errorf("%s: %s %q", name, r.Status, r.Reason)
		}
	}
	b, _ := os.ReadFile(kh)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 41 || lines[0] != "# no trailing newline" {
		t.Fatalf("known_hosts has %d lines, want the comment + 40:\n%s", len(lines), b)
	}
	db, err := sshrun.LoadHostKeyDB(kh, sshrun.HostKeyStrict)
	if err != nil {
		t.Fatalf("the written file does not parse: %v", err)
	}
	for _, h := range l.Hosts() {
		if err := db.Callback()(h.Addr, nil, h.HostKey); err != nil {
			t.Errorf("%s not verified from the written file: %v", h.Name, err)
		}
	}
}

// ESXi-like hosts (keyboard-interactive only, a zero-question round first)
// accept the password; a wrong password is reported as such and, on a
// server offering both methods, sent only once.
func TestKeyboardInteractiveOnlyAndWrongPassword(t *testing.T) {
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{KeyboardInteractiveOnly: true})
	res := scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: password(l)}), l.Targets(), collect.Options{})
	for name, r := range res {
		if r.Status != hostio.StatusCollected {
			t.Errorf("%s: %s %q", name, r.Status, r.Reason)
		}
	}
	wrong := &sshrun.Credentials{Password: "wrong", HasPassword: true}
	res = scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: wrong}), l.Targets(), collect.Options{})
	r := res["esx01"]
	if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "authentication failed for root@127.0.0.1:") ||
		!strings.Contains(r.Reason, "wrong password or key not accepted") || !strings.Contains(r.Reason, "keyboard-interactive") {
		t.Errorf("wrong password: %s %q", r.Status, r.Reason)
	}
}

// A server that offers both "keyboard-interactive" and "password" sees a
// wrong password once, not twice; one that offers only "password" gets it.
func TestPasswordSentOncePerConnection(t *testing.T) {
	for _, tc := range []struct {
		name          string
		kbd, pw       bool
		wantKbd, want int
	}{
		{"both methods", true, true, 1, 0},
		{"password only", false, true, 0, 1},
		{"keyboard-interactive only", true, false, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAuthCounter(t, tc.kbd, tc.pw)
			r := newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: &sshrun.Credentials{Password: "wrong", HasPassword: true}})
			_, err := r.Open(context.Background(), hostio.Target{Name: "x", Addr: srv.addr})
			if err == nil || !strings.Contains(err.Error(), "authentication failed") {
				t.Fatalf("want an authentication error, got %v", err)
			}
			kbd, pw := srv.counts()
			if kbd != tc.wantKbd || pw != tc.want {
				t.Errorf("server saw %d keyboard-interactive and %d password attempts carrying the password; want %d and %d",
					kbd, pw, tc.wantKbd, tc.want)
			}
		})
	}
}

// authCounter is a minimal SSH server that rejects every login and counts
// the password attempts it received per method.
type authCounter struct {
	addr        string
	mu          sync.Mutex
	kbdAnswered int
	pwAttempts  int
}

func (a *authCounter) counts() (int, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.kbdAnswered, a.pwAttempts
}

func newAuthCounter(t *testing.T, kbd, pw bool) *authCounter {
	t.Helper()
	a := &authCounter{}
	cfg := &ssh.ServerConfig{}
	if pw {
		cfg.PasswordCallback = func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			a.mu.Lock()
			a.pwAttempts++
			a.mu.Unlock()
			return nil, fmt.Errorf("denied")
		}
	}
	if kbd {
		cfg.KeyboardInteractiveCallback = func(_ ssh.ConnMetadata, ch ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			if _, err := ch("", "", nil, nil); err != nil {
				return nil, err
			}
			ans, err := ch("", "", []string{"Password: "}, []bool{false})
			if err == nil && len(ans) == 1 && ans[0] != "" {
				a.mu.Lock()
				a.kbdAnswered++
				a.mu.Unlock()
			}
			return nil, fmt.Errorf("denied")
		}
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(key)
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a.addr = ln.Addr().String()
	serveConns(t, ln, func(c net.Conn) {
		if sc, _, _, err := ssh.NewServerConn(c, cfg); err == nil {
			sc.Close()
		}
	})
	return a
}

// serveConns accepts connections on ln until the test ends and runs handle
// on each in a goroutine of its own, closing the connection after; the
// test's cleanup closes ln and waits for every handler.
func serveConns(t *testing.T, ln net.Listener, handle func(net.Conn)) {
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
}

func newKey(t *testing.T) (ed25519.PrivateKey, ssh.Signer) { return testutil.NewKey(t) }

func writeKey(t *testing.T, path string, k ed25519.PrivateKey, passphrase string) {
	t.Helper()
	var blk *pem.Block
	var err error
	if passphrase == "" {
		blk, err = ssh.MarshalPrivateKey(k, "")
	} else {
		blk, err = ssh.MarshalPrivateKeyWithPassphrase(k, "", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(pem.EncodeToMemory(blk)), 0o600)
}

// Key files and ssh-agent keys log in without any password; a
// passphrase-protected key is usable through the agent only.
func TestPublicKeyFromFileAndAgent(t *testing.T) {
	fileKey, fileSigner := newKey(t)
	agentKey, agentSigner := newKey(t)
	encKey, encSigner := newKey(t)
	dir := t.TempDir()
	writeKey(t, filepath.Join(dir, "id_file"), fileKey, "")
	writeKey(t, filepath.Join(dir, "id_enc"), encKey, "secret")

	for _, tc := range []struct {
		name       string
		authorized ssh.PublicKey
		creds      func(t *testing.T) *sshrun.Credentials
		wantOK     bool
	}{
		{"key file", fileSigner.PublicKey(), func(t *testing.T) *sshrun.Credentials {
			return &sshrun.Credentials{IdentityFiles: []string{filepath.Join(dir, "id_file")}}
		}, true},
		{"agent", agentSigner.PublicKey(), func(t *testing.T) *sshrun.Credentials {
			return &sshrun.Credentials{Agent: serveAgent(t, agentKey)}
		}, true},
		{"encrypted key without agent", encSigner.PublicKey(), func(t *testing.T) *sshrun.Credentials {
			return &sshrun.Credentials{IdentityFiles: []string{filepath.Join(dir, "id_enc")}}
		}, false},
		{"encrypted key held by the agent", encSigner.PublicKey(), func(t *testing.T) *sshrun.Credentials {
			return &sshrun.Credentials{IdentityFiles: []string{filepath.Join(dir, "id_enc")}, Agent: serveAgent(t, encKey)}
		}, true},
		{"wrong key", fileSigner.PublicKey(), func(t *testing.T) *sshrun.Credentials {
			return &sshrun.Credentials{Agent: serveAgent(t, agentKey)}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{AuthorizedKeys: []ssh.PublicKey{tc.authorized}})
			res := scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: tc.creds(t)}), l.Targets(), collect.Options{})
			r := res["esx01"]
			if tc.wantOK && r.Status != hostio.StatusCollected {
				t.Errorf("%s %q", r.Status, r.Reason)
			}
			if !tc.wantOK && (r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "authentication failed")) {
				t.Errorf("want an authentication failure, got %s %q", r.Status, r.Reason)
			}
		})
	}
	c := &sshrun.Credentials{}
	if _, err := c.LoadKey(filepath.Join(dir, "id_enc")); err == nil || !strings.Contains(err.Error(), "ssh-add") {
		t.Errorf("encrypted key error should say how to use it: %v", err)
	}
}

// serveAgent runs an in-process ssh-agent holding key on a unix socket
// and returns a client of it, as DialAgent would.
func serveAgent(t *testing.T, key ed25519.PrivateKey) agent.ExtendedAgent {
	t.Helper()
	kr := agent.NewKeyring()
	if err := kr.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shortTempDir(t), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serveConns(t, ln, func(c net.Conn) { agent.ServeAgent(kr, c) })
	ag, conn, err := sshrun.DialAgent(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return ag
}

// shortTempDir is a temp dir with a short path (unix sockets are limited
// to ~100 bytes).
func shortTempDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// ssh_config aliases: HostName, Port, User and IdentityFile come from the
// file; the report keeps the name the user typed; --user overrides User.
func TestSSHConfigAlias(t *testing.T) {
	key, signer := newKey(t)
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{User: "admin", AuthorizedKeys: []ssh.PublicKey{signer.PublicKey()}})
	dir := t.TempDir()
	writeKey(t, filepath.Join(dir, "lab_key"), key, "")
	h := hostInfo(t, l, "esx01")
	host, port, _ := net.SplitHostPort(h.Addr)
	cfgPath := filepath.Join(dir, "config")
	writeFile(t, cfgPath, fmt.Sprintf(`Host lab-esx01
  HostName %s
  Port %s
  User admin
  IdentityFile %s
`, host, port, filepath.Join(dir, "lab_key")), 0o600)
	cfg, err := sshrun.LoadSSHConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	kh := filepath.Join(dir, "known_hosts")
	writeFile(t, kh, h.KnownHostsLine+"\n", 0o600)
	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, config: cfg}), []hostio.Target{{Name: "lab-esx01"}}, collect.Options{})
	if r := res["lab-esx01"]; r.Status != hostio.StatusCollected {
		t.Fatalf("alias: %s %q", r.Status, r.Reason)
	}
	res = scan(t, newRunner(t, setupOpts{knownHosts: kh, config: cfg, user: "root"}), []hostio.Target{{Name: "lab-esx01"}}, collect.Options{})
	if r := res["lab-esx01"]; r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "root@") {
		t.Errorf("--user should override the config's User: %s %q", r.Status, r.Reason)
	}
	if _, err := sshrun.LoadSSHConfig(filepath.Join(dir, "absent")); err != nil {
		t.Errorf("a missing ssh config is fine: %v", err)
	}
}

// ProxyJump: every host is reached through one bastion login; the bastion
// is verified against known_hosts and logs in with a key.
func TestProxyJumpSharesOneBastionConnection(t *testing.T) {
	key, signer := newKey(t)
	l := lab.StartTB(t, loadScenario(t, "mixed"), lab.Options{})
	b := newBastion(t, signer.PublicKey())
	dir := t.TempDir()
	writeKey(t, filepath.Join(dir, "jump_key"), key, "")
	host, port, _ := net.SplitHostPort(b.addr)
	cfgPath := filepath.Join(dir, "config")
	writeFile(t, cfgPath, fmt.Sprintf(`Host bastion
  HostName %s
  Port %s
  User jump
  IdentityFile %s
Host esx*
  ProxyJump bastion
`, host, port, filepath.Join(dir, "jump_key")), 0o600)
	cfg, err := sshrun.LoadSSHConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	kh := filepath.Join(dir, "known_hosts")
	var lines strings.Builder
	for _, h := range l.Hosts() {
		lines.WriteString(h.KnownHostsLine + "\n")
	}
	writeFile(t, kh, lines.String(), 0o600)

	// The bastion's key is unknown: every host fails with that reason,
	// and the bastion is not asked to open anything.
	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, config: cfg, creds: password(l)}), l.Targets(), collect.Options{})
	if r := res["esx01"]; r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "jump host bastion") ||
		!strings.Contains(r.Reason, "unknown host key") {
		t.Errorf("unknown bastion key: %s %q", r.Status, r.Reason)
	}
	if b.stats().tunnels != 0 {
		t.Errorf("tunnels opened through an unverified bastion")
	}

	lines.WriteString(b.knownHostsLine)
	writeFile(t, kh, lines.String(), 0o600)
	before := b.stats()
	res = scan(t, newRunner(t, setupOpts{knownHosts: kh, config: cfg, creds: password(l)}), l.Targets(), collect.Options{})
	for _, h := range l.Hosts() {
		r := res[h.Name]
		if h.Fault.Refuse {
			if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, "connection refused") ||
				!strings.Contains(r.Reason, "via jump host bastion") {
				t.Errorf("%s (refusing, behind the bastion): %s %q", h.Name, r.Status, r.Reason)
			}
			continue
		}
		if r.Status == hostio.StatusNotCollected {
			t.Errorf("%s through the bastion: %s %q", h.Name, r.Status, r.Reason)
		}
	}
	after := b.stats()
	reachable := 0
	for _, h := range l.Hosts() {
		if !h.Fault.Refuse {
			reachable++
		}
	}
	if got := after.conns - before.conns; got != 1 {
		t.Errorf("the bastion saw %d connections for %d hosts; want 1 shared connection", got, len(l.Hosts()))
	}
	if got := after.tunnels - before.tunnels; got != reachable {
		t.Errorf("the bastion opened %d tunnels; want one per reachable host (%d)", got, reachable)
	}
	if after.users["jump"] == 0 || after.passwords != 0 {
		t.Errorf("the bastion should see key logins as jump and no password: %+v", after)
	}
}

// bastion is a minimal OpenSSH-like jump host: public-key login, then
// direct-tcpip channels forwarded to their destination.
type bastion struct {
	addr           string
	knownHostsLine string
	mu             sync.Mutex
	st             bastionStats
}

type bastionStats struct {
	conns, tunnels, passwords int
	users                     map[string]int
}

func (b *bastion) stats() bastionStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.st
	s.users = map[string]int{}
	for k, v := range b.st.users {
		s.users[k] = v
	}
	return s
}

func newBastion(t *testing.T, authorized ssh.PublicKey) *bastion {
	t.Helper()
	b := &bastion{st: bastionStats{users: map[string]int{}}}
	_, hostSigner := newKey(t)
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(m ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if string(k.Marshal()) == string(authorized.Marshal()) {
				b.mu.Lock()
				b.st.users[m.User()]++
				b.mu.Unlock()
				return &ssh.Permissions{}, nil
			}
			return nil, fmt.Errorf("denied")
		},
		PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			b.mu.Lock()
			b.st.passwords++
			b.mu.Unlock()
			return nil, fmt.Errorf("denied")
		},
	}
	cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.addr = ln.Addr().String()
	host, port, _ := net.SplitHostPort(b.addr)
	b.knownHostsLine = fmt.Sprintf("[%s]:%s %s", host, port, ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	var tunnels sync.WaitGroup
	var cmu sync.Mutex
	var conns []net.Conn
	serveConns(t, ln, func(c net.Conn) {
		cmu.Lock()
		conns = append(conns, c)
		cmu.Unlock()
		b.mu.Lock()
		b.st.conns++
		b.mu.Unlock()
		sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
		if err != nil {
			return
		}
		defer sc.Close()
		go ssh.DiscardRequests(reqs)
		for nc := range chans {
			if nc.ChannelType() != "direct-tcpip" {
				nc.Reject(ssh.UnknownChannelType, "no")
				continue
			}
			var p struct {
				Host     string
				Port     uint32
				OrigHost string
				OrigPort uint32
			}
			if err := ssh.Unmarshal(nc.ExtraData(), &p); err != nil {
				nc.Reject(ssh.Prohibited, "bad request")
				continue
			}
			dst, err := net.Dial("tcp", net.JoinHostPort(p.Host, fmt.Sprint(p.Port)))
			if err != nil {
				nc.Reject(ssh.ConnectionFailed, "connect failed: Connection refused")
				continue
			}
			ch, creqs, err := nc.Accept()
			if err != nil {
				dst.Close()
				continue
			}
			b.mu.Lock()
			b.st.tunnels++
			b.mu.Unlock()
			go ssh.DiscardRequests(creqs)
			tunnels.Add(2)
			go func() { defer tunnels.Done(); io.Copy(dst, ch); dst.Close() }()
			go func() { defer tunnels.Done(); io.Copy(ch, dst); ch.Close() }()
		}
	})
	// Registered after serveConns, so it runs first: closing the live
	// connections ends their handlers and tunnels before serveConns waits.
	t.Cleanup(func() {
		cmu.Lock()
		for _, c := range conns {
			c.Close()
		}
		cmu.Unlock()
		tunnels.Wait()
	})
	return b
}

// A connection dropped mid-scan keeps what was collected and says
// "connection lost after N commands"; a hung command times out alone; a
// host whose sshd allows fewer sessions than we open queues and completes.
func TestDropHangAndSessionLimit(t *testing.T) {
	sc := loadScenario(t, "healthy")
	l := lab.StartTB(t, sc, lab.Options{
		Faults: map[string]lab.Fault{
			"esx01": {DropAfter: 5},
			"esx02": {Hang: []string{"esxcli network nic list"}},
		},
		MaxSessions: 2,
	})
	// With MaxSessions 2 and one session held by the hung command, the
	// other commands queue through one session; the command timeout also
	// covers that wait, so it must leave room for it on a loaded (-race)
	// machine, while the hung command still times out. It also bounds
	// how long esx01's in-flight session opens wait for the drop to be
	// seen: on a CI machine busy with other packages' tests 2 s was not
	// always enough (a session open timed out before the close arrived).
	res := scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: password(l)}), l.Targets(),
		collect.Options{SessionsPerHost: 8, CommandTimeout: 5 * time.Second})

	// Commands run concurrently: the host answers 5 execs and drops the
	// connection at the 6th, so up to 5 complete (answers in flight when
	// the connection closes are lost). The reason counts exactly those
	// that completed.
	r := res["esx01"]
	completed, lost := 0, 0
	for _, c := range r.Captures {
		switch {
		case strings.Contains(c.Error, "connection lost after"):
			lost++
		case c.ExitCode >= 0 && c.Status != hostio.StatusTimedOut && c.Status != hostio.StatusSkipped:
			completed++
		default:
			t.Errorf("esx01 %q: %s %q; want completed or connection lost", c.Command, c.Status, c.Error)
		}
	}
	want := fmt.Sprintf("connection lost after %d commands", completed)
	if completed < 1 || completed > 5 || lost == 0 || r.Status != hostio.StatusPartial || !strings.HasPrefix(r.Reason, want) {
		t.Errorf("dropped host: %d completed, %d lost, %s %q; want 1..5 completed and the reason %q", completed, lost, r.Status, r.Reason, want)
	}

	r = res["esx02"]
	c, _ := r.Find("esxcli network nic list")
	if c.Status != hostio.StatusTimedOut {
		t.Errorf("hung command: %s %q", c.Status, c.Error)
	}
	for _, c := range r.Captures {
		if c.Command != "esxcli network nic list" && c.Status == hostio.StatusTimedOut {
			t.Errorf("esx02 %q timed out too", c.Command)
		}
	}
	if n := len(r.Captures); n <= len(collect.Stage1()) {
		t.Errorf("esx02: stage 2 should still run after a hung stage-1 command; %d captures", n)
	}
	if st := l.Stats("esx02"); st.TCPConnections != 1 || st.Handshakes != 1 {
		t.Errorf("esx02: %d connections, %d handshakes; want 1 and 1", st.TCPConnections, st.Handshakes)
	}
}

// 200 hosts: exactly one TCP connection and one SSH handshake each, every
// host collected.
func TestLargeFleetOneConnectionPerHost(t *testing.T) {
	if testing.Short() {
		t.Skip("200 SSH servers")
	}
	sc := fixtures.Fleet(loadScenario(t, "mixed"), 200)
	l := lab.StartTB(t, sc, lab.Options{})
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := l.WriteKnownHosts(kh); err != nil {
		t.Fatal(err)
	}
	res := scan(t, newRunner(t, setupOpts{knownHosts: kh, creds: password(l)}), l.Targets(),
		collect.Options{Probes: true, HostTimeout: time.Minute, ConnectTimeout: 30 * time.Second})
	stage2 := 0
	for _, h := range l.Hosts() {
		st := l.Stats(h.Name)
		if st.TCPConnections != 1 || st.Handshakes != 1 {
			t.Errorf("%s: %d TCP connections, %d handshakes; want exactly 1 each", h.Name, st.TCPConnections, st.Handshakes)
		}
		r := res[h.Name]
		if r.Status == hostio.StatusNotCollected || len(r.Captures) < len(collect.Stage1()) {
			t.Errorf("%s: %s with %d captures (%q)", h.Name, r.Status, len(r.Captures), r.Reason)
		}
		if len(r.Captures) > len(collect.Stage1()) {
			stage2++
		}
	}
	// Every host gets its stage 2: those set up for PVRDMA their
	// per-device reads and probes, and the copies of mixed/esx06 (one in
	// five), which runs no PVRDMA VM and has no RDMA device, the module
	// parameters of its uplinks' driver (icen's RDMA parameter).
	if want := 200; stage2 != want {
		t.Errorf("%d hosts with stage 2 commands, want %d", stage2, want)
	}
}

// The transport refuses a line outside the allowlist before it opens a
// session: the host sees neither a session nor a command.
func TestTransportRefusesNonAllowlistedLineBeforeSession(t *testing.T) {
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{})
	r := newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: password(l)})
	h := hostInfo(t, l, "esx01")
	conn, err := r.Open(context.Background(), hostio.Target{Name: h.Name, Addr: h.Addr})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, line := range []string{
		"reboot",
		"esxcli system maintenanceMode set -e true",
		"esxcli rdma device list; reboot",
		"esxcli rdma device list\nreboot",
		"vsish -e set /vmkModules/vrdma/x 1",
		" esxcli rdma device list",
	} {
		res := conn.Run(context.Background(), line)
		if res.Err == nil || !strings.Contains(res.Err.Error(), "not on the read-only allowlist") {
			t.Errorf("%q: %v", line, res.Err)
		}
	}
	if st := l.Stats("esx01"); st.Sessions != 0 || len(st.Commands) != 0 {
		t.Errorf("refused lines reached the host: %d sessions, commands %q", st.Sessions, st.Commands)
	}
	if res := conn.Run(context.Background(), "esxcli rdma device list"); res.Err != nil || res.ExitCode != 0 {
		t.Errorf("an allowlisted line: %+v", res)
	}
}

// Host key algorithms follow what known_hosts records for the host
// (golang/go#49631); an unknown host is asked for ed25519 first.
func TestHostKeyAlgorithmsFollowKnownHosts(t *testing.T) {
	_, ed := newKey(t)
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	rsaLine := "[10.0.0.1]:2222 ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDOd0jEiKUyaIIlh5Ez1jtVIsRZAkLJkyPAnTTfUT+aUuXVOvZgmmV/hw3YDIZz6QqI5yI+bOy+7KuuEpkTRdHP1jsMkwAlTfc0sxv7jb/g36uR6UfrqIg2c9KJ6YjGnlm5DFuQw0CIsS9oMYCYSeAHKmYUJFaTwLvXnhbD8SS4XQ==\n"
	writeFile(t, kh, rsaLine+"esx02 "+string(ssh.MarshalAuthorizedKey(ed.PublicKey())), 0o600)
	db, err := sshrun.LoadHostKeyDB(kh, sshrun.HostKeyStrict)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(db.HostKeyAlgorithmsFor("10.0.0.1:2222"), ","); got != "rsa-sha2-512,rsa-sha2-256,ssh-rsa" {
		t.Errorf("RSA-only host: %s", got)
	}
	if got := db.HostKeyAlgorithmsFor("esx02:22"); len(got) != 1 || got[0] != ssh.KeyAlgoED25519 {
		t.Errorf("ed25519 host: %v", got)
	}
	if got := db.HostKeyAlgorithmsFor("unknown:22"); len(got) == 0 || got[0] != ssh.KeyAlgoED25519 {
		t.Errorf("unknown host: %v", got)
	}
}
