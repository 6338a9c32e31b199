package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Words that mean what they say: every count and verdict word is computed
// once (report.Build's account), and every format says exactly those.
// Run over several shapes of report: the demo's scenario, a switch fault
// seen from both ends (jumbodrop), 500 VMs with two problems.

var spaces = regexp.MustCompile(`\s+`)

func flat(s string) string { return spaces.ReplaceAllString(strings.ReplaceAll(s, "\u00a0", " "), " ") }

func wordReports(t *testing.T) map[string]*report.Report {
	sc := fixtures.MustLoad(t, "jumbodrop")
	return map[string]*report.Report{
		"mixed":     mixedReport(t),
		"jumbodrop": scanProbed(t, sc),
		"500vms":    scanScenario(t, manyVMs(t, 10, 50)),
	}
}

func TestEveryFormatSaysTheSameWords(t *testing.T) {
	for name, r := range wordReports(t) {
		t.Run(name, func(t *testing.T) {
			render := func(write func(*bytes.Buffer) error) string {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			text := render(func(b *bytes.Buffer) error { return report.WriteText(b, r, report.TextOptions{Width: 80}) })
			details := render(func(b *bytes.Buffer) error {
				return report.WriteText(b, r, report.TextOptions{Width: 80, Details: true})
			})
			md := render(func(b *bytes.Buffer) error { return report.WriteMarkdown(b, r) })
			page := render(func(b *bytes.Buffer) error { return report.WriteHTML(b, r) })
			js := render(func(b *bytes.Buffer) error { return report.WriteJSON(b, r) })
			junit := render(func(b *bytes.Buffer) error { return report.WriteJUnit(b, r) })
			sarif := render(func(b *bytes.Buffer) error { return report.WriteSARIF(b, r) })

			v := flat(r.Verdict)
			for fname, out := range map[string]string{"text": text, "details": details, "markdown": strings.ReplaceAll(md, "\\", ""),
				"html": html.UnescapeString(page)} {
				if !strings.Contains(flat(out), v) {
					t.Errorf("%s does not say the verdict %q", fname, v)
				}
			}
			var doc struct {
				Verdict string         `json:"verdict"`
				Summary report.Summary `json:"summary"`
				Groups  []report.Group `json:"groups"`
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Verdict != r.Verdict || doc.Summary != r.Summary || len(doc.Groups) != len(r.Groups) {
				t.Errorf("JSON: %q %+v, %d groups", doc.Verdict, doc.Summary, len(doc.Groups))
			}
			var ju struct {
				Name string `xml:"name,attr"`
			}
			if err := xml.Unmarshal([]byte(junit), &ju); err != nil || ju.Name != "pvrdma-doctor: "+r.Verdict {
				t.Errorf("JUnit name %q (%v)", ju.Name, err)
			}
			var sa struct {
				Runs []struct {
					Properties struct {
						Verdict string         `json:"verdict"`
						Summary report.Summary `json:"summary"`
					} `json:"properties"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(sarif), &sa); err != nil || sa.Runs[0].Properties.Verdict != r.Verdict || sa.Runs[0].Properties.Summary != r.Summary {
				t.Errorf("SARIF: %+v (%v)", sa.Runs[0].Properties, err)
			}

			// The numbers themselves: problems are the groups, root causes
			// and consequences add up to the failing findings.
			s := r.Summary
			var p report.SeverityCounts
			for _, g := range r.Groups {
				switch g.Severity {
				case checks.Critical:
					p.Critical++
				case checks.Warning:
					p.Warning++
				case checks.Info:
					p.Info++
				}
			}
			if p != s.Problems {
				t.Errorf("problems %+v, groups say %+v", s.Problems, p)
			}
			fails := 0
			for _, f := range r.Findings {
				if f.Status == checks.StatusFail && f.RuleID != checks.CollectionFailed {
					fails++
				}
			}
			if roots := s.RootCauses.Critical + s.RootCauses.Warning + s.RootCauses.Info; roots+s.Consequences != fails {
				t.Errorf("%d root causes + %d consequences != %d failing findings", roots, s.Consequences, fails)
			}
			// Every heading counts exactly what it lists: "ROOT CAUSES (n)"
			// in the details, "n problems" in HTML.
			head := regexp.MustCompile(`ROOT CAUSES \((\d+)\)`)
			for _, sec := range strings.Split(details, "\n\n") {
				m := head.FindStringSubmatch(sec)
				if m == nil {
					continue
				}
				part := sec[strings.Index(sec, m[0]):]
				if i := strings.Index(part, "NOT COLLECTED ("); i > 0 {
					part = part[:i]
				}
				if i := strings.Index(part, "FIX PLAN"); i > 0 {
					part = part[:i]
				}
				listed := len(regexp.MustCompile(`(?m)^  (CRITICAL|WARNING|INFO)  `).FindAllString(part, -1))
				if m[1] != itoa(listed) {
					t.Errorf("%q lists %d entries", m[0], listed)
				}
			}
			hp := regexp.MustCompile(`</span> (\d+) problems?</h2>`)
			n := 0
			for _, m := range hp.FindAllStringSubmatch(page, -1) {
				n += atoi(m[1])
			}
			if n != len(r.Groups) {
				t.Errorf("HTML headings count %d problems, the report has %d", n, len(r.Groups))
			}
			// Never "on 0 hosts".
			if strings.Contains(r.Verdict, "on 0 hosts") {
				t.Errorf("verdict %q", r.Verdict)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
