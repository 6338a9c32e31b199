package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesFirewall are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesFirewall = []*Rule{
	{ID: "PVRDMA_FIREWALL_CLOSED", Plan: planFirewall, Severity: Critical, NeedsSubject: "pvrdma", Check: checkFirewallClosed,
		Needs: []hostio.Kind{catalog.KindFirewallRulesets}},
}

// The checks of this area (prose: catalogue.yaml): the pvrdma firewall ruleset, its ports and the firewall's global state.

func checkFirewallClosed(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	const subject = "pvrdma"
	if ok, why := h.Covers(catalog.KindFirewallRulesets, subject); !ok {
		r.NotEvaluated(subject, why)
		return
	}
	use, known, why := pvrdmaInUse(h, hp)
	if !known {
		r.NotEvaluated(subject, why)
		return
	}
	if !use {
		r.Pass(subject)
		return
	}
	// The global state: unknown (older bundles) counts as enabled.
	fwOff := false
	var fwEv []Evidence
	if ok, _ := h.Available(catalog.KindFirewallGlobal); ok && h.Firewall != nil {
		fwEv = []Evidence{Ev(h.Host, h.Firewall.Record.RefOf("Enabled"))}
		fwOff = !h.Firewall.Enabled
	}
	var rs *parse.FirewallRuleset
	for i := range h.Rulesets {
		if h.Rulesets[i].Name == "pvrdma" {
			rs = &h.Rulesets[i]
		}
	}
	switch {
	case rs == nil && fwOff:
		r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("%s has no pvrdma firewall ruleset, but its firewall is disabled, so nothing is blocked now", h.Host),
			fmt.Sprintf("%s's ESXi release lacks the pvrdma ruleset: upgrade it to ESXi 6.5 or later before enabling the firewall.", h.Host),
			append(sourceEv(h, catalog.KindFirewallRulesets, "no pvrdma ruleset listed"), fwEv...)...)
	case rs == nil:
		r.Fail(subject, fmt.Sprintf("%s has no pvrdma firewall ruleset although it runs PVRDMA", h.Host),
			fmt.Sprintf("%s's ESXi release lacks the pvrdma ruleset: upgrade it to ESXi 6.5 or later, then esxcli network firewall ruleset set -e true -r pvrdma", h.Host),
			append(sourceEv(h, catalog.KindFirewallRulesets, "no pvrdma ruleset listed"), fwEv...)...)
	case !rs.Enabled && fwOff:
		r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("the pvrdma firewall ruleset is disabled on %s, but the firewall itself is disabled, "+
			"so nothing blocks PVRDMA now; it will as soon as the firewall is enabled", h.Host),
			fmt.Sprintf("On %s, before enabling the firewall again: esxcli network firewall ruleset set -e true -r pvrdma", h.Host),
			append([]Evidence{Ev(h.Host, rs.Ref)}, fwEv...)...)
	case !rs.Enabled:
		r.Fail(subject, fmt.Sprintf("the pvrdma firewall ruleset is disabled on %s, which runs PVRDMA, and the firewall is enabled", h.Host),
			fmt.Sprintf("On %s: esxcli network firewall ruleset set -e true -r pvrdma", h.Host), append([]Evidence{Ev(h.Host, rs.Ref)}, fwEv...)...)
	case fwOff:
		r.Pass(subject)
	default:
		pvrdmaPortRules(h, r, subject, rs)
	}
}

// PVRDMA's port range (VMware, "Paravirtual RDMA for HPC", figure 6: the
// pvrdma service opens 28250-28761 (TCP) incoming and outgoing).
const pvrdmaPortLo, pvrdmaPortHi = plan.PVRDMAPortLo, plan.PVRDMAPortHi

// pvrdmaPortRules checks that an enabled pvrdma ruleset's rules open TCP
// 28250-28761 in both directions.
func pvrdmaPortRules(h *facts.Host, r *Reporter, subject string, rs *parse.FirewallRuleset) {
	if ok, _ := h.Available(catalog.KindFirewallRules); !ok {
		r.Pass(subject) // the ruleset is enabled; its rules were not read
		return
	}
	covered := map[string]bool{}
	var ev []Evidence
	for _, ru := range h.PVRDMARules {
		if ru.Ruleset != "" && ru.Ruleset != "pvrdma" {
			continue
		}
		ev = append(ev, Ev(h.Host, ru.Ref))
		if strings.EqualFold(ru.Protocol, "TCP") && ru.PortBegin <= pvrdmaPortLo && ru.PortEnd >= pvrdmaPortHi {
			covered[strings.ToLower(ru.Direction)] = true
		}
	}
	var missing []string
	for _, d := range []string{"inbound", "outbound"} {
		if !covered[d] {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		r.Pass(subject)
		return
	}
	if len(ev) == 0 {
		ev = sourceEv(h, catalog.KindFirewallRules, "no rule listed for the pvrdma ruleset")
	}
	ev = append([]Evidence{Ev(h.Host, rs.Ref)}, ev...)
	r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("the pvrdma ruleset is enabled on %s, but its rules do not open TCP %d-%d %s",
		h.Host, pvrdmaPortLo, pvrdmaPortHi, strings.Join(missing, " and ")),
		fmt.Sprintf("On %s: compare `esxcli network firewall ruleset rule list -r pvrdma` with VMware's definition (TCP %d-%d inbound and outbound); "+
			"restore the host's firewall configuration (a custom /etc/vmware/firewall/ file may override it), then esxcli network firewall refresh.",
			h.Host, pvrdmaPortLo, pvrdmaPortHi), ev...)
}
