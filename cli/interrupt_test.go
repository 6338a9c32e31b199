package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// An interrupted scan (Ctrl-C cancels the context) still reports what it
// collected, says it was interrupted, and exits "incomplete".
func TestInterruptedScanStillReports(t *testing.T) {
	sc, err := fixtures.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	l, dir := startLabFiles(t, sc, lab.Options{Password: "pw", Faults: map[string]lab.Fault{"esx02": {Hang: []string{"esxcli network nic list"}}}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once esx02 is stuck in its hung command.
		for len(l.Stats("esx02").Commands) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	var out, errOut bytes.Buffer
	code := RunContext(ctx, []string{"scan", "--hosts-file", dir + "/hosts.txt", "--known-hosts", dir + "/known_hosts",
		"--password-env", "PW", "--output", "json", "--no-probes"},
		&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, func(k string) string {
			if k == "PW" {
				return "pw"
			}
			return ""
		})
	if code != ExitIncomplete {
		t.Errorf("exit %d, want %d; stderr %s", code, ExitIncomplete, errOut.String())
	}
	var r report.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("no report after the interrupt: %v\n%s", err, out.String())
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "interrupted") {
		t.Errorf("report notes do not say the scan was interrupted: %v", r.Notes)
	}
	if len(r.Hosts) != 2 {
		t.Errorf("%d hosts in the report", len(r.Hosts))
	}
}
