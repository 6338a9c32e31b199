package scan_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/config"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

func scenario(t *testing.T, name string) (*fixtures.Scenario, []hostio.Target) {
	t.Helper()
	sc, err := fixtures.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		targets = append(targets, hostio.Target{Name: h.Name})
	}
	return sc, targets
}

// A live run collects, runs AfterCollect, analyses with the options given
// (the config's suppressions apply) and calls the outputs in order; the
// bundle gets the results and the very options the report was built with.
func TestRunCollectsAnalysesAndOutputsInOrder(t *testing.T) {
	sc, targets := scenario(t, "nojumbo")
	cfg, err := config.Parse([]byte("suppress:\n  - rule: '*'\n    reason: accepted for the test\n"))
	if err != nil {
		t.Fatal(err)
	}
	meta := report.Meta{Source: "unit", Version: "v-test", Now: time.Unix(0, 0)}
	var order []string
	var bundled []hostio.HostResult
	var bundledWith analysis.Options
	var reported *analysis.Analysis
	out := scan.Run(context.Background(), scan.Options{
		Targets: targets,
		Collect: collect.Options{Runner: sc.Runner(), Probes: true, Logger: slog.New(slog.DiscardHandler)},
		AfterCollect: func(_ context.Context, rs []hostio.HostResult) []hostio.HostResult {
			order = append(order, "after-collect")
			return rs
		},
		BeforeAnalysis: func(rs []hostio.HostResult) { order = append(order, "before-analysis") },
		Analysis:       analysis.Options{Meta: meta, Config: cfg},
		Export:         func(*analysis.Analysis) error { order = append(order, "export"); return nil },
		Report: func(a *analysis.Analysis) error {
			order = append(order, "report")
			reported = a
			return nil
		},
		Bundle: func(_ context.Context, rs []hostio.HostResult, with analysis.Options) error {
			order = append(order, "bundle")
			bundled, bundledWith = rs, with
			return nil
		},
	})
	if want := []string{"after-collect", "before-analysis", "export", "report", "bundle"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if out.Interrupted || out.Analysis != nil || out.Report != nil {
		t.Errorf("after a bundle: interrupted %v, analysis kept %v, report kept %v", out.Interrupted, out.Analysis != nil, out.Report != nil)
	}
	if len(bundled) != len(targets) || bundledWith.Config != cfg || bundledWith.Meta.Source != "unit" {
		t.Errorf("bundle got %d results, config %p (want %p), source %q", len(bundled), bundledWith.Config, cfg, bundledWith.Meta.Source)
	}
	if reported == nil || len(reported.Suppressed) == 0 || reported.Report.Summary.Suppressed != len(reported.Suppressed) {
		t.Fatalf("the report was not built with the config's suppressions")
	}
	if out.Verdict == "" || out.Verdict != reported.Report.Verdict {
		t.Errorf("outcome verdict %q, report's %q", out.Verdict, reported.Report.Verdict)
	}
	// The bundle's analysis, redacted or not, says what the report said.
	again := analysis.Run(bundled, bundledWith.Redacted(strings.ToUpper))
	if again.Report.Verdict != reported.Report.Verdict || again.Report.Summary != reported.Report.Summary {
		t.Errorf("bundle's analysis: verdict %q, summary %+v; the report's %q, %+v",
			again.Report.Verdict, again.Report.Summary, reported.Report.Verdict, reported.Report.Summary)
	}
}

// Given results are analysed as they are (nothing is collected, not even
// with targets); without a bundle the analysis stays in the outcome; a
// failed export keeps the bundle from being written and the report still
// comes.
func TestRunOfflineAndAFailedExport(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusNotCollected, Reason: "connection refused"}}
	boom := errors.New("export failed")
	reported, bundled := false, false
	out := scan.Run(context.Background(), scan.Options{
		Targets: []hostio.Target{{Name: "never-dialled"}},
		Collect: collect.Options{Runner: panicRunner{t}},
		Results: results,
		AfterCollect: func(context.Context, []hostio.HostResult) []hostio.HostResult {
			t.Error("AfterCollect on given results")
			return nil
		},
		Export: func(*analysis.Analysis) error { return boom },
		Report: func(*analysis.Analysis) error { reported = true; return nil },
		Bundle: func(context.Context, []hostio.HostResult, analysis.Options) error {
			bundled = true
			return nil
		},
	})
	if !errors.Is(out.ExportErr, boom) || !reported || bundled {
		t.Errorf("export error %v, reported %v, bundled %v", out.ExportErr, reported, bundled)
	}
	if out.Analysis == nil || len(out.Analysis.Results) != 1 || out.Analysis.Results[0].Host != "esx01" {
		t.Fatalf("analysis %+v", out.Analysis)
	}
	if out.Report != out.Analysis.Report || out.Verdict != out.Report.Verdict {
		t.Errorf("outcome report/verdict not the analysis'")
	}
}

// A collection the context ended is reported as interrupted, with the note,
// and the opt-in step after the collection does not run; the caller's notes
// are not changed.
func TestRunInterrupted(t *testing.T) {
	sc, targets := scenario(t, "healthy")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	notes := []string{"given"}
	out := scan.Run(ctx, scan.Options{
		Targets: targets,
		Collect: collect.Options{Runner: sc.Runner(), Logger: slog.New(slog.DiscardHandler)},
		AfterCollect: func(context.Context, []hostio.HostResult) []hostio.HostResult {
			t.Error("AfterCollect after an interrupt")
			return nil
		},
		Analysis: analysis.Options{Meta: report.Meta{Notes: notes}},
	})
	if !out.Interrupted {
		t.Fatal("not interrupted")
	}
	if got := out.Report.Notes; !slices.Contains(got, scan.InterruptedNote) || !slices.Contains(got, "given") {
		t.Errorf("notes %q", got)
	}
	if len(notes) != 1 {
		t.Errorf("the caller's notes changed: %q", notes)
	}
}

type panicRunner struct{ t *testing.T }

func (panicRunner) Name() string { return "never" }
func (r panicRunner) Open(context.Context, hostio.Target) (hostio.Conn, error) {
	r.t.Error("a run with given results opened a connection")
	return nil, errors.New("never")
}

// collect.Collect runs in one place: Collect, here. Every other caller in
// the tool's code (tests aside) goes through this package, so that every
// command's collection gets the same setup.
func TestCollectCalledInOnePlace(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		collectName := ""
		for _, im := range f.Imports {
			if strings.Trim(im.Path.Value, `"`) == "github.com/pvrdma-doctor/pvrdma-doctor/collect" {
				collectName = "collect"
				if im.Name != nil {
					collectName = im.Name.Name
				}
			}
		}
		if collectName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Collect" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == collectName {
					rel, _ := filepath.Rel(root, path)
					found = append(found, filepath.ToSlash(rel))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"internal/scan/scan.go"}; !slices.Equal(found, want) {
		t.Errorf("collect.Collect is used in %q; only internal/scan (scan.Collect, scan.Run) may call it", found)
	}
}
