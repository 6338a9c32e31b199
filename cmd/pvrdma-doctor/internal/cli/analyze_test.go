package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// A transcript holding only 2 of the stage-1 commands is incomplete
// (exit 5), exactly like a folder of saved outputs with the same gap: the
// host is partial and the report names what was not in the input.
func TestAnalyzeIncompleteTranscriptAndFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "mixed", "esx01")
	version, _ := os.ReadFile(filepath.Join(src, "esxcli_system_version_get.txt"))
	rdma, _ := os.ReadFile(filepath.Join(src, "esxcli_rdma_device_list.txt"))
	tr := filepath.Join(dir, "session.txt")
	os.WriteFile(tr, []byte("~ # esxcli system version get\n"+string(version)+"~ # esxcli rdma device list\n"+string(rdma)+"~ # \n"), 0o644)
	folder := filepath.Join(dir, "saved", "esx01")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "esxcli_system_version_get.txt"), version, 0o644)
	os.WriteFile(filepath.Join(folder, "esxcli_rdma_device_list.txt"), rdma, 0o644)
	for _, c := range []struct{ path, why, input string }{
		{tr, "not in the transcript", "a pasted transcript"},
		{filepath.Dir(folder), "no saved output for it", "a folder of saved outputs"},
	} {
		code, out, stderr := runCLI(t, "", "analyze", c.path, "--output", "text", "--details")
		if code != ExitIncomplete {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", c.path, code, ExitIncomplete, out, stderr)
		}
		flat := strings.Join(strings.Fields(out), " ") // the text report wraps lines
		if strings.Contains(out, "HEALTHY") || !strings.Contains(flat, fmt.Sprintf("INCOMPLETE: %d of the %d base commands not collected: not in the input (%s)", len(collect.Stage1())-2, len(collect.Stage1()), c.input)) ||
			!strings.Contains(flat, "not collected: not in the input: `esxcli rdma device protocol list`, `esxcli rdma device vmknic list`, `esxcli vm process list`, and "+fmt.Sprint(len(collect.Stage1())-5)+" more") ||
			!strings.Contains(flat, "`esxcli network firewall ruleset list` skipped ("+c.why+")") {
			t.Errorf("%s: the report does not say what was not checked:\n%s", c.path, out)
		}
		// Coverage, not a fault of the host: no finding blames it.
		if strings.Contains(out, "COLLECTION_FAILED") || strings.Contains(out, "WARNING") {
			t.Errorf("%s: a gap of the input is reported as a finding:\n%s", c.path, out)
		}
	}
}

// A truncated bundle is blamed on the bundle, not the hosts: at most one
// COLLECTION_FAILED finding per host, whose fix says the bundle is damaged.
func TestAnalyzeTruncatedBundleBlamesTheBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "m.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", "../../../../fixtures/scenarios/mixed", b); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	orig, _ := os.ReadFile(b)
	trunc := filepath.Join(dir, "trunc.tar.gz")
	// An eighth: the cut falls among the hosts' outputs (the guests' come
	// after them).
	os.WriteFile(trunc, orig[:len(orig)/8], 0o644)
	_, out, stderr := runCLI(t, "", "analyze", trunc, "--output", "json")
	var r struct {
		Findings []struct {
			RuleID                     string `json:"rule_id"`
			Host, Status, Message, Fix string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	perHost := map[string]int{}
	for _, f := range r.Findings {
		if f.RuleID != "COLLECTION_FAILED" || f.Status != "fail" {
			continue
		}
		perHost[f.Host]++
		if !strings.Contains(f.Fix, "The bundle is damaged (see the PARTIAL INPUT note)") || strings.Contains(f.Fix, "--command-timeout") ||
			!strings.Contains(f.Message, "missing or corrupt in the bundle") {
			t.Errorf("%s: %s / %s", f.Host, f.Message, f.Fix)
		}
	}
	if len(perHost) == 0 {
		t.Fatalf("no COLLECTION_FAILED finding for the truncated bundle:\n%s", out)
	}
	for h, n := range perHost {
		if n != 1 {
			t.Errorf("%s: %d COLLECTION_FAILED findings, want 1", h, n)
		}
	}
}

// The UI's export of an analysed redacted bundle keeps it as it is: no
// second redaction, no token map, the manifest still says redacted and the
// tokens are those of the original. An unredacted input is still redacted.
func TestAnalyzeExportOfRedactedBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "shared.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, b); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	var errOut strings.Builder
	opts := &AnalyzeOptions{IO: &IOStreams{Out: &errOut, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	in, err := loadInput(b, nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "export.tar.gz")
	if err := analyzePipeline(opts, in).Bundle(out, in.Results); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle.TokensPath(out)); err == nil {
		t.Error("exporting a redacted bundle wrote a token map")
	}
	again, err := offline.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Redacted() || again.Manifest.Hosts[0].Host != in.Manifest.Hosts[0].Host || again.Results[0].Host != "host-001" {
		t.Errorf("export: redacted %v, hosts %q (was %q)", again.Redacted(), again.Manifest.Hosts[0].Host, in.Manifest.Hosts[0].Host)
	}
	var w strings.Builder
	if err := writeBundle(filepath.Join(dir, "said.tar.gz"), in.Results, analysis.Options{}, BundleFlags{AlreadyRedacted: true}, &w, bundleRun{}); err != nil ||
		!strings.Contains(w.String(), "already redacted") {
		t.Errorf("message %q, err %v", w.String(), err)
	}

	// An unredacted input is redacted on export, with its token map.
	in, err = loadInput(healthyDir, nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "fresh.tar.gz")
	if err := analyzePipeline(opts, in).Bundle(out, in.Results); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle.TokensPath(out)); err != nil {
		t.Errorf("unredacted input exported without a token map: %v", err)
	}
}

// Issue 23's pasted session: seven of the commands (system version, RDMA
// device list, VM process list, vsish ls and the cat of one VM whose
// adapter has no HCA, the firewall rulesets, the PVRDMAVmknic option)
// crashed analyze in TCP_FALLBACK (no vDS list). It analyses with its
// findings: the adapter without HCA (whose traffic falls back to TCP) and
// a plan; whether the host as a whole falls back is not evaluated, since
// the other adapters' properties are not in the session and vmrdma0 is
// Active (on the whole host, the mixed scenario's esx01, it does not).
func TestAnalyzePartialSessionOfIssue23(t *testing.T) {
	code, out, stderr := runCLI(t, "", "analyze", filepath.Join("testdata", "partial-session.txt"), "--output", "json")
	if code != ExitCritical || strings.Contains(stderr, "panic") {
		t.Fatalf("exit %d, want %d\n%s", code, ExitCritical, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range r.Findings {
		if f.Status == "fail" || f.RuleID == "TCP_FALLBACK" {
			got[f.RuleID] = string(f.Status) + " " + f.Subject
		}
	}
	if got["PHYSICAL_HCA_UNAVAILABLE"] != "fail hpc-node02 (PVRDMA adapter 0)" || got["TCP_FALLBACK"] != "not_evaluated esx01" {
		t.Errorf("findings %v", got)
	}
	if len(r.InternalErrors) != 0 || len(r.Plans) != 1 {
		t.Errorf("internal errors %+v, %d plans", r.InternalErrors, len(r.Plans))
	}
}

// A VM whose Config File the terminal wrapped (a one-space continuation)
// is named with its full .vmx path in what the doctor asks to read.
func TestAnalyzeWrappedConfigFileNamesTheFullVMX(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "mixed", "esx01")
	props, _ := os.ReadFile(filepath.Join(src, "vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_2101236_0_properties.txt"))
	text := "[root@esx01:~] esxcli vm process list\nvcsa-01\n   World ID: 2101236\n   Process ID: 0\n   Display Name: vcsa-01\n" +
		"   Config File: /vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter\n Server Appliance/VMware vCenter Server Appliance.vmx\n" +
		"[root@esx01:~] vsish -e ls /vmkModules/vrdma/pvrdmaDevices\n2101236_0/\n" +
		"[root@esx01:~] vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2101236_0/pr\noperties\n" + string(props)
	p := filepath.Join(dir, "session.txt")
	os.WriteFile(p, []byte(text), 0o644)
	_, out, stderr := runCLI(t, "", "analyze", p, "--output", "json")
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want := "`cat '/vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter Server Appliance/VMware vCenter Server Appliance.vmx'` was not run"
	found := false
	for _, f := range r.Findings {
		if f.RuleID == "VM_MEMORY_NOT_RESERVED" && f.Subject == "vcsa-01" && strings.Contains(f.Message, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("no VM_MEMORY_NOT_RESERVED naming %s:\n%s", want, out)
	}
}

// Issue 23: a pasted guest session (ssh into the guest, then the commands
// as admins type them: uname -a, ibstat, ibv_devinfo with a libibverbs
// ABI warning, ip a, show_gids, lsmod | grep, dmesg -T | grep, dpkg -l |
// grep, ofed_info -s not installed, rdma link, os-release) is analysed as
// a guest, its facts read from every form, the ABI mismatch a finding;
// and a folder of saved outputs with the guests' subfolders (as the
// fixtures hold them) is analysed with its guests.
func TestAnalyzeGuestSessionsAndFolders(t *testing.T) {
	code, out, stderr := runCLI(t, "", "analyze", filepath.Join("testdata", "guest-forms", "guest-session.txt"), "--output", "json")
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	if len(r.Hosts) != 1 || r.Hosts[0].Host != "esx01" || len(r.Guests) != 1 || r.Guests[0].Host != "hpc-node02" {
		t.Fatalf("hosts %+v, guests %+v", r.Hosts, r.Guests)
	}
	g := r.Guests[0]
	for _, c := range g.Commands {
		if c.Status != "collected" && c.Error != "not in the transcript" {
			t.Errorf("guest command %s: %s %s", c.Command, c.Status, c.Error)
		}
	}
	abi := false
	for _, f := range r.Findings {
		if f.RuleID == "GUEST_VERBS_ABI_MISMATCH" && f.Host == "hpc-node02" && f.Status == "fail" && f.Severity == "critical" {
			abi = true
		}
		if f.RuleID == "COLLECTION_FAILED" {
			t.Errorf("a gap of the session is a finding: %+v", f)
		}
	}
	if !abi || code != ExitCritical {
		t.Errorf("exit %d, ABI mismatch reported: %v", code, abi)
	}
	if len(g.Adapters) != 1 || g.Adapters[0].NetdevMTU != 9000 || g.Adapters[0].PortState != "PORT_ACTIVE" {
		t.Errorf("adapter read from ibstat, rdma link and ip a: %+v", g.Adapters)
	}

	code, out, stderr = runCLI(t, "", "analyze", filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "mixed"), "--output", "json")
	r = report.Report{}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	if len(r.Hosts) != 6 || len(r.Guests) != 7 || strings.Contains(stderr, "no command outputs") {
		t.Errorf("%d hosts, %d guests\n%s", len(r.Hosts), len(r.Guests), stderr)
	}
}

// A path that does not exist says so, and what to give instead (issue
// 37.7), not a raw stat error.
func TestAnalyzeMissingPathSaysWhatToGive(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "support.tar.gz")
	for _, args := range [][]string{{"analyze", missing}, {"plan", "--input", missing}} {
		code, out, errOut := runCLI(t, "", args...)
		if code == ExitOK || out != "" || strings.Contains(errOut, "stat ") ||
			!strings.Contains(errOut, missing+" does not exist: give a support bundle (pvrdma-doctor bundle --out FILE.tar.gz)") {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
}

// analyze's default report lists no file per host (issue 37.4): what was
// read from the input is in --details.
func TestAnalyzeDefaultListsNoFiles(t *testing.T) {
	_, out, errOut := runCLI(t, "", "analyze", "../../../../fixtures/scenarios/mixed", "-o", "text")
	if strings.Contains(out+errOut, "input: read") || strings.Contains(out, ".txt") {
		t.Errorf("the default report lists the input's files:\n%s\n%s", out, errOut)
	}
	_, details, _ := runCLI(t, "", "analyze", "../../../../fixtures/scenarios/mixed", "-o", "text", "--details")
	if !strings.Contains(details, "input: read") {
		t.Error("--details does not say what was read")
	}
}
