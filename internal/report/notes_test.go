package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// A host reached with --insecure-ignore-host-key carries a note that every
// format must show, with the host it is about.
func TestHostNotesInEveryFormat(t *testing.T) {
	r := buildWith([]hostio.HostResult{
		{Host: "esx01", Status: hostio.StatusCollected},
		{Host: "esx02", Status: hostio.StatusCollected, Notes: []string{sshrun.InsecureHostKeyNote}},
	})
	const want = "host key NOT verified"
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
		check func(t *testing.T, out []byte)
	}{
		{"text", func(b *bytes.Buffer) error { return WriteText(b, r, TextOptions{}) }, nil},
		{"html", func(b *bytes.Buffer) error { return WriteHTML(b, r) }, nil},
		{"json", func(b *bytes.Buffer) error { return WriteJSON(b, r) }, nil},
		{"markdown", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) }, func(t *testing.T, out []byte) {
			if !strings.Contains(string(out), "- **esx02**: host key NOT verified") {
				t.Errorf("markdown note not labelled with its host:\n%s", out)
			}
		}},
		{"junit", func(b *bytes.Buffer) error { return WriteJUnit(b, r) }, func(t *testing.T, out []byte) {
			var doc JUnitTestSuites
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			s := doc.Suites[1]
			var prop bool
			for _, p := range s.Properties {
				prop = prop || (p.Name == "note" && strings.Contains(p.Value, want))
			}
			if s.Name != "esx02" || !prop || !strings.Contains(s.SystemOut, want) {
				t.Errorf("esx02 testsuite lacks the note: %+v", s)
			}
			if strings.Contains(doc.Suites[0].SystemOut+string(mustXML(t, doc.Suites[0])), want) {
				t.Error("note on the wrong host")
			}
		}},
		{"sarif", func(b *bytes.Buffer) error { return WriteSARIF(b, r) }, func(t *testing.T, out []byte) {
			var log SARIFLog
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, n := range log.Runs[0].Invocations[0].ToolExecutionNotifications {
				if strings.Contains(n.Message.Text, "esx02: "+want) && len(n.Locations) == 1 &&
					n.Locations[0].LogicalLocations[0].FullyQualifiedName == "esx02" {
					found = true
				}
			}
			if !found {
				t.Errorf("no SARIF notification for esx02's note:\n%s", out)
			}
		}},
	} {
		t.Run(f.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), want) {
				t.Fatalf("%s output lacks %q:\n%s", f.name, want, b.String())
			}
			if f.check != nil {
				f.check(t, b.Bytes())
			}
		})
	}
}

func mustXML(t *testing.T, v any) []byte {
	t.Helper()
	b, err := xml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
