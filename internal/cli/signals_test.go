package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
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
	os.Exit(Main())
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
