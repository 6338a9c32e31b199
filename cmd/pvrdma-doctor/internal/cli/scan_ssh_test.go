package cli

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

const testPassword = "lab-password-123"

func startScanLab(t *testing.T, scenario string, opts lab.Options) (*lab.Lab, string) {
	t.Helper()
	opts.Password = testPassword
	return startLabDir(t, loadScenario(t, scenario), opts)
}

// runScanCLI runs `pvrdma-doctor scan` with an empty ssh config and no
// agent, and the password in PD_PW.
func runScanCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	base := []string{"scan", "--hosts-file", filepath.Join(dir, "hosts"), "--ssh-config", filepath.Join(dir, "ssh_config"),
		"--connect-timeout", "5s"}
	return runWithEnv(map[string]string{"PD_PW": testPassword}, append(base, args...)...)
}

func decodeReport(t *testing.T, out string) report.Report {
	t.Helper()
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, out)
	}
	return r
}

func hostsByName(r report.Report) map[string]report.Host {
	m := map[string]report.Host{}
	for _, h := range r.Hosts {
		m[h.Host] = h
	}
	return m
}

// The whole scan command over SSH: hosts file, password from the
// environment, known_hosts verification, per-host reasons in the JSON.
func TestScanCommandOverSSH(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{KeyboardInteractiveOnly: true, Faults: map[string]lab.Fault{
		"esx03": {DropAfter: 4},
	}})
	kh := labKnownHosts(t, l, dir)
	// One session at a time, so that exactly 4 commands complete before the drop.
	code, out, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json", "--log-format", "json", "-v",
		"--sessions-per-host", "1")
	if code != ExitCritical {
		t.Errorf("exit %d, want %d (critical findings); stderr:\n%s", code, ExitCritical, errOut)
	}
	hosts := hostsByName(decodeReport(t, out))
	if len(hosts) != len(l.Hosts()) {
		t.Fatalf("%d hosts in the report, want %d", len(hosts), len(l.Hosts()))
	}
	if h := hosts["esx05"]; h.Status != hostio.StatusNotCollected || !strings.Contains(h.Reason, "connection refused") {
		t.Errorf("esx05: %s %q", h.Status, h.Reason)
	}
	if h := hosts["esx03"]; h.Status != hostio.StatusPartial || !strings.Contains(h.Reason, "connection lost after 4 commands") {
		t.Errorf("esx03: %s %q", h.Status, h.Reason)
	}
	for _, name := range []string{"esx01", "esx02", "esx04"} {
		if h := hosts[name]; h.Status == hostio.StatusNotCollected || len(h.Commands) == 0 {
			t.Errorf("%s: %s %q", name, h.Status, h.Reason)
		}
	}
	// Without a terminal, with -v, progress is log lines (JSON here), one per host state.
	finished := 0
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stderr line is not JSON: %q", line)
			continue
		}
		if rec["msg"] == "host finished" && rec["host"] != nil {
			finished++
		}
	}
	if finished != len(l.Hosts()) {
		t.Errorf("%d 'host finished' log lines, want %d:\n%s", finished, len(l.Hosts()), errOut)
	}
}

// Unknown keys stop a strict scan with the fingerprint; accept-new records
// them in a new 0600 file and the next strict scan verifies them; a
// changed key is refused naming the known_hosts line.
func TestScanHostKeyFlags(t *testing.T) {
	l, dir := startScanLab(t, "healthy", lab.Options{})
	kh := filepath.Join(dir, "known_hosts")
	code, out, _ := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json")
	if code != ExitIncomplete {
		t.Errorf("unknown keys: exit %d, want %d", code, ExitIncomplete)
	}
	for _, hi := range l.Hosts() {
		h := hostsByName(decodeReport(t, out))[hi.Name]
		if h.Status != hostio.StatusNotCollected || !strings.Contains(h.Reason, ssh.FingerprintSHA256(hi.HostKey)) {
			t.Errorf("%s: %s %q", hi.Name, h.Status, h.Reason)
		}
	}

	code, _, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json", "--accept-new-host-keys")
	if code != ExitOK {
		t.Errorf("accept-new: exit %d; stderr %s", code, errOut)
	}
	if st, err := os.Stat(kh); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("known_hosts after accept-new: %v %v", st, err)
	}
	// Like OpenSSH, say which keys were trusted on first use.
	reachable := 0
	for _, hi := range l.Hosts() {
		if !hi.Fault.Refuse && !hi.Fault.Silent {
			reachable++
		}
	}
	if n := strings.Count(errOut, "Permanently added [127.0.0.1]:"); n != reachable || reachable == 0 {
		t.Errorf("%d 'Permanently added' lines for %d reachable hosts:\n%s", n, reachable, errOut)
	}
	if code, _, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json"); code != ExitOK {
		t.Errorf("second strict scan: exit %d; stderr %s", code, errOut)
	}

	recorded, _ := os.ReadFile(kh)
	line := 0
	for i, l := range strings.Split(string(recorded), "\n") {
		if strings.HasPrefix(l, "[127.0.0.1]:"+strings.Split(hostsByName(decodeReport(t, out))["esx01"].Address, ":")[1]+" ") {
			line = i + 1
		}
	}
	if err := l.RotateHostKey("esx01"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json", "--accept-new-host-keys")
	h := hostsByName(decodeReport(t, out))["esx01"]
	if code != ExitIncomplete || !strings.Contains(h.Reason, "HOST KEY MISMATCH") || !strings.Contains(h.Reason, fmt.Sprintf("%s:%d ", kh, line)) {
		t.Errorf("changed key: exit %d, %s %q", code, h.Status, h.Reason)
	}

	code, out, _ = runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "json", "--insecure-ignore-host-key")
	if code != ExitOK {
		t.Errorf("insecure: exit %d", code)
	}
	for _, h := range decodeReport(t, out).Hosts {
		if !strings.Contains(strings.Join(h.Notes, " "), "NOT verified") {
			t.Errorf("insecure: %s has no host-key warning: %q", h.Host, h.Notes)
		}
	}
	if code, _, errOut := runScanCLI(t, dir, "--password-env", "PD_PW", "--insecure-ignore-host-key", "--accept-new-host-keys"); code != ExitUsage {
		t.Errorf("contradictory flags: exit %d %s", code, errOut)
	}
}

// --dry-run lists every host's commands without connecting or needing
// credentials.
func TestScanDryRun(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	code, out, errOut := runScanCLI(t, dir, "--dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, h := range l.Hosts() {
		if !strings.Contains(out, "\n"+h.Name+" (root@"+h.Addr+")\n") {
			t.Errorf("dry run does not list %s at %s:\n%s", h.Name, h.Addr, out)
		}
		if st := l.Stats(h.Name); st.TCPConnections != 0 {
			t.Errorf("dry run connected to %s", h.Name)
		}
	}
	for _, c := range collect.Stage1() {
		if strings.Count(out, "  1  "+c.Line+"\n") != len(l.Hosts()) {
			t.Errorf("stage 1 command %q not listed once per host", c.Line)
		}
	}
	for _, want := range []string{
		"vsish -e cat /vmkModules/vrdma/pvrdmaDevices/<worldID>_<index>/properties",
		"esxcli rdma device stats get -d <vmrdmaN>",
		"vmkping -I <vmkN> [-S <netstack>] -c <1|3> [-i 0.2] [-W 1] -d -s <payload 1..8972> <peer IPv4>",
		"  3  probes to ",
		"a search of at most 3 rounds of one-packet tries",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("template %q missing", want)
		}
	}
	// JSON: each probing host's search bound, rounds included.
	_, out, _ = runScanCLI(t, dir, "--dry-run", "-o", "json")
	var doc struct {
		Hosts []dryRunHost `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, h := range doc.Hosts {
		if len(h.Probes) > 0 && (h.ProbeSearch == nil || h.ProbeSearch.Rounds != collect.MaxSearchRounds || h.ProbeSearch.Tries != collect.MaxRoundTries ||
			h.ProbeSearch.AtOnce != collect.SearchWidth(8, len(h.Probes))) {
			t.Errorf("%s: probe search %+v", h.Host, h.ProbeSearch)
		}
	}
	for _, off := range []string{"--no-probes", "--probes=off"} {
		checkDryRunNoProbes(t, l, dir, off)
	}
}

func checkDryRunNoProbes(t *testing.T, l *lab.Lab, dir, off string) {
	code, out, _ := runScanCLI(t, dir, "--dry-run", off, "-o", "json")
	var doc struct {
		DryRun bool         `json:"dry_run"`
		Hosts  []dryRunHost `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || !doc.DryRun || len(doc.Hosts) != len(l.Hosts()) {
		t.Fatalf("JSON dry run: exit %d, %v\n%s", code, err, out)
	}
	for _, tp := range doc.Hosts[0].Templates {
		if tp.Stage == 3 {
			t.Errorf("%s still lists %q", off, tp.Line)
		}
	}
	if len(doc.Hosts[0].Probes) != 0 {
		t.Errorf("%s still plans probes %v", off, doc.Hosts[0].Probes)
	}
}

// ssh_config: an alias with HostName/Port/User/IdentityFile, a key login,
// and the report keeps the alias the user typed.
func TestScanSSHConfigAliasAndKeyFile(t *testing.T) {
	signer, keyPEM := testKey(t)
	l, dir := startScanLab(t, "healthy", lab.Options{User: "ops", AuthorizedKeys: []ssh.PublicKey{signer.PublicKey()}})
	keyFile := filepath.Join(dir, "id_test")
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var cfg, hosts strings.Builder
	for _, h := range l.Hosts() {
		host, port, _ := strings.Cut(h.Addr, ":")
		cfg.WriteString("Host lab-" + h.Name + "\n  HostName " + host + "\n  Port " + port + "\n  User ops\n  IdentityFile " + keyFile + "\n")
		hosts.WriteString("lab-" + h.Name + "\n")
	}
	os.WriteFile(filepath.Join(dir, "ssh_config"), []byte(cfg.String()), 0o600)
	os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts.String()), 0o600)
	kh := labKnownHosts(t, l, dir)
	code, out, errOut := runScanCLI(t, dir, "--known-hosts", kh, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s\n%s", code, errOut, out)
	}
	for _, h := range decodeReport(t, out).Hosts {
		if !strings.HasPrefix(h.Host, "lab-") || h.Status != hostio.StatusCollected {
			t.Errorf("%s: %s %q", h.Host, h.Status, h.Reason)
		}
	}
	// No key, no password, no agent: a usage error before connecting.
	code, _, errOut = runScanCLI(t, dir, "--known-hosts", kh, "--ssh-config", filepath.Join(dir, "absent"), "--hosts", "x")
	if code != ExitUsage || !strings.Contains(errOut, "no credentials") {
		t.Errorf("no credentials: exit %d %q", code, errOut)
	}
}

func TestHostsFileFormats(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hosts")
	os.WriteFile(p, []byte("# lab\n\nesx01\nesx02:2222   # trailing comment\nesx03 10.0.0.3:22\nesx04 10.0.0.4\n[::1]:2200\n"), 0o600)
	ts, err := parseHostsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []hostio.Target{{Name: "esx01"}, {Name: "esx02:2222"}, {Name: "esx03", Addr: "10.0.0.3:22"}, {Name: "esx04", Addr: "10.0.0.4"}, {Name: "[::1]:2200"}}
	if len(ts) != len(want) {
		t.Fatalf("got %+v", ts)
	}
	for i := range want {
		if ts[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, ts[i], want[i])
		}
	}
	if got := ts[3].DialAddr(); got != "10.0.0.4:22" {
		t.Errorf("DialAddr %q", got)
	}
	for content, wantErr := range map[string]string{
		"esx01\nesx01\n":         ":2: host esx01 already listed on line 1",
		"esx01 a b\n":            ":1: expected NAME",
		"esx;reboot\n":           ":1: invalid host",
		"esx01 10.0.0.1;x:22\n":  ":1: invalid address",
		"esx01 10.0.0.1:port\n":  "",
		"esx01 10.0.0.1:22:22\n": "",
	} {
		os.WriteFile(p, []byte(content), 0o600)
		_, err := parseHostsFile(p)
		if wantErr == "" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: got %v, want %q", content, err, wantErr)
		}
	}
}

func TestPasswordSources(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "pw")
	os.WriteFile(pf, []byte("s3cret\r\nignored\n"), 0o600)
	getenv := func(k string) string { return map[string]string{"PW": "fromenv"}[k] }
	ios := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	for _, tc := range []struct {
		f    SSHFlags
		want string
		err  string
	}{
		{SSHFlags{PasswordEnv: "PW"}, "fromenv", ""},
		{SSHFlags{PasswordEnv: "NOPE"}, "", "not set"},
		{SSHFlags{PasswordFile: pf}, "s3cret", ""},
		{SSHFlags{PasswordFile: filepath.Join(dir, "absent")}, "", "--password-file"},
		{SSHFlags{AskPassword: true}, "", "needs a terminal"},
		{SSHFlags{AskPassword: true, ReadPassword: func(string) (string, error) { return "typed", nil }}, "typed", ""},
		{SSHFlags{PasswordEnv: "PW", PasswordFile: pf}, "", "only one of"},
	} {
		pw, _, err := tc.f.readPassword(getenv, ios)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.f, err, tc.err)
			}
			continue
		}
		if err != nil || pw != tc.want {
			t.Errorf("%+v: %q %v, want %q", tc.f, pw, err, tc.want)
		}
	}
}

// On a terminal, progress is a redrawn block on stderr that ends with a
// summary; problem hosts get a line of their own; logs go above it.
func TestProgressView(t *testing.T) {
	var buf bytes.Buffer
	targets := []hostio.Target{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	v := newProgressView(&buf, targets, 100)
	now := time.Now()
	v.Event(hostio.Event{Host: "a", Phase: hostio.PhaseConnecting, Time: now})
	v.Event(hostio.Event{Host: "b", Phase: hostio.PhaseCollecting, Done: 3, Total: 14, Time: now})
	v.mu.Lock()
	v.redrawLocked()
	v.mu.Unlock()
	if !strings.Contains(buf.String(), "b                    collecting 3/14") {
		t.Errorf("block does not show b's progress:\n%q", buf.String())
	}
	v.Write([]byte("level=WARN msg=x\n"))
	v.Event(hostio.Event{Host: "a", Phase: hostio.PhaseFailed, Err: "refused",
		Result: &hostio.HostResult{Host: "a", Status: hostio.StatusNotCollected, Reason: "cannot connect: connection refused"}})
	v.Event(hostio.Event{Host: "b", Phase: hostio.PhaseDone, Result: &hostio.HostResult{Host: "b", Status: hostio.StatusCollected}})
	v.Event(hostio.Event{Host: "c", Phase: hostio.PhaseDone, Result: &hostio.HostResult{Host: "c", Status: hostio.StatusPartial, Reason: "connection lost after 3 commands"}})
	out := buf.String()
	for _, want := range []string{"\x1b[J", "level=WARN msg=x\n", "✗ a not collected: cannot connect: connection refused\n",
		"! c partial: connection lost after 3 commands\n", "Scanned 3 hosts in"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%q", want, out)
		}
	}
	if strings.Contains(out, "✗ b") || strings.Contains(out, "! b") {
		t.Errorf("a collected host got a problem line")
	}
	if !strings.HasSuffix(out, ": 1 not collected, 1 partial\n") {
		t.Errorf("the view should end with the summary, got:\n%q", out)
	}
	n := buf.Len()
	v.Event(hostio.Event{Host: "a", Phase: hostio.PhaseConnecting})
	v.Write([]byte("late log\n"))
	if got := buf.String()[n:]; got != "late log\n" {
		t.Errorf("after the summary only logs may print, got %q", got)
	}
}

// testKey returns a new ed25519 signer and its private key in OpenSSH PEM.
func testKey(t *testing.T) (ssh.Signer, []byte) {
	t.Helper()
	k, s := testutil.NewKey(t)
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	return s, pem.EncodeToMemory(blk)
}
