package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// A scanned guest is a row of the overview; its screen shows its kernel,
// its finding, and its PVRDMA adapter with the host side (same MAC); the
// host's screen shows the same pair.
func TestGuestScreenShowsBothSides(t *testing.T) {
	const mac = "00:50:56:8a:01:a0"
	sys := "/sys/class/infiniband/vmw_pvrdma0/ports/1/"
	capt := func(cmd string, k hostio.Kind, out string) hostio.Capture {
		return hostio.Capture{Host: "hpc-node01", Command: cmd, Kind: k, Stdout: out, Status: hostio.StatusCollected}
	}
	guest := hostio.HostResult{Host: "hpc-node01", Role: hostio.RoleGuest, Transport: "ssh", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		capt("uname -r", catalog.KindGuestKernel, "5.15.0-91-generic\n"),
		capt("ls /sys/class/infiniband", catalog.KindGuestIBClass, "vmw_pvrdma0\n"),
		capt("rdma link show", catalog.KindGuestRDMALink, "link vmw_pvrdma0/1 state DOWN physical_state LINK_UP netdev ens224 \n"),
		capt("ip -o link", catalog.KindGuestIPLink, "3: ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether "+mac+" brd ff:ff:ff:ff:ff:ff\n"),
		capt("grep -s -r -H . "+sys[:len(sys)-1], catalog.KindGuestSysfsPort, sys+"state:1: DOWN\n"),
	}}
	results := append(testResults(), guest)
	analyze := func(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
		rep, fleet := testAnalyze(rs)
		fleet.Hosts[0].PVRDMADevices[0].MAC = mac
		fleet.Hosts[0].PVRDMADevices[0].VMName = "hpc-node01"
		for _, r := range rs {
			if r.Role == hostio.RoleGuest {
				fleet.Guests = append(fleet.Guests, facts.BuildGuest(r))
			}
		}
		fleet.LinkGuests()
		res := checks.Result{Findings: append([]checks.Finding{{RuleID: "GUEST_PORT_DOWN", Severity: checks.Critical, Status: checks.StatusFail,
			Host: "hpc-node01", Subject: "vmw_pvrdma0 (hpc-node01 PVRDMA adapter 0 on esx01)", Message: "port 1 of vmw_pvrdma0 in hpc-node01 is DOWN, not ACTIVE",
			Fix: "reload vmw_pvrdma after the other InfiniBand modules"}}, rep.Findings...), Passed: rep.Passed}
		return report.Build(rs, fleet, res, nil, report.Meta{Source: "test", Version: "test", Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}), fleet
	}
	m := newTestModel(t, 160, 48, func(o *Options) {
		o.Hosts = append(o.Hosts, "hpc-node01")
		o.Results = results
		o.Analyze = analyze
	})
	scr := screen(m)
	mustContain(t, scr, "hpc-node01")
	// Open the guest (the last row) and check both sides of its adapter.
	press(t, m, "G", "enter")
	scr = screen(m)
	mustContain(t, scr, "guest: Linux 5.15.0-91-generic", "GUEST_PORT_DOWN",
		"esx01 hpc-node01 (PVRDMA adapter 0): HCA bound, RoCE v2, Active MTU 4096 <-> hpc-node01 vmw_pvrdma0: port DOWN, ens224 MTU 9000")
	// t on a guest is its facts page (issue 37.9), not "no facts yet".
	press(t, m, "t")
	scr = screen(m)
	mustContain(t, scr, "hpc-node01 · PVRDMA adapters, host side ↔ guest side", "<-> hpc-node01 vmw_pvrdma0: port DOWN, ens224 MTU 9000")
	mustNotContain(t, scr, "No facts for this host yet")
	press(t, m, "esc", "esc", "g", "enter")
	scr = screen(m)
	if !strings.Contains(scr, "esx01") || !strings.Contains(scr, "<-> hpc-node01 vmw_pvrdma0: port DOWN") {
		t.Errorf("esx01's screen does not show the guest side:\n%s", scr)
	}
}
