package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `plan --input` writes a Markdown checklist and a shell script per host
// and guest with a plan; the scripts are valid POSIX sh; --print writes one
// to standard output; a healthy fleet has none.
func TestPlanCommandWritesRunbooks(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/mixed", "--dir", dir)
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

	code, out, errOut = runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/mixed", "--only", "esx04", "--print", "sh")
	if code != ExitOK && code != ExitIncomplete || !strings.HasPrefix(out, "#!/bin/sh\n") || !strings.Contains(out, "esxcli system shutdown reboot") ||
		strings.Contains(out, "parameters set -m nmlx5_core") {
		// esx04's PFC is in nmlx5_core's options already: the reboot, not
		// another -p.
		t.Errorf("--print sh: exit %d: %s\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/mixed", "--print", "md")
	if code != ExitUsage || !strings.Contains(errOut, "choose one with --only") {
		t.Errorf("--print with several plans: exit %d: %s", code, errOut)
	}
	// A host that is not in the run is a mistake, not "nothing to fix"
	// (issue 37.7): exit 2, with the hosts that exist.
	code, out, errOut = runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/mixed", "--only", "esx99,esx02", "--dir", t.TempDir())
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "--only esx99: not a host or guest of this run") ||
		!strings.Contains(errOut, "esx01, esx02") || !strings.Contains(errOut, "hpc-node01") {
		t.Errorf("--only esx99: exit %d, out %q, err %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/healthy", "--dir", t.TempDir())
	if code != ExitOK || !strings.Contains(errOut, "No fix plan") || out != "" {
		t.Errorf("healthy: exit %d, out %q, err %q", code, out, errOut)
	}
}

// `plan` on a redacted bundle (issue 38.4): without the token map no
// script is written (its commands would carry tokens: a firewall opened to
// 198.19.x.y), the checklists mark every token and the error says why and
// how; with --tokens the runbooks name the real hosts and addresses, in
// every command, file name and text.
func TestPlanOnARedactedBundle(t *testing.T) {
	tmp := t.TempDir()
	b := filepath.Join(tmp, "mixed.tar.gz")
	if code, _, errOut := runCLI(t, "", "redact", "../../../../fixtures/scenarios/mixed", b); code != ExitOK {
		t.Fatalf("redact: exit %d: %s", code, errOut)
	}
	plain := t.TempDir()
	runCLI(t, "", "plan", "--input", "../../../../fixtures/scenarios/mixed", "--dir", plain)
	original, _ := filepath.Glob(filepath.Join(plain, "*"))
	if len(original) == 0 {
		t.Fatal("no runbooks for the plain input")
	}

	dir := t.TempDir()
	code, _, errOut := runCLI(t, "", "plan", "--input", b, "--dir", dir)
	if code == ExitOK || !strings.Contains(errOut, "is a redacted bundle") || !strings.Contains(errOut, "--tokens "+b+".tokens.json") {
		t.Errorf("without the map: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatal("without the map: no checklist written")
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".sh") {
			t.Errorf("a script was written from a redacted bundle: %s", f)
		}
		md, _ := os.ReadFile(f)
		if !strings.HasPrefix(filepath.Base(f), "redacted-") || !strings.Contains(string(md), "Made from a redacted bundle") {
			t.Errorf("%s: not marked as made from a redacted bundle", f)
		}
		// Every token is marked: none stands bare.
		bare := strings.NewReplacer("«", " ", "»", " ").Replace(string(md))
		if n, m := strings.Count(bare, "host-0"), strings.Count(string(md), "«host-0"); n != m || m == 0 {
			t.Errorf("%s: %d host tokens, %d marked", f, n, m)
		}
	}
	if code, _, errOut := runCLI(t, "", "plan", "--input", b, "--only", "host-001", "--print", "sh"); code != ExitUsage || !strings.Contains(errOut, "redacted bundle") {
		t.Errorf("--print sh without the map: exit %d: %s", code, errOut)
	}

	restored := t.TempDir()
	code, _, errOut = runCLI(t, "", "plan", "--input", b, "--tokens", b+".tokens.json", "--dir", restored)
	if code != ExitOK && code != ExitIncomplete {
		t.Fatalf("with the map: exit %d: %s", code, errOut)
	}
	for _, f := range original {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(restored, filepath.Base(f)))
		if err != nil {
			t.Errorf("with the map: %s not written: %v", filepath.Base(f), err)
			continue
		}
		if header := regexp.MustCompile(`(?s)(?i:from) pvrdma-doctor \S+\s*(?:#\s*)?\(.*?UTC\)\.`); header.ReplaceAllString(string(got), "") != header.ReplaceAllString(string(want), "") {
			t.Errorf("with the map, %s differs from the plan of the original input", filepath.Base(f))
		}
		if strings.HasSuffix(f, ".sh") && strings.Contains(string(got), "198.1") {
			t.Errorf("%s carries a token address", filepath.Base(f))
		}
	}
	// A map of another bundle is refused.
	other := filepath.Join(tmp, "other.json")
	os.WriteFile(other, []byte(`{"tokens":[{"kind":"host","original":"x-host","token":"host-900"}]}`), 0o600)
	if code, _, errOut := runCLI(t, "", "plan", "--input", b, "--tokens", other, "--dir", t.TempDir()); code != ExitError || !strings.Contains(errOut, "not the map of this bundle") {
		t.Errorf("another bundle's map: exit %d: %s", code, errOut)
	}
}
