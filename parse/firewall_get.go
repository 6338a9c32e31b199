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
	if err != nil {
		return FirewallGlobal{}, err
	}
	var e errs
	v := FirewallGlobal{Enabled: e.bool(r, "Enabled"), DefaultAction: strings.ToUpper(r.Get("Default Action")), Record: r, Ref: r.Ref}
	if _, ok := r.Fields["Loaded"]; ok {
		v.Loaded = e.bool(r, "Loaded")
	}
	if e.err != nil {
		return FirewallGlobal{}, e.err
	}
	return v, nil
}
