package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

func runPathsCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runWithEnv(map[string]string{"PD_PW": testPassword}, append([]string{"paths"}, args...)...)
}

// `paths` over real SSH against the lab: every ordered pair probed (all
// is its default), the matrix marks the blocked paths, the exit status is
// critical; JSON carries the pairs with their probes.
func TestPathsCommandOverSSH(t *testing.T) {
	_, dir := startScanLab(t, "jumbodrop", lab.Options{})
	base := []string{"--hosts-file", filepath.Join(dir, "hosts"), "--ssh-config", filepath.Join(dir, "ssh_config"),
		"--connect-timeout", "5s", "--password-env", "PD_PW", "--accept-new-host-keys", "--known-hosts", filepath.Join(dir, "known_hosts")}
	code, out, errOut := runPathsCLI(t, base...)
	if code != ExitCritical {
		t.Fatalf("exit %d, want %d (blocked paths)\n%s\n%s", code, ExitCritical, out, errOut)
	}
	for _, want := range []string{"fleet minimum 1500 (esx01 -> esx02)", "esx01       - 1500!", "esx02   1500!     -",
		"esx01 -> esx02 (192.168.50.12): blocked, path MTU 1500 of 9000 configured (RDMA MTU 1024)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "2 of 2 measured paths are blocked or unreachable") {
		t.Errorf("stderr: %s", errOut)
	}
	code, out, errOut = runPathsCLI(t, append(base, "-o", "json")...)
	var p report.Paths
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != ExitCritical {
		t.Fatalf("json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	if len(p.Pairs) != 2 || p.FleetMinMTU != 1500 || !p.Pairs[0].Exact || p.Pairs[0].Status != report.PairBlocked || len(p.Pairs[0].Probes) < 3 {
		t.Errorf("pairs: %+v", p)
	}
	if !strings.HasPrefix(p.Pairs[0].Probes[0], "vmkping -I vmk1 -c ") {
		t.Errorf("probes: %v", p.Pairs[0].Probes)
	}
}

func TestPathsCommandOfflineAndUsage(t *testing.T) {
	code, out, _ := runPathsCLI(t, "--input", filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "healthy"))
	if code != ExitOK || !strings.Contains(out, "esx01       -  9000") || !strings.Contains(out, "Every probed path carries its configured MTU.") {
		t.Errorf("healthy: exit %d\n%s", code, out)
	}
	if code, _, errOut := runPathsCLI(t, "--input", "x", "--hosts", "esx01"); code != ExitUsage {
		t.Errorf("--input with --hosts: exit %d %s", code, errOut)
	}
	if code, _, errOut := runPathsCLI(t, "--hosts", "esx01,esx02", "--probes", "off"); code != ExitUsage {
		t.Errorf("--probes off: exit %d %s", code, errOut)
	}
	if code, _, errOut := runPathsCLI(t, "--hosts", "esx01,esx02", "--probes", "sometimes"); code != ExitUsage || !strings.Contains(errOut, "ring, all, off") {
		t.Errorf("bad --probes: exit %d %s", code, errOut)
	}
}

// lab serve --bad-port: a fleet on a modelled network, and paths finds
// the bad port exactly.
func TestPathsAgainstLabServeBadPort(t *testing.T) {
	if _, err := parseBadPorts([]string{"esx0009=1500"}, 4); err == nil {
		t.Error("a host outside the fleet accepted")
	}
	if _, err := parseBadPorts([]string{"esx0002=99999"}, 4); err == nil {
		t.Error("an MTU of 99999 accepted")
	}
	ports, err := parseBadPorts([]string{"esx0002=4000"}, 4)
	if err != nil || ports[1] != 4000 {
		t.Fatalf("%v %v", ports, err)
	}
	dir := t.TempDir()
	serve := serveLab(t, "--hosts", "4", "--bad-port", "esx0002=4000", "--out-dir", dir, "--password", testPassword)
	code, text, errOut := runPathsCLI(t, "--hosts-file", filepath.Join(dir, "hosts.txt"), "--known-hosts", filepath.Join(dir, "known_hosts"),
		"--password-env", "PD_PW", "--ssh-config", filepath.Join(dir, "none"))
	if code != ExitCritical || !strings.Contains(text, "esx0002     4000!       -   4000!   4000!") ||
		!strings.Contains(text, "fleet minimum 4000") {
		t.Errorf("exit %d\n%s\n%s", code, text, errOut)
	}
	serve.stop(t, "lab serve did not stop")
}
