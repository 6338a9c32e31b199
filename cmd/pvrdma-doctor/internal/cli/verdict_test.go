package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The verdict a command prints and the report inside the bundle it writes
// come from one analysis with one config (scan.Run's options): scan
// --bundle and bundle, redacted or not, without a config and with one that
// changes the verdict. The commands run from their flags (newCmdX with a
// runF that only swaps the SSH transport for the scenario's in-memory one).
func TestPrintedVerdictAgreesWithTheBundle(t *testing.T) {
	sc := loadScenario(t, "nojumbo")
	var hosts []string
	for _, h := range sc.Hosts {
		hosts = append(hosts, h.Name)
	}
	dir := t.TempDir()
	configs := map[string]string{"no config": writeEmptyConfig(t), "suppress all": filepath.Join(dir, "suppress.yaml")}
	if err := os.WriteFile(configs["suppress all"], []byte("suppress:\n  - rule: '*'\n    reason: accepted for the test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{} // by config, from the bundle command without redaction
	for _, command := range []string{"scan", "bundle"} {
		for _, cfgName := range []string{"no config", "suppress all"} {
			for _, redacted := range []bool{false, true} {
				name := fmt.Sprintf("%s, %s, redacted %v", command, cfgName, redacted)
				t.Run(name, func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "b.tar.gz")
					var out, errOut bytes.Buffer
					f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
					args := []string{"--hosts", strings.Join(hosts, ","), "--config", configs[cfgName], "--bundle", path}
					if !redacted {
						args = append(args, "--no-redact")
					}
					var cmd *cobra.Command
					switch command {
					case "scan":
						cmd = newCmdScan(f, func(ctx context.Context, o *ScanOptions) error {
							o.Runner = sc.Runner()
							return runScan(ctx, o)
						})
						args = append(args, "--output", "json")
					case "bundle":
						cmd = newCmdBundle(f, func(ctx context.Context, o *BundleOptions) error {
							o.Scan.Runner = sc.Runner()
							return runBundle(ctx, o)
						})
					}
					cmd.SetArgs(args)
					cmd.SilenceUsage, cmd.SilenceErrors = true, true
					if code := exitOf(cmd.ExecuteContext(context.Background())); code == ExitUsage || code == ExitError {
						t.Fatalf("exit %d: %s", code, errOut.String())
					}
					printed := strings.TrimSpace(out.String())
					if command == "scan" {
						var r report.Report
						if err := json.Unmarshal(out.Bytes(), &r); err != nil {
							t.Fatalf("scan's JSON: %v", err)
						}
						printed = r.Verdict
					}
					var inBundle report.Report
					if err := json.Unmarshal(archiveFiles(t, path)["report.json"], &inBundle); err != nil {
						t.Fatal(err)
					}
					if printed == "" || printed != inBundle.Verdict {
						t.Errorf("printed verdict %q, the bundle's report says %q", printed, inBundle.Verdict)
					}
					if command == "bundle" && !redacted {
						verdicts[cfgName] = printed
					}
				})
			}
		}
	}
	if verdicts["no config"] == verdicts["suppress all"] {
		t.Errorf("the config did not change the verdict (%q): the test proves nothing", verdicts["no config"])
	}
}

// The commands that run a scan build their Options from their flags and
// hand them to runF (gh's seam): what each flag sets, without scanning.
func TestScanCommandsBuildTheirOptions(t *testing.T) {
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	run := func(cmd *cobra.Command, args ...string) {
		t.Helper()
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s %q: %v", cmd.Name(), args, err)
		}
	}
	var scanOpts *ScanOptions
	run(newCmdScan(f, func(_ context.Context, o *ScanOptions) error { scanOpts = o; return nil }),
		"--hosts", "esx01,esx02", "--config", "c.yaml", "--bundle", "b.tar.gz", "--probes", "all", "-o", "json")
	if scanOpts == nil || scanOpts.Hosts != "esx01,esx02" || scanOpts.Report.Config != "c.yaml" || scanOpts.Bundle.Path != "b.tar.gz" ||
		scanOpts.Probes != "all" || scanOpts.Report.Output != "json" || scanOpts.IO != f.IO {
		t.Errorf("scan options %+v", scanOpts)
	}
	var bundleOpts *BundleOptions
	run(newCmdBundle(f, func(_ context.Context, o *BundleOptions) error { bundleOpts = o; return nil }),
		"--hosts", "esx01", "--out", "s.tar.gz", "--config", "c.yaml", "-o", "markdown", "--no-redact")
	if bundleOpts == nil || bundleOpts.Scan.Bundle.Path != "s.tar.gz" || bundleOpts.Scan.Report.Config != "c.yaml" ||
		bundleOpts.Output != "markdown" || !bundleOpts.Scan.Bundle.NoRedact {
		t.Errorf("bundle options %+v", bundleOpts)
	}
	var pathsOpts *PathsOptions
	run(newCmdPaths(f, func(_ context.Context, o *PathsOptions) error { pathsOpts = o; return nil }), "--input", "saved")
	if pathsOpts == nil || pathsOpts.Input != "saved" || pathsOpts.Scan.Probes != "all" || pathsOpts.Output != "text" {
		t.Errorf("paths options %+v", pathsOpts)
	}
	var demoOpts *DemoOptions
	run(newCmdDemo(f, func(_ context.Context, o *DemoOptions) error { demoOpts = o; return nil }), "--scenario", "healthy", "--no-vcenter")
	if demoOpts == nil || demoOpts.Scenario != "healthy" || !demoOpts.NoVCenter || demoOpts.Report.FailOn != "warning" {
		t.Errorf("demo options %+v", demoOpts)
	}
}
