package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// syncBuffer is a bytes.Buffer safe for a writer and a polling reader.
type syncBuffer = testutil.SyncBuffer

// waitServeStopped waits up to 10 seconds for `lab serve` to return, with
// no error; otherwise the test fails with what.
func waitServeStopped(t *testing.T, errc <-chan error, what string) {
	t.Helper()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

func waitFor(t *testing.T, buf *syncBuffer, substr string, errc <-chan error) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), substr) {
		select {
		case err := <-errc:
			t.Fatalf("lab serve returned early: %v\n%s", err, buf.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in output:\n%s", substr, buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return buf.String()
}

func TestLabServeViaRootCommand(t *testing.T) {
	dir := t.TempDir()
	serve := serveLab(t, "--scenario", "healthy", "--out-dir", dir, "--password", "pa ss'word", "--keyboard-interactive-only")
	text := serve.Text

	m := regexp.MustCompile(`(?m)^esx01\s+(127\.0\.0\.1:\d+)\s+root\s+pa ss'word\s+(SHA256:\S+)\s+-$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no esx01 line in:\n%s", text)
	}
	addr, fp := m[1], m[2]
	if !strings.Contains(text, `export PVRDMA_DOCTOR_PASSWORD='pa ss'\''word'`) {
		t.Errorf("password not exported shell-quoted:\n%s", text)
	}
	wantScan := "pvrdma-doctor scan --hosts-file " + filepath.Join(dir, "hosts.txt") + " --known-hosts " +
		filepath.Join(dir, "known_hosts") + " --user root --password-env PVRDMA_DOCTOR_PASSWORD"
	if !strings.Contains(text, wantScan) {
		t.Errorf("scan line missing, want %q in:\n%s", wantScan, text)
	}
	hostsTxt, err := os.ReadFile(filepath.Join(dir, "hosts.txt"))
	if err != nil || !strings.Contains(string(hostsTxt), "esx01 "+addr+"\n") {
		t.Fatalf("hosts.txt: %v\n%s", err, hostsTxt)
	}
	cb, err := knownhosts.New(filepath.Join(dir, "known_hosts"))
	if err != nil {
		t.Fatal(err)
	}
	// Dial the printed address, verifying the host key against the written
	// known_hosts and the printed fingerprint, with ESXi-style auth.
	var seen ssh.PublicKey
	c, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User: "root",
		Auth: []ssh.AuthMethod{ssh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
			ans := make([]string, len(qs))
			for i := range ans {
				ans[i] = "pa ss'word"
			}
			return ans, nil
		})},
		HostKeyCallback: func(h string, a net.Addr, k ssh.PublicKey) error { seen = k; return cb(h, a, k) },
		Timeout:         5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ssh.FingerprintSHA256(seen) != fp {
		t.Errorf("printed fingerprint %s, host presents %s", fp, ssh.FingerprintSHA256(seen))
	}
	s, _ := c.NewSession()
	got, err := s.Output("esxcli rdma device list")
	if err != nil || !strings.Contains(string(got), "vmrdma0  nmlx5_rdma  Active") {
		t.Fatalf("command over the lab: %v %q", err, got)
	}
	// The printed vCenter command works as printed.
	vm := regexp.MustCompile(`export VC_PASSWORD=(\S+)\n\s+(pvrdma-doctor scan .*\\\n.*)`).FindStringSubmatch(text)
	if vm == nil {
		t.Fatalf("no vCenter scan command in:\n%s", text)
	}
	code, sout, serr := runPrinted(vm[2], dir, map[string]string{"PVRDMA_DOCTOR_PASSWORD": "pa ss'word", "VC_PASSWORD": vm[1]})
	if code != ExitOK || !strings.Contains(sout, `"vcenter vm config"`) || !strings.Contains(sout, "certificate pinned") {
		t.Errorf("printed vCenter scan: exit %d\n%s\n%s", code, serr, sout)
	}
	serve.stop(t, "lab serve did not stop on context cancel")
	if !strings.Contains(serve.ErrOut.String(), "lab stopped") {
		t.Errorf("stderr: %q", serve.ErrOut.String())
	}
	if _, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{User: "root", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: time.Second}); err == nil {
		t.Error("host still serving after stop")
	}
}

func TestLabServeFleetAndStopChannel(t *testing.T) {
	out := &syncBuffer{}
	stop := make(chan struct{})
	opts := &LabServeOptions{IO: &IOStreams{Out: out, ErrOut: &syncBuffer{}}, Scenario: "mixed", Hosts: 7, User: "root", Stop: stop}
	errc := make(chan error, 1)
	go func() { errc <- runLabServe(context.Background(), opts) }()
	text := waitFor(t, out, "Press Ctrl-C to stop.", errc)
	if !strings.Contains(text, "7 simulated ESXi hosts") || !strings.Contains(text, "\nesx0007  ") || strings.Contains(text, "refuses connections") {
		t.Errorf("fleet output:\n%s", text)
	}
	dir := regexp.MustCompile(`--hosts-file (\S+)/hosts\.txt`).FindStringSubmatch(text)
	if dir == nil {
		t.Fatalf("no hosts file in:\n%s", text)
	}
	defer os.RemoveAll(dir[1])
	m := regexp.MustCompile(`export PVRDMA_DOCTOR_PASSWORD=(\S+)`).FindStringSubmatch(text)
	if m == nil || len(m[1]) < 16 {
		t.Fatalf("no random password exported:\n%s", text)
	}
	close(stop)
	waitServeStopped(t, errc, "lab serve ignored Stop")
}

func TestLabServeMixedShowsFaults(t *testing.T) {
	out := &syncBuffer{}
	stop := make(chan struct{})
	opts := &LabServeOptions{IO: &IOStreams{Out: out, ErrOut: &syncBuffer{}}, Scenario: "mixed", User: "root", OutDir: t.TempDir(), Stop: stop}
	errc := make(chan error, 1)
	go func() { errc <- runLabServe(context.Background(), opts) }()
	text := waitFor(t, out, "Press Ctrl-C to stop.", errc)
	close(stop)
	<-errc
	if !regexp.MustCompile(`(?m)^esx05 .* refuses connections$`).MatchString(text) {
		t.Errorf("esx05 fault not shown:\n%s", text)
	}
}

func TestLabServeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"lab", "serve", "--scenario", "nope"},
		{"lab", "serve", "--scenario", "mixed", "--scenario-dir", "/tmp"},
		{"lab", "serve", "--hosts", "-3"},
		{"lab", "serve", "extra"},
	} {
		code, _, errOut := runCLI(t, "", args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, ExitUsage, errOut)
		}
	}
	code, _, errOut := runCLI(t, "", "lab", "serve", "--scenario-dir", filepath.Join(t.TempDir(), "missing"))
	if code != ExitError || !strings.Contains(errOut, "scenario directory") {
		t.Errorf("missing scenario dir: exit %d, stderr %q", code, errOut)
	}
}
