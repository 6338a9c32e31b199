package parse

import "strings"

var firewallGetKeys = []string{"Default Action", "Enabled", "Loaded"}

// FirewallGet parses `esxcli network firewall get`:
//
//	Default Action: DROP
//	Enabled: true
//	Loaded: true
func FirewallGet(text string) (FirewallGlobal, error) {
	r, err := readOne(text, firewallGetKeys, []string{"Enabled"})
	if _, partial := Skipped(err); err != nil && !partial {
		return FirewallGlobal{}, err
	}
	if strings.TrimSpace(r.Get("Enabled")) == "" {
		// An empty value is no answer: read as "false" it would say the
		// firewall is off and make a closed pvrdma ruleset look harmless.
		return FirewallGlobal{}, errorf(r.RefOf("Enabled").Line, "Enabled: expected true or false, got nothing")
	}
	var e errs
	v := FirewallGlobal{Enabled: e.bool(r, "Enabled"), DefaultAction: strings.ToUpper(r.Get("Default Action")), Record: r, Ref: r.Ref}
	if r.Has("Loaded") {
		v.Loaded = e.bool(r, "Loaded")
	}
	if e.err != nil {
		return FirewallGlobal{}, e.err
	}
	return v, err // nil, or what a partial output skipped
}
