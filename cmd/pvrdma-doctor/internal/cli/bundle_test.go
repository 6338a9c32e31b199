package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/diff"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// archiveFiles returns every file of a bundle archive.
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.TarGzFiles(t, b)
}

func findingLines(fs []checks.Finding, f func(string) string) []string {
	var out []string
	for _, x := range fs {
		out = append(out, f(fmt.Sprintf("%s|%s|%s|%s|%s|%s", x.Status, x.RuleID, x.Host, x.Subject, x.Message, x.Fix)))
	}
	sort.Strings(out)
	return out
}

var reGuestIDs = regexp.MustCompile(`(?:inet |link/ether )([0-9a-f.:]+)`)

var reScenarioIDs = regexp.MustCompile(`(?i)\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b|\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b|/vmfs/volumes/[^\s]+`)

// Scan the simulated lab over real SSH with --bundle, then analyze the
// bundle: the same findings and exit status, with and without redaction;
// the SSH password is in neither bundle, and the redacted one holds no
// host name, address, MAC, VM name or datastore path of the scenario.
func TestScanBundleAnalyzeRoundTripOverSSH(t *testing.T) {
	const password = "Known-Lab-Passw0rd!"
	sc := loadScenario(t, "hostile")
	l := lab.StartTB(t, sc, lab.Options{Password: password})
	targets, runner := labTargets(l)
	// With the simulated vCenter: its captures go into the bundle too.
	vc, closeVC, err := demoVCenter(t.Context(), sc, l.Guests())
	if err != nil {
		t.Fatal(err)
	}
	defer closeVC()
	for _, redacted := range []bool{false, true} {
		t.Run(fmt.Sprintf("redact=%v", redacted), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "support.tar.gz")
			var out, errOut bytes.Buffer
			ro := &ReportOptions{Output: "json", FailOn: "warning"}
			if err := ro.validate(); err != nil {
				t.Fatal(err)
			}
			var scanned *Analysis
			p := &Pipeline{
				IO: &IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }, Report: ro, Targets: targets,
				Collect: collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler), Extra: vc.extra},
				Meta:    report.Meta{Source: "scan of esx01..esx05"},
			}
			p.Export = func(a *Analysis) error {
				scanned = a
				return writeBundle(path, a.Results, p.analysisOptions(), BundleFlags{NoRedact: !redacted}, &errOut, bundleRun{})
			}
			scanCode := exitOf(p.Run(t.Context()))
			if scanned == nil || scanCode != ExitCritical {
				t.Fatalf("scan: exit %d, analysis %v, stderr %s", scanCode, scanned != nil, errOut.String())
			}
			files := archiveFiles(t, path)
			if len(files) < 100 {
				t.Fatalf("bundle has only %d files", len(files))
			}
			for _, name := range []string{"manifest.json", "results.json", "facts.json", "findings.json", "report.json", "report.html"} {
				if len(files[name]) == 0 {
					t.Errorf("bundle lacks %s", name)
				}
			}
			if !bytes.Contains(files["report.html"], []byte("<html")) {
				t.Errorf("report.html is not HTML")
			}
			var ids []string
			for _, hr := range scanned.Results {
				ids = append(ids, hr.Host)
				for _, c := range hr.Captures {
					if hr.Role == hostio.RoleGuest {
						// A guest's identifiers are its addresses and MACs;
						// its version strings look like addresses but are not.
						for _, m := range reGuestIDs.FindAllStringSubmatch(c.Stdout, -1) {
							if !strings.HasPrefix(m[1], "127.") && m[1] != "00:00:00:00:00:00" {
								ids = append(ids, m[1])
							}
						}
						continue
					}
					if c.Command == "esxcli software vib list" {
						continue // driver versions (226.0.145.0) look like addresses but are not
					}
					for _, m := range reScenarioIDs.FindAllString(c.Stdout+" "+c.Command, -1) {
						// Loopback addresses (the lab's guests, as vCenter's
						// guest.net reports them) are kept by the format rules;
						// their dialled host:port spellings are checked below.
						if !strings.HasPrefix(m, "255.") && m != "0.0.0.0" && !strings.HasPrefix(m, "4.23.") && !strings.HasPrefix(m, "127.") {
							ids = append(ids, m)
						}
					}
				}
				for _, vm := range []string{"hpc-node01", "hpc-node04", "hpc-node07", "vcsa-01", "build-agent01", "gitlab-runner01", `evil"; reboot`} {
					ids = append(ids, vm)
				}
			}
			for name, data := range files {
				if bytes.Contains(data, []byte(password)) {
					t.Errorf("%s contains the SSH password", name)
				}
				if !redacted {
					continue
				}
				for _, id := range ids {
					if strings.Contains(name, id) || bytes.Contains(data, []byte(id)) {
						t.Errorf("redacted bundle: %s contains %q", name, id)
					}
				}
			}
			_, hasTokens := os.Stat(bundle.TokensPath(path))
			if (hasTokens == nil) != redacted {
				t.Errorf("token map present: %v, redacted: %v", hasTokens == nil, redacted)
			}
			if redacted && !strings.Contains(errOut.String(), "keep it private") {
				t.Errorf("no token map notice: %s", errOut.String())
			}

			code, stdout, stderr := runCLI(t, "", "analyze", path, "--output", "json")
			if code != scanCode {
				t.Fatalf("analyze exit %d, scan exit %d; stderr %s", code, scanCode, stderr)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			mapF := func(s string) string { return s }
			if redacted {
				b, err := os.ReadFile(bundle.TokensPath(path))
				if err != nil {
					t.Fatal(err)
				}
				var tm redact.TokenMap
				if err := json.Unmarshal(b, &tm); err != nil {
					t.Fatal(err)
				}
				r := redact.NewRedactor()
				if err := r.Seed(&tm); err != nil {
					t.Fatal(err)
				}
				mapF = r.Text
			}
			want := findingLines(scanned.Checks.Findings, mapF)
			got := findingLines(rep.Findings, func(s string) string { return s })
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings of the analysed bundle differ from the scan's:\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !strings.HasPrefix(rep.Source, "bundle "+path) {
				t.Errorf("source %q", rep.Source)
			}
		})
	}
}

func exitOf(err error) int {
	if err == nil {
		return ExitOK
	}
	if ec, ok := err.(*exitCodeError); ok {
		return ec.code
	}
	return ExitError
}

// copyTree copies a scenario folder so that a test can change it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

const healthyDir = "../../../../fixtures/scenarios/healthy"

func TestAnalyzeInputsAndErrors(t *testing.T) {
	// A folder of saved outputs analyses; healthy exits 0.
	code, out, stderr := runCLI(t, "", "analyze", healthyDir, "--output", "text")
	if code != ExitOK || !strings.Contains(out, "HEALTHY") {
		t.Fatalf("healthy folder: exit %d\n%s\n%s", code, out, stderr)
	}
	// The mixed scenario folder analyses to its critical findings.
	if code, out, _ := runCLI(t, "", "analyze", "../../../../fixtures/scenarios/mixed", "--output", "json"); code != ExitCritical || !strings.Contains(out, "TCP_FALLBACK") {
		t.Fatalf("mixed folder: exit %d", code)
	}
	dir := t.TempDir()
	b := filepath.Join(dir, "healthy.tar.gz")
	if code, _, stderr := runCLI(t, "", "redact", healthyDir, b); code != ExitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, "", "analyze", b, "--output", "text"); code != ExitOK || !strings.Contains(out, "host-001") {
		t.Fatalf("redacted bundle: exit %d\n%s", code, out)
	}
	// A tampered bundle: the damaged output is not used, the report says
	// the input is partial and the exit status is 5.
	files := archiveFiles(t, b)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := files[n]
		if strings.HasSuffix(n, "/esxcli_rdma_device_list.txt") {
			d = append(d, "tampered\n"...)
		}
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg})
		tw.Write(d)
	}
	tw.Close()
	gz.Close()
	bad := filepath.Join(dir, "bad.tar.gz")
	os.WriteFile(bad, buf.Bytes(), 0o644)
	code, out, stderr = runCLI(t, "", "analyze", bad, "--output", "text")
	if code != ExitIncomplete || !strings.Contains(stderr, "checksum mismatch") || !strings.Contains(out, "PARTIAL INPUT") {
		t.Fatalf("tampered: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	// Truncated: partial, exit 5 (or an error if nothing is left).
	trunc := filepath.Join(dir, "trunc.tar.gz")
	orig, _ := os.ReadFile(b)
	os.WriteFile(trunc, orig[:len(orig)*2/3], 0o644)
	if code, _, stderr := runCLI(t, "", "analyze", trunc, "--output", "json"); code != ExitIncomplete || !strings.Contains(stderr, "truncated") {
		t.Fatalf("truncated: exit %d %s", code, stderr)
	}
	// Not a bundle at all.
	junk := filepath.Join(dir, "junk.bin")
	os.WriteFile(junk, []byte{0, 1, 2, 3, 0xff, 0xfe}, 0o644)
	if code, _, stderr := runCLI(t, "", "analyze", junk); code != ExitError || !strings.Contains(stderr, "not a bundle") {
		t.Fatalf("junk: exit %d %s", code, stderr)
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("hello\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "analyze", notes); code != ExitError || !strings.Contains(stderr, "no shell prompt") {
		t.Fatalf("text without prompt: exit %d %s", code, stderr)
	}
	// A transcript: catalogue commands analysed, others listed as ignored.
	rdma, _ := os.ReadFile(filepath.Join(healthyDir, "esx01", "esxcli_rdma_device_list.txt"))
	tr := filepath.Join(dir, "session.txt")
	os.WriteFile(tr, []byte("[root@esx01:~] esxcli rdma device list\n"+string(rdma)+"[root@esx01:~] df -h\nFilesystem\n"), 0o644)
	code, out, stderr = runCLI(t, "", "analyze", tr, "--output", "json")
	if !strings.Contains(stderr, "df -h") || !strings.Contains(out, `"transcript`) || code == ExitError {
		t.Fatalf("transcript: exit %d\n%s\n%s", code, out, stderr)
	}
	// redact refuses a redacted bundle; bundle needs -o.
	if code, _, stderr := runCLI(t, "", "redact", b, filepath.Join(dir, "again.tar.gz")); code != ExitError || !strings.Contains(stderr, "already redacted") {
		t.Fatalf("re-redact: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "bundle", "--hosts", "esx01"); code != ExitUsage {
		t.Fatalf("bundle without -o: %d", code)
	}
}

func TestDiffCommand(t *testing.T) {
	changed := copyTree(t, healthyDir)
	p := filepath.Join(changed, "esx01", "esxcli_network_ip_interface_list.txt")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte("MTU: 9000"), []byte("MTU: 1500"), 1), 0o644)
	code, out, stderr := runCLI(t, "", "diff", healthyDir, changed)
	if code != ExitOK || !strings.Contains(out, "esx01 vmk1 MTU 9000 -> 1500") {
		t.Fatalf("diff: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "diff", healthyDir, changed, "--output", "json")
	var d diff.Diff
	if code != ExitOK || json.Unmarshal([]byte(out), &d) != nil || len(d.Changes) == 0 {
		t.Fatalf("diff json: %d %s", code, out)
	}
	if code, out, _ := runCLI(t, "", "diff", healthyDir, healthyDir); code != ExitOK || !strings.Contains(out, "No changes") {
		t.Fatalf("same: %d %s", code, out)
	}
}

// A bundle's report is built with the run's config: a finding suppressed on
// screen stays suppressed (with its reason) in the bundle, redacted or not.
func TestBundleHonoursConfigSuppressions(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("suppress:\n  - rule: RDMA_ERRORS\n    host: esx04\n    subject: vmrdma1\n    reason: cabling incident on esx04, cleared at next reboot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, redact := range []bool{false, true} {
		out := filepath.Join(dir, "b.tar.gz")
		os.Remove(out)
		args := []string{"demo", "--output", "json", "--config", cfg, "--bundle", out}
		if !redact {
			args = append(args, "--no-redact")
		}
		_, stdout, stderr := runCLI(t, "", args...)
		var live report.Report
		if err := json.Unmarshal([]byte(stdout), &live); err != nil {
			t.Fatalf("demo JSON: %v\n%s", err, stderr)
		}
		if live.Summary.Suppressed != 1 {
			t.Fatalf("live run: %d suppressed, want 1", live.Summary.Suppressed)
		}
		runCLI(t, "", "analyze", out, "--output", "json")
		// analyze re-runs today's rules without the config; the bundle's own
		// report.json is what the user saw.
		var fromBundle report.Report
		raw := archiveFiles(t, out)["report.json"]
		if err := json.Unmarshal(raw, &fromBundle); err != nil {
			t.Fatal(err)
		}
		if fromBundle.Summary.Suppressed != 1 || len(fromBundle.Suppressed) != 1 {
			t.Errorf("redact=%v: bundle report has %d suppressed, want 1", redact, fromBundle.Summary.Suppressed)
			continue
		}
		if s := fromBundle.Suppressed[0]; s.RuleID != "RDMA_ERRORS" || !strings.Contains(s.SuppressReason, "cabling incident") {
			t.Errorf("redact=%v: suppressed %+v", redact, s)
		}
		if redact && strings.Contains(string(raw), "esx04") {
			t.Errorf("redacted bundle report still names esx04")
		}
	}
}

// Bad --bundle/--tokens values are usage errors before anything is scanned.
func TestBundleFlagsCheckedBeforeScanning(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.tar.gz")
	if err := os.WriteFile(taken+".tokens.json", []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
		{"demo", "--output", "json", "--bundle", filepath.Join(dir, "b.tar.gz"), "--tokens", filepath.Join(dir, "nope.json")},
		{"scan", "--hosts", "127.0.0.1:1", "--password-env", "PW", "--output", "json", "--bundle", filepath.Join(dir, "missing", "b.tar.gz")},
		// An existing token map would be overwritten: refused up front.
		{"demo", "--output", "json", "--bundle", taken},
	} {
		code, out, errOut := runWithEnv(map[string]string{"PW": "pw"}, args...)
		if code != ExitUsage || len(out) != 0 {
			t.Errorf("%v: exit %d with %d bytes of report; want a usage error before any scan (stderr %q)", args, code, len(out), errOut)
		}
	}
}
