package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The remedy of a host without an RDMA device, derived from the NICs it
// has (internal/facts/nicfamily.go): where a NIC can carry RoCE, its RDMA
// driver (enabled, or turned on in the LAN driver's parameter) and a
// reboot; a new NIC only where none can (X710, X550, BCM5719; X722 has
// iWARP only, which PVRDMA does not use).

// driverFacts is what the host's driver layer says about one NIC family's
// RDMA driver and its LAN driver's options: each field nil when it was not
// read. The scan does not read the driver layer yet (`esxcli system module
// list`, `system module parameters list`, `software vib list`), so every
// field is nil today and the steps say what to check first (Require) and
// merge the LAN driver's options on the host; once read, the remedy names
// the missing piece and shows the merged option string.
type driverFacts struct {
	Installed, Enabled *bool
	// LANOptions is the LAN driver's configured option string.
	LANOptions *string
}

// driverFactsOf returns what the host's facts say about fam's drivers.
func driverFactsOf(*facts.Host, facts.NICFamily) driverFacts { return driverFacts{} }

// roceCandidate is a NIC of the host that can carry RoCE once its RDMA
// driver runs.
type roceCandidate struct {
	nic    string
	family facts.NICFamily
}

// roceCandidates lists the host's RoCE-capable NICs: the PVRDMA vDS's
// uplinks first, then those with their link up, in the NIC list's order.
func roceCandidates(h *facts.Host, sw *parse.DVSwitch) []roceCandidate {
	var on, up, down []roceCandidate
	for _, n := range h.NICs {
		fam := h.FamilyOf(n.Name)
		if !fam.RoCE {
			continue
		}
		c := roceCandidate{n.Name, fam}
		switch {
		case sw != nil && hasString(sw.Uplinks, n.Name):
			on = append(on, c)
		case strings.EqualFold(n.LinkStatus, "up"):
			up = append(up, c)
		default:
			down = append(down, c)
		}
	}
	return append(append(on, up...), down...)
}

// portsOf are the host's NICs a LAN driver drives (a module parameter
// applies to all of them).
func portsOf(h *facts.Host, driver string) []string {
	var out []string
	for _, n := range h.NICs {
		if h.FamilyOf(n.Name).LANDriver == driver {
			out = append(out, n.Name)
		}
	}
	return out
}

// rdmaRemedy proposes what gives the host an RDMA device on the PVRDMA
// vDS, resolving fs.
func (p *planner) rdmaRemedy(fs ...Finding) {
	h := p.host
	sw := p.path.Switch
	swName := "the PVRDMA vDS"
	if sw != nil {
		swName = sw.Name
	}
	cands := roceCandidates(h, sw)
	if len(cands) == 0 && !nicsRead(h) {
		// Its NICs were not read (a host read through vCenter alone):
		// whether one of them carries RoCE once its driver runs is
		// unknown, and so is the remedy.
		p.add(PhaseInvestigate, Action{Kind: ActInvestigate, Params: Params{Note: "On " + h.Host + ": " + rdmaRemedyText(h, p.path) + "."}})
		return
	}
	if len(cands) == 0 {
		p.add(PhaseHardware, Action{Kind: ActInstallNIC, Params: Params{Switch: swName}}, fs...)
		// The new NIC's lossless Ethernet, at the reboot after it: PFC on
		// priority 3 in nmlx5_core's options (a ConnectX, as the step
		// recommends).
		p.add(PhaseDriver, Action{Kind: ActSetModuleParams, Params: Params{Module: "nmlx5_core", Family: "ConnectX-4 or later",
			Set: nmlxPFCSet}}).atReboot()
		if sw != nil {
			p.add(PhaseUplinks, Action{Kind: ActSetUplinks, Params: Params{Switch: sw.Name, NewNIC: true}}, fs...).
				powerCycle(runningPVRDMAVMs(h)...)
		}
		return
	}
	c := cands[0]
	fam := c.family
	ports := portsOf(h, fam.LANDriver)
	df := driverFactsOf(h, fam)
	switch {
	case df.Installed != nil && !*df.Installed:
		// Not installed: what to install is the vendor's bundle for this
		// release; nothing here can name its file.
		p.add(PhaseDriver, Action{Kind: ActInvestigate, Params: Params{Note: "Install " + fam.RDMADriver + " (" + fam.Package +
			"), the RDMA driver of " + c.nic + "'s " + fam.Name + ", from the vendor's driver component for this ESXi release " +
			"(esxcli software component apply -d BUNDLE.zip)."}}).atReboot()
	case fam.EnableParam != "":
		// RDMA is turned on in the LAN driver's parameter, one value per
		// port (irdman's release notes), at the next boot.
		vals := make([]string, len(ports))
		for i := range vals {
			vals[i] = "1"
		}
		p.add(PhaseDriver, Action{Kind: ActSetModuleParams, Params: Params{Module: fam.LANDriver, NICs: ports, Family: fam.Name,
			Package: fam.Package, Set: []Setting{{fam.EnableParam, strings.Join(vals, ",")}}, Current: df.LANOptions}}, fs...).atReboot()
	default:
		p.add(PhaseDriver, Action{Kind: ActEnableModule, Params: Params{Module: fam.RDMADriver, Package: fam.Package, NICs: ports,
			Family: fam.Name}}, fs...).atReboot()
	}
	// RoCE needs lossless Ethernet on the port PVRDMA will use: ConnectX
	// sets PFC in the LAN driver's parameters (at the same reboot); other
	// drivers get global pause, with flow control on the switch port.
	if fam.PFCParams {
		p.add(PhaseDriver, Action{Kind: ActSetModuleParams, Params: Params{Module: fam.LANDriver, NICs: ports, NIC: c.nic, Family: fam.Name,
			Set: nmlxPFCSet, Current: df.LANOptions}}).atReboot()
	} else {
		p.add(PhaseHost, Action{Kind: ActSetPause, Params: Params{NIC: c.nic}})
		p.add(PhaseSwitch, Action{Kind: ActSetSwitchFlow, Params: Params{NIC: c.nic, Mode: "pause"}})
	}
	if sw != nil && !(len(sw.Uplinks) == 1 && sw.Uplinks[0] == c.nic) {
		p.add(PhaseUplinks, Action{Kind: ActSetUplinks, Params: Params{Switch: sw.Name, Uplinks: []string{c.nic}}}, fs...).
			powerCycle(runningPVRDMAVMs(h)...)
	}
}

// nmlxPFCSet enables PFC on priority 3, the RoCE traffic class, in both
// directions (equal bitmaps; S6b, S27).
var nmlxPFCSet = []Setting{{"pfctx", "0x08"}, {"pfcrx", "0x08"}}

// nmlx5PFC sets PFC on priority 3 in nmlx5_core's options, keeping the
// others (-p replaces the whole string), for a finding's fix.
var nmlx5PFC = mergeCommand("nmlx5_core", nil, nmlxPFCSet)

// rdmaRemedyText says in a sentence what gives the host an RDMA device,
// from its NICs (the plan's steps in words, for a finding's fix).
func rdmaRemedyText(h *facts.Host, hp *facts.HostPath) string {
	var sw *parse.DVSwitch
	if hp != nil {
		sw = hp.Switch
	}
	cands := roceCandidates(h, sw)
	if len(cands) == 0 && !nicsRead(h) {
		_, why := h.Available(catalog.KindNICList)
		return "which of its NICs can carry RoCE is unknown (" + why + "; vCenter does not list their drivers): check `esxcli network nic list` " +
			"for an RoCE-capable NIC (ConnectX-4 or later, E810, BCM574xx/575xx, FastLinQ) and turn its RDMA driver on, else install an " +
			"RoCE NIC listed for this ESXi release, and make its port the only uplink of the PVRDMA vDS"
	}
	if len(cands) == 0 {
		var fams []string
		for _, n := range h.NICs {
			if f := h.FamilyOf(n.Name); f.Known() && !slices.Contains(fams, f.Name) {
				fams = append(fams, f.Name)
			}
		}
		what := "none of its NICs can carry RoCE"
		if len(fams) > 0 {
			what = fmt.Sprintf("none of its NICs (%s) can carry RoCE", strings.Join(fams, ", "))
		}
		return what + " (X722 and other iWARP-only NICs: PVRDMA does not use iWARP): install an RoCE NIC listed for this ESXi release " +
			"(a ConnectX-4 or later runs the inbox nmlx5_rdma), make its port the only uplink of the PVRDMA vDS"
	}
	c := cands[0]
	fam := c.family
	if fam.EnableParam != "" {
		return fmt.Sprintf("%s is an %s (%s), which carries RoCE v2 once %s runs: check `esxcli software vib list` shows %s (else install "+
			"the vendor's component first), turn RDMA on in %s's %s parameter keeping its other options (esxcfg-module -g %s shows them), "+
			"and reboot in maintenance mode", c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, fam.Package, fam.LANDriver, fam.EnableParam, fam.LANDriver)
	}
	return fmt.Sprintf("%s is a %s (%s), which carries RoCE once its RDMA driver %s runs: check `esxcli software vib list` shows %s "+
		"(else install the vendor's component first), `esxcli system module set -m %s -e true`, and reboot in maintenance mode",
		c.nic, fam.Name, fam.LANDriver, fam.RDMADriver, fam.Package, fam.RDMADriver)
}

// nicsRead reports whether the host's NIC list was read (the NIC
// families, and so the RDMA remedy, come from it).
func nicsRead(h *facts.Host) bool {
	ok, _ := h.Available(catalog.KindNICList)
	return ok || len(h.NICs) > 0
}
