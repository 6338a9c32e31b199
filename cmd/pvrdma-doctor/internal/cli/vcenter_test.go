package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/vclab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

const vcPassword = "vc-Secret-42"

// startVCenter serves the scenario's simulated vCenter and returns its URL
// and certificate thumbprint.
func startVCenter(t *testing.T, scenario string) (string, string) {
	t.Helper()
	return startVCenterGuests(t, scenario, nil)
}

// startVCenterGuests is startVCenter whose VMs report the given lab
// guests' addresses (VMware Tools).
func startVCenterGuests(t *testing.T, scenario string, guests []lab.HostInfo) (string, string) {
	t.Helper()
	sc := loadScenario(t, scenario)
	s, err := vclab.Start(sc, guests, "admin@vsphere.local", vcPassword)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.URL.String(), s.Thumbprint
}

func runVCenterScan(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	base := []string{"scan", "--ssh-config", filepath.Join(dir, "ssh_config"), "--connect-timeout", "5s", "--vcenter-user", "admin@vsphere.local"}
	return runWithEnv(env, append(base, args...)...)
}

// scan --vcenter over the real API protocol: the hosts of the hosts file
// are scanned over SSH and get vCenter's captures; esx05, which refuses
// SSH, is read from vCenter alone; the report names each command's
// transport and how vCenter's certificate was trusted.
func TestScanWithVCenter(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	url, thumb := startVCenter(t, "mixed")
	env := map[string]string{"PD_PW": testPassword}
	pwFile := filepath.Join(dir, "vcpw")
	if err := os.WriteFile(pwFile, []byte(vcPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bundlePath := filepath.Join(dir, "support.tar.gz")
	code, out, errOut := runVCenterScan(t, dir, env, "--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", kh,
		"--password-env", "PD_PW", "--vcenter", url, "--vcenter-password-file", pwFile, "--vcenter-thumbprint", thumb,
		"--cluster", "pvrdma-demo", "-o", "json", "--bundle", bundlePath)
	if code != ExitCritical {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	// The vCenter password is nowhere; the redacted bundle holds the
	// vCenter captures, without the vCenter user, its address (loopback
	// with a port: a tunnel, issue 24.7) or the cluster its notes name.
	files := archiveFiles(t, bundlePath)
	vcAddr := strings.TrimSuffix(strings.TrimPrefix(url, "https://"), "/sdk")
	for name, data := range files {
		for _, secret := range []string{vcPassword, "admin@vsphere.local", vcAddr, "pvrdma-demo"} {
			if bytes.Contains(data, []byte(secret)) {
				i := bytes.Index(data, []byte(secret))
				t.Errorf("bundle file %s contains %q: %q", name, secret, data[max(0, i-200):min(len(data), i+60)])
			}
		}
	}
	for _, text := range []string{out, errOut} {
		if strings.Contains(text, vcPassword) {
			t.Error("the vCenter password is in the output")
		}
	}
	nvc := 0
	for name := range files {
		if strings.HasSuffix(name, "vcenter_vm_config.txt") {
			nvc++
		}
	}
	if nvc != len(l.Hosts()) {
		t.Errorf("%d vcenter captures in the bundle", nvc)
	}
	r := decodeReport(t, out)
	hosts := hostsByName(r)
	if len(hosts) != len(l.Hosts()) {
		t.Fatalf("%d hosts, want %d (vCenter's hosts are the hosts file's)", len(hosts), len(l.Hosts()))
	}
	for name, h := range hosts {
		n := 0
		for _, c := range h.Commands {
			if strings.HasPrefix(c.Command, "vcenter ") {
				n++
				if c.Transport != hostio.TransportVCenter || c.Status != hostio.StatusCollected {
					t.Errorf("%s: %+v", name, c)
				}
			} else if c.Transport != "" {
				t.Errorf("%s: SSH command with transport %q", name, c.Transport)
			}
		}
		if n != 2 {
			t.Errorf("%s: %d vCenter captures", name, n)
		}
	}
	// esx05 refuses SSH: its esxcli commands run through the vSphere API
	// (vcsim implements few namespaces: the others fail, each saying so),
	// vsish needs SSH.
	h := hosts["esx05"]
	if h.Status != hostio.StatusPartial || h.Transport != hostio.TransportVSphereAPI || !strings.Contains(strings.Join(h.Notes, " "), "connection refused") {
		t.Errorf("esx05: %s %s %q %q", h.Status, h.Transport, h.Reason, h.Notes)
	}
	cmds := map[string]report.CommandStatus{}
	for _, c := range h.Commands {
		cmds[c.Command] = c
	}
	if c := cmds["esxcli vm process list"]; c.Status != hostio.StatusCollected {
		t.Errorf("esx05 vm process list: %+v", c)
	}
	if c := cmds["esxcli rdma device list"]; c.Status != hostio.StatusFailed || c.Cause != hostio.CauseNotServedByAPI || strings.Contains(c.Error, "<") {
		t.Errorf("esx05 rdma device list: %+v", c)
	}
	if c := cmds["vsish -e ls /vmkModules/vrdma/pvrdmaDevices/"]; !strings.Contains(c.Error, "needs SSH") || !strings.Contains(c.Error, "TSM-SSH") {
		t.Errorf("esx05 vsish: %+v", c)
	}
	needSSH := 0
	for _, f := range r.Findings {
		if f.Host == "esx05" && f.RuleID == "COLLECTION_FAILED" && f.Subject == "commands that need SSH" {
			needSSH++
		}
	}
	if needSSH != 1 {
		t.Errorf("esx05: %d findings for the commands that need SSH, want 1", needSSH)
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "certificate pinned by --vcenter-thumbprint") || !strings.Contains(notes, "6 ESXi hosts in cluster pvrdma-demo") {
		t.Errorf("notes %q", notes)
	}
	// SSH refused, vCenter still concludes: esx05 has no RDMA device
	// (config.network.rdmaDevice) and runs hpc-node08 (its
	// VirtualVmxnet3Vrdma adapter), so its traffic falls back to TCP; the
	// header counts its PVRDMA VM.
	byKey := map[string]checks.Finding{}
	for _, f := range r.Findings {
		byKey[f.Host+" "+f.RuleID] = f
	}
	nd := byKey["esx05 NO_RDMA_DEVICE"]
	if nd.Status != checks.StatusFail || nd.Severity != checks.Critical {
		t.Errorf("esx05 NO_RDMA_DEVICE %+v", nd)
	}
	props := ""
	for _, e := range nd.Evidence {
		props += e.Property + "\n"
	}
	if !strings.Contains(props, "config.network.rdmaDevice = [] (no RDMA device)") || !strings.Contains(props, "hpc-node08: config.hardware.device[") {
		t.Errorf("esx05 NO_RDMA_DEVICE evidence: %s", props)
	}
	if f := byKey["esx05 TCP_FALLBACK"]; f.Status != checks.StatusFail || f.CausedBy == nil || f.CausedBy.RuleID != "NO_RDMA_DEVICE" {
		t.Errorf("esx05 TCP_FALLBACK %+v", f)
	}
	if n, ok := h.PVRDMAVMCount(); !ok || n != 1 {
		t.Errorf("esx05 PVRDMA VMs %d %t", n, ok)
	}
	// esx06 runs no PVRDMA VM and is not set up; DRS and HA place VMs on
	// it in pvrdma-demo: a warning, from vCenter's cluster.
	if f := byKey["esx06 HOST_NOT_READY"]; f.Severity != checks.Warning || !strings.Contains(f.Message, "DRS (fullyAutomated)") {
		t.Errorf("esx06 HOST_NOT_READY %+v", f)
	}
	if r.Readiness == nil || len(r.Readiness.Hosts) != 6 || r.Readiness.Switch != "rdma-dvs" {
		t.Errorf("readiness %+v", r.Readiness)
	}
}

// vCenter's failures are clear, and lose nothing else of the scan.
func TestScanVCenterErrors(t *testing.T) {
	l, dir := startScanLab(t, "healthy", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	url, thumb := startVCenter(t, "healthy")
	env := map[string]string{"PD_PW": testPassword, "VC_PW": vcPassword, "BAD": "nope"}
	ssh := []string{"--known-hosts", kh, "--password-env", "PD_PW", "-o", "json"}

	// Wrong password with --hosts: warning, note, the SSH scan goes on.
	code, out, errOut := runVCenterScan(t, dir, env, append(ssh, "--hosts-file", filepath.Join(dir, "hosts"),
		"--vcenter", url, "--vcenter-password-env", "BAD", "--vcenter-thumbprint", thumb)...)
	if !strings.Contains(errOut, "incorrect user name or password") || code == ExitError || code == ExitUsage {
		t.Fatalf("wrong password: exit %d, stderr %q", code, errOut)
	}
	r := decodeReport(t, out)
	if len(r.Hosts) != len(l.Hosts()) || !strings.Contains(strings.Join(r.Notes, " "), "vCenter not read") {
		t.Errorf("wrong password: %d hosts, notes %q", len(r.Hosts), r.Notes)
	}
	// The text report says it under the verdict, with the reason (issue 37.7).
	_, text, _ := runVCenterScan(t, dir, env, "--known-hosts", kh, "--password-env", "PD_PW", "-o", "text", "--hosts-file", filepath.Join(dir, "hosts"),
		"--vcenter", url, "--vcenter-password-env", "BAD", "--vcenter-thumbprint", thumb)
	if flat := strings.Join(strings.Fields(text), " "); !strings.Contains(flat, "vCenter was NOT read: ") ||
		!strings.Contains(flat, "incorrect user name or password") || strings.Contains(flat, "use --vcenter") {
		t.Errorf("wrong password: the text report does not say vCenter was not read, and why:\n%s", text)
	}
	// Without --hosts there is nothing to scan: the error is the result.
	code, _, errOut = runVCenterScan(t, dir, env, append(ssh, "--vcenter", url, "--vcenter-password-env", "VC_PW")...)
	if code != ExitError || !strings.Contains(errOut, "not trusted") || !strings.Contains(errOut, "--vcenter-thumbprint") {
		t.Errorf("untrusted certificate: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runVCenterScan(t, dir, env, append(ssh, "--vcenter", url, "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", strings.Repeat("0", 64))...)
	if code != ExitError || !strings.Contains(errOut, "does not match --vcenter-thumbprint") {
		t.Errorf("thumbprint mismatch: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runVCenterScan(t, dir, env, append(ssh, "--vcenter", url, "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", thumb, "--cluster", "nope")...)
	if code != ExitError || !strings.Contains(errOut, `no cluster named "nope"`) {
		t.Errorf("missing cluster: exit %d, stderr %q", code, errOut)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	code, _, errOut = runVCenterScan(t, dir, env, append(ssh, "--vcenter", closed, "--vcenter-password-env", "VC_PW", "--insecure")...)
	if code != ExitError || !strings.Contains(errOut, "unreachable") {
		t.Errorf("closed port: exit %d, stderr %q", code, errOut)
	}
	// --insecure works and is marked in the report.
	code, out, errOut = runVCenterScan(t, dir, env, append(ssh, "--hosts-file", filepath.Join(dir, "hosts"), "--vcenter", url, "--vcenter-password-env", "VC_PW", "--insecure")...)
	if code == ExitError || code == ExitUsage {
		t.Fatalf("insecure: exit %d, %s", code, errOut)
	}
	if r := decodeReport(t, out); !strings.Contains(strings.Join(r.Notes, " "), "certificate NOT verified (--insecure)") {
		t.Errorf("insecure not marked: %q", r.Notes)
	}
	// Usage errors.
	for _, args := range [][]string{{"--hosts", "esx01", "--cluster", "c1"}, {"--vcenter", url, "--insecure", "--vcenter-thumbprint", thumb},
		{"--vcenter", "http://vc01"}, {"--vcenter", url, "--vcenter-thumbprint", "xyz"}, {"--vcenter", url}} {
		if code, _, errOut := runVCenterScan(t, dir, env, append(ssh, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

func TestScanDryRunVCenter(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ssh_config"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runVCenterScan(t, dir, nil, "--vcenter", "vc01.example.com", "--cluster", "gpu", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "vCenter https://vc01.example.com/sdk") || !strings.Contains(out, "config.network.rdmaDevice") ||
		!strings.Contains(out, "cluster gpu") || !strings.Contains(out, "esxcli rdma device list") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runVCenterScan(t, dir, nil, "--vcenter", "vc01.example.com", "--dry-run", "-o", "json")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != ExitOK || v["vcenter"] == nil {
		t.Errorf("JSON dry run: %v %v\n%s", code, err, out)
	}
}
