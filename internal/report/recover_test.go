package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

var formats = []struct {
	name, doc string
	write     func(*bytes.Buffer, *report.Report) error
}{
	{"text", "text report", func(b *bytes.Buffer, r *report.Report) error {
		return report.WriteText(b, r, report.TextOptions{Width: 80})
	}},
	{"markdown", "Markdown report", func(b *bytes.Buffer, r *report.Report) error { return report.WriteMarkdown(b, r) }},
	{"html", "HTML report", func(b *bytes.Buffer, r *report.Report) error { return report.WriteHTML(b, r) }},
	{"json", "JSON report", func(b *bytes.Buffer, r *report.Report) error { return report.WriteJSON(b, r) }},
	{"junit", "JUnit report", func(b *bytes.Buffer, r *report.Report) error { return report.WriteJUnit(b, r) }},
	{"sarif", "SARIF report", func(b *bytes.Buffer, r *report.Report) error { return report.WriteSARIF(b, r) }},
}

// failIn makes the guarded part named name panic while the test runs.
func failIn(t *testing.T, name string) {
	report.SetRenderHook(func(n string) {
		if n == name {
			panic("injected renderer failure")
		}
	})
	t.Cleanup(func() { report.SetRenderHook(nil) })
}

// A renderer that panics as a whole is replaced by a plain document of
// the same format that keeps the verdict and every finding and says what
// failed: never a crash, never half a document.
func TestBrokenRendererFallsBackToAPlainDocument(t *testing.T) {
	r := mixedReport(t)
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			failIn(t, f.doc)
			var b bytes.Buffer
			if err := f.write(&b, r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "the "+f.doc+" could not be shown: internal error (injected renderer failure") {
				t.Errorf("the failure is not said:\n%s", out)
			}
			if f.name != "junit" && f.name != "sarif" && !strings.Contains(out, "PVRDMA is BROKEN") {
				t.Errorf("the verdict is lost")
			}
			for _, fd := range r.Findings {
				id := fd.RuleID
				if f.name == "markdown" {
					id = strings.ReplaceAll(id, "_", `\_`)
				}
				if !strings.Contains(out, id) {
					t.Errorf("%s lost", fd.RuleID)
				}
			}
			switch f.name {
			case "json", "sarif":
				if !json.Valid(b.Bytes()) {
					t.Errorf("not JSON")
				}
			case "junit":
				if err := xml.Unmarshal(b.Bytes(), new(report.JUnitTestSuites)); err != nil {
					t.Errorf("not JUnit XML: %v", err)
				}
			}
		})
	}
}

// A section of a human report that panics is replaced by its error; the
// sections before and after it are kept.
func TestBrokenSectionIsReplacedByItsError(t *testing.T) {
	r := mixedReport(t)
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			failIn(t, "findings section")
			var b bytes.Buffer
			if err := f.write(&b, r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "the findings section could not be shown: internal error (injected renderer failure") {
				t.Errorf("the failure is not said:\n%s", out)
			}
			// The concise text report: hosts and coverage stay, no host's
			// findings or plan is half written.
			hosts, notEvaluated, gone := "HOSTS", "COVERAGE ", "FIX PLAN"
			if f.name == "markdown" {
				hosts, notEvaluated, gone = "## Hosts", "## Not evaluated (", "ROOT CAUSES ("
			}
			if !strings.Contains(out, hosts) || !strings.Contains(out, notEvaluated) || strings.Contains(out, gone) {
				t.Errorf("the other sections are not all there:\n%s", out)
			}
		})
	}
}

// The same in the --details text report.
func TestBrokenSectionIsReplacedByItsErrorInDetails(t *testing.T) {
	r := mixedReport(t)
	failIn(t, "findings section")
	var b bytes.Buffer
	if err := report.WriteText(&b, r, report.TextOptions{Width: 80, Details: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "the findings section could not be shown: internal error (injected renderer failure") ||
		!strings.Contains(out, "HOSTS") || !strings.Contains(out, "NOT EVALUATED (") || strings.Contains(out, "ROOT CAUSES (") {
		t.Errorf("details:\n%s", out)
	}
}

// A report whose run recovered a panic says it is incomplete, and says why.
func TestInternalErrorMakesTheReportIncomplete(t *testing.T) {
	r := mixedReport(t)
	if r.Incomplete() != (r.Summary.HostsNotCollected+r.Summary.HostsPartial > 0) || len(r.InternalErrors) != 0 {
		t.Fatalf("baseline: %+v", r.InternalErrors)
	}
	c := *r
	c.Hosts = nil
	c.Summary.HostsNotCollected, c.Summary.HostsPartial = 0, 0
	if c.Incomplete() {
		t.Fatal("incomplete without a reason")
	}
	c.InternalErrors = []checks.InternalError{{Where: checks.InCauses, Host: "esx01", Message: "internal error in the cause links of esx01"}}
	if !c.Incomplete() {
		t.Error("an internal error does not make the report incomplete")
	}
}
