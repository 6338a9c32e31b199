package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// idle is a good host that runs no PVRDMA VM (vsish lists none): set up
// as the seeds say, waiting for DRS or HA to place one there.
func idle(name, ip string) facts.Host {
	h := goodHost(name, ip)
	h.PVRDMAListing, h.PVRDMADevices = nil, nil
	delete(h.Sources, catalog.KindPVRDMAProperties)
	return h
}

// unset is the seeds' host setup skipped: no RDMA device, no vmknic tag,
// the pvrdma ruleset closed.
func unset(h *facts.Host) {
	h.RDMADevices, h.RDMAProtocols, h.RDMAVmknics, h.RDMAStats = nil, nil, nil, nil
	h.DVSwitches[0].Uplinks = []string{"vmnic2"}
	h.DVSwitches[0].Record = rec(cmdDVS, "Name", "rdma-dvs", "MTU", "9000", "Uplinks", "vmnic2")
	h.PVRDMAVmknic.StringValue = ""
	h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "Type", "string", "String Value", "")
	h.Rulesets[1].Enabled = false
}

const cmdVCHost = "vcenter host config"

// inCluster gives a host vCenter's view of its cluster (nil drs or ha:
// not reported).
func inCluster(name string, drs, ha *bool) func(h *facts.Host) {
	return func(h *facts.Host) {
		r := ref(cmdVCHost, 9, `"cluster":{...}`)
		cl := &parse.ClusterInfo{Name: name, DRS: drs, HA: ha, DRSBehavior: "fullyAutomated", Ref: r, DRSRef: r, HARef: r}
		if drs != nil {
			cl.DRSRef.Property = "cluster.configurationEx.drsConfig.enabled = " + map[bool]string{true: "true", false: "false"}[*drs]
		}
		h.VCenterHost = &parse.VCenterHost{Host: h.Host, Parent: "ClusterComputeResource:domain-c7", Cluster: cl, Ref: ref(cmdVCHost, 1, "{")}
	}
}

func standaloneHost(h *facts.Host) {
	h.VCenterHost = &parse.VCenterHost{Host: h.Host, Parent: "ComputeResource:domain-s12", Ref: parse.Ref{Command: cmdVCHost, Line: 1, Text: "{", Property: "parent = ComputeResource:domain-s12"}}
}

var on, off = func() *bool { b := true; return &b }(), func() *bool { b := false; return &b }()

// idles is a fleet: the good esx01 that runs PVRDMA VMs and an idle
// esx02 that f changes.
func idles(f func(b *facts.Host)) func() []facts.Host {
	return func() []facts.Host {
		a, b := goodHost("esx01", "192.168.50.11"), idle("esx02", "192.168.50.12")
		if f != nil {
			f(&b)
		}
		return []facts.Host{a, b}
	}
}

// parked registers a powered-off PVRDMA VM on the host (vCenter).
func parked(h *facts.Host) {
	c := parse.VMConfig{Source: "vcenter", Name: "hpc-parked", PowerState: "poweredOff",
		Adapters: []parse.VMAdapter{{Label: "Network adapter 2", Type: "vrdma", DVSName: "rdma-dvs", Ref: ref("vcenter vm config", 3, "{...}")}},
		Ref:      ref("vcenter vm config", 2, `{"name":"hpc-parked"}`)}
	h.VMConfigs = append(h.VMConfigs, c)
	collected(h, "vcenter vm config")
}

func TestHostNotReady(t *testing.T) {
	runCases(t, "HOST_NOT_READY", []ruleCase{
		{name: "an idle host set up as the seeds say: passes", hosts: idles(nil), exact: true,
			want: []want{{"esx02", "esx02", StatusPass, "", "", ""}}},
		// On the PVRDMA vDS it has the VMs' port group: a vMotion or HA
		// target, a warning without vCenter (issue 39: severity follows the
		// risk, not the data source).
		{name: "nothing set up on the PVRDMA vDS, no vCenter: warning", hosts: idles(unset), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Warning, "no RDMA device; Net.PVRDMAVmknic unset; pvrdma ruleset disabled. As a member of the PVRDMA vDS it has the PVRDMA VMs' port group", "pvrdma"}}},
		{name: "not on the PVRDMA vDS, no vCenter: information (near miss)", exact: true,
			hosts: idles(both(unset, func(h *facts.Host) {
				h.DVSwitches[0].Name = "mgmt-dvs"
				h.DVSwitches[0].Record = rec(cmdDVS, "Name", "mgmt-dvs", "MTU", "1500", "Uplinks", "vmnic2")
			})),
			want: []want{{"esx02", "esx02", StatusFail, Info, "is not on rdma-dvs, the PVRDMA vDS", ""}}},
		{name: "DRS on in its cluster: warning", hosts: idles(both(unset, inCluster("gpu-a", on, off))), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Warning, "Cluster gpu-a: DRS (fullyAutomated) places and moves VMs on it", "String Value"}}},
		{name: "only PFC off, DRS on: a warning that says what it costs, and no more", exact: true,
			hosts: idles(both(inCluster("gpu-a", on, off), func(h *facts.Host) { h.DCB[0].PFCEnabled, h.DCB[0].PFCPriorities = false, nil })),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "for a PVRDMA VM placed there, RoCE runs without lossless Ethernet (congestion drops its packets)", ""}}},
		{name: "HA on only: warning", hosts: idles(both(unset, inCluster("gpu-a", off, on))), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Warning, "HA restarts a failed host's VMs on it", ""}}},
		{name: "DRS and HA off: information", hosts: idles(both(unset, inCluster("gpu-b", off, off))), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Info, "DRS and HA are off, so only a manual vMotion or power-on puts VMs on it", ""}}},
		{name: "a standalone host: information", hosts: idles(both(unset, standaloneHost)), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Info, "In no cluster, so neither DRS nor HA places VMs on it", ""}}},
		{name: "a powered-off PVRDMA VM registered on it: warning without DRS", hosts: idles(both(unset, inCluster("gpu-b", off, off), parked)), exact: true,
			want: []want{{"esx02", "esx02", StatusFail, Warning, "hpc-parked, registered on it and powered off, will run there when powered on", ""}}},
		{name: "its only uplink of the vDS is not the RDMA NIC", exact: true,
			hosts: idles(func(h *facts.Host) { h.DVSwitches[0].Uplinks = []string{"vmnic2"} }),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "vmnic4 (vmrdma0) not an uplink of rdma-dvs (uplinks: vmnic2)", ""}}},
		{name: "two uplinks", exact: true,
			hosts: idles(func(h *facts.Host) { h.DVSwitches[0].Uplinks = []string{"vmnic4", "vmnic2"} }),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "vmnic4 and also vmnic2 (one uplink only)", ""}}},
		{name: "the RDMA device is down", exact: true,
			hosts: idles(func(h *facts.Host) { h.RDMADevices[0].State = "Down" }),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "vmrdma0 Down", "vmrdma0"}}},
		{name: "vmk1 at 1500 on the 9000 vDS", exact: true,
			hosts: idles(func(h *facts.Host) {
				h.Vmknics[1].MTU = 1500
				h.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "MTU", "1500")
			}),
			want: []want{{"esx02", "esx02", StatusFail, Warning, "vmk1 MTU 1500 on rdma-dvs at 9000", "MTU: 1500"}}},
		{name: "no lossless configuration", exact: true,
			hosts: idles(func(h *facts.Host) { h.DCB[0].PFCEnabled, h.DCB[0].PFCPriorities = false, nil }),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "PFC off, no pause on vmnic4", ""}}},
		{name: "tagged vmknic without an address", exact: true,
			hosts: idles(func(h *facts.Host) { h.IPv4 = h.IPv4[:1] }),
			want:  []want{{"esx02", "esx02", StatusFail, Warning, "vmk1 has no IPv4 address", ""}}},
		{name: "not on the PVRDMA vDS: information, whatever DRS does", exact: true,
			hosts: idles(both(inCluster("gpu-a", on, on), func(h *facts.Host) {
				h.DVSwitches[0].Name = "mgmt-dvs"
				h.DVSwitches[0].Record = rec(cmdDVS, "Name", "mgmt-dvs", "MTU", "1500", "Uplinks", "vmnic4")
			})),
			want: []want{{"esx02", "esx02", StatusFail, Info, "is not on rdma-dvs, the PVRDMA vDS (so DRS and HA cannot place PVRDMA VMs on it", ""}}},
		{name: "its vDS list was not read: not evaluated, with the reason", exact: true,
			hosts: idles(func(h *facts.Host) { missing(h, cmdDVS); h.DVSwitches = nil }),
			want:  []want{{"esx02", "esx02", StatusNotEvaluated, "", "whether it is on rdma-dvs, the PVRDMA vDS, was not read: `esxcli network vswitch dvs vmware list", ""}}},
		{name: "its VMs were not listed: not evaluated", exact: true,
			hosts: idles(func(h *facts.Host) { missing(h, cmdLs) }),
			want:  []want{{"esx02", "esx02", StatusNotEvaluated, "", "vsish -e ls", ""}}},
	})
}

// A host that runs PVRDMA VMs gets the steps' own findings, never
// HOST_NOT_READY; a host that runs none gets HOST_NOT_READY only, never
// the steps' findings too (one headline).
func TestHostNotReadyOneHeadline(t *testing.T) {
	a := goodHost("esx01", "192.168.50.11")
	a.Rulesets[1].Enabled = false
	b := idle("esx02", "192.168.50.12")
	b.Rulesets[1].Enabled = false
	b.RDMADevices[0].State = "Down"
	b.Vmknics[1].MTU = 1500
	b.IPv4 = b.IPv4[:1]
	b.DCB[0].PFCEnabled = false
	res := Run(&facts.Fleet{Hosts: []facts.Host{a, b}})
	got := map[string]bool{}
	for _, f := range res.Findings {
		if f.Status == StatusFail {
			got[f.Host+" "+f.RuleID] = true
		}
	}
	for _, k := range []string{"esx01 PVRDMA_FIREWALL_CLOSED", "esx02 HOST_NOT_READY"} {
		if !got[k] {
			t.Errorf("no %s:\n%s", k, dump(res.Findings))
		}
	}
	for _, k := range []string{"esx01 HOST_NOT_READY", "esx02 PVRDMA_FIREWALL_CLOSED", "esx02 RDMA_DEVICE_DOWN", "esx02 MTU_MISMATCH",
		"esx02 PVRDMA_VMKNIC_NO_IPV4", "esx02 PFC_DISABLED"} {
		if got[k] {
			t.Errorf("%s reported:\n%s", k, dump(res.Findings))
		}
	}
}

// The readiness table: one row per host, one cell per step.
func TestReadinessTable(t *testing.T) {
	a := goodHost("esx01", "192.168.50.11")
	b := idle("esx02", "192.168.50.12")
	c := idle("esx03", "192.168.50.13")
	unset(&c)
	d := idle("esx04", "192.168.50.14")
	d.DVSwitches[0].Name = "mgmt-dvs"
	e := idle("esx05", "192.168.50.15")
	e.Status, e.Reason = hostio.StatusNotCollected, "connection refused"
	rd := ReadinessOf(&facts.Fleet{Hosts: []facts.Host{a, b, c, d, e}})
	if rd.Switch != "rdma-dvs" || len(rd.Steps) != 6 || len(rd.Hosts) != 5 {
		t.Fatalf("readiness %+v", rd)
	}
	for _, w := range []struct{ host, role, state, cells string }{
		{"esx01", "pvrdma", StateReady, "ok ok ok ok ok ok"},
		{"esx02", "member", StateReady, "ok ok ok ok ok ok"},
		{"esx03", "member", StateNotReady, "fail n/a fail fail ok n/a"},
		{"esx04", "outside", StateNotReady, "ok fail ok ok n/a ok"},
		{"esx05", "unknown", StateUnknown, "unknown unknown unknown unknown unknown unknown"},
	} {
		row := rd.row(w.host)
		var cells []string
		for _, c := range row.Cells {
			cells = append(cells, c.State)
		}
		if row.Role != w.role || row.State != w.state || strings.Join(cells, " ") != w.cells {
			t.Errorf("%s: role %s state %s cells %s, want %s %s %s\n%+v", w.host, row.Role, row.State, strings.Join(cells, " "), w.role, w.state, w.cells, row.Cells)
		}
	}
	if c := rd.row("esx03").Cell(stepRDMA); c.Text != "no RDMA device" || len(c.Evidence) == 0 {
		t.Errorf("esx03 RDMA cell %+v", c)
	}
	if c := rd.row("esx04").Cell(stepUplink); c.Text != "not on rdma-dvs" {
		t.Errorf("esx04 uplink cell %+v", c)
	}
}

// The plan of a host that is not ready is the seeds' host setup, in order.
func TestHostNotReadyPlan(t *testing.T) {
	hosts := idles(both(unset, inCluster("gpu-a", on, on)))()
	fleet := &facts.Fleet{Hosts: hosts}
	res := Run(fleet)
	p := PlanFor(Plans(fleet, res.Findings), "esx02")
	if p == nil {
		t.Fatalf("no plan for esx02:\n%s", dump(res.Findings))
	}
	var acts []string
	resolved := false
	for _, s := range p.Steps {
		acts = append(acts, string(s.Action))
		for _, c := range s.Resolves {
			resolved = resolved || c.RuleID == "HOST_NOT_READY"
		}
		if s.Action == plan.KindEnableRuleset && s.Command != "esxcli network firewall ruleset set -e true -r pvrdma" {
			t.Errorf("enable_ruleset %+v", s)
		}
	}
	// The ConnectX-5 lacks only its RDMA driver: enabled (in maintenance
	// mode; its port runs PFC on priority 3 already, from DCBX, so no
	// flow-control step), its
	// port made the vDS's only uplink, its switch ports checked for
	// jumbo frames before the host's steps (its fabric never carried
	// them), the vmknic tagged, the ruleset opened.
	want := "enter_maintenance enable_module reboot exit_maintenance set_uplinks set_switch_mtu tag_vmknic enable_ruleset"
	if got := strings.Join(acts, " "); got != want {
		t.Errorf("plan %s\nwant %s", got, want)
	}
	if !resolved {
		t.Errorf("no step resolves HOST_NOT_READY")
	}
	if c := Contradictions(*p); len(c) > 0 {
		t.Errorf("contradictions %v", c)
	}
	// Information only (no vCenter): still planned.
	hosts = idles(unset)()
	fleet = &facts.Fleet{Hosts: hosts}
	res = Run(fleet)
	if PlanFor(Plans(fleet, res.Findings), "esx02") == nil {
		t.Errorf("HOST_NOT_READY at info: no plan")
	}
}

func TestChooseVDS(t *testing.T) {
	mk := func(name string, vms, rdmaHosts, mtu int) *vdsInfo {
		v := &vdsInfo{Key: "name:" + name, Name: name, VMs: vms, MTU: mtu}
		for i := 0; i < rdmaHosts; i++ {
			v.RDMAHosts = append(v.RDMAHosts, "h"+string(rune('0'+i)))
		}
		return v
	}
	for _, c := range []struct {
		name  string
		cands []*vdsInfo
		want  string
	}{
		{"2 VMs on each, one with RDMA and jumbo frames: that one", []*vdsInfo{mk("lab-dvs", 2, 0, 9000), mk("rdma-dvs", 2, 2, 9000)}, "rdma-dvs"},
		{"3 on the vDS without RDMA, 1 on the RDMA one: the RDMA one", []*vdsInfo{mk("vm-dvs", 3, 0, 1500), mk("rdma-dvs", 1, 1, 9000)}, "rdma-dvs"},
		{"both with RDMA and jumbo frames, 2 each: none", []*vdsInfo{mk("a", 2, 2, 9000), mk("b", 2, 2, 9000)}, ""},
		{"both with RDMA and jumbo frames, 3 and 1: the majority", []*vdsInfo{mk("a", 3, 2, 9000), mk("b", 1, 2, 9000)}, "a"},
		{"RDMA on both, jumbo on one: the jumbo one", []*vdsInfo{mk("a", 3, 2, 1500), mk("b", 1, 2, 9000)}, "b"},
		{"no RDMA anywhere: none", []*vdsInfo{mk("a", 3, 0, 9000), mk("b", 1, 0, 1500)}, ""},
		{"one vDS: it", []*vdsInfo{mk("a", 0, 0, 1500)}, "a"},
		{"no VM yet: the one with RDMA uplinks on most hosts", []*vdsInfo{mk("a", 0, 1, 9000), mk("b", 0, 3, 9000)}, "b"},
		{"no VM yet, no RDMA uplink: none", []*vdsInfo{mk("a", 0, 0, 9000), mk("b", 0, 0, 9000)}, ""},
	} {
		got, why := chooseVDS(c.cands)
		name := ""
		if got != nil {
			name = got.Name
			if why == "" {
				t.Errorf("%s: no reason", c.name)
			}
		}
		if name != c.want {
			t.Errorf("%s: chose %q, want %q", c.name, name, c.want)
		}
	}
}

// What a host lacks is what its finding says it costs: a host whose only
// fault is PFC does not claim a fallback to TCP.
func TestHostNotReadySaysNoMore(t *testing.T) {
	got := runRule(t, "HOST_NOT_READY", idles(both(inCluster("gpu-a", on, off), func(h *facts.Host) { h.DCB[0].PFCEnabled = false }))()...)
	for _, f := range got {
		if f.Status == StatusFail && strings.Contains(f.Message, "TCP") {
			t.Errorf("PFC off only, and the message says TCP: %s", f.Message)
		}
	}
}

// An idle host's step that HOST_NOT_READY reports as not done is its
// finding alone; a step it could not read stays the step rule's to say
// (not evaluated, with the reason).
func TestIdleHostStepRulesLeaveOnlyWhatIsNotDone(t *testing.T) {
	pfcOff := idles(func(h *facts.Host) {
		h.DCB[0].PFCEnabled, h.DCB[0].PFCPriorities = false, nil
		h.NICDetails[0].PauseRX = false
	})
	if got := runRule(t, "PFC_DISABLED", pfcOff()...); len(got) != 1 || got[0].Host != "esx01" {
		t.Errorf("PFC off on the idle esx02: HOST_NOT_READY's alone, got %s", dump(got))
	}
	unread := idles(func(h *facts.Host) {
		missing(h, cmdDCB4)
		missing(h, cmdNICGet4)
		h.DCB, h.NICDetails = nil, nil
	})
	var saw bool
	for _, f := range runRule(t, "PFC_DISABLED", unread()...) {
		if f.Host == "esx02" {
			saw = f.Status == StatusNotEvaluated && strings.Contains(f.Message, cmdDCB4)
		}
	}
	if !saw {
		t.Errorf("DCB and NIC details unread on the idle esx02: PFC_DISABLED should say not evaluated")
	}
}
