package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The signal sequence: nothing printed on a normal exit (no race with the
// deferred cancel), first signal cancels, second aborts, third exits.
func TestWatchSignals(t *testing.T) {
	run := func(signals int) (out string, cancelled, aborted bool, exit int) {
		sigs := make(chan os.Signal, 3)
		finished := make(chan struct{})
		abort := make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		var errOut syncBuffer
		exit = -1
		exited := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			watchSignals(sigs, finished, cancel, abort, &errOut, func(c int) { exit = c; close(exited) })
		}()
		for range signals {
			sigs <- syscall.SIGTERM
			time.Sleep(20 * time.Millisecond)
		}
		if signals < 3 {
			close(finished)
		}
		<-done
		select {
		case <-abort:
			aborted = true
		default:
		}
		return errOut.String(), ctx.Err() != nil, aborted, exit
	}
	if out, c, a, e := run(0); out != "" || c || a || e != -1 {
		t.Errorf("no signal: printed %q, cancelled %v, aborted %v, exit %d", out, c, a, e)
	}
	if out, c, a, e := run(1); !strings.Contains(out, "interrupted: finishing the report") || !c || a || e != -1 {
		t.Errorf("one signal: printed %q, cancelled %v, aborted %v, exit %d", out, c, a, e)
	}
	if out, c, a, e := run(2); !strings.Contains(out, "reporting what was collected now") || !c || !a || e != -1 {
		t.Errorf("two signals: printed %q, cancelled %v, aborted %v, exit %d", out, c, a, e)
	}
	if _, _, _, e := run(3); e != ExitIncomplete {
		t.Errorf("three signals: exit %d", e)
	}
}

// TestMainHelper is the child process of TestSIGTERMReportsWedgedScan.
func TestMainHelper(t *testing.T) {
	args := os.Getenv("PVRDMA_DOCTOR_TEST_MAIN")
	if args == "" {
		t.Skip("helper process")
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"pvrdma-doctor"}, argv...)
	if d, err := time.ParseDuration(os.Getenv("PVRDMA_DOCTOR_TEST_INPUT_WAIT")); err == nil {
		hostio.InputWait = d
	}
	if ready := os.Getenv("PVRDMA_DOCTOR_TEST_READY"); ready != "" {
		signalsReady = func() { os.WriteFile(ready, nil, 0o644) }
	}
	if marker := os.Getenv("PVRDMA_DOCTOR_TEST_SLOW_BUNDLE"); marker != "" {
		// The bundle's report.html is written slowly (or never ends), and
		// says when it starts: the parent signals during the write.
		stuck := os.Getenv("PVRDMA_DOCTOR_TEST_STUCK_BUNDLE") != ""
		bundleHTML = func(w io.Writer, _ *report.Report) error {
			os.WriteFile(marker, nil, 0o644)
			if stuck {
				select {} // ignores everything: only the hard exit ends it
			}
			for {
				if _, err := w.Write(make([]byte, 1024)); err != nil {
					return err
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	os.Exit(Main())
}

// startMain runs the CLI in a child process (TestMainHelper) with argv and
// extra environment.
func startMain(t *testing.T, argv []string, env ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	a, _ := json.Marshal(argv)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelper$")
	cmd.Env = append(append(os.Environ(), "PVRDMA_DOCTOR_TEST_MAIN="+string(a)), env...)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &out, &errOut
}

// waitFile waits until path exists (the child reached a point).
func waitFile(t *testing.T, path string, errOut *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared; stderr %s", path, errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A second Ctrl-C while the bundle is written (real signals to a real
// process): the report is already out, the archive stops, its temporary
// file is removed, exit 5. A third one while the writer is stuck exits
// at once, the temporary file removed too.
func TestSecondSignalDuringBundleWrite(t *testing.T) {
	sc := loadScenario(t, "healthy")
	for _, tc := range []struct {
		name    string
		signals int
		env     []string
	}{
		{"second signal stops the archive", 2, nil},
		{"third signal while the writer is stuck", 3, []string{"PVRDMA_DOCTOR_TEST_STUCK_BUNDLE=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dir := startLabFiles(t, sc, lab.Options{Password: "pw"})
			out := t.TempDir()
			marker := filepath.Join(dir, "writing-html")
			cmd, stdout, errOut := startMain(t, []string{"scan", "--hosts-file", dir + "/hosts", "--known-hosts", dir + "/known_hosts",
				"--password-env", "PW", "--output", "json", "--no-probes", "--bundle", filepath.Join(out, "b.tar.gz")},
				append([]string{"PW=pw", "HOME=" + dir, "PVRDMA_DOCTOR_TEST_SLOW_BUNDLE=" + marker}, tc.env...)...)
			waitFile(t, marker, errOut)
			var r report.Report
			if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil || len(r.Hosts) != 2 {
				t.Fatalf("the report is not out before the bundle is written: %v\n%s", err, stdout.String())
			}
			if tmp, _ := filepath.Glob(filepath.Join(out, ".b.tar.gz.tmp-*")); len(tmp) != 1 {
				t.Fatalf("temporary files while writing: %v", tmp)
			}
			// Each signal once the one before is seen (the kernel merges a
			// signal sent while the same one is pending).
			seen := []string{"interrupted: finishing", "interrupted again"}
			for i := range tc.signals {
				cmd.Process.Signal(os.Interrupt)
				if i < len(seen) && i < tc.signals-1 {
					for !strings.Contains(errOut.String(), seen[i]) {
						time.Sleep(10 * time.Millisecond)
					}
				}
			}
			signalled := time.Now()
			err := cmd.Wait()
			if d := time.Since(signalled); d > 5*time.Second {
				t.Errorf("exited %s after the last signal", d)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitIncomplete {
				t.Errorf("exit: %v, want %d; stderr %s", err, ExitIncomplete, errOut.String())
			}
			if left, _ := os.ReadDir(out); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if tc.signals == 2 && !strings.Contains(errOut.String(), "not written: interrupted (its temporary file was removed)") {
				t.Errorf("stderr: %s", errOut.String())
			}
		})
	}
}

// SIGTERM to a real process scanning a wedged host (timeouts of an hour)
// ends the scan at once with the report of the healthy host, exit 5.
func TestSIGTERMReportsWedgedScan(t *testing.T) {
	sc := loadScenario(t, "healthy")
	l, dir := startLabFiles(t, sc, lab.Options{Password: "pw", Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{WedgeSessions: true}}}})
	argv, _ := json.Marshal([]string{"scan", "--hosts-file", dir + "/hosts", "--known-hosts", dir + "/known_hosts",
		"--password-env", "PW", "--output", "json", "--no-probes", "--command-timeout", "1h", "--host-timeout", "1h"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelper$")
	cmd.Env = append(os.Environ(), "PVRDMA_DOCTOR_TEST_MAIN="+string(argv), "PW=pw", "HOME="+dir)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the healthy host is done and esx01 is wedged.
	deadline := time.Now().Add(30 * time.Second)
	for len(l.Stats("esx02").Commands) < len(collect.Stage1())+1 || l.Stats("esx01").Handshakes == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("scan did not start: %s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	signalled := time.Now()
	err := cmd.Wait()
	// The wedged host would keep the scan forever: a minute proves the
	// signal ended it, whatever the machine's load (issue 23).
	if d := time.Since(signalled); d > time.Minute {
		t.Errorf("exited %s after SIGTERM", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitIncomplete {
		t.Errorf("exit: %v, want %d; stderr %s", err, ExitIncomplete, errOut.String())
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("no report after SIGTERM: %v\n%s\nstderr %s", err, out.String(), errOut.String())
	}
	if len(r.Hosts) != 2 || !strings.Contains(strings.Join(r.Notes, " "), "interrupted") {
		t.Errorf("%d hosts, notes %v", len(r.Hosts), r.Notes)
	}
	if !strings.Contains(errOut.String(), "interrupted: finishing the report") {
		t.Errorf("stderr: %s", errOut.String())
	}
}

// startLabFiles starts a lab of sc (closed with the test) and writes its
// hosts and known_hosts files into the returned directory.
func startLabFiles(t *testing.T, sc *fixtures.Scenario, opts lab.Options) (*lab.Lab, string) {
	t.Helper()
	l, dir := startLabDir(t, sc, opts)
	labKnownHosts(t, l, dir)
	return l, dir
}
