package offline

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// scanScenario collects a scenario in memory, its path probes included,
// as `scan --guests` would.
func scanScenario(t *testing.T, name string) []hostio.HostResult {
	t.Helper()
	sc := fixtures.MustLoad(t, name)
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: "127.0.0.1:22"})
	}
	for _, g := range sc.Guests {
		targets = append(targets, hostio.Target{Name: g.Name, Addr: "127.0.0.1:22", Role: hostio.RoleGuest})
	}
	return collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true, Logger: slog.New(slog.DiscardHandler)})
}

// saveFolder writes what an admin saves of a scan, as docs/bundles.md
// describes a folder of saved outputs: one folder per host, one file per
// command that ran (catalog.FileName), its stderr in <name>.stderr and a
// non-zero exit status in <name>.exit. It returns the results it could
// save: the hosts and commands that answered (a host not reached, a
// command that timed out leave no file).
func saveFolder(t *testing.T, dir string, rs []hostio.HostResult) []hostio.HostResult {
	t.Helper()
	var kept []hostio.HostResult
	for _, hr := range rs {
		var caps []hostio.Capture
		seen := map[string]bool{}
		for _, c := range hr.Captures {
			ran := c.Status == hostio.StatusCollected || c.Status == hostio.StatusFailed && c.ExitCode != 0
			if !ran || seen[c.Command] {
				continue
			}
			if _, ok := catalog.Lookup(c.Kind); !ok {
				continue
			}
			seen[c.Command] = true
			base := filepath.Join(dir, hr.Host, catalog.FileName(c.Command))
			if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
				t.Fatal(err)
			}
			must(t, os.WriteFile(base, []byte(c.Stdout), 0o644))
			if c.Stderr != "" {
				must(t, os.WriteFile(base+".stderr", []byte(c.Stderr), 0o644))
			}
			if c.ExitCode != 0 {
				must(t, os.WriteFile(strings.TrimSuffix(base, ".txt")+".exit", []byte(strconv.Itoa(c.ExitCode)+"\n"), 0o644))
			}
			caps = append(caps, c)
		}
		if len(caps) == 0 {
			continue
		}
		hr.Captures = caps
		kept = append(kept, hr)
	}
	return kept
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// findingKeys are the failed findings as the report states them.
func findingKeys(fs []checks.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Status == checks.StatusFail {
			out = append(out, string(f.Severity)+"|"+f.RuleID+"|"+f.Host+"|"+f.Subject+"|"+f.Message)
		}
	}
	slices.Sort(out)
	return out
}

// A folder of saved outputs with their .stderr and .exit files gives the
// findings of the scan it was saved from: a probe that got no reply exits
// 1 and is a result (the path drops those frames), not a command that
// failed. Every scenario, its hosts' outputs saved as docs/bundles.md
// describes.
func TestSavedFolderWithExitFilesEqualsScan(t *testing.T) {
	for _, name := range fixtures.Names() {
		t.Run(name, func(t *testing.T) {
			rs := scanScenario(t, name)
			dir := t.TempDir()
			saved := saveFolder(t, dir, rs)
			in, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, hr := range in.Results {
				for _, c := range hr.Captures {
					if c.Kind == catalog.KindVmkping && c.Status != hostio.StatusCollected {
						t.Errorf("%s: probe %q read as %s (%s): a probe without a reply is a result", hr.Host, c.Command, c.Status, c.Error)
					}
				}
			}
			want := findingKeys(testAnalyze(saved, identity).Checks.Findings)
			got := findingKeys(testAnalyze(in.Results, identity).Checks.Findings)
			if d := diffLines(got, want); d != "" {
				t.Errorf("saved folder analyses differently from its scan:\n%s", d)
			}
		})
	}
}

// The jumbodrop scenario saved with its .exit files: the lost jumbo
// probes exit 1; the folder gives the scan's critical PATH_MTU_BLOCKED,
// no COLLECTION_FAILED, nothing "not evaluated" for the probes.
func TestSavedJumbodropExitFilesKeepPathMTUBlocked(t *testing.T) {
	rs := scanScenario(t, "jumbodrop")
	dir := t.TempDir()
	saveFolder(t, dir, rs)
	exits, _ := filepath.Glob(filepath.Join(dir, "esx01", "vmkping_*.exit"))
	if len(exits) == 0 {
		t.Fatal("no lost probe saved with its exit status: the test proves nothing")
	}
	in, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := testAnalyze(in.Results, identity).Checks
	var blocked int
	for _, f := range res.Findings {
		switch {
		case f.RuleID == "COLLECTION_FAILED":
			t.Errorf("COLLECTION_FAILED from a saved lost probe: %s", f.Message)
		case f.Status == checks.StatusNotEvaluated && strings.Contains(f.Message, "vmkping"):
			t.Errorf("%s not evaluated: %s", f.RuleID, f.Message)
		case f.RuleID == "PATH_MTU_BLOCKED" && f.Status == checks.StatusFail && f.Severity == checks.Critical:
			blocked++
		}
	}
	if blocked != 2 {
		t.Errorf("%d critical PATH_MTU_BLOCKED, want 2 (both directions)", blocked)
	}
}

// An admin's saved `vmkping -d -s 9000` beside the scan's outputs of a
// healthy fleet: a 9028-byte frame vmk1 (MTU 9000) refuses, as the max-MTU
// script of the 100GbE PVRDMA setup guide explains, while the 8972-byte
// probe over the same vmknic passed. Nothing is wrong: the same findings
// as without it, no vmknic MTU above 9000 anywhere, reachability passed.
func TestSavedAdminJumboProbeAboveTheVmknicMTU(t *testing.T) {
	rs := scanScenario(t, "healthy")
	dir := t.TempDir()
	saved := saveFolder(t, dir, rs)
	out := "PING 192.168.50.12 (192.168.50.12): 9000 data bytes\n" + strings.Repeat("sendto() failed (Message too long)\n", 3) +
		"\n--- 192.168.50.12 ping statistics ---\n3 packets transmitted, 0 packets received, 100% packet loss\n"
	must(t, os.WriteFile(filepath.Join(dir, "esx01", "vmkping -I vmk1 -d -s 9000 192.168.50.12.txt"), []byte(out), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "esx01", "vmkping -I vmk1 -d -s 9000 192.168.50.12.exit"), []byte("1\n"), 0o644))
	in, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := false
	for _, hr := range in.Results {
		for _, c := range hr.Captures {
			read = read || c.Kind == catalog.KindVmkping && strings.Contains(c.Command, "-s 9000")
		}
	}
	if !read {
		t.Fatal("the admin's saved probe was not read: the test proves nothing")
	}
	a := testAnalyze(in.Results, identity)
	want := findingKeys(testAnalyze(saved, identity).Checks.Findings)
	if d := diffLines(findingKeys(a.Checks.Findings), want); d != "" {
		t.Errorf("an admin's refused 9000-byte probe changed the findings:\n%s", d)
	}
	for _, f := range append(a.Checks.Findings, a.Checks.Passed...) {
		if strings.Contains(f.Fix, "-m 9028") || strings.Contains(f.Message, "9028-byte frame") && f.Status == checks.StatusFail {
			t.Errorf("%s %s: %s / %s", f.RuleID, f.Host, f.Message, f.Fix)
		}
		if f.RuleID == "VMKPING_UNREACHABLE" && f.Host == "esx01" && f.Status != checks.StatusPass {
			t.Errorf("reachability %s: %s", f.Status, f.Message)
		}
	}
}
