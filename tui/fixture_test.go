package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The test fleet is built by hand (results, facts and findings), so the
// snapshots do not change when parsers, rules or scenarios evolve. Rule IDs
// are not in the catalogue; the analysis supplies their title and why.

const (
	cmdRDMAList = "esxcli rdma device list"
	cmdIfList   = "esxcli network ip interface list"
	cmdProps    = "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2101721_0/properties"
)

var testRules = map[string]report.RuleMeta{
	"TEST_TCP_FALLBACK": {Title: "PVRDMA traffic between hosts falls back to TCP",
		Why: "When one of two hosts has no active RDMA device, PVRDMA silently falls back to a TCP channel: applications work, with TCP latency and a fraction of the bandwidth."},
	"TEST_LOW_MTU": {Title: "PVRDMA active MTU is below what the path allows",
		Why: "An RDMA MTU of 1024 on a 9000-byte path costs bandwidth on large messages."},
	"TEST_NOT_COLLECTED": {Title: "Host could not be collected",
		Why: "A host that was not collected cannot be checked."},
}

// propsOutput is a vsish properties block with the Active MTU on line 18,
// padded so that the evidence sits well below the first screenful.
func propsOutput() string {
	lines := []string{"PVRDMA Device Properties {"}
	for i := 2; i < 18; i++ {
		lines = append(lines, fmt.Sprintf("   property %02d:value", i))
	}
	lines = append(lines, "   Active MTU:1024")
	for i := 19; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("   property %02d:value", i))
	}
	lines = append(lines, "}")
	return strings.Join(lines, "\n") + "\n"
}

func ifListOutput() string {
	return "vmk0\n   Name: vmk0\n   MTU: 1500\n\nvmk1\n   Name: vmk1\n   Enabled: true\n   VDS Name: rdma-dvs\n   MTU: 9000\n"
}

func testResults() []hostio.HostResult {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	capt := func(host, cmd, out string) hostio.Capture {
		return hostio.Capture{Host: host, Command: cmd, Stdout: out, Status: hostio.StatusCollected, Start: start}
	}
	return []hostio.HostResult{
		{Host: "esx01", Address: "10.0.0.1:22", Transport: "ssh", Status: hostio.StatusCollected, Start: start, Duration: 1200 * time.Millisecond,
			Captures: []hostio.Capture{
				capt("esx01", cmdRDMAList, "Name     Driver      State   MTU   Speed     Paired Uplink  Description\n-------  ----------  ------  ----  --------  -------------  -----------\nvmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800 Family [ConnectX-5 Ex]\n"),
				capt("esx01", cmdIfList, ifListOutput()),
				capt("esx01", cmdProps, propsOutput()),
			}},
		{Host: "esx02", Address: "10.0.0.2:22", Transport: "ssh", Status: hostio.StatusCollected, Start: start, Duration: 900 * time.Millisecond,
			Captures: []hostio.Capture{
				capt("esx02", cmdRDMAList, "Name  Driver  State  MTU  Speed  Paired Uplink  Description\n----  ------  -----  ---  -----  -------------  -----------\n"),
			}},
		{Host: "esx03", Address: "10.0.0.3:22", Transport: "ssh", Status: hostio.StatusNotCollected, Start: start,
			Reason: "cannot connect to 10.0.0.3:22: connection refused"},
	}
}

func testFleet() *facts.Fleet {
	vmk := parse.Vmknic{Name: "vmk1", Enabled: true, VDSName: "rdma-dvs", MTU: 9000}
	dvs := parse.DVSwitch{Name: "rdma-dvs", MTU: 9000, Uplinks: []string{"vmnic4"}}
	tag := &parse.AdvancedSetting{Path: "/Net/PVRDMAVmknic", StringValue: "vmk1"}
	nic := parse.NIC{Name: "vmnic4", LinkStatus: "Up", MTU: 9000}
	// The device listings were collected and parsed on esx01 and esx02, so
	// the report knows their device and VM counts.
	listed := func() map[hostio.Kind][]facts.Source {
		return map[hostio.Kind][]facts.Source{
			catalog.KindRDMADeviceList: {{Command: cmdRDMAList, Status: hostio.StatusCollected, Parsed: true}},
			catalog.KindPVRDMADeviceLs: {{Command: "vsish -e ls /vmkModules/vrdma/pvrdmaDevices", Status: hostio.StatusCollected, Parsed: true}},
		}
	}
	return &facts.Fleet{Hosts: []facts.Host{
		{Host: "esx01", Collection: facts.Collection{Status: hostio.StatusCollected}, Sources: listed(), HostFacts: catalog.HostFacts{
			RDMADevices: []parse.RDMADevice{{Name: "vmrdma0", State: "Active", MTU: 4096, Speed: "100 Gbps", PairedUplink: "vmnic4"}},
			VMs:         []parse.VMProcess{{DisplayName: "hpc-node01", WorldID: "2100788"}, {DisplayName: "hpc-node03", WorldID: "2101721"}},
			PVRDMADevices: []parse.PVRDMADevice{
				{WorldID: "2100788", Index: "0", PhysicalHCA: 1, RoCEVersion: 2, ActiveMTU: 4096},
				{WorldID: "2101721", Index: "0", PhysicalHCA: 1, RoCEVersion: 2, ActiveMTU: 1024},
			},
			Vmknics: []parse.Vmknic{vmk}, DVSwitches: []parse.DVSwitch{dvs}, PVRDMAVmknic: tag, NICs: []parse.NIC{nic}}},
		{Host: "esx02", Collection: facts.Collection{Status: hostio.StatusCollected}, Sources: listed(), HostFacts: catalog.HostFacts{
			VMs:           []parse.VMProcess{{DisplayName: "hpc-node04", WorldID: "2102165"}},
			PVRDMADevices: []parse.PVRDMADevice{{WorldID: "2102165", Index: "0", PhysicalHCA: 0, RoCEVersion: 2, ActiveMTU: 4096}},
			Vmknics:       []parse.Vmknic{vmk}, DVSwitches: []parse.DVSwitch{{Name: "rdma-dvs", MTU: 9000, Uplinks: []string{"vmnic2"}}},
			PVRDMAVmknic: tag, NICs: []parse.NIC{{Name: "vmnic2", LinkStatus: "Up", MTU: 9000}}}},
		{Host: "esx03", Collection: facts.Collection{Status: hostio.StatusNotCollected, Reason: "cannot connect to 10.0.0.3:22: connection refused"}},
	}}
}

func testFindings() []checks.Finding {
	return []checks.Finding{
		{RuleID: "TEST_TCP_FALLBACK", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx02", Subject: "esx02 (hpc-node04)",
			Message: "PVRDMA VMs on esx02 (hpc-node04) reach their peers on esx01 over TCP: esx02 has no RDMA device",
			Fix:     "On esx02: install an RoCE NIC and its RDMA driver (check with: esxcli rdma device list), then power-cycle the PVRDMA VMs.",
			Evidence: []checks.Evidence{{Host: "esx02", Command: cmdRDMAList, Note: "no RDMA device listed"},
				{Host: "esx01", Command: cmdRDMAList, Line: 3, Text: "vmrdma0  nmlx5_rdma  Active"}}},
		{RuleID: "TEST_LOW_MTU", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx01", Subject: "hpc-node03 (PVRDMA adapter 0)",
			Message: "hpc-node03 (PVRDMA adapter 0) runs at RDMA MTU 1024, but its path carries 9000-byte frames, which allows 4096",
			Fix:     "In the guest, set the PVRDMA-paired vmxnet3 interface to MTU 9000, then reload the driver: modprobe -r vmw_pvrdma && modprobe vmw_pvrdma.",
			Evidence: []checks.Evidence{{Host: "esx01", Command: cmdProps, Line: 18, Text: "Active MTU:1024"},
				{Host: "esx01", Command: cmdIfList, Line: 9, Text: "MTU: 9000"}}},
		{RuleID: "TEST_LOW_MTU", Severity: checks.Info, Status: checks.StatusNotEvaluated, Host: "esx02", Subject: "esx02",
			Message: "not evaluated: `Active MTU` missing from the vsish properties"},
		{RuleID: "TEST_NOT_COLLECTED", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx03", Subject: "esx03",
			Message: "esx03 was not collected: cannot connect to 10.0.0.3:22: connection refused",
			Fix:     "Check that esx03 is reachable on SSH and that SSH is enabled, then scan again."},
	}
}

// testAnalyze builds the report of whichever hosts have results, with the
// hand-built facts and findings of those hosts.
func testAnalyze(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
	have := map[string]hostio.HostResult{}
	for _, r := range rs {
		have[r.Host] = r
	}
	fleet := &facts.Fleet{}
	for _, h := range testFleet().Hosts {
		if r, ok := have[h.Host]; ok {
			h.Status = r.Status
			fleet.Hosts = append(fleet.Hosts, h)
		}
	}
	var res checks.Result
	for _, f := range testFindings() {
		if r, ok := have[f.Host]; ok && (r.Status != hostio.StatusNotCollected || f.RuleID == "TEST_NOT_COLLECTED") {
			res.Findings = append(res.Findings, f)
		}
	}
	checks.SortFindings(res.Findings)
	res.Passed = []checks.Finding{{RuleID: "TEST_LOW_MTU", Severity: checks.Warning, Status: checks.StatusPass, Host: "esx01", Subject: "hpc-node01"}}
	rep := report.Build(rs, fleet, res, nil, report.Meta{Source: "test fleet (hand-built)", Version: "test", Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	for id, meta := range testRules {
		rep.Rules[id] = meta
	}
	return rep, fleet
}

// newTestModel is the analyzed test fleet at the given size.
func newTestModel(t testing.TB, w, h int, mod func(*Options)) *Model {
	t.Helper()
	opts := Options{Title: "test fleet (hand-built)", Hosts: []string{"esx01", "esx02", "esx03"}, Results: testResults(), Analyze: testAnalyze}
	if mod != nil {
		mod(&opts)
	}
	m := NewModel(context.Background(), opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// press sends keys ("j", "enter", "esc", ...) and runs the commands they
// return, feeding their messages back, as the program would.
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		run(t, m, keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg { return testutil.Key(k) }

// run delivers msg and executes the resulting commands synchronously; it
// returns every message the commands produced (quit included).
func run(t testing.TB, m *Model, msg tea.Msg) []tea.Msg {
	t.Helper()
	var seen []tea.Msg
	queue := []tea.Msg{msg}
	for i := 0; len(queue) > 0; i++ {
		if i > 100 {
			t.Fatal("command loop does not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		_, cmd := m.Update(msg)
		for _, out := range execCmd(cmd) {
			seen = append(seen, out)
			switch out.(type) {
			case analysisMsg, bundleMsg, rescanDoneMsg, EventMsg:
				queue = append(queue, out)
			}
		}
	}
	return seen
}

// execCmd runs a command as the program would, waiting for it.
func execCmd(cmd tea.Cmd) []tea.Msg { return testutil.ExecCmd(cmd, 0) }

// screen returns the rendered screen without colours.
func screen(m *Model) string {
	return stripANSI(m.View().Content)
}

func stripANSI(s string) string { return ansi.Strip(s) }

type (
	reportT = report.Report
	factsT  = facts.Fleet
)
