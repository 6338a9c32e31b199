package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// A renderer that panics never takes the report down: a section of a
// human format (a helper writing into the report's builder) is replaced
// by a line saying it could not be shown, and a whole document that fails
// (any format) is replaced by a plain one in the same format that keeps
// the verdict and every finding, and says what failed. Findings, plans and
// counts are computed before rendering (Build), so nothing is lost but the
// layout.

// renderHook, when set (tests only), runs at the start of every guarded
// section and document with its name: a test makes one panic.
var renderHook func(name string)

// renderFailed is what replaces a section or a document that panicked.
func renderFailed(name string, v any) string {
	return fmt.Sprintf("the %s could not be shown: internal error (%v; please report it, with `pvrdma-doctor bundle`)", name, v)
}

// section renders one part of a human report into b; when it panics, what
// it wrote is dropped and the error takes its place (errLine formats it
// for the format).
func section(b *strings.Builder, name string, errLine func(string) string, render func(b *strings.Builder)) {
	var part strings.Builder
	defer func() {
		if v := recover(); v != nil {
			b.WriteString(errLine(renderFailed(name, v)))
			return
		}
		b.WriteString(part.String())
	}()
	if renderHook != nil {
		renderHook(name)
	}
	render(&part)
}

// textErrLine and mdErrLine show a section's error in text and Markdown.
func textErrLine(msg string) string { return "\n  [" + textsafe.Clean(msg) + "]\n" }
func mdErrLine(msg string) string   { return "\n> " + md(textsafe.Clean(msg)) + "\n" }

// document renders a whole document to w: into a buffer first, so that
// when render panics the fallback (the same format, plain) is written
// instead of half a document.
func document(w io.Writer, name string, r *Report, render func(io.Writer) error, fallback func(io.Writer, *Report, string) error) error {
	var buf bytes.Buffer
	err, failed := guardedRender(&buf, name, render)
	if failed != "" {
		return fallback(w, r, failed)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// guardedRender runs render into w and turns a panic into failed, the
// message a fallback document carries.
func guardedRender(w io.Writer, name string, render func(io.Writer) error) (err error, failed string) {
	defer func() {
		if v := recover(); v != nil {
			failed = renderFailed(name, v)
		}
	}()
	if renderHook != nil {
		renderHook(name)
	}
	return render(w), ""
}

// plainFindings lists every finding on one line each, for a fallback.
func plainFindings(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		sev := strings.ToUpper(string(f.Severity))
		if f.Status == checks.StatusNotEvaluated {
			sev = "NOT EVALUATED"
		}
		out = append(out, fmt.Sprintf("%s %s %s %s: %s", sev, f.RuleID, f.Host, f.Subject, f.Message))
	}
	return out
}

func fallbackText(w io.Writer, r *Report, failed string) error {
	var b strings.Builder
	c := textsafe.Clean
	fmt.Fprintf(&b, "pvrdma-doctor %s — %s\n\n%s\n\n%s\n\n", c(r.Tool.Version), c(r.Source), c(r.Verdict), c(failed))
	for _, l := range plainFindings(r) {
		b.WriteString(c(l) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fallbackMarkdown(w io.Writer, r *Report, failed string) error {
	var b strings.Builder
	c := textsafe.Clean
	fmt.Fprintf(&b, "# pvrdma-doctor report\n\n**%s**\n\n> %s\n\n", md(c(r.Verdict)), md(c(failed)))
	for _, l := range plainFindings(r) {
		b.WriteString("- " + md(c(l)) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fallbackHTML(w io.Writer, r *Report, failed string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>pvrdma-doctor report</title></head>\n<body>\n"+
		"<h1>pvrdma-doctor report</h1>\n<p id=\"verdict\"><strong>%s</strong></p>\n<p>%s</p>\n<ul>\n",
		html.EscapeString(textsafe.Clean(r.Verdict)), html.EscapeString(textsafe.Clean(failed)))
	for _, l := range plainFindings(r) {
		b.WriteString("<li>" + html.EscapeString(textsafe.Clean(l)) + "</li>\n")
	}
	b.WriteString("</ul>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fallbackJSON(w io.Writer, r *Report, failed string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schema_version": r.SchemaVersion, "verdict": r.Verdict,
		"findings": r.Findings, "passed": r.Passed, "render_error": failed})
}

func fallbackJUnit(w io.Writer, r *Report, failed string) error {
	suite := JUnitTestSuite{Name: "pvrdma-doctor", Timestamp: r.GeneratedAt.Format("2006-01-02T15:04:05Z")}
	suite.Cases = append(suite.Cases, JUnitTestCase{Name: "report", Classname: "pvrdma-doctor.report", Time: "0",
		Failure: &JUnitFailure{Message: failed, Type: "internal_error"}})
	for _, l := range plainFindings(r) {
		suite.SystemOut += l + "\n"
	}
	suite.Tests, suite.Failures = 1, 1
	return encodeJUnit(w, JUnitTestSuites{Name: "pvrdma-doctor", Tests: 1, Failures: 1, Suites: []JUnitTestSuite{suite}})
}

func fallbackSARIF(w io.Writer, r *Report, failed string) error {
	inv := SARIFInvocation{ExecutionSuccessful: false,
		ToolExecutionNotifications: []SARIFNotification{{Level: "error", Message: SARIFText{failed}}}}
	for _, l := range plainFindings(r) {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "note", Message: SARIFText{l}})
	}
	run := SARIFRun{Tool: SARIFTool{Driver: SARIFDriver{Name: "pvrdma-doctor", Version: r.Tool.Version}},
		Results: []SARIFResult{}, Invocations: []SARIFInvocation{inv}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(SARIFLog{Version: SARIFVersion, Schema: SARIFSchema, Runs: []SARIFRun{run}})
}

// The renderers, each behind its recover (see above): WriteX renders with
// writeXReport and falls back to a plain document of the same format.

// WriteText writes the report for people (writeTextReport).
func WriteText(w io.Writer, r *Report, opt TextOptions) error {
	return document(w, "text report", r, func(w io.Writer) error { return writeTextReport(w, r, opt) }, fallbackText)
}

// WriteMarkdown writes the report as Markdown (writeMarkdownReport).
func WriteMarkdown(w io.Writer, r *Report) error {
	return document(w, "Markdown report", r, func(w io.Writer) error { return writeMarkdownReport(w, r) }, fallbackMarkdown)
}

// WriteHTML writes the report as one HTML page (writeHTMLReport).
func WriteHTML(w io.Writer, r *Report) error {
	return document(w, "HTML report", r, func(w io.Writer) error { return writeHTMLReport(w, r) }, fallbackHTML)
}

// WriteJSON writes the report as JSON (writeJSONReport), streamed: the
// first streamHeld bytes are held, so that a report of up to a hundred
// hosts or so falls back whole as the others do; a larger one is written
// as it is made (it is never held whole: 14 MB for 1,000 hosts), and a
// renderer that fails after that ends it with an error, not a fallback.
func WriteJSON(w io.Writer, r *Report) error {
	return streamDocument(w, "JSON report", r, func(w io.Writer) error { return writeJSONReport(w, r) }, fallbackJSON)
}

// streamHeld is how much of a streamed document is held before it is
// written out.
const streamHeld = 1 << 20

// streamDocument is document for a renderer that streams: it holds the
// first streamHeld bytes (a failure before then falls back as document
// does), then writes through.
func streamDocument(w io.Writer, name string, r *Report, render func(io.Writer) error, fallback func(io.Writer, *Report, string) error) error {
	hw := &heldWriter{w: w}
	err, failed := guardedRender(hw, name, render)
	switch {
	case failed != "" && !hw.out:
		return fallback(w, r, failed)
	case failed != "":
		return fmt.Errorf("%s (the document written before it is incomplete)", failed)
	case err != nil:
		return err
	}
	return hw.flush()
}

// heldWriter holds what is written until streamHeld bytes, then writes
// them and everything after through.
type heldWriter struct {
	w   io.Writer
	buf bytes.Buffer
	out bool // the held bytes were written: w has part of the document
}

func (h *heldWriter) Write(p []byte) (int, error) {
	if h.out {
		return h.w.Write(p)
	}
	h.buf.Write(p)
	if h.buf.Len() < streamHeld {
		return len(p), nil
	}
	h.out = true
	if _, err := h.w.Write(h.buf.Bytes()); err != nil {
		return 0, err
	}
	h.buf = bytes.Buffer{}
	return len(p), nil
}

func (h *heldWriter) flush() error {
	if h.out {
		return nil
	}
	h.out = true
	_, err := h.w.Write(h.buf.Bytes())
	return err
}

// WriteJUnit writes the report as JUnit XML (writeJUnitReport).
func WriteJUnit(w io.Writer, r *Report) error {
	return document(w, "JUnit report", r, func(w io.Writer) error { return writeJUnitReport(w, r) }, fallbackJUnit)
}

// WriteSARIF writes the report as SARIF (writeSARIFReport).
func WriteSARIF(w io.Writer, r *Report) error {
	return document(w, "SARIF report", r, func(w io.Writer) error { return writeSARIFReport(w, r) }, fallbackSARIF)
}
