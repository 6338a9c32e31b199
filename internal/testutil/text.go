package testutil

import (
	"strings"
	"testing"
)

// ContainsAll reports, as test errors, each of wants that text lacks;
// what names the text in the message ("diff", "esx01 notes").
func ContainsAll(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}
