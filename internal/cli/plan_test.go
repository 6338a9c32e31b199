package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `plan --input` writes a Markdown checklist and a shell script per host
// and guest with a plan; the scripts are valid POSIX sh; --print writes one
// to standard output; a healthy fleet has none.
func TestPlanCommandWritesRunbooks(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "plan", "--input", "../../fixtures/scenarios/mixed", "--dir", dir)
	if code != ExitOK && code != ExitIncomplete {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, h := range []string{"esx01", "esx02", "esx03", "esx04"} {
		if !strings.Contains(out, h+": ") {
			t.Errorf("no runbook listed for %s:\n%s", h, out)
		}
		md, err := os.ReadFile(filepath.Join(dir, h+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(md), "# Fix plan for "+h) || !strings.Contains(string(md), "- [ ] **1.**") {
			t.Errorf("%s.md:\n%s", h, md)
		}
		sh, err := os.ReadFile(filepath.Join(dir, h+".sh"))
		if err != nil {
			t.Fatal(err)
		}
		if sh, err := exec.LookPath("sh"); err == nil {
			if b, err := exec.Command(sh, "-n", filepath.Join(dir, h+".sh")).CombinedOutput(); err != nil {
				t.Errorf("%s.sh: sh -n: %v: %s", h, err, b)
			}
		}
		if !strings.HasPrefix(string(sh), "#!/bin/sh\n") {
			t.Errorf("%s.sh starts %q", h, string(sh)[:20])
		}
	}
	// The E810 host's script: RDMA on in icen's options, merged; the
	// reboot a pause that stops the script; the power-on after the host
	// leaves maintenance mode.
	sh, _ := os.ReadFile(filepath.Join(dir, "esx02.sh"))
	s := string(sh)
	for _, want := range []string{"esxcfg-module -g icen", "RDMA=1,1", "exit 0", "--from 6", "maintenanceMode set -e false", "govc vm.power -on"} {
		if !strings.Contains(s, want) {
			t.Errorf("esx02.sh lacks %q", want)
		}
	}
	if strings.Index(s, "maintenanceMode set -e false") > strings.Index(s, "govc vm.power -on") {
		t.Error("esx02.sh powers the VMs on before leaving maintenance mode")
	}
	if strings.Contains(s, "install an RoCE") {
		t.Error("esx02.sh tells to install a NIC: its E810 only lacks RDMA")
	}

	code, out, errOut = runCLI(t, "", "plan", "--input", "../../fixtures/scenarios/mixed", "--only", "esx04", "--print", "sh")
	if code != ExitOK && code != ExitIncomplete || !strings.HasPrefix(out, "#!/bin/sh\n") || !strings.Contains(out, "esxcli system shutdown reboot") ||
		strings.Contains(out, "parameters set -m nmlx5_core") {
		// esx04's PFC is in nmlx5_core's options already: the reboot, not
		// another -p.
		t.Errorf("--print sh: exit %d: %s\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI(t, "", "plan", "--input", "../../fixtures/scenarios/mixed", "--print", "md")
	if code != ExitUsage || !strings.Contains(errOut, "choose one with --only") {
		t.Errorf("--print with several plans: exit %d: %s", code, errOut)
	}
	// A host that is not in the run is a mistake, not "nothing to fix"
	// (issue 37.7): exit 2, with the hosts that exist.
	code, out, errOut = runCLI(t, "", "plan", "--input", "../../fixtures/scenarios/mixed", "--only", "esx99,esx02", "--dir", t.TempDir())
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "--only esx99: not a host or guest of this run") ||
		!strings.Contains(errOut, "esx01, esx02") || !strings.Contains(errOut, "hpc-node01") {
		t.Errorf("--only esx99: exit %d, out %q, err %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", "plan", "--input", "../../fixtures/scenarios/healthy", "--dir", t.TempDir())
	if code != ExitOK || !strings.Contains(errOut, "No fix plan") || out != "" {
		t.Errorf("healthy: exit %d, out %q, err %q", code, out, errOut)
	}
}
