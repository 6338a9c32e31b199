package report_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// manyVMs writes a scenario of `hosts` copies of the healthy scenario's
// esx01, each running perHost PVRDMA VMs (named after their host) that
// all have the same two problems: memory not reserved, and virtual
// hardware 11 (PVRDMA needs 13). It returns the scenario, loaded.
func manyVMs(t testing.TB, hosts, perHost int) *fixtures.Scenario {
	t.Helper()
	src := filepath.Join("..", "..", "fixtures", "scenarios", "healthy", "esx01")
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const ds = "/vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/"
	vmx := read(catalog.FileName("cat '" + ds + "hpc-node01/hpc-node01.vmx'"))
	props := read(catalog.FileName("vsish -e cat " + catalog.PVRDMADevicesDir + "2100788_0/properties"))
	dir := t.TempDir()
	for k := 1; k <= hosts; k++ {
		name := fmt.Sprintf("esx%02d", k)
		hd := filepath.Join(dir, name)
		if err := os.MkdirAll(hd, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(file, text string) {
			if err := os.WriteFile(filepath.Join(hd, file), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range files {
			n := f.Name()
			if strings.HasPrefix(n, "cat_") || strings.HasPrefix(n, "vsish_") || strings.HasPrefix(n, "vmkping_") || n == catalog.FileName("esxcli vm process list") {
				continue
			}
			write(n, read(n))
		}
		var procs, ls strings.Builder
		for i := range perHost {
			vm := fmt.Sprintf("%s-vm%03d", name, i+1)
			wid := fmt.Sprint(3000000 + k*1000 + i)
			uuid := fmt.Sprintf("42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 %02x %02x %02x %02x", k, i/256, i%256, 7)
			path := ds + vm + "/" + vm + ".vmx"
			fmt.Fprintf(&procs, "%s\n   World ID: %s\n   Process ID: 0\n   VMX Cartel ID: %d\n   UUID: %s\n   Display Name: %s\n   Config File: %s\n\n",
				vm, wid, 3000000+k*1000+i-1, uuid, vm, path)
			fmt.Fprintf(&ls, "%s_0/\n", wid)
			x := strings.NewReplacer("hpc-node01", vm, "42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96", uuid,
				`virtualHW.version = "19"`, `virtualHW.version = "11"`,
				`sched.mem.pin = "TRUE"`, `sched.mem.pin = "FALSE"`, `sched.mem.min = "16384"`, `sched.mem.min = "0"`,
				`sched.mem.minSize = "16384"`, `sched.mem.minSize = "0"`,
				"00:50:56:8a:01:a0", fmt.Sprintf("00:50:56:%02x:%02x:%02x", k, i/256, i%256)).Replace(vmx)
			write(catalog.FileName("cat '"+path+"'"), x)
			p := strings.NewReplacer("2100788", wid, "00:50:56:8a:01:a0", fmt.Sprintf("00:50:56:%02x:%02x:%02x", k, i/256, i%256)).Replace(props)
			write(catalog.FileName("vsish -e cat "+catalog.PVRDMADevicesDir+wid+"_0/properties"), p)
		}
		write(catalog.FileName("esxcli vm process list"), procs.String())
		write(catalog.FileName("vsish -e ls "+catalog.PVRDMADevicesDir), ls.String())
	}
	sc, err := fixtures.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// scanScenario collects a scenario in memory (no probes) and builds its report.
func scanScenario(t testing.TB, sc *fixtures.Scenario) *report.Report {
	t.Helper()
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: "127.0.0.1:22"})
	}
	results := collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Logger: slog.New(slog.DiscardHandler)})
	return analysis.Run(results, analysis.Options{Meta: report.Meta{Source: "test", Version: "test", Now: time.Unix(0, 0)}}).Report
}

func textLines(t testing.TB, r *report.Report, details bool) []string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteText(&b, r, report.TextOptions{Width: 80, Details: details}); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// 500 VMs with the same two problems are two problems: two groups, each
// listing its VMs, and a text report under 60 lines, whether the VMs run
// on two hosts or on ten (a host reads at most 512 follow-up commands: 250 VMs each). JSON keeps every finding.
func TestFiveHundredVMsTwoProblems(t *testing.T) {
	for _, c := range []struct{ hosts, perHost int }{{2, 250}, {10, 50}} {
		t.Run(fmt.Sprintf("%dx%d", c.hosts, c.perHost), func(t *testing.T) {
			r := scanScenario(t, manyVMs(t, c.hosts, c.perHost))
			if len(r.Groups) != 2 {
				for _, g := range r.Groups {
					t.Logf("group %s %s %d findings: %s", g.RuleID, g.Severity, g.Size(), g.Fix)
				}
				t.Fatalf("%d groups, want 2", len(r.Groups))
			}
			for _, g := range r.Groups {
				if g.Size() != 500 || len(g.Subjects) != 500 || len(g.Hosts) != c.hosts {
					t.Errorf("group %s: %d findings, %d subjects, %d hosts", g.RuleID, g.Size(), len(g.Subjects), len(g.Hosts))
				}
			}
			fails := 0
			for _, f := range r.Findings {
				if f.Status == "fail" {
					fails++
				}
			}
			if fails != 1000 {
				t.Errorf("%d failing findings in the report, want all 1000", fails)
			}
			if s := r.Summary.Problems; s.Critical != 2 || !strings.Contains(r.Verdict, "2 critical (root causes; 1000 findings)") {
				t.Errorf("problems %+v, verdict %q", s, r.Verdict)
			}
			lines := textLines(t, r, false)
			if len(lines) >= 60 {
				t.Errorf("%d lines, want under 60:\n%s", len(lines), strings.Join(lines, "\n"))
			}
			text := strings.Join(lines, "\n")
			for _, want := range []string{"VM_MEMORY_NOT_RESERVED", "VM_HW_VERSION_TOO_OLD", "esx01-vm001", "497 more"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			t.Logf("%d VMs on %d hosts: %d lines (details: %d)", c.hosts*c.perHost, c.hosts, len(lines), len(textLines(t, r, true)))
		})
	}
}

// The concise report of the mixed scenario (the demo's) fits its budget
// at 80 columns; --details holds everything.
func TestConciseDemoBudget(t *testing.T) {
	r := mixedReport(t)
	lines := textLines(t, r, false)
	if len(lines) >= 150 {
		t.Errorf("%d lines, want under 150", len(lines))
	}
	long := regexp.MustCompile(`\S{40,}`)
	for _, l := range lines {
		if n := len([]rune(l)); n > 80 && !long.MatchString(l) {
			t.Errorf("line of %d cells: %q", n, l)
		}
	}
	// Wrapped, never cut, at 80 and 120 columns: no "…", and the command
	// of every step that resolves a root cause is there whole.
	for _, width := range []int{80, 120} {
		var b bytes.Buffer
		if err := report.WriteText(&b, r, report.TextOptions{Width: width}); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		if strings.Contains(text, "…") {
			t.Errorf("%d columns: a line is cut:\n%s", width, text)
		}
		joined := regexp.MustCompile(`\n {8}`).ReplaceAllString(text, " ")
		for _, f := range r.RootFindings() {
			if f.Severity == "info" {
				continue
			}
			for _, pl := range r.Plans {
				for _, s := range pl.Steps {
					for _, c := range s.Resolves {
						if c.Key() == f.Key() && s.Command != "" && !s.Optional && !strings.Contains(joined, "$ "+s.Command) {
							t.Errorf("%d columns: the fix of %s on %s, `%s`, is not shown whole", width, f.RuleID, f.Host, s.Command)
						}
					}
				}
			}
		}
	}
	details := textLines(t, r, true)
	t.Logf("mixed: %d lines (details: %d)", len(lines), len(details))
	all := strings.Join(details, "\n")
	for _, f := range r.Findings {
		if f.Status == "fail" && !strings.Contains(all, f.RuleID) {
			t.Errorf("--details lacks %s", f.RuleID)
		}
	}
}

// scanProbed collects a scenario in memory with its path probes.
func scanProbed(t testing.TB, sc *fixtures.Scenario) *report.Report {
	t.Helper()
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name, Addr: "127.0.0.1:22"})
	}
	results := collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true, Logger: slog.New(slog.DiscardHandler)})
	return analysis.Run(results, analysis.Options{Meta: report.Meta{Source: "test", Version: "test", Now: time.Unix(0, 0)}}).Report
}
