package testutil

import (
	"strings"
	"testing"
)

// An update names the goldens it creates or changes, and only those.
func TestReportGoldenUpdate(t *testing.T) {
	for _, c := range []struct {
		before  string
		existed bool
		out     string
		want    string
	}{
		{"", false, "new", "golden created: report/testdata/x.golden\n"},
		{"old", true, "new", "golden changed: report/testdata/x.golden\n"},
		{"same", true, "same", ""},
		{"", true, "", ""},
	} {
		var b strings.Builder
		reportGoldenUpdate(&b, "report/testdata/x.golden", []byte(c.before), c.existed, []byte(c.out))
		if b.String() != c.want {
			t.Errorf("before %q (existed %v), out %q: wrote %q, want %q", c.before, c.existed, c.out, b.String(), c.want)
		}
	}
}

// The path is said from the module's root.
func TestDisplayPath(t *testing.T) {
	if got := displayPath("testdata/x.golden"); got != "internal/testutil/testdata/x.golden" {
		t.Errorf("displayPath = %q", got)
	}
}
