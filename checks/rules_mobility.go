package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesMobility are this area's rules in the catalogue (catalogueList).
var rulesMobility = []*Rule{
	{ID: "VM_PASSTHROUGH_NO_MOBILITY", Severity: Info, Check: checkVMPassthroughNoMobility,
		ListedBy: listedVMs},
	{ID: "VM_PEERS_WITHOUT_RDMA", Plan: planInvestigate, Severity: Warning, Scope: FleetScope, Check: checkVMPeersWithoutRDMA},
}

// The checks of this area (prose: catalogue.yaml): what moves PVRDMA VMs
// between hosts and what they meet
// there. PVRDMA itself keeps vMotion, DRS and HA (seed 002); a PCI
// passthrough device next to it does not (the vSphere VM administration
// guide, PCI devices). And a PVRDMA VM on a host with working RDMA still
// reaches its peers on hosts without RDMA over TCP (seed 004): named pair
// by pair, so that an admin knows which VMs to keep together.

func checkVMPassthroughNoMobility(in *Input, r *Reporter) {
	h := in.Host
	for _, v := range vmViews(h) {
		if len(v.Configs) == 0 && v.pvrdma() && mayPassThrough(h) {
			// Its devices are unknown, and the host may give it one.
			r.NotEvaluated(v.Name, v.Why)
			continue
		}
		if !v.pvrdma() || !v.passthrough() {
			continue
		}
		var devs []string
		var ev []Evidence
		var c0 = v.Configs[0]
		for _, c := range v.Configs {
			if len(c.Passthrough) == 0 {
				continue
			}
			c0 = c
			for _, p := range c.Passthrough {
				if p.ID == "" && p.VendorID == "" {
					// A vGPU (NVIDIA GRID: no PCI address, no vendor): vMotion
					// supports it; only DirectPath I/O pins the VM.
					continue
				}
				d := p.Label
				if p.ID != "" {
					d += " " + p.ID
				}
				devs = append(devs, d)
				ev = append(ev, Ev(h.Host, p.Ref))
			}
			break
		}
		if len(devs) == 0 {
			continue
		}
		for _, a := range c0.PVRDMA() {
			ev = append(ev, adapterEv(h.Host, c0, a, "Type", ""))
			break
		}
		r.FailSeverity(Info, h.Host, v.Name, fmt.Sprintf("%s has a PVRDMA adapter and the PCI passthrough device%s %s: with DirectPath I/O "+
			"it stays on %s, so vMotion, DRS migrations, snapshots and suspend are not available to it (its PVRDMA adapter alone would "+
			"allow them), and HA restarts it only on a host with the same device free; its full memory is reserved",
			v.Name, pluralS(len(devs)), strings.Join(devs, ", "), h.Host),
			fmt.Sprintf("Nothing to change for PVRDMA. Plan maintenance of %s knowing DRS will not move %s: power it off (or move its work) "+
				"before entering maintenance mode, and do not count on HA capacity elsewhere for it.", h.Host, shellArg(v.Name, "the VM")), ev...)
	}
}

// unreadVMs says why a host's PVRDMA VMs are unknown.
func unreadVMs(h *facts.Host, why string) string {
	if h.Status == hostio.StatusNotCollected {
		return why // "host not collected: ..."
	}
	return "whether it runs PVRDMA VMs was not read: " + why
}

// mayPassThrough reports whether the host has, or may have, a PCI device
// in passthrough (its PCI list unread).
func mayPassThrough(h *facts.Host) bool {
	if ok, _ := h.Available(catalog.KindHardwarePCI); !ok {
		return true
	}
	for _, p := range h.PCIDevices {
		if p.InPassthrough() {
			return true
		}
	}
	return false
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// fallsBack reports whether the host's PVRDMA traffic to other hosts falls
// back to TCP, as TCP_FALLBACK decides it: vsish's `Physical HCA
// available` when it was read, else whether an Active RDMA device serves
// the PVRDMA vDS; known is false when neither was read.
func fallsBack(h *facts.Host, hp *facts.HostPath) (falls, known bool) {
	one, off := 0, 0
	for _, d := range h.PVRDMADevices {
		if d.Props.Lookup("Physical HCA available").Line == 0 {
			continue
		}
		if d.PhysicalHCA != 0 {
			one++
		} else {
			off++
		}
	}
	// One bound adapter proves the host's RDMA works; unbound ones prove
	// it falls back only when every listed adapter's properties were
	// read (an adapter not read may be bound: hpc-node02 alone without
	// an HCA on a host whose other VMs' properties were lost does not
	// make the host fall back).
	if one > 0 {
		return false, true
	}
	listed, _ := h.Available(catalog.KindPVRDMADeviceLs)
	if off > 0 && listed && off >= len(h.PVRDMAListing) {
		return true, true
	}
	if ok, _ := h.Available(catalog.KindRDMADeviceList); !ok {
		return false, false
	}
	if off > 0 && len(hp.Usable) > 0 {
		return false, false // some adapters unbound, the others unread
	}
	return len(hp.Usable) == 0, true
}

// peersWithoutRDMA are, for host i, the other hosts of the fleet that run
// PVRDMA VMs and fall back to TCP, sorted by name.
func peersWithoutRDMA(fleet *facts.Fleet, paths *facts.DataPath, i int) []int {
	all := paths.Memo("checks.fallback", func() any {
		// Every host that runs PVRDMA VMs and falls back, once per run.
		var out []int
		for j := range fleet.Hosts {
			o := &fleet.Hosts[j]
			if !hasPVRDMA(o) {
				continue
			}
			if falls, known := fallsBack(o, paths.Host(j)); known && falls {
				out = append(out, j)
			}
		}
		sort.Slice(out, func(a, b int) bool { return fleet.Hosts[out[a]].Host < fleet.Hosts[out[b]].Host })
		return out
	}).([]int)
	out := make([]int, 0, len(all))
	for _, j := range all {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}

func checkVMPeersWithoutRDMA(in *Input, r *Reporter) {
	fleet, paths := in.Fleet, in.Paths
	for _, i := range in.Ready {
		h := &fleet.Hosts[i]
		if !hasPVRDMA(h) {
			if k := pvrdmaOn(h); !k.Known {
				r.NotEvaluatedOn(h.Host, h.Host, unreadVMs(h, k.Why))
			}
			continue
		}
		vms := pvrdmaVMNames(h)
		subject := fmt.Sprintf("%s (%s)", h.Host, joinNames(vms))
		falls, known := fallsBack(h, paths.Host(i))
		if !known {
			_, why := h.Available(catalog.KindRDMADeviceList)
			r.NotEvaluatedOn(h.Host, subject, "whether its own PVRDMA adapters use RDMA was not read: "+why)
			continue
		}
		if falls || onArm(h) {
			continue // TCP_FALLBACK, or ESXI_ARM, judges the host itself
		}
		peers := peersWithoutRDMA(fleet, paths, i)
		if len(peers) == 0 {
			r.PassOn(h.Host, subject)
			continue
		}
		// A fleet-wide fault would list every broken host in every finding
		// (hosts x broken): the first few are named with their evidence,
		// the rest counted; each has its own TCP_FALLBACK finding.
		named, rest := peers, 0
		if len(peers) > peerNameLimit {
			named, rest = peers[:peerNameLimit], len(peers)-peerNameLimit
		}
		var pairs, hosts []string
		var ev []Evidence
		for _, j := range named {
			o := &fleet.Hosts[j]
			hosts = append(hosts, o.Host)
			pairs = append(pairs, fmt.Sprintf("%s (%s)", joinNames(pvrdmaVMNames(o)), o.Host))
			if hca := unboundHCA(o); hca != nil {
				ev = append(ev, *hca)
			} else {
				ev = append(ev, rdmaListEvidence(o)...)
			}
		}
		ev = append(pvrdmaEvidence(h, ""), ev...)
		fixOn := strings.Join(hosts, ", ")
		if rest > 0 {
			pairs = append(pairs, "their PVRDMA peers on "+moreHosts(rest)+" without RDMA")
			fixOn += " and " + moreHosts(rest) + " (each has its TCP_FALLBACK finding)"
		}
		with := strings.Join(pairs, ", ")
		if len(pairs) > 1 {
			with = strings.Join(pairs[:len(pairs)-1], ", ") + " and " + pairs[len(pairs)-1]
		}
		r.FailOn(h.Host, subject, fmt.Sprintf("the PVRDMA VMs on %s, which has working RDMA, talk over TCP with their PVRDMA peers on hosts "+
			"without it: the pairs of %s with %s; two VMs on different hosts use the RDMA devices only when both hosts have one",
			h.Host, joinNames(vms), with),
			fmt.Sprintf("Nothing to change on %s: fix RDMA on %s (their TCP_FALLBACK finding); until then keep the VMs that must talk over "+
				"RDMA on hosts with RDMA, or on one host (a DRS VM/Host rule can hold them there).", h.Host, fixOn), ev...)
	}
}

// peerNameLimit is how many peer hosts without RDMA a VM_PEERS_WITHOUT_RDMA
// finding names (with their evidence); it counts the others.
const peerNameLimit = 3

// moreHosts is "1 more host" or "N more hosts".
func moreHosts(n int) string {
	if n == 1 {
		return "1 more host"
	}
	return fmt.Sprintf("%d more hosts", n)
}

// unboundHCA is the evidence that one of the host's PVRDMA adapters has no
// HCA (nil when vsish shows none).
func unboundHCA(h *facts.Host) *Evidence {
	for _, d := range h.PVRDMADevices {
		if f := d.Props.Lookup("Physical HCA available"); f.Line > 0 && d.PhysicalHCA == 0 {
			e := Ev(h.Host, f.Ref)
			return &e
		}
	}
	return nil
}

// linkPeersWithoutRDMA links each VM_PEERS_WITHOUT_RDMA finding to the
// TCP_FALLBACK finding of the first peer host it names (a cause on
// another host: its plan is that host's).
func linkPeersWithoutRDMA(fleet *facts.Fleet, paths *facts.DataPath, fs []Finding) {
	if fleet == nil || paths == nil {
		return
	}
	fallback := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail && !f.Suppressed && f.RuleID == "TCP_FALLBACK" {
			fallback[f.Host] = i
		}
	}
	for i, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.RuleID != "VM_PEERS_WITHOUT_RDMA" {
			continue
		}
		k, ok := fleetIndex(fleet, paths)[f.Host]
		if !ok {
			continue
		}
		for _, j := range peersWithoutRDMA(fleet, paths, k) {
			if c, ok := fallback[fleet.Hosts[j].Host]; ok {
				fs[i].CausedBy = &Cause{RuleID: fs[c].RuleID, Host: fs[c].Host, Subject: fs[c].Subject}
				break
			}
		}
	}
}

// otherCauses reports whether a consequence c has causes on other hosts
// than causeHost: a VM_PEERS_WITHOUT_RDMA finding is linked to the first
// peer host that falls back (linkPeersWithoutRDMA), but its VMs talk RDMA
// with all their peers only once every such host has RDMA: that host's
// plan alone does not resolve it.
func (p *planner) otherCauses(c Finding, causeHost string) bool {
	if c.RuleID != "VM_PEERS_WITHOUT_RDMA" || p.fleet == nil {
		return false
	}
	paths := p.fleet.DataPath()
	k, ok := fleetIndex(p.fleet, paths)[c.Host]
	if !ok {
		return false
	}
	for _, j := range peersWithoutRDMA(p.fleet, paths, k) {
		if p.fleet.Hosts[j].Host != causeHost {
			return true
		}
	}
	return false
}

// fleetIndex maps each host name to its index in the fleet, once per run
// (the first host of a name, as the scans it replaces found it).
func fleetIndex(fleet *facts.Fleet, paths *facts.DataPath) map[string]int {
	return paths.Memo("checks.fleetIndex", func() any {
		m := make(map[string]int, len(fleet.Hosts))
		for k := range fleet.Hosts {
			if _, dup := m[fleet.Hosts[k].Host]; !dup {
				m[fleet.Hosts[k].Host] = k
			}
		}
		return m
	}).(map[string]int)
}
