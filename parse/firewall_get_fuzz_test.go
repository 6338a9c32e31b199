package parse

import "testing"

func FuzzFirewallGet(f *testing.F) {
	f.Add("   Default Action: DROP\n   Enabled: true\n   Loaded: true\n")
	f.Add("Default Action: PASS\nEnabled: false\n")
	fuzzOne(f, FirewallGet, func(t *testing.T, text string, v FirewallGlobal) {
		checkRecord(t, text, v.Record)
		if v.Record.Get("Enabled") == "" {
			t.Fatal("parsed without its required Enabled key")
		}
	})
}
