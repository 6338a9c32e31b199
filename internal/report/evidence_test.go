package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// MTU_MISMATCH on esx03 cites its peers' MTUs: that evidence must say which
// host it comes from in text, HTML and JUnit (markdown already does).
func TestEvidenceFromAnotherHostIsLabelled(t *testing.T) {
	r := mixedReport(t)
	var peers []string
	for _, f := range r.Findings {
		if f.RuleID != "LOW_MTU" || f.Host != "esx03" {
			continue
		}
		for _, e := range f.Evidence {
			if e.Host != f.Host {
				peers = append(peers, e.Host)
			}
		}
	}
	if len(peers) == 0 {
		t.Fatal("the mixed scenario's LOW_MTU on esx03 no longer cites the peer adapter")
	}
	for _, f := range []struct {
		name, want string
		write      func(*bytes.Buffer) error
	}{
		{"text", "evidence (%s): `vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2100788_0/properties` line 18: Active MTU:4096", func(b *bytes.Buffer) error {
			return report.WriteText(b, r, report.TextOptions{Width: 200, Details: true})
		}},
		{"html", "<pre>%s: `vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2100788_0/properties` line 18: Active MTU:4096</pre>", func(b *bytes.Buffer) error { return report.WriteHTML(b, r) }},
		{"junit", "evidence (%s): `vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2100788_0/properties` line 18: Active MTU:4096", func(b *bytes.Buffer) error { return report.WriteJUnit(b, r) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		out := strings.ReplaceAll(b.String(), "&#39;", "'")
		if f.name == "html" {
			out = strings.ReplaceAll(out, "&#96;", "`")
		}
		for _, p := range peers {
			if want := strings.Replace(f.want, "%s", p, 1); !strings.Contains(out, want) {
				t.Errorf("%s: no %q", f.name, want)
			}
		}
	}
}
