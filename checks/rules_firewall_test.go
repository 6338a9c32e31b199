package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const (
	cmdFWGet   = "esxcli network firewall get"
	cmdFWRules = "esxcli network firewall ruleset rule list -r pvrdma"
)

func withFirewall(enabled bool, rules ...parse.FirewallRule) func(h *facts.Host) {
	return func(h *facts.Host) {
		collected(h, cmdFWGet, cmdFWRules)
		v := "true"
		if !enabled {
			v = "false"
		}
		h.Firewall = &parse.FirewallGlobal{Enabled: enabled, Loaded: true, DefaultAction: "DROP",
			Record: rec(cmdFWGet, "Default Action", "DROP", "Enabled", v, "Loaded", "true")}
		h.PVRDMARules = rules
	}
}

func fwRule(dir string, lo, hi int) parse.FirewallRule {
	return parse.FirewallRule{Ruleset: "pvrdma", Direction: dir, Protocol: "TCP", PortType: "Dst", PortBegin: lo, PortEnd: hi,
		Ref: ref(cmdFWRules, 3, "pvrdma  "+dir+"  TCP  Dst  28250  28761")}
}

func TestRuleFirewallGlobalStateAndPorts(t *testing.T) {
	closed := func(h *facts.Host) {
		h.Rulesets[1].Enabled = false
		h.Rulesets[1].Ref.Text = "pvrdma  false  true  true"
	}
	both := []parse.FirewallRule{fwRule("Inbound", 28250, 28761), fwRule("Outbound", 28250, 28761)}
	runCases(t, "PVRDMA_FIREWALL_CLOSED", []ruleCase{
		{name: "closed ruleset, firewall enabled: critical", hosts: one(func(h *facts.Host) { withFirewall(true, both...)(h); closed(h) }),
			want: []want{{"esx01", "pvrdma", StatusFail, Critical, "and the firewall is enabled", "Enabled: true"}}, exact: true},
		// When the firewall is disabled the ruleset does not matter (yet).
		{name: "closed ruleset, firewall disabled: info", hosts: one(func(h *facts.Host) { withFirewall(false, both...)(h); closed(h) }),
			want: []want{{"esx01", "pvrdma", StatusFail, Info, "the firewall itself is disabled", "Enabled: false"}}, exact: true},
		{name: "open ruleset with both port rules passes", hosts: one(withFirewall(true, both...)),
			want: []want{{host: "esx01", subject: "pvrdma", status: StatusPass}}, exact: true},
		{name: "open ruleset without the outbound rule: warning", hosts: one(withFirewall(true, fwRule("Inbound", 28250, 28761))),
			want: []want{{"esx01", "pvrdma", StatusFail, Warning, "do not open TCP 28250-28761 outbound", "Inbound"}}, exact: true},
		{name: "open ruleset with a narrowed range: warning", hosts: one(withFirewall(true, fwRule("Inbound", 28250, 28300), fwRule("Outbound", 28250, 28761))),
			want: []want{{"esx01", "pvrdma", StatusFail, Warning, "inbound", "pvrdma"}}, exact: true},
		{name: "open ruleset, no rules at all: warning", hosts: one(withFirewall(true)),
			want: []want{{"esx01", "pvrdma", StatusFail, Warning, "inbound and outbound", "pvrdma"}}, exact: true},
		// Without the global state (older bundles) the ruleset decides.
		{name: "no global state: ruleset decides", hosts: one(closed),
			want: []want{{"esx01", "pvrdma", StatusFail, Critical, "disabled", "pvrdma"}}, exact: true},
	})
}

func TestRuleFirewallClosed(t *testing.T) {
	runCases(t, "PVRDMA_FIREWALL_CLOSED", []ruleCase{
		{name: "fires when disabled", hosts: one(func(h *facts.Host) {
			h.Rulesets[1].Enabled = false
			h.Rulesets[1].Ref.Text = "pvrdma                         false                         true                     true"
		}), want: []want{{"esx01", "pvrdma", StatusFail, Critical, "disabled on esx01", "pvrdma                         false"}}, exact: true},
		{name: "fires when missing", hosts: one(func(h *facts.Host) { h.Rulesets = h.Rulesets[:1] }),
			want: []want{{host: "esx01", subject: "pvrdma", status: StatusFail, severity: Critical, msg: "has no pvrdma firewall ruleset"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "pvrdma", status: StatusPass}}, exact: true},
		{name: "passes disabled without PVRDMA", hosts: one(func(h *facts.Host) {
			h.Rulesets[1].Enabled = false
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			h.PVRDMAVmknic.StringValue = ""
		}), want: []want{{host: "esx01", subject: "pvrdma", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdFirewall) }),
			want: []want{{host: "esx01", subject: "pvrdma", status: StatusNotEvaluated, msg: cmdFirewall}}, exact: true},
	})
}
