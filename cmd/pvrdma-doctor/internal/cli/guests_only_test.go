package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// A guests-only scan that checked nothing never exits 0 (issue 24.8): a
// guest that refuses the connection or the login leaves the scan
// incomplete (exit 5; it was 0: guests were not counted); a healthy
// guest alone is checked (exit 0).
func TestGuestsOnlyScanThatCheckedNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault lab.Fault
		want  int
	}{
		{"guest refuses SSH", lab.Fault{Refuse: true}, ExitIncomplete},
		{"guest rejects the login", lab.Fault{RejectAuth: true}, ExitIncomplete},
		{"healthy guest", lab.Fault{}, ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := startScanLab(t, "healthy", lab.Options{Faults: map[string]lab.Fault{"hpc-node01": tc.fault}})
			kh := labKnownHosts(t, l, dir)
			writeGuestsFile(t, l, dir, kh)
			var addr string
			for _, g := range l.Guests() {
				if g.Name == "hpc-node01" {
					addr = g.Addr
				}
			}
			gf := filepath.Join(dir, "one-guest")
			os.WriteFile(gf, []byte(fmt.Sprintf("hpc-node01 %s\n", addr)), 0o600)
			code, out, errOut := runWithEnv(map[string]string{"PD_PW": testPassword}, "scan", "--guests-file", gf, "--known-hosts", kh,
				"--guest-password-env", "PD_PW", "--connect-timeout", "5s", "-o", "json")
			if code != tc.want {
				r := decodeReport(t, out)
				t.Errorf("exit %d, want %d; verdict %q; stderr %s", code, tc.want, r.Verdict, errOut)
			}
		})
	}
}

// A scan whose hosts or guests answered but of which nothing could be
// evaluated is not "OK" either.
func TestNothingCheckedIsIncomplete(t *testing.T) {
	r := &report.Report{Summary: report.Summary{Guests: 1, GuestsCollected: 1, NotEvaluated: 8}}
	if code := exitCodeFor(r, checks.Warning); code != ExitIncomplete {
		t.Errorf("exit %d, want %d (verdict class %s)", code, ExitIncomplete, r.VerdictClass())
	}
	r.Summary.Passed = 3
	if code := exitCodeFor(r, checks.Warning); code != ExitOK {
		t.Errorf("with checks passed: exit %d", code)
	}
}
