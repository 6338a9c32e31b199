package analysis_test

import (
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/config"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

func countRule(a *analysis.Analysis, rule, host string) int {
	n := 0
	for _, f := range a.Checks.Findings {
		if f.RuleID == rule && f.Host == host {
			n++
		}
	}
	return n
}

// One run: facts, checks, the config's suppressions (out of the findings,
// into Suppressed and the report), the report's header as given.
func TestRunAppliesConfigAndKeepsMeta(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusNotCollected, Reason: "connection refused"}}
	meta := report.Meta{Source: "unit", Version: "v-test", Now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Notes: []string{"input note"}}

	plain := analysis.Run(results, analysis.Options{Meta: meta})
	if countRule(plain, "COLLECTION_FAILED", "esx01") != 1 || len(plain.Suppressed) != 0 {
		t.Fatalf("without config: %d COLLECTION_FAILED, %d suppressed", countRule(plain, "COLLECTION_FAILED", "esx01"), len(plain.Suppressed))
	}
	if plain.Fleet == nil || len(plain.Fleet.Hosts) != 1 || plain.Report == nil || len(plain.Results) != 1 {
		t.Fatalf("incomplete analysis: %+v", plain)
	}
	if plain.Report.Source != "unit" || plain.Report.Tool.Version != "v-test" || !plain.Report.GeneratedAt.Equal(meta.Now) {
		t.Errorf("report header %q %q %v", plain.Report.Source, plain.Report.Tool.Version, plain.Report.GeneratedAt)
	}

	cfg, err := config.Parse([]byte("suppress:\n  - rule: COLLECTION_FAILED\n    host: esx01\n    reason: decommissioned\n"))
	if err != nil {
		t.Fatal(err)
	}
	withCfg := analysis.Run(results, analysis.Options{Meta: meta, Config: cfg})
	if countRule(withCfg, "COLLECTION_FAILED", "esx01") != 0 || len(withCfg.Suppressed) != 1 || len(withCfg.Report.Suppressed) != 1 {
		t.Errorf("with config: %d COLLECTION_FAILED left, %d suppressed, %d in the report",
			countRule(withCfg, "COLLECTION_FAILED", "esx01"), len(withCfg.Suppressed), len(withCfg.Report.Suppressed))
	}
	if len(meta.Notes) != 1 {
		t.Errorf("the caller's notes were changed: %q", meta.Notes)
	}
}

// A zero clock means now.
func TestRunDefaultsTheClock(t *testing.T) {
	before := time.Now()
	a := analysis.Run(nil, analysis.Options{})
	if a.Report.GeneratedAt.Before(before.Add(-time.Second)) {
		t.Errorf("generated %v, want about now", a.Report.GeneratedAt)
	}
}
