package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Needs as narrow as the evidence. A rule's Needs stop it on a host: the
// inputs without which it can say nothing there. Its ListedBy are the
// inputs that list its subjects (the VMs, the PVRDMA adapters and their
// properties, the guest's RDMA ports, the path probes): the rule runs on
// whatever subjects its present inputs show, and only where it then has
// nothing to say and one of them is missing or incomplete does the engine
// report it not evaluated, with the reason (it cannot tell there is
// nothing to check). `rules explain` shows both.

// saidNothing reports whether results hold nothing about host.
func saidNothing(results []Finding, host string) bool {
	for _, f := range results {
		if f.Host == host {
			return false
		}
	}
	return true
}

// listedOn reports whether every input that lists a rule's subjects on
// host i is there; why says what is missing.
func listedOn(kinds []hostio.Kind, fleet *facts.Fleet, paths *facts.DataPath, i int) (ok bool, why string) {
	h := &fleet.Hosts[i]
	// vCenter lists a host's PVRDMA VMs with their configurations: for the
	// rules that read configurations (not the adapters' vsish properties)
	// its list stands in for the host's own (a scan whose SSH was refused).
	vcListed := false
	if !slices.Contains(kinds, catalog.KindPVRDMAProperties) {
		vcListed, _ = h.Available(catalog.KindVCenterVMs)
	}
	var missing []string
	for _, k := range kinds {
		var w string
		switch k {
		case catalog.KindPVRDMADeviceLs, catalog.KindVMProcessList:
			if ok, why := h.Available(k); !ok && !vcListed {
				w = why
			}
		case catalog.KindPVRDMAProperties:
			w = unreadProperties(h)
		case catalog.KindVmkping:
			w = unprobed(fleet, paths, i)
		default:
			if ok, why := h.Available(k); !ok {
				w = why
			}
		}
		if w != "" && !strings.Contains(strings.Join(missing, "; "), w) {
			missing = append(missing, w)
		}
	}
	return len(missing) == 0, strings.Join(missing, "; ")
}

// unreadAdapter is an adapter of the vsish listing whose properties were
// not read, and why.
type unreadAdapter struct {
	dev parse.PVRDMADevice // WorldID, Index and VMName only
	why string
}

// unreadAdapters returns the first max adapters of the vsish listing
// whose properties were not read, and how many there are in all (none
// when the listing itself is missing: its own input says so). A listing
// past the per-host cap of stage 2 may hold hundreds of thousands.
func unreadAdapters(h *facts.Host, max int) (first []unreadAdapter, total int) {
	read := map[string]bool{}
	for _, d := range h.PVRDMADevices {
		read[d.WorldID+"_"+d.Index] = true
	}
	names := map[string]string{}
	for _, vm := range h.VMs {
		names[vm.WorldID] = vm.DisplayName
	}
	srcs := map[string][]facts.Source{}
	for _, s := range h.Sources[catalog.KindPVRDMAProperties] {
		srcs[s.Command] = append(srcs[s.Command], s)
	}
	var out []unreadAdapter
	for _, e := range h.PVRDMAListing {
		wid, idx, ok := e.DeviceID()
		if !ok || read[wid+"_"+idx] {
			continue
		}
		if total++; len(out) >= max {
			continue
		}
		line := "vsish -e cat " + catalog.PVRDMADevicesDir + wid + "_" + idx + "/properties"
		why := "`" + line + "` was not run"
		for _, s := range srcs[line] {
			switch {
			case s.Status != hostio.StatusCollected:
				why = fmt.Sprintf("`%s` %s", line, strings.ReplaceAll(string(s.Status), "_", " "))
				if s.Error != "" {
					why += " (" + s.Error + ")"
				}
			default:
				why = fmt.Sprintf("`%s` output could not be read", line)
			}
		}
		out = append(out, unreadAdapter{parse.PVRDMADevice{WorldID: wid, Index: idx, VMName: names[wid]}, why})
	}
	return out, total
}

// unreadProperties says which adapters of the vsish listing have no
// properties read ("" when all do): the first three, and how many more.
func unreadProperties(h *facts.Host) string {
	first, total := unreadAdapters(h, 3)
	return unreadText(first, total)
}

func unreadText(first []unreadAdapter, total int) string {
	var lost []string
	for i, a := range first {
		if i == 3 {
			break
		}
		lost = append(lost, a.why)
	}
	if total > len(lost) {
		lost = append(lost, fmt.Sprintf("and %d more", total-len(lost)))
	}
	return strings.Join(lost, "; ")
}

// unprobed says why host i has no path probe although it has peers to
// probe ("" when it has probes, or nothing to probe: no other host of the
// fleet has a PVRDMA vmknic address, or the host has no PVRDMA vmknic).
func unprobed(fleet *facts.Fleet, paths *facts.DataPath, i int) string {
	h := &fleet.Hosts[i]
	if len(h.Pings) > 0 || len(paths.Host(i).Pairs) > 0 {
		return ""
	}
	if ok, _ := h.Available(catalog.KindIPInterfaceList, catalog.KindPVRDMAVmknicOpt); ok && paths.Host(i).Vmknic == nil {
		return "" // no PVRDMA vmknic to probe from (PVRDMA_VMKNIC_UNSET says so)
	}
	// Peers: the other collected hosts with a PVRDMA vmknic address, and
	// those whose vmknics are unknown (their inputs are missing too),
	// found once per fleet (for every host, they cost hosts^2).
	c := paths.Memo("checks: may be a probe peer", func() any { return probePeerCandidates(fleet, paths) }).(peerCandidates)
	peers := c.n
	if i < len(c.may) && c.may[i] {
		peers--
	}
	if peers == 0 {
		return ""
	}
	for _, s := range h.Sources[catalog.KindVmkping] {
		if s.Status != hostio.StatusCollected {
			return fmt.Sprintf("the path probes from %s were not collected (`%s` %s)", h.Host, s.Command, strings.ReplaceAll(string(s.Status), "_", " "))
		}
	}
	if notes := probePlanNotes(h); len(notes) > 0 {
		return fmt.Sprintf("no path probe (vmkping) from %s was run: %s", h.Host, strings.Join(notes, "; "))
	}
	return fmt.Sprintf("no path probe (vmkping) from %s was run or read, although %d other scanned host(s) may be its PVRDMA peers: "+
		"a scan with --probes off, or an input without the vmkping outputs", h.Host, peers)
}

// peerCandidates says, per host of the fleet, whether it may be another
// host's probe peer, and how many may.
type peerCandidates struct {
	may []bool
	n   int
}

// probePeerCandidates finds the hosts that may be another host's probe
// peer: collected, with a PVRDMA vmknic address, or with its vmknic's
// inputs missing.
func probePeerCandidates(fleet *facts.Fleet, paths *facts.DataPath) peerCandidates {
	out := peerCandidates{may: make([]bool, len(fleet.Hosts))}
	for j := range fleet.Hosts {
		o := &fleet.Hosts[j]
		if o.Status == hostio.StatusNotCollected {
			continue
		}
		if v := paths.Host(j).Vmknic; v != nil && hasAddress(o, v.Name) {
			out.may[j] = true
		} else if ok, _ := o.Available(catalog.KindIPInterfaceList, catalog.KindIPv4Get, catalog.KindPVRDMAVmknicOpt); !ok {
			out.may[j] = true
		}
		if out.may[j] {
			out.n++
		}
	}
	return out
}

// hasAddress reports whether the host's vmknic has an IPv4 address.
func hasAddress(h *facts.Host, vmknic string) bool {
	for _, ip := range h.IPv4 {
		if ip.Name == vmknic && ip.Address != "" {
			return true
		}
	}
	return false
}
