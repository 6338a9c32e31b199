package facts

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// fillFromVCenter uses the host configuration read from vCenter for every
// kind of fact that SSH (or esxcli over the API) gave none of: RDMA
// devices and their protocols, vmknics and their IPv4 addresses,
// distributed switches, Net.PVRDMAVmknic, the firewall rulesets and the
// pvrdma rules. A kind filled this way has vCenter as its source (what
// failed before stays in the host's captures); a kind read over SSH keeps
// its SSH facts (where the two disagree, the SSH output is what the host
// itself said).
func fillFromVCenter(h *Host) {
	vc := h.VCenterHost
	if vc == nil {
		return
	}
	src := Source{Command: catalog.VCenterHostLine, Status: hostio.StatusCollected, Parsed: true}
	fill := func(k hostio.Kind, set func()) {
		for _, s := range h.Sources[k] {
			if s.Parsed {
				return
			}
		}
		set()
		h.Sources[k] = []Source{src}
	}
	fill(catalog.KindRDMADeviceList, func() { h.RDMADevices = append([]parse.RDMADevice(nil), vc.RDMADevices...) })
	fill(catalog.KindRDMAProtocolList, func() { h.RDMAProtocols = append([]parse.RDMAProtocol(nil), vc.RDMAProtocols...) })
	fill(catalog.KindIPInterfaceList, func() { h.Vmknics = append([]parse.Vmknic(nil), vc.Vmknics...) })
	fill(catalog.KindIPv4Get, func() { h.IPv4 = append([]parse.IPv4Interface(nil), vc.IPv4...) })
	fill(catalog.KindDVSList, func() { h.DVSwitches = append([]parse.DVSwitch(nil), vc.DVSwitches...) })
	fill(catalog.KindFirewallRulesets, func() { h.Rulesets = append([]parse.FirewallRuleset(nil), vc.Rulesets...) })
	if hasRuleset(vc.Rulesets, "pvrdma") {
		fill(catalog.KindFirewallRules, func() { h.PVRDMARules = append([]parse.FirewallRule(nil), vc.PVRDMARules...) })
	}
	if vc.PVRDMAVmknic != nil {
		fill(catalog.KindPVRDMAVmknicOpt, func() { v := *vc.PVRDMAVmknic; h.PVRDMAVmknic = &v })
	}
}

func hasRuleset(rs []parse.FirewallRuleset, name string) bool {
	for _, r := range rs {
		if r.Name == name {
			return true
		}
	}
	return false
}

// VCenterPVRDMAVMs returns the VMs vCenter lists on the host with a PVRDMA
// adapter (VirtualVmxnet3Vrdma), in the order listed; only the powered-on
// ones when running is set (a VM whose power state vCenter did not give
// counts as running).
func (h *Host) VCenterPVRDMAVMs(running bool) []parse.VMConfig {
	var out []parse.VMConfig
	seen := map[string]bool{}
	for _, c := range h.VMConfigs {
		if c.Source != "vcenter" || len(c.PVRDMA()) == 0 || seen[c.Name] {
			continue
		}
		if running && c.PowerState != "" && c.PowerState != "poweredOn" {
			continue
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	return out
}

// Cluster is the host's cluster as vCenter configures it (nil when the
// host is in no cluster, or vCenter was not read); standalone is set when
// vCenter says the host is in no cluster.
func (h *Host) Cluster() (c *parse.ClusterInfo, standalone bool) {
	vc := h.VCenterHost
	if vc == nil {
		return nil, false
	}
	return vc.Cluster, vc.Cluster == nil && vc.Parent != "" && !strings.HasPrefix(vc.Parent, "ClusterComputeResource:")
}
