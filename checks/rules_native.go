package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// PVRDMA native endpoints (seed 004, "Configure a Virtual Machine to Use
// PVRDMA Native Endpoints"): vrdmaX.nativeEndpointSupport = "TRUE", where X
// is the index of the PVRDMA adapter (the adapter labelled "Network Adapter
// 2" is index 1: ethernet1 in the .vmx), lets a PVRDMA VM talk to RDMA
// peers that are not PVRDMA VMs. It needs virtual hardware 18, vSphere 7.0
// Update 1 or later, and PVRDMA namespaces enabled on the RDMA hardware
// (vsish then shows `Native endpoints supported:1` for the adapter).
// Without them the VM still talks RDMA to other PVRDMA VMs, so a missing
// prerequisite is a warning, never critical.

// rulesNative are this area's rules in the catalogue (catalogueList).
var rulesNative = []*Rule{
	{ID: "NATIVE_ENDPOINTS_UNAVAILABLE", Plan: planNative, Severity: Warning, Check: checkNativeEndpointsUnavailable,
		ListedBy: listedVMs},
}

var reNativeKey = regexp.MustCompile(`^(?i)vrdma([0-9]+)\.nativeEndpointSupport$`)

// nativeKeys returns a configuration's vrdmaX.nativeEndpointSupport keys
// set to TRUE, with their X, sorted.
func nativeKeys(c parse.VMConfig) (keys []string, idx map[string]int) {
	idx = map[string]int{}
	for k, val := range c.Extra {
		if m := reNativeKey.FindStringSubmatch(k); m != nil && strings.EqualFold(strings.TrimSpace(val), "true") {
			n, _ := strconv.Atoi(m[1])
			keys, idx[k] = append(keys, k), n
		}
	}
	sort.Strings(keys)
	return keys, idx
}

// adapterIndex is the index X of a VM adapter as vrdmaX names it:
// "ethernet1" (the .vmx) and "Network adapter 2" (vCenter) are 1 (-1 when
// the label says neither).
func adapterIndex(label string) int {
	if n, ok := strings.CutPrefix(label, "ethernet"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			return i
		}
	}
	if n, ok := strings.CutPrefix(strings.ToLower(label), "network adapter "); ok {
		if i, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && i > 0 {
			return i - 1
		}
	}
	return -1
}

// esxiAtLeast70U1 reports whether the host runs ESXi 7.0 Update 1 or later
// (known false when the version is unknown).
func esxiAtLeast70U1(h *facts.Host) (ok, known bool) {
	if h.Version == nil {
		return false, false
	}
	major, minor, patch, good := esxiVersion(h.Version.Version)
	if !good {
		return false, false
	}
	if major != 7 || minor != 0 {
		return major > 7, true
	}
	// 7.0: the update is the third number (7.0.1 is 7.0 U1), or Update.
	if u, err := strconv.Atoi(strings.TrimSpace(h.Version.Update)); err == nil && u > patch {
		patch = u
	}
	return patch >= 1, true
}

func checkNativeEndpointsUnavailable(in *Input, r *Reporter) {
	h := in.Host
	pvrdmaViews(h, r, func(v vmView) {
		var reasons []string
		var ev []Evidence
		enabled := false
		for _, c := range v.Configs {
			keys, idx := nativeKeys(c)
			if len(keys) == 0 {
				continue
			}
			enabled = true
			for _, k := range keys {
				ev = append(ev, cfgEv(h.Host, c, k, ""))
				a, ok, known := nativeAdapter(c, idx[k])
				if !known {
					continue // adapter labels that say no index: another source judges it
				}
				if !ok {
					var have []string
					for _, x := range c.PVRDMA() {
						have = append(have, x.Label)
					}
					reasons = append(reasons, fmt.Sprintf("%s in %s names adapter index %d, which is not one of its PVRDMA adapters (%s; the index is the "+
						"adapter's number minus 1: ethernetX in the .vmx)", k, sourceName(c), idx[k], orPlaceholder(strings.Join(have, ", "), "none")))
					continue
				}
				// The running adapter: vsish says whether native endpoints
				// are supported (PVRDMA namespaces enabled).
				for _, d := range h.PVRDMADevices {
					if d.MAC == "" || !strings.EqualFold(d.MAC, a.MAC) {
						continue
					}
					f := d.Props.Lookup("Native endpoints supported")
					if f.Line > 0 && strings.TrimSpace(f.Value) == "0" {
						why := fmt.Sprintf("vsish shows `Native endpoints supported:0` for its adapter %s", vmLabel(d))
						if ns := d.Props.Lookup("Namespace allocated"); ns.Line > 0 && strings.TrimSpace(ns.Value) == "0" {
							why += " and `Namespace allocated:0`"
							ev = append(ev, Ev(h.Host, ns.Ref))
						}
						reasons = append(reasons, why+": PVRDMA namespaces are not enabled for it on this host's RDMA hardware")
						ev = append(ev, Ev(h.Host, f.Ref))
					}
				}
			}
			if c.HWVersion > 0 && c.HWVersion < minHWNative && !containsPrefix(reasons, "virtual hardware") {
				reasons = append(reasons, fmt.Sprintf("virtual hardware version %d (native endpoints need %d or later)", c.HWVersion, minHWNative))
				ev = append(ev, cfgEv(h.Host, c, "HWVersion", ""))
			}
		}
		if !enabled {
			r.Pass(v.Name)
			return
		}
		if ok, known := esxiAtLeast70U1(h); known && !ok {
			reasons = append(reasons, fmt.Sprintf("%s runs ESXi %s (native endpoints need 7.0 Update 1 or later)", h.Host, h.Version.Version))
			ev = append(ev, Ev(h.Host, h.Version.Ref))
		}
		if len(reasons) == 0 {
			r.Pass(v.Name)
			return
		}
		r.FailSeverity(Warning, h.Host, v.Name, fmt.Sprintf("%s enables PVRDMA native endpoints, but they cannot work: %s. It still talks RDMA to other "+
			"PVRDMA VMs; only peers that are not PVRDMA VMs (bare-metal RDMA hosts) cannot be reached over RDMA",
			v.Name, strings.Join(reasons, "; ")),
			offFirst(v.Name)+"give native endpoints what they need (the vSphere documentation's “Remote Direct Memory Access for Virtual Machines”): virtual hardware 18 or later (Actions > Compatibility > Upgrade VM "+
				"Compatibility), ESXi 7.0 Update 1 or later on the host, PVRDMA namespaces enabled on the RDMA hardware as its vendor documents "+
				"(vsish then shows `Native endpoints supported:1`), and vrdmaX.nativeEndpointSupport = \"TRUE\" with X the PVRDMA adapter's index "+
				"(Network Adapter 2 is 1); then power it on. If no peer is outside PVRDMA, remove the setting instead.", ev...)
	})
}

// nativeAdapter returns the PVRDMA adapter of a configuration whose index
// is x; known is false when an adapter's label says no index (then
// whether x names one cannot be told).
func nativeAdapter(c parse.VMConfig, x int) (a parse.VMAdapter, ok, known bool) {
	known = true
	for _, p := range c.PVRDMA() {
		switch adapterIndex(p.Label) {
		case x:
			return p, true, true
		case -1:
			known = false
		}
	}
	return parse.VMAdapter{}, false, known
}

func containsPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
