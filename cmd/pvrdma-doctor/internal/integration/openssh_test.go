// Package integration runs pvrdma-doctor's scan against real OpenSSH sshd
// servers on loopback: public-key and keyboard-interactive (PAM) logins,
// known_hosts interplay with OpenSSH's own tools, a host holding several
// host keys (golang/go#49631), and ProxyJump through a second sshd. The
// hosts answer with the stand-in esxcli/vsish/vmkping script
// (fixtures/standin) from a scenario folder.
//
// The tests need /usr/sbin/sshd (scripts/test-deps.sh installs it) and
// skip without it. The keyboard-interactive test also needs root and
// useradd, to create a throwaway user with a known password.
package integration

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/cmd/pvrdma-doctor/internal/cli"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/standin"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

const sshdPath = "/usr/sbin/sshd"

func needSSHD(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skipf("OpenSSH sshd not installed (%v): run scripts/test-deps.sh", err)
	}
}

// repoRoot is the module's root: the nearest folder above this file that
// holds go.mod (however deep the package sits).
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	for d := filepath.Dir(file); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	t.Fatalf("no go.mod above %s", file)
	return ""
}

// world makes a directory every user can read and enter (the throwaway
// user's shell runs the stand-in scripts from it).
func worldDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "pvrdma-it-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// installStandin puts esxcli, vsish and vmkping (the stand-in script) in
// dir/bin and copies the scenario's host folder to dir/scenario/<host>.
func installStandin(t *testing.T, dir, scenario, host string) {
	t.Helper()
	if err := standin.ESXi.Install(filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	copyScenarioHost(t, dir, scenario, host)
}

// copyScenarioHost copies a scenario's host (or guest) folder to
// dir/scenario/<host>.
func copyScenarioHost(t *testing.T, dir, scenario, host string) {
	t.Helper()
	src := filepath.Join(repoRoot(t), "fixtures", "scenarios", scenario, host)
	dst := filepath.Join(dir, "scenario", host)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sshd is one running OpenSSH server.
type sshd struct {
	port     int
	addr     string
	hostKeys map[string]ssh.PublicKey // by type
	log      *syncBuffer
}

type syncBuffer = testutil.SyncBuffer

// keyWorld is a world (worldDir) for one stand-in host esx01 serving
// scenario, with a new ed25519 client key at dir/id_ed25519 authorized in
// dir/authorized_keys. It skips the test when sshd is missing.
func keyWorld(t *testing.T, scenario string) (dir, clientKey string) {
	t.Helper()
	needSSHD(t)
	dir = worldDir(t)
	installStandin(t, dir, scenario, "esx01")
	clientKey = filepath.Join(dir, "id_ed25519")
	pub := writePrivateKey(t, clientKey, newEd25519(t))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(pub), 0o644)
	return dir, clientKey
}

func writePrivateKey(t *testing.T, path string, key any) ssh.PublicKey {
	t.Helper()
	blk, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".pub", ssh.MarshalAuthorizedKey(s.PublicKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.PublicKey()
}

func newEd25519(t *testing.T) ed25519.PrivateKey {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// startSSHD runs `sshd -D -e -f cfg -p PORT` with its own ed25519 and RSA
// host keys; config adds lines to the base configuration. It returns once
// sshd says it is listening.
func startSSHD(t *testing.T, dir, name, config string) *sshd {
	t.Helper()
	needSSHD(t)
	if os.Geteuid() == 0 {
		// Privilege separation directory sshd insists on when run as root.
		os.MkdirAll("/run/sshd", 0o755)
	}
	s := &sshd{hostKeys: map[string]ssh.PublicKey{}, log: &syncBuffer{}}
	edPath := filepath.Join(dir, name+"_host_ed25519")
	rsaPath := filepath.Join(dir, name+"_host_rsa")
	s.hostKeys[ssh.KeyAlgoED25519] = writePrivateKey(t, edPath, newEd25519(t))
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s.hostKeys[ssh.KeyAlgoRSA] = writePrivateKey(t, rsaPath, rk)
	cfgPath := filepath.Join(dir, name+"_sshd_config")
	base := fmt.Sprintf(`ListenAddress 127.0.0.1
HostKey %s
HostKey %s
PidFile none
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
PermitRootLogin yes
MaxSessions 10
`, edPath, rsaPath)
	if err := os.WriteFile(cfgPath, []byte(base+config), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sshdPath, "-t", "-f", cfgPath).CombinedOutput(); err != nil {
		t.Fatalf("sshd -t rejects the test config: %v\n%s", err, out)
	}
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(sshdPath, "-D", "-e", "-f", cfgPath, "-p", strconv.Itoa(port))
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			signalled := false
			for sc.Scan() {
				line := sc.Text()
				s.log.Write([]byte(line + "\n"))
				if !signalled && strings.Contains(line, "Server listening on") {
					signalled = true
					ready <- true
				}
			}
			if !signalled {
				ready <- false
			}
			io.Copy(io.Discard, stderr)
		}()
		var ok bool
		select {
		case ok = <-ready:
		case <-time.After(30 * time.Second): // a guard against a wedged sshd, not a timing assertion
		}
		if ok {
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
				if t.Failed() {
					t.Logf("%s sshd log:\n%s", name, s.log.String())
				}
			})
			s.port = port
			s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			return s
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !strings.Contains(s.log.String(), "Address already in use") {
			t.Fatalf("sshd did not start:\n%s", s.log.String())
		}
	}
	t.Fatalf("sshd: no free port after 5 attempts:\n%s", s.log.String())
	return nil
}

// knownHostsLine is the known_hosts entry for one of the server's keys.
func (s *sshd) knownHostsLine(keyType string) string {
	return fmt.Sprintf("[127.0.0.1]:%d %s", s.port, ssh.MarshalAuthorizedKey(s.hostKeys[keyType]))
}

// scanCLI runs `pvrdma-doctor scan` in-process with an isolated
// environment (no agent) and returns the exit code, JSON report and stderr.
func scanCLI(t *testing.T, env map[string]string, args ...string) (int, report.Report, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(append([]string{"scan", "-o", "json", "--connect-timeout", "20s"}, args...),
		&cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		func(k string) string { return env[k] })
	var r report.Report
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("JSON report: %v\n%s\nstderr: %s", err, out.String(), errOut.String())
		}
	}
	return code, r, errOut.String()
}

func hostOf(t *testing.T, r report.Report, name string) report.Host {
	t.Helper()
	for _, h := range r.Hosts {
		if h.Host == name {
			return h
		}
	}
	t.Fatalf("host %s not in the report (%d hosts)", name, len(r.Hosts))
	return report.Host{}
}

// expectFindings checks that the report has exactly the scenario's
// expected findings for host (as scanned under the name alias).
func expectFindings(t *testing.T, r report.Report, scenario, host, alias string) {
	t.Helper()
	sc := fixtures.MustLoad(t, scenario)
	want := map[string]bool{}
	for _, e := range sc.Expect {
		// A scan of this one host cannot see that its VMs' peers sit on
		// hosts without RDMA: the peers were not scanned.
		if e.Host == host && e.Rule != "VM_PEERS_WITHOUT_RDMA" {
			want[e.Rule+" "+e.Subject] = true
		}
	}
	got := map[string]bool{}
	for _, f := range r.Findings {
		if f.Host == alias && f.Status == "fail" && f.RuleID != "COLLECTION_FAILED" {
			got[f.RuleID+" "+f.Subject] = true
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s: expected finding %q missing; got %v", alias, k, got)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("%s: unexpected finding %q", alias, k)
		}
	}
}

// A public-key scan of one OpenSSH host that holds ed25519 and RSA host
// keys while known_hosts records only the RSA one: the scan must offer
// only RSA algorithms (golang/go#49631) and verify it, then produce the
// scenario's findings from the stand-in commands.
func TestOpenSSHPublicKeyScanWithRSAOnlyKnownHosts(t *testing.T) {
	dir, clientKey := keyWorld(t, "mixed")
	s := startSSHD(t, dir, "esx01", fmt.Sprintf(`AuthorizedKeysFile %s
UsePAM no
KbdInteractiveAuthentication no
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_SCENARIO_DIR=%s PVRDMA_SCENARIO_HOST=esx01
`, filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "bin"), filepath.Join(dir, "scenario")))

	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(s.knownHostsLine(ssh.KeyAlgoRSA)), 0o600)
	me := currentUser(t)
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("esx01 "+s.addr+"\n"), 0o644)
	code, r, errOut := scanCLI(t, nil, "--hosts-file", hosts, "-i", clientKey, "--user", me,
		"--known-hosts", kh, "--ssh-config", filepath.Join(dir, "no_config"))
	h := hostOf(t, r, "esx01")
	if h.Status != hostio.StatusCollected {
		t.Fatalf("esx01: %s %q (exit %d)\nstderr: %s", h.Status, h.Reason, code, errOut)
	}
	if code != cli.ExitCritical {
		t.Errorf("exit %d, want %d (the scenario has critical findings)", code, cli.ExitCritical)
	}
	if len(h.Commands) <= len(collect.Stage1()) {
		t.Errorf("only %d commands: stage 2 was not planned from the stand-in's output", len(h.Commands))
	}
	expectFindings(t, r, "mixed", "esx01", "esx01")
	if !strings.Contains(s.log.String(), "Accepted publickey for "+me) {
		t.Errorf("sshd did not log a public-key login for %s", me)
	}
}

// Unknown host: the fingerprint we print is the one ssh-keygen prints for
// the server's key; accept-new writes an entry OpenSSH's own tools find,
// and a second strict scan verifies it.
func TestOpenSSHUnknownKeyAndAcceptNewInteroperate(t *testing.T) {
	dir, clientKey := keyWorld(t, "healthy")
	s := startSSHD(t, dir, "esx01", fmt.Sprintf(`AuthorizedKeysFile %s
UsePAM no
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_SCENARIO_DIR=%s PVRDMA_SCENARIO_HOST=esx01
`, filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "bin"), filepath.Join(dir, "scenario")))
	kh := filepath.Join(dir, "kh", "known_hosts")
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("esx01 "+s.addr+"\n"), 0o644)
	args := []string{"--hosts-file", hosts, "-i", clientKey, "--user", currentUser(t), "--known-hosts", kh,
		"--ssh-config", filepath.Join(dir, "no_config")}

	_, r, _ := scanCLI(t, nil, args...)
	h := hostOf(t, r, "esx01")
	out, err := exec.Command("ssh-keygen", "-lf", filepath.Join(dir, "esx01_host_ed25519.pub")).Output()
	if err != nil {
		t.Skipf("ssh-keygen not available: %v", err)
	}
	fp := strings.Fields(string(out))[1]
	if h.Status != hostio.StatusNotCollected || !strings.Contains(h.Reason, "unknown host key") || !strings.Contains(h.Reason, fp) {
		t.Errorf("unknown host: %s %q; want the fingerprint ssh-keygen prints, %s", h.Status, h.Reason, fp)
	}

	if code, r, errOut := scanCLI(t, nil, append(args, "--accept-new-host-keys")...); code != cli.ExitOK {
		t.Fatalf("accept-new: exit %d, %q; %s", code, hostOf(t, r, "esx01").Reason, errOut)
	}
	found, err := exec.Command("ssh-keygen", "-F", fmt.Sprintf("[127.0.0.1]:%d", s.port), "-f", kh).CombinedOutput()
	if err != nil || !strings.Contains(string(found), "ssh-ed25519") {
		t.Errorf("ssh-keygen -F does not find the recorded key: %v\n%s", err, found)
	}
	// OpenSSH's client accepts the file we wrote.
	if _, err := exec.LookPath("ssh"); err == nil {
		sshOut, err := exec.Command("ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile="+kh,
			"-o", "GlobalKnownHostsFile=/dev/null", "-F", "/dev/null", "-i", clientKey, "-p", strconv.Itoa(s.port),
			currentUser(t)+"@127.0.0.1", "esxcli", "system", "version", "get").CombinedOutput()
		if err != nil || !strings.Contains(string(sshOut), "Version") {
			t.Errorf("OpenSSH's ssh rejects the known_hosts we wrote: %v\n%s", err, sshOut)
		}
	}
	if code, r, errOut := scanCLI(t, nil, args...); code != cli.ExitOK {
		t.Errorf("second strict scan: exit %d, %q; %s", code, hostOf(t, r, "esx01").Reason, errOut)
	}
}

func currentUser(t *testing.T) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// ESXi's sshd takes passwords only through keyboard-interactive (PAM).
// sshd here: PasswordAuthentication no, KbdInteractiveAuthentication yes,
// UsePAM yes, and a throwaway user with a known password.
func TestOpenSSHKeyboardInteractivePassword(t *testing.T) {
	needSSHD(t)
	if os.Geteuid() != 0 {
		t.Skip("keyboard-interactive via PAM needs a user with a known password: run as root (CI does) to create one")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("useradd not found: cannot create the throwaway user")
	}
	if _, err := os.Stat("/etc/pam.d/sshd"); err != nil {
		t.Skip("no PAM configuration for sshd (/etc/pam.d/sshd)")
	}
	name := fmt.Sprintf("pvrdmait%d", os.Getpid()%100000)
	pw := "It-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if out, err := exec.Command("useradd", "-M", "-d", "/nonexistent", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	chpw := exec.Command("chpasswd")
	chpw.Stdin = strings.NewReader(name + ":" + pw + "\n")
	if out, err := chpw.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v\n%s", err, out)
	}

	dir := worldDir(t)
	installStandin(t, dir, "mixed", "esx01")
	s := startSSHD(t, dir, "esx01", fmt.Sprintf(`UsePAM yes
KbdInteractiveAuthentication yes
AllowUsers %s
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_SCENARIO_DIR=%s PVRDMA_SCENARIO_HOST=esx01
`, name, filepath.Join(dir, "bin"), filepath.Join(dir, "scenario")))
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(s.knownHostsLine(ssh.KeyAlgoED25519)), 0o600)
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte(pw+"\n"), 0o600)
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("esx01 "+s.addr+"\n"), 0o644)
	base := []string{"--hosts-file", hosts, "--user", name, "--known-hosts", kh, "--ssh-config", filepath.Join(dir, "no_config")}

	code, r, errOut := scanCLI(t, nil, append(base, "--password-file", pwFile)...)
	h := hostOf(t, r, "esx01")
	if h.Status != hostio.StatusCollected {
		t.Fatalf("keyboard-interactive login: %s %q (exit %d)\n%s", h.Status, h.Reason, code, errOut)
	}
	expectFindings(t, r, "mixed", "esx01", "esx01")
	if !strings.Contains(s.log.String(), "Accepted keyboard-interactive/pam for "+name) {
		t.Errorf("sshd did not log a keyboard-interactive/pam login")
	}

	code, r, _ = scanCLI(t, map[string]string{"PW": "wrong-" + pw}, append(base, "--password-env", "PW")...)
	h = hostOf(t, r, "esx01")
	if code != cli.ExitIncomplete || h.Status != hostio.StatusNotCollected ||
		!strings.Contains(h.Reason, "authentication failed for "+name+"@") || !strings.Contains(h.Reason, "keyboard-interactive") {
		t.Errorf("wrong password: exit %d, %s %q", code, h.Status, h.Reason)
	}
	// sshd may log the failure just after the client has given up.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(s.log.String(), "PAM: Authentication failure for "+name) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(s.log.String(), "PAM: Authentication failure for "+name); n != 1 {
		t.Errorf("sshd logged %d failed keyboard-interactive attempts for one wrong password, want 1", n)
	}
}

// ProxyJump through a second sshd, configured in an ssh_config file: both
// aliases behind the bastion are scanned over one bastion login, and the
// bastion's log shows the forwarded connections.
func TestOpenSSHProxyJump(t *testing.T) {
	dir, clientKey := keyWorld(t, "mixed")
	ak := filepath.Join(dir, "authorized_keys")
	target := startSSHD(t, dir, "esx01", fmt.Sprintf(`AuthorizedKeysFile %s
UsePAM no
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_SCENARIO_DIR=%s PVRDMA_SCENARIO_HOST=esx01
`, ak, filepath.Join(dir, "bin"), filepath.Join(dir, "scenario")))
	bastion := startSSHD(t, dir, "bastion", fmt.Sprintf(`AuthorizedKeysFile %s
UsePAM no
AllowTcpForwarding yes
LogLevel DEBUG1
`, ak))
	me := currentUser(t)
	cfg := filepath.Join(dir, "ssh_config")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`Host jump
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s

Host esx-a esx-b
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  ProxyJump jump
`, bastion.port, me, clientKey, target.port, me, clientKey)), 0o644)
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(bastion.knownHostsLine(ssh.KeyAlgoED25519)+target.knownHostsLine(ssh.KeyAlgoED25519)), 0o600)

	code, r, errOut := scanCLI(t, nil, "--hosts", "esx-a,esx-b", "--ssh-config", cfg, "--known-hosts", kh, "--no-probes")
	for _, alias := range []string{"esx-a", "esx-b"} {
		h := hostOf(t, r, alias)
		if h.Status != hostio.StatusCollected {
			t.Errorf("%s via the bastion: %s %q (exit %d)\n%s", alias, h.Status, h.Reason, code, errOut)
			continue
		}
		expectFindings(t, r, "mixed", "esx01", alias)
	}
	blog := bastion.log.String()
	if n := strings.Count(blog, "Accepted publickey for "+me); n != 1 {
		t.Errorf("the bastion saw %d logins for two hosts, want 1 shared login", n)
	}
	if n := strings.Count(blog, fmt.Sprintf("target 127.0.0.1 port %d", target.port)); n != 2 {
		t.Errorf("the bastion forwarded %d connections to the target, want 2 (one per host)", n)
	}

	// The bastion's host key is unknown: the hosts behind it are not
	// reached, and the reason names the jump host.
	os.WriteFile(kh, []byte(target.knownHostsLine(ssh.KeyAlgoED25519)), 0o600)
	_, r, _ = scanCLI(t, nil, "--hosts", "esx-a", "--ssh-config", cfg, "--known-hosts", kh, "--no-probes")
	if h := hostOf(t, r, "esx-a"); h.Status != hostio.StatusNotCollected || !strings.Contains(h.Reason, "jump host jump") ||
		!strings.Contains(h.Reason, "unknown host key") {
		t.Errorf("unknown bastion key: %s %q", h.Status, h.Reason)
	}
}
