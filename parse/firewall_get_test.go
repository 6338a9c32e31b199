package parse

import "testing"

func TestFirewallGet(t *testing.T) {
	v := parsed(t, FirewallGet, "   Default Action: DROP\n   Enabled: false\n   Loaded: true\n")
	if v.Enabled || !v.Loaded || v.DefaultAction != "DROP" || v.Record.RefOf("Enabled").Line != 2 {
		t.Errorf("%+v", v)
	}
	if _, err := FirewallGet("   Default Action: DROP\n   Enabled: maybe\n"); err == nil {
		t.Error("a non-boolean Enabled must be an error")
	}
	if _, err := FirewallGet("Name  Enabled\n----  -------\nsshServer  true\n"); err == nil {
		t.Error("the ruleset list is not the firewall state")
	}
}
