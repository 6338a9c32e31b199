package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// vcOnlyResults is a host SSH did not reach, as vCenter shows it: no RDMA
// device, rdma-dvs with an E810 port as its uplink, and one powered-on VM
// with a PVRDMA adapter (vcenterVMs false: vCenter's VMs were not read).
func vcOnlyResults(vcenterVMs bool) []hostio.HostResult {
	const uuid = "50 1e 4a 3c 8f 7a 2e 1d-9b 6c 0a 5f 3e 2d 1c 0b"
	doc := parse.VCenterHostDoc{Host: "esx05", RDMADevices: []parse.VCenterRDMADevice{},
		Vnics:    []parse.VCenterVnic{{Device: "vmk1", MTU: 9000, IP: "192.168.50.15", DVSUUID: uuid}},
		Switches: []parse.VCenterDVS{{Name: "rdma-dvs", UUID: uuid, HostMTU: 9000, HostUplinks: []string{"vmnic2"}}},
		Options:  map[string]string{parse.PVRDMAVmknicOption: "vmk1"}, Rulesets: []parse.VCenterRuleset{{Key: "pvrdma", Enabled: true}}}
	vms := parse.VCenterVMDoc{Host: "esx05", VMs: []parse.VCenterVM{{Name: "hpc-node08", PowerState: "poweredOn",
		Adapters: []parse.VCenterAdapter{{Label: "Network adapter 2", Type: "vrdma", DVSUUID: uuid, DVSName: "rdma-dvs"}}}}}
	caps := []hostio.Capture{
		{Host: "esx05", Command: catalog.VCenterHostLine, Kind: catalog.KindVCenterHost, Status: hostio.StatusCollected, Stdout: parse.RenderVCenterHost(doc)},
		{Host: "esx05", Command: "vsish -e ls /vmkModules/vrdma/pvrdmaDevices/", Status: hostio.StatusSkipped, Error: "host not reached"},
	}
	if vcenterVMs {
		caps = append(caps, hostio.Capture{Host: "esx05", Command: catalog.VCenterVMLine, Kind: catalog.KindVCenterVMs, Status: hostio.StatusCollected,
			Stdout: parse.RenderVCenterVMs(vms)})
	}
	return []hostio.HostResult{{Host: "esx05", Status: hostio.StatusPartial, Reason: "SSH refused", Captures: caps}}
}

func buildOf(rs []hostio.HostResult) *Report {
	fleet := facts.Build(rs)
	return Build(rs, &fleet, checks.Run(&fleet), nil, Meta{Source: "test", Version: "test", Now: time.Unix(0, 0)})
}

// The host line, the topology and the findings of a host read through
// vCenter alone agree: one PVRDMA VM (vCenter's), drawn with its HCA
// binding unknown and the fallback marked, and NO_RDMA_DEVICE; without
// vCenter's VMs the topology says the VMs are unknown instead of "none".
func TestVCenterOnlyHostAgrees(t *testing.T) {
	r := buildOf(vcOnlyResults(true))
	if n, ok := r.Hosts[0].PVRDMAVMCount(); !ok || n != 1 {
		t.Errorf("PVRDMA VMs %d %t", n, ok)
	}
	top := r.TopologyOf("esx05")
	if top == nil || len(top.Adapters) != 1 || !top.Adapters[0].FromVCenter || top.Adapters[0].VM != "hpc-node08" ||
		Worst(top.Adapters[0].Marks) != MarkBad || top.AdaptersUnknown != "" {
		t.Fatalf("topology %+v", top)
	}
	var rules []string
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail {
			rules = append(rules, f.RuleID)
		}
	}
	if !strings.Contains(strings.Join(rules, " "), "NO_RDMA_DEVICE") {
		t.Errorf("findings %v", rules)
	}
	r = buildOf(vcOnlyResults(false))
	if top := r.TopologyOf("esx05"); top == nil || len(top.Adapters) != 0 || !strings.Contains(top.AdaptersUnknown, "vsish") {
		t.Errorf("without vCenter's VMs: %+v", top)
	}
	if _, ok := r.Hosts[0].PVRDMAVMCount(); ok {
		t.Error("PVRDMA VMs counted without vsish or vCenter's VMs")
	}
}

// Evidence read from vCenter shows the property, highlighted in HTML; the
// readiness table is in every human format.
func TestVCenterPropertyAndReadinessRendered(t *testing.T) {
	r := buildOf(vcOnlyResults(true))
	var text, details, html, md bytes.Buffer
	if err := WriteText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&details, r, TextOptions{Details: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, doc string
		want      []string
	}{
		// The concise text names NO_RDMA_DEVICE (information: one host
		// alone) without its evidence; the firewall's is a property too.
		{"text", text.String(), []string{"READINESS", "config.firewall.ruleset[pvrdma].enabled = true (line 11 of", "INFO NO_RDMA_DEVICE esx05"}},
		{"details", details.String(), []string{"`vcenter host config` line 2: config.network.rdmaDevice = [] (no RDMA device)",
			"✗ esx05: no RDMA device"}},
		{"markdown", md.String(), []string{"line 2: **config.network.rdmaDevice = \\[] (no RDMA device)**"}},
		{"html", html.String(), []string{`<mark>config.network.rdmaDevice = [] (no RDMA device)</mark>`, `<h2 id="readiness">Readiness</h2>`}},
		{"markdown", md.String(), []string{"## Readiness", "| esx05 | ✗ no RDMA device |"}},
	} {
		flat := strings.Join(strings.Fields(c.doc), " ") // as wrapped at 80 columns
		for _, w := range c.want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.doc)
			}
		}
		if strings.Contains(c.doc, `"config.network.rdmaDevice":[]`) && c.name != "html" {
			t.Errorf("%s shows the JSON line instead of the property", c.name)
		}
	}
}

// A large fleet's readiness rows in the same state are one row, its hosts
// named under it (issue 37.4): 200 hosts never make 200 rows.
func TestReadinessRowsGrouped(t *testing.T) {
	r := &Report{}
	steps := []checks.ReadinessStep{{ID: "rdma_nic", Title: "RDMA NIC"}, {ID: "firewall", Title: "pvrdma ruleset"}}
	r.Readiness = &checks.Readiness{Switch: "rdma-dvs", Steps: steps}
	cell := func(step, state string) checks.ReadinessCell { return checks.ReadinessCell{Step: step, State: state} }
	for i := range 200 {
		h := checks.HostReadiness{Host: fmt.Sprintf("esx%03d", i+1), Role: "pvrdma", State: checks.StateReady,
			Cells: []checks.ReadinessCell{cell("rdma_nic", "ok"), cell("firewall", "ok")}}
		if i >= 180 {
			h.State = checks.StateNotReady
			h.Cells[1] = cell("firewall", "fail")
		}
		r.Readiness.Hosts = append(r.Readiness.Hosts, h)
		r.Hosts = append(r.Hosts, Host{Host: h.Host})
	}
	var b strings.Builder
	writeTextReadiness(&b, painter{}, r, wrapTo(&b, 80), 80, false)
	out := b.String()
	if n := strings.Count(out, "\n"); n > 15 {
		t.Errorf("%d lines for 200 hosts:\n%s", n, out)
	}
	if !strings.Contains(out, "20 hosts") || !strings.Contains(out, "esx181, esx182") || strings.Contains(out, "\n  esx190 ") {
		t.Errorf("the 20 hosts not ready are not one row:\n%s", out)
	}
}
