package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// JUnit XML types (the de-facto schema read by Jenkins, GitLab, GitHub
// test reporters): one testsuite per host, one testcase per rule x subject.
type (
	JUnitTestSuites struct {
		XMLName  xml.Name         `xml:"testsuites"`
		Name     string           `xml:"name,attr"`
		Tests    int              `xml:"tests,attr"`
		Failures int              `xml:"failures,attr"`
		Errors   int              `xml:"errors,attr"`
		Skipped  int              `xml:"skipped,attr"`
		Suites   []JUnitTestSuite `xml:"testsuite"`
	}
	JUnitTestSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []JUnitProperty `xml:"properties>property,omitempty"`
		Cases      []JUnitTestCase `xml:"testcase"`
		SystemOut  string          `xml:"system-out,omitempty"`
	}
	JUnitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	JUnitTestCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *JUnitFailure `xml:"failure,omitempty"`
		Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	}
	JUnitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
	JUnitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// writeJUnitReport writes the report as JUnit XML: a testsuite per host, a
// testcase per rule and subject (passed ones included), failures for
// findings (type = severity) and skipped for checks not evaluated or
// suppressed.
func writeJUnitReport(w io.Writer, r *Report) error {
	// The fleet verdict names the run, as every format says it.
	doc := JUnitTestSuites{Name: "pvrdma-doctor: " + r.Verdict}
	idx := map[string]int{}
	suite := func(host string) *JUnitTestSuite {
		i, ok := idx[host]
		if !ok {
			i = len(doc.Suites)
			idx[host] = i
			doc.Suites = append(doc.Suites, JUnitTestSuite{Name: host, Timestamp: r.GeneratedAt.Format("2006-01-02T15:04:05Z")})
		}
		return &doc.Suites[i]
	}
	for _, h := range r.Hosts {
		s := suite(h.Host)
		s.Properties = append(s.Properties, JUnitProperty{"status", string(h.Status)}, JUnitProperty{"verdict", h.Verdict},
			JUnitProperty{"root_causes", fmt.Sprint(h.Headline().Total())},
			JUnitProperty{"critical", fmt.Sprint(h.Headline().Critical)}, JUnitProperty{"warning", fmt.Sprint(h.Headline().Warning)},
			JUnitProperty{"info", fmt.Sprint(h.Headline().Info)},
			JUnitProperty{"consequences", fmt.Sprint(h.Consequences)})
		if h.Version != "" {
			s.Properties = append(s.Properties, JUnitProperty{"esxi_version", h.Version})
		}
		for _, n := range h.Notes {
			s.Properties = append(s.Properties, JUnitProperty{"note", n})
			s.SystemOut += "note: " + n + "\n"
		}
	}
	add := func(f checks.Finding, tc JUnitTestCase) {
		s := suite(f.Host)
		tc.Name = f.RuleID + ": " + f.Subject
		tc.Classname = "pvrdma-doctor." + f.RuleID
		tc.Time = "0"
		s.Cases = append(s.Cases, tc)
		s.Tests++
		switch {
		case tc.Failure != nil:
			s.Failures++
		case tc.Skipped != nil:
			s.Skipped++
		}
	}
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			add(f, JUnitTestCase{Skipped: &JUnitSkipped{Message: f.Message}})
			continue
		}
		msg := f.Message
		if f.CausedBy != nil {
			msg = "[consequence of " + f.CausedBy.RuleID + " " + f.CausedBy.Subject + "] " + msg
		}
		add(f, JUnitTestCase{Failure: &JUnitFailure{Message: msg, Type: string(f.Severity), Body: junitBody(f) + junitCauses(r, f)}})
	}
	for _, f := range r.Suppressed {
		add(f, JUnitTestCase{Skipped: &JUnitSkipped{Message: "suppressed: " + f.SuppressReason}})
	}
	for _, f := range r.Passed {
		add(f, JUnitTestCase{})
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	return encodeJUnit(w, doc)
}

// encodeJUnit writes a JUnit document: the XML header, the indented
// document, a final newline.
func encodeJUnit(w io.Writer, doc JUnitTestSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitBody(f checks.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] on %s: %s\n", f.RuleID, f.Severity, f.Host, f.Message)
	for _, e := range f.Evidence {
		fmt.Fprintf(&b, "%s: %s\n", evidenceLabel(f.Host, e), EvidenceLine(e))
	}
	if f.Fix != "" {
		fmt.Fprintf(&b, "fix: %s\n", f.Fix)
	}
	return b.String()
}

// junitCauses says where a failure sits in the cause graph: what it is
// caused by, what follows from it, and the host's fix plan step for it.
func junitCauses(r *Report, f checks.Finding) string {
	var b strings.Builder
	if f.CausedBy != nil {
		fmt.Fprintf(&b, "caused by: %s %s (%s)\n", f.CausedBy.RuleID, f.CausedBy.Subject, therefore(f))
	}
	for _, c := range r.ConsequencesOf(f) {
		fmt.Fprintf(&b, "%s: %s %s [%s]\n", therefore(c), c.RuleID, c.Subject, c.Severity)
	}
	if p := checks.PlanFor(r.Plans, f.Host); p != nil {
		for _, s := range p.Steps {
			for _, c := range s.Resolves {
				if c.Key() == f.Key() {
					fmt.Fprintf(&b, "fix plan step %d: %s\n", s.N, StepText(s))
				}
			}
		}
	}
	return b.String()
}
