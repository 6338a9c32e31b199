package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

const hostile = `evil"; reboot; $(halt) <script>alert(1)</script> | ` + "`id`" + ` #ünï`

// sampleReport is a small run: esx01 with a critical finding on a VM with
// a hostile display name, a passed check and a not-evaluated one; esx02
// not collected.
func sampleReport() *Report {
	results := []hostio.HostResult{
		{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{{Command: "esxcli rdma device list", Status: hostio.StatusCollected}}},
		{Host: "esx02", Status: hostio.StatusNotCollected, Reason: "connection refused"},
	}
	fleet := facts.Build(results)
	res := checks.Result{
		Findings: []checks.Finding{
			{RuleID: "PHYSICAL_HCA_UNAVAILABLE", Severity: checks.Critical, Status: checks.StatusFail, Host: "esx01",
				Subject: hostile + " (PVRDMA adapter 0)", Message: hostile + " has no physical HCA",
				Fix: "power-cycle " + hostile,
				Evidence: []checks.Evidence{{Host: "esx01", Command: "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2100788_0/properties",
					Line: 5, Text: "Physical HCA available:0"}}},
			{RuleID: "COLLECTION_FAILED", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx02", Subject: "esx02",
				Message: "esx02 was not collected: connection refused", Fix: "check SSH"},
			{RuleID: "RDMA_ERRORS", Severity: checks.Warning, Status: checks.StatusNotEvaluated, Host: "esx01", Subject: "vmrdma0",
				Message: "not evaluated: `esxcli rdma device stats get -d vmrdma0` failed"},
		},
		Passed: []checks.Finding{{RuleID: "RDMA_DEVICE_DOWN", Severity: checks.Critical, Status: checks.StatusPass, Host: "esx01", Subject: "vmrdma0"}},
	}
	suppressed := []checks.Finding{{RuleID: "DVS_MULTIPLE_UPLINKS", Severity: checks.Warning, Status: checks.StatusFail, Host: "esx01",
		Subject: "rdma-dvs", Message: "two uplinks", Suppressed: true, SuppressReason: "lab switch, ticket 42"}}
	return Build(results, &fleet, res, suppressed, Meta{Source: "test", Version: "1.2.3", Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
}

func TestJUnitStructure(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var doc JUnitTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not valid JUnit XML: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "esx01" || doc.Suites[1].Name != "esx02" {
		t.Fatalf("want one testsuite per host (esx01, esx02), got %+v", doc.Suites)
	}
	s := doc.Suites[0]
	// esx01: 1 failure, 1 not evaluated (skipped), 1 suppressed (skipped), 1 passed.
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 2 || len(s.Cases) != 4 {
		t.Errorf("esx01 suite counts: tests %d failures %d skipped %d cases %d", s.Tests, s.Failures, s.Skipped, len(s.Cases))
	}
	var sawFail, sawPass, sawSkip bool
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			sawFail = true
			if c.Failure.Type != "critical" || !strings.Contains(c.Failure.Message, hostile) || !strings.Contains(c.Failure.Body, "Physical HCA available:0") {
				t.Errorf("failure: %+v", c.Failure)
			}
			if c.Classname != "pvrdma-doctor.PHYSICAL_HCA_UNAVAILABLE" {
				t.Errorf("classname %q", c.Classname)
			}
		case c.Skipped != nil:
			sawSkip = true
		default:
			sawPass = c.Name == "RDMA_DEVICE_DOWN: vmrdma0"
		}
	}
	if !sawFail || !sawPass || !sawSkip {
		t.Errorf("want a failure, a pass and a skip: %+v", s.Cases)
	}
	if doc.Tests != 5 || doc.Failures != 2 || doc.Skipped != 2 {
		t.Errorf("totals: %d tests %d failures %d skipped", doc.Tests, doc.Failures, doc.Skipped)
	}
}

func TestSARIFStructure(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc["version"] != "2.1.0" || !strings.Contains(doc["$schema"].(string), "sarif-schema-2.1.0") {
		t.Errorf("version/$schema: %v %v", doc["version"], doc["$schema"])
	}
	var log SARIFLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("runs: %d", len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "pvrdma-doctor" || len(run.Tool.Driver.Rules) != len(checks.Rules()) {
		t.Errorf("driver: %s with %d rules", run.Tool.Driver.Name, len(run.Tool.Driver.Rules))
	}
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		ids[r.ID] = i
		if r.ShortDescription.Text == "" || r.Help.Text == "" || r.DefaultConfiguration.Level == "" {
			t.Errorf("rule %s lacks description, help or level", r.ID)
		}
	}
	// 2 failing findings + 1 suppressed; the not-evaluated one is a notification.
	if len(run.Results) != 3 {
		t.Fatalf("results: %d", len(run.Results))
	}
	levels := map[string]string{}
	for _, res := range run.Results {
		if res.RuleID == "" || res.Message.Text == "" || len(res.Locations) == 0 || res.Level == "" {
			t.Errorf("result lacks ruleId, message, location or level: %+v", res)
		}
		if i, ok := ids[res.RuleID]; !ok || i != res.RuleIndex {
			t.Errorf("%s: ruleIndex %d does not point at the rule", res.RuleID, res.RuleIndex)
		}
		levels[res.RuleID] = res.Level
	}
	if levels["PHYSICAL_HCA_UNAVAILABLE"] != "error" || levels["COLLECTION_FAILED"] != "warning" {
		t.Errorf("levels: %v", levels)
	}
	loc := run.Results[0].Locations[0].PhysicalLocation
	if loc == nil || loc.ArtifactLocation.URI != "esx01/vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_2100788_0_properties.txt" ||
		loc.Region == nil || loc.Region.StartLine != 5 {
		t.Errorf("location: %+v", loc)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful || len(run.Invocations[0].ToolExecutionNotifications) != 1 {
		t.Errorf("invocation: %+v", run.Invocations)
	}
}

func TestHTMLEscapesAndIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>") {
		t.Error("hostile display name rendered as markup")
	}
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("hostile display name missing (escaped)")
	}
	for _, bad := range []string{"<link", "<script", "src=", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("external asset or script: %q", bad)
		}
	}
	iv := strings.Index(out, `id="verdict"`)
	ih := strings.Index(out, `<h2 id="hosts">Hosts</h2>`)
	if iv < 0 || ih < 0 || iv > ih {
		t.Error("verdict must come before the hosts")
	}
	if !strings.Contains(out, "<details><summary>Evidence (1)</summary>") || !strings.Contains(out, "<style>") {
		t.Error("collapsible evidence or inline CSS missing")
	}
	if !strings.Contains(out, "lab switch, ticket 42") {
		t.Error("suppressed finding not listed")
	}
}

func TestMarkdownEscapes(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>") || strings.Contains(out, "$(halt) <") {
		t.Error("raw HTML from a display name in Markdown")
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "evil") {
			cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
			if cells != 5 {
				t.Errorf("a display name broke a table row: %s", line)
			}
		}
	}
	if !strings.HasPrefix(out, "# pvrdma-doctor report\n\n**PVRDMA is BROKEN") {
		t.Errorf("verdict not on top:\n%s", out[:min(200, len(out))])
	}
	if !strings.Contains(out, "`Physical HCA available:0`") {
		t.Error("evidence line missing")
	}
}
