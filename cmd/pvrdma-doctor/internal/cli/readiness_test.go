package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Is this cluster ready for PVRDMA? `scan --vcenter --cluster gpu-a`
// before the first PVRDMA VM exists (the cluster scenario, served by
// govmomi's simulator): every host of the cluster is checked against the
// seeds' host setup; esx03 (never set up) and esx06 (SSH refused; vCenter
// shows its vmknic untagged) are warnings, because DRS and HA place
// VMs on them; the table says what each host lacks.
func TestClusterReadinessScan(t *testing.T) {
	l, dir := startScanLab(t, "cluster", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	url, thumb := startVCenter(t, "cluster")
	env := map[string]string{"PD_PW": testPassword, "VC_PW": vcPassword}
	// gpu-a's hosts: the ones vCenter lists for --cluster gpu-a.
	all, err := os.ReadFile(filepath.Join(dir, "hosts"))
	if err != nil {
		t.Fatal(err)
	}
	var gpuA []string
	for _, line := range strings.Split(string(all), "\n") {
		for _, h := range []string{"esx01 ", "esx02 ", "esx03 ", "esx06 "} {
			if strings.HasPrefix(line, h) {
				gpuA = append(gpuA, line)
			}
		}
	}
	hosts := filepath.Join(dir, "hosts-gpu-a")
	if err := os.WriteFile(hosts, []byte(strings.Join(gpuA, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--hosts-file", hosts, "--known-hosts", kh, "--password-env", "PD_PW", "--vcenter", url,
		"--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", thumb}
	code, out, errOut := runVCenterScan(t, dir, env, append(args, "--cluster", "gpu-a", "-o", "json")...)
	if code != ExitIncomplete {
		t.Fatalf("exit %d, want %d (warnings only, but esx06 refuses SSH); stderr:\n%s\n%s", code, ExitIncomplete, errOut, out)
	}
	r := decodeReport(t, out)
	if r.Readiness == nil || r.Readiness.Switch != "rdma-dvs" || len(r.Readiness.Hosts) != 4 {
		t.Fatalf("readiness %+v", r.Readiness)
	}
	want := map[string]struct{ state, cells string }{
		"esx01": {checks.StateReady, "ok ok ok ok ok ok"},
		"esx02": {checks.StateReady, "ok ok ok ok ok ok"},
		"esx03": {checks.StateNotReady, "fail n/a fail fail ok n/a"},
		// vCenter alone: no lossless configuration without SSH (and the
		// simulator's esxcli through the API says the firewall is off).
		"esx06": {checks.StateNotReady, "ok ok fail ok ok unknown"},
	}
	for _, h := range r.Readiness.Hosts {
		var cells []string
		for _, c := range h.Cells {
			cells = append(cells, c.State)
		}
		w := want[h.Host]
		if h.State != w.state || strings.Join(cells, " ") != w.cells || h.Cluster != "gpu-a" {
			t.Errorf("%s: %s %s (cluster %q), want %s %s\n%+v", h.Host, h.State, strings.Join(cells, " "), h.Cluster, w.state, w.cells, h.Cells)
		}
	}
	got := map[string]checks.Finding{}
	for _, f := range r.Findings {
		if f.RuleID == "HOST_NOT_READY" && f.Status == checks.StatusFail {
			got[f.Host] = f
		}
	}
	if len(got) != 2 {
		t.Errorf("HOST_NOT_READY on %d hosts, want esx03 and esx06: %+v", len(got), got)
	}
	for _, h := range []string{"esx03", "esx06"} {
		f := got[h]
		if f.Severity != checks.Warning || !strings.Contains(f.Message, "Cluster gpu-a: DRS (fullyAutomated) places and moves VMs on it") {
			t.Errorf("%s: %s %q", h, f.Severity, f.Message)
		}
	}
	props := ""
	for _, e := range got["esx06"].Evidence {
		props += e.Property + "\n"
	}
	if !strings.Contains(props, `advancedOption Net.PVRDMAVmknic = ""`) || !strings.Contains(props, "cluster.configurationEx.drsConfig.enabled = true") {
		t.Errorf("esx06 evidence: %s", props)
	}
	plan := checks.PlanFor(r.Plans, "esx03")
	var acts []string
	if plan != nil {
		for _, st := range plan.Steps {
			acts = append(acts, string(st.Action))
		}
	}
	// The E810 gets RDMA through maintenance mode (infra-03 migrated off),
	// then the vmknic tag and the ruleset: the seeds' host setup.
	if a := strings.Join(acts, " "); !strings.HasPrefix(a, "migrate_vms enter_maintenance set_module_params reboot exit_maintenance") ||
		!strings.Contains(a, "tag_vmknic enable_ruleset") {
		t.Errorf("esx03 plan %s", a)
	}

	// The text report answers the question with the table.
	_, text, _ := runVCenterScan(t, dir, env, append(args, "--cluster", "gpu-a", "-o", "text", "--details")...)
	for _, s := range []string{"READINESS host setup for PVRDMA (PVRDMA vDS rdma-dvs): 2 of 4 hosts ready",
		"esx03  ✗    -       ✗    ✗   ✓    -         no PVRDMA VM; DRS/HA place VMs",
		"✗ esx03: no RDMA device; Net.PVRDMAVmknic unset; pvrdma ruleset disabled"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}

	// The whole datacenter: gpu-b has DRS and HA off, so esx04 (two
	// uplinks, no PFC) is information; esx05 is not on rdma-dvs.
	code, out, errOut = runVCenterScan(t, dir, env, "--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", kh, "--password-env", "PD_PW",
		"--vcenter", url, "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", thumb, "-o", "json")
	if code != ExitIncomplete {
		t.Fatalf("datacenter: exit %d; stderr:\n%s", code, errOut)
	}
	r = decodeReport(t, out)
	sev := map[string]string{}
	for _, f := range r.Findings {
		if f.RuleID == "HOST_NOT_READY" && f.Status == checks.StatusFail {
			sev[f.Host] = string(f.Severity) + " " + f.Message
		}
	}
	for h, w := range map[string]string{"esx03": "warning", "esx04": "info Cluster gpu-b: DRS and HA are off",
		"esx05": "info esx05 runs no PVRDMA VM and is not on rdma-dvs", "esx06": "warning"} {
		if !strings.HasPrefix(sev[h], w) && !strings.Contains(sev[h], strings.TrimPrefix(w, "info ")) {
			t.Errorf("%s: %q, want %q", h, sev[h], w)
		}
	}
	for _, h := range r.Readiness.Hosts {
		if h.Host == "esx05" && (h.Role != "outside" || h.Cell("vds_uplink").Text != "not on rdma-dvs") {
			t.Errorf("esx05 readiness %+v", h)
		}
	}
	_ = report.ReadinessLegend
}
