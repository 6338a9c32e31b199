package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Every file input, given a named pipe nobody writes to (or a device),
// ends the command with a clear error within the pipe wait, instead of
// hanging (issue 24.6); known_hosts, which is also written to, must be a
// file.
func TestInputsThatAreNotFiles(t *testing.T) {
	old := hostio.InputWait
	hostio.InputWait = 300 * time.Millisecond
	t.Cleanup(func() { hostio.InputWait = old })
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, nil, 0o600)
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("pw\n"), 0o600)
	scan := []string{"scan", "--hosts", "127.0.0.1:1", "--known-hosts", kh, "--connect-timeout", "2s", "--no-probes", "-o", "json"}
	const nobody = "a pipe nothing wrote to within"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--password-file", append(scan, "--password-file", fifo), nobody},
		{"--password-file /dev/zero", append(scan, "--password-file", "/dev/zero"), "is a character device, not a file"},
		{"--hosts-file", []string{"scan", "--hosts-file", fifo, "--known-hosts", kh, "--password-file", pw}, nobody},
		{"--config", append(scan, "--password-file", pw, "--config", fifo), nobody},
		{"--known-hosts", []string{"scan", "--hosts", "127.0.0.1:1", "--known-hosts", fifo, "--password-file", pw}, "is a named pipe, not a file"},
		{"--ssh-config", append(scan, "--password-file", pw, "--ssh-config", fifo), nobody},
		{"-i", append(scan, "-i", fifo), nobody},
		{"--guest-password-file", append(scan, "--password-file", pw, "--guests", "127.0.0.2:1", "--guest-password-file", fifo), nobody},
		{"--vcenter-password-file", append(scan, "--password-file", pw, "--vcenter", "https://127.0.0.1:1", "--vcenter-password-file", fifo), nobody},
		{"--tokens", append(scan, "--password-file", pw, "--bundle", filepath.Join(dir, "b.tar.gz"), "--tokens", fifo), nobody},
		{"analyze", []string{"analyze", fifo}, nobody},
		{"analyze a directory", []string{"analyze", "/dev/zero"}, "is a character device, not a file"},
		{"parse", []string{"parse", "--command", "esxcli rdma device list", fifo}, nobody},
		{"redact", []string{"redact", fifo, filepath.Join(dir, "out.tar.gz")}, nobody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, _, errOut := runWithEnv(map[string]string{"HOME": dir}, tc.args...)
			d := time.Since(start)
			if code == ExitOK || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; stderr %q; want %q", code, errOut, tc.want)
			}
			if d > 20*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// A pipe that is written to is an input like a file: `--password-file
// <(pass show esx)`.
func TestPasswordFromAPipe(t *testing.T) {
	sc := loadScenario(t, "healthy")
	_, dir := startLabFiles(t, sc, lab.Options{Password: testPassword})
	fifo := filepath.Join(dir, "pw-pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Write([]byte(testPassword + "\n"))
			w.Close()
		}
	}()
	code, out, errOut := runWithEnv(map[string]string{"HOME": dir}, "scan", "--hosts-file", dir+"/hosts", "--known-hosts", dir+"/known_hosts",
		"--password-file", fifo, "--no-probes", "-o", "json")
	if code == ExitError || code == ExitUsage || !strings.Contains(out, `"schema_version"`) {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
}

// SIGTERM always ends the process, also while it waits for an input: a
// real process blocked on a named pipe (its wait made an hour) ends at
// once on one SIGTERM.
func TestSIGTERMEndsABlockedInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, argv := range [][]string{
		{"scan", "--hosts", "127.0.0.1:1", "--password-file", fifo},
		{"analyze", fifo},
		{"analyze", "-"},
	} {
		t.Run(argv[0]+" "+argv[len(argv)-1], func(t *testing.T) {
			a, _ := json.Marshal(argv)
			cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelper$")
			ready := filepath.Join(t.TempDir(), "ready")
			cmd.Env = append(os.Environ(), "PVRDMA_DOCTOR_TEST_MAIN="+string(a), "PVRDMA_DOCTOR_TEST_INPUT_WAIT=1h", "HOME="+dir,
				"PVRDMA_DOCTOR_TEST_READY="+ready)
			stdin, _ := cmd.StdinPipe() // never written: "-" waits on it
			defer stdin.Close()
			var errOut syncBuffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Once signals are handled; the input may or may not be
			// waited on yet: it must end either way.
			waitFile(t, ready, &errOut)
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitError || !strings.Contains(errOut.String(), "interrupted") {
					t.Errorf("exit %v; stderr %s", err, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("still running 10 s after SIGTERM; stderr %s", errOut.String())
			}
		})
	}
}
