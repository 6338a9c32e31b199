package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// writeGuestsFile writes the lab's guests as a --guests-file and their
// known_hosts entries (appended to kh).
func writeGuestsFile(t *testing.T, l *lab.Lab, dir, kh string) string {
	t.Helper()
	var b, k strings.Builder
	for _, g := range l.Guests() {
		fmt.Fprintf(&b, "%s %s\n", g.Name, g.Addr)
		k.WriteString(g.KnownHostsLine + "\n")
	}
	p := filepath.Join(dir, "guests")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(kh, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(k.String()); err != nil {
		t.Fatal(err)
	}
	return p
}

// scan --guests-file: hosts and guests over SSH, the guests with the guest
// catalogue only, their host keys checked, each guest adapter beside its
// host side, the guest port down with a healthy host reported as the root
// cause, the one under a host without HCA nested under the host.
func TestScanGuestsOverSSH(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	gf := writeGuestsFile(t, l, dir, kh)
	code, out, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "--guests-file", gf,
		"--guest-password-env", "PD_PW", "-o", "json")
	if code != ExitCritical {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	r := decodeReport(t, out)
	if len(r.Hosts) != len(l.Hosts()) || len(r.Guests) != len(l.Guests()) || r.Summary.Guests != len(l.Guests()) {
		t.Fatalf("%d hosts, %d guests", len(r.Hosts), len(r.Guests))
	}
	for _, g := range l.Guests() {
		cmds := l.Stats(g.Name).Commands
		for _, c := range cmds {
			if collect.CheckGuestAllowed(c) != nil {
				t.Errorf("%s: %q is not on the guest allowlist", g.Name, c)
			}
		}
		// A healthy guest runs stage 1 and its one sysfs read; the
		// conditional commands only where stage 1 calls for them.
		extra := map[string]string{"hpc-node01": "dmesg", "hpc-node02": "dmesg", "hpc-node04": "dmesg ibv_devices", "hpc-node05": "modinfo"}
		want := len(collect.GuestStage1()) + 1 + len(strings.Fields(extra[g.Name]))
		if g.Name == "hpc-node05" {
			want-- // no RDMA device: no sysfs read
		}
		if len(cmds) != want {
			t.Errorf("%s ran %d commands, want %d: %q", g.Name, len(cmds), want, cmds)
		}
	}
	for _, h := range l.Hosts() {
		for _, c := range l.Stats(h.Name).Commands {
			if collect.CheckGuestAllowed(c) == nil {
				t.Errorf("host %s was sent guest command %q", h.Name, c)
			}
		}
	}
	var g1, g2 bool
	for _, f := range r.Findings {
		if f.RuleID == "GUEST_PORT_DOWN" && f.Host == "hpc-node01" {
			g1 = f.CausedBy == nil
		}
		if f.RuleID == "GUEST_PORT_DOWN" && f.Host == "hpc-node02" {
			// No HCA on the host side does not take a port down (PVRDMA
			// falls back to TCP, seed 004): its own root cause.
			g2 = f.CausedBy == nil
		}
	}
	if !g1 || !g2 {
		t.Errorf("guest port down: root on a healthy host %v, root beside the host without HCA %v", g1, g2)
	}
	pairs := 0
	for _, h := range r.Hosts {
		if h.Host != "esx01" {
			continue
		}
		for _, a := range h.Adapters {
			if a.Guest == "hpc-node01" && a.Device == "vmw_pvrdma0" && a.PortState == "DOWN" && a.PhysicalHCA != nil && *a.PhysicalHCA {
				pairs++
			}
		}
	}
	if pairs != 1 {
		t.Errorf("esx01 does not show hpc-node01's adapter with its guest side: %+v", r.Hosts[0].Adapters)
	}
	for _, g := range r.Guests {
		if g.Role != hostio.RoleGuest || g.Status != hostio.StatusCollected {
			t.Errorf("guest %s: role %q status %s %q", g.Host, g.Role, g.Status, g.Reason)
		}
	}
	// A healthy guest whose adapter has no HCA on its host (hpc-node07 on
	// esx04), or runs at a lower RDMA MTU there (hpc-node06 on esx03), is OK
	// inside and says where the problem is.
	for _, g := range r.Guests {
		switch g.Host {
		case "hpc-node06":
			if g.Verdict != "OK inside the guest; its PVRDMA adapter runs at RDMA MTU 1024 (esx03: LOW_MTU) on the host side" {
				t.Errorf("hpc-node06 verdict %q", g.Verdict)
			}
		case "hpc-node07":
			if !strings.HasPrefix(g.Verdict, "OK inside the guest") || !strings.Contains(g.Verdict, "host side (esx04): no physical HCA") {
				t.Errorf("hpc-node07 verdict %q", g.Verdict)
			}
		}
	}

	// An unknown guest host key stops a strict scan of that guest.
	if err := l.WriteKnownHosts(kh); err != nil { // the hosts only
		t.Fatal(err)
	}
	_, out, _ = runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "--guests", l.Guests()[0].Addr, "-o", "json")
	r = decodeReport(t, out)
	if len(r.Guests) != 1 || r.Guests[0].Status != hostio.StatusNotCollected || !strings.Contains(r.Guests[0].Reason, "host key") {
		t.Errorf("unknown guest key: %+v", r.Guests)
	}
}

func TestScanGuestsDryRunAndFlags(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	g := l.Guests()[0]
	code, out, errOut := runScanCLI(t, dir, "--dry-run", "--guests", g.Addr, "--guest-user", "ubuntu")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nguest "+g.Addr+" (ubuntu@"+g.Addr+")\n") {
		t.Errorf("dry run does not list the guest:\n%s", out)
	}
	for _, c := range collect.GuestStage1() {
		if strings.Count(out, "  1  "+c.Line+"\n") != 1 {
			t.Errorf("guest command %q not listed once", c.Line)
		}
	}
	if !strings.Contains(out, "grep -s -r -H . /sys/class/infiniband/<dev>/ports/1") {
		t.Error("the per-device sysfs read is not listed")
	}
	if st := l.Stats(g.Name); st.TCPConnections != 0 {
		t.Error("dry run connected to the guest")
	}
	code, _, errOut = runScanCLI(t, dir, "--dry-run", "--guests", l.Hosts()[0].Name)
	if code != ExitUsage || !strings.Contains(errOut, "both as a host and as a guest") {
		t.Errorf("a host given as a guest: exit %d %s", code, errOut)
	}
	code, _, errOut = runScanCLI(t, dir, "--dry-run", "--guests", "vm1;reboot")
	if code != ExitUsage {
		t.Errorf("hostile guest name: exit %d %s", code, errOut)
	}
}

// --bandwidth-test runs ib_send_bw between two guests after the scan (and
// only with the flag), bounded by timeout(1), and reports the result
// against the uplink's line rate; --dry-run lists it.
func TestScanBandwidthTest(t *testing.T) {
	l, dir := startScanLab(t, "healthy", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	gf := writeGuestsFile(t, l, dir, kh)
	sent := func(name string) []string {
		var out []string
		for _, c := range l.Stats(name).Commands {
			if strings.Contains(c, "ib_send_bw") {
				out = append(out, c)
			}
		}
		return out
	}
	code, _, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "--guests-file", gf, "-o", "json")
	if code != ExitOK || len(sent("hpc-node01"))+len(sent("hpc-node03")) != 0 {
		t.Fatalf("without the flag: exit %d, ib_send_bw sent %v %v; %s", code, sent("hpc-node01"), sent("hpc-node03"), errOut)
	}
	code, out, errOut := runScanCLI(t, dir, "--known-hosts", kh, "--password-env", "PD_PW", "--guests-file", gf,
		"--bandwidth-test", "hpc-node01:hpc-node03", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if s, c := sent("hpc-node01"), sent("hpc-node03"); len(s) != 1 || len(c) != 1 ||
		s[0] != "timeout 30 ib_send_bw --report_gbits -F -D 5 -d vmw_pvrdma0" ||
		c[0] != "timeout 30 ib_send_bw --report_gbits -F -D 5 -d vmw_pvrdma0 192.168.50.101" {
		t.Fatalf("server %q, client %q", s, c)
	}
	for _, h := range l.Hosts() {
		if len(sent(h.Name)) > 0 {
			t.Errorf("host %s was sent ib_send_bw", h.Name)
		}
	}
	r := decodeReport(t, out)
	passed := false
	for _, f := range r.Passed {
		passed = passed || (f.RuleID == "GUEST_BANDWIDTH_LOW" && f.Host == "hpc-node03")
	}
	if !passed {
		t.Errorf("GUEST_BANDWIDTH_LOW did not pass for hpc-node03 (96.31 of 100 Gb/s): %+v", r.Findings)
	}
	code, out, _ = runScanCLI(t, dir, "--dry-run", "--guests-file", gf, "--bandwidth-test", "hpc-node01:hpc-node03")
	if code != ExitOK || !strings.Contains(out, "hpc-node03 (client)  timeout 30 ib_send_bw --report_gbits -F -D 5 -d <dev> <server IPv4>") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	code, _, errOut = runScanCLI(t, dir, "--dry-run", "--guests-file", gf, "--bandwidth-test", "hpc-node01:esx01")
	if code != ExitUsage || !strings.Contains(errOut, "esx01 is not a guest") {
		t.Errorf("a host in a pair: exit %d %s", code, errOut)
	}
}
