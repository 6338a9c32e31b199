package bundle_test

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// testAnalyze is the pipeline up to the checks: these tests are about the
// archive, not the report (an empty one, so that report.html is rendered).
func testAnalyze(rs []hostio.HostResult, _ func(string) string) bundle.Analysis {
	fl := facts.Build(rs)
	return bundle.Analysis{Fleet: &fl, Checks: checks.Run(&fl), Report: &report.Report{}}
}
