package cli

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// Signal over noise, measured on the text report (80 columns) of real
// scans: each failure cause is one line however many hosts it hits, no
// SOAP XML or Go error chain reaches a person, and each report fits its
// line budget.

// goChain matches the wrappers of Go network errors that no person should
// have to read ("dial tcp 127.0.0.1:22: connect: ...").
var goChain = regexp.MustCompile(`dial tcp|read tcp|write tcp|ssh: handshake failed: ssh:|connect: connection refused`)

func checkHumanText(t *testing.T, name, text string, budget int) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	t.Logf("%s: %d lines", name, len(lines))
	if len(lines) > budget {
		t.Errorf("%s: %d lines, budget %d:\n%s", name, len(lines), budget, text)
	}
	if strings.Contains(text, "<LocalizedMethodFault") || strings.Contains(text, "<fault") || strings.Contains(text, "XMLSchema") {
		t.Errorf("%s: raw vSphere XML:\n%s", name, text)
	}
	if m := goChain.FindString(text); m != "" {
		t.Errorf("%s: Go error chain %q:\n%s", name, m, text)
	}
	return lines
}

// causeLines are the lines of the NOT COLLECTED block.
func causeLines(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case l == "NOT COLLECTED":
			in = true
		case in && l == "":
			return out
		case in && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			out = append(out, l)
		}
	}
	return out
}

func TestDemoTextBudget(t *testing.T) {
	code, out, errOut := runCLI(t, "", "demo", "-o", "text")
	if code != ExitCritical {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The demo (six hosts and seven guests, with guest plans and the
	// readiness table) reads in 150 lines at 80 columns, whole: each root
	// cause with its evidence and the command that fixes it, wrapped, never
	// cut; each plan in a line (its steps, warnings and verify reads are
	// in --details and `pvrdma-doctor plan`).
	lines := checkHumanText(t, "demo", out, 150)
	if strings.Contains(out, "…") {
		t.Errorf("a line is cut:\n%s", out)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	for _, fix := range []string{"$ esxcli system module parameters set -m icen -p RDMA=1,1", "$ esxcli network firewall ruleset set -e true -r pvrdma",
		"$ esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1", "$ esxcli network ip interface set -i vmk1 -m 9000"} {
		if !strings.Contains(out, fix+"\n") {
			t.Errorf("the concise demo lacks the whole fix %q", fix)
		}
	}
	causes := causeLines(lines)
	if len(causes) != 1 || !strings.HasPrefix(causes[0], "  SSH refused on 1 host, vCenter's data read (esx05)") {
		t.Errorf("causes %q", causes)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "5 of 6 hosts reached, 1 through vCenter only") {
		t.Errorf("esx05 refused SSH and is counted as reached:\n%s", out)
	}
	code, details, _ := runCLI(t, "", "demo", "-o", "text", "--details")
	if code != ExitCritical || len(strings.Split(details, "\n")) <= len(lines) {
		t.Errorf("--details: exit %d, %d lines", code, len(strings.Split(details, "\n")))
	}
}

// Unknown host keys on four hosts and a refused SSH on the fifth: one
// line per cause, each host's fingerprint once in the host list.
func TestUnknownHostKeysOneLine(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	empty := filepath.Join(dir, "empty_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runScanCLI(t, dir, "--known-hosts", empty, "--password-env", "PD_PW", "-o", "text", "--log-level", "error")
	if code != ExitIncomplete {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := checkHumanText(t, "unknown host keys", out, 30)
	causes := causeLines(lines)
	if len(causes) != 2 || !strings.HasPrefix(causes[0], "  unknown host key on 5 hosts") || !strings.HasPrefix(causes[1], "  SSH refused on 1 host") {
		t.Errorf("causes %q\n%s", causes, out)
	}
	for _, h := range l.Hosts() {
		if h.Fault.Refuse {
			continue
		}
		fp := ssh.FingerprintSHA256(h.HostKey)
		if n := strings.Count(out, fp); n != 1 {
			t.Errorf("%s's fingerprint %s appears %d times", h.Name, fp, n)
		}
	}
}

// A wrong password: one line for the cause.
func TestWrongPasswordOneLine(t *testing.T) {
	_, dir := startScanLab(t, "mixed", lab.Options{})
	kh := filepath.Join(dir, "kh")
	code, out, errOut := runWithEnv(map[string]string{"PD_PW": "wrong"}, "scan", "--hosts-file", filepath.Join(dir, "hosts"),
		"--ssh-config", filepath.Join(dir, "ssh_config"), "--connect-timeout", "5s", "--known-hosts", kh, "--accept-new-host-keys",
		"--password-env", "PD_PW", "-o", "text", "--log-level", "error")
	if code != ExitIncomplete {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := checkHumanText(t, "wrong password", out, 30)
	causes := causeLines(lines)
	if len(causes) != 2 || !strings.HasPrefix(causes[0], "  login refused (wrong password or key) on 5 hosts") {
		t.Errorf("causes %q\n%s", causes, out)
	}
}

// vCenter with SSH off on every host: esxcli through the API, one line
// for the SSH failures, one for the namespaces vCenter does not serve; no
// XML anywhere.
func TestVCenterSSHOffOneLinePerCause(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	var hosts strings.Builder
	for _, h := range []string{"esx01", "esx02", "esx03", "esx04", "esx05"} {
		hosts.WriteString(h + " " + refused + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	url, thumb := startVCenter(t, "mixed")
	env := map[string]string{"PD_PW": testPassword, "VC_PW": vcPassword}
	code, out, errOut := runVCenterScan(t, dir, env, "--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", filepath.Join(dir, "kh"),
		"--password-env", "PD_PW", "--vcenter", url, "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", thumb,
		"--cluster", "pvrdma-demo", "-o", "text", "--log-level", "error")
	if code == ExitError || code == ExitUsage {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// vCenter's data concludes what SSH would have (no RDMA device, the
	// PVRDMA VMs, the cluster): each host's findings and plan, and the
	// readiness table.
	lines := checkHumanText(t, "vCenter, SSH off", out, 110)
	if os.Getenv("PD_DUMP") != "" {
		t.Log(out)
	}
	causes := causeLines(lines)
	var refusedLines, unserved int
	for _, c := range causes {
		switch {
		case strings.HasPrefix(c, "  SSH refused on 5 hosts"):
			refusedLines++
		case strings.HasPrefix(c, "  esxcli commands vCenter's API does not serve"):
			unserved++
		}
	}
	if refusedLines != 1 || unserved != 1 {
		t.Errorf("causes %q\n%s", causes, out)
	}
	for _, format := range []string{"markdown", "html"} {
		_, doc, _ := runVCenterScan(t, dir, env, "--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", filepath.Join(dir, "kh"),
			"--password-env", "PD_PW", "--vcenter", url, "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", thumb,
			"--cluster", "pvrdma-demo", "-o", format, "--log-level", "error")
		if strings.Contains(doc, "LocalizedMethodFault") || strings.Contains(doc, "XMLSchema") {
			t.Errorf("%s holds vSphere XML", format)
		}
	}
}
