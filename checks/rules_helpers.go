package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Helpers shared by the rule files: per-command availability of stage 2
// inputs, PVRDMA applicability, probes and peers.

// sourceFor reports whether the capture of kind whose command names arg
// (e.g. "-n vmnic5" -> arg "vmnic5") was collected and parsed on h.
func sourceFor(h *facts.Host, kind hostio.Kind, arg string) (ok bool, why string) {
	if ok, why := h.Available(); !ok {
		return false, why
	}
	for _, s := range h.Sources[kind] {
		f := strings.Fields(s.Command)
		if len(f) == 0 || f[len(f)-1] != arg {
			continue
		}
		if s.Parsed {
			return true, ""
		}
		return false, s.Failure()
	}
	return false, "`" + strings.Replace(catalog.Describe(kind), "<"+argPlaceholder(kind)+">", arg, 1) + "` was not run"
}

// pvrdmaInUse reports whether the host carries PVRDMA now: it runs PVRDMA
// VMs (vsish, else vCenter), or, when neither listed its VMs, a vmknic is
// tagged for PVRDMA. known is false when nothing says. A host known to run
// none is judged by its readiness (HOST_NOT_READY, readiness.go), whatever
// its vmknic tag says: the host rules do not report it twice.
func pvrdmaInUse(h *facts.Host, p *facts.HostPath) (use, known bool, why string) {
	k := pvrdmaOn(h)
	if !k.Known {
		if p != nil && p.Tagged != "" {
			// Its VMs are unknown, but the tag says the host is meant for
			// PVRDMA: judge it as one that carries it.
			return true, true, ""
		}
		return false, false, k.Why
	}
	return hasPVRDMA(h), true, ""
}

// sourceEv points at a whole capture (for empty listings).
func sourceEv(h *facts.Host, kind hostio.Kind, note string) []Evidence {
	var ev []Evidence
	for _, s := range h.Sources[kind] {
		ev = append(ev, Evidence{Host: h.Host, Command: s.Command, Note: note})
	}
	return ev
}

// esxiVersion parses "8.0.3" into numbers (missing parts are 0).
func esxiVersion(v string) (major, minor, patch int, ok bool) {
	parts := strings.Split(strings.TrimSpace(v), ".")
	nums := make([]int, 3)
	for i := 0; i < len(parts) && i < 3; i++ {
		n, err := strconv.Atoi(strings.TrimSpace(parts[i]))
		if err != nil {
			return 0, 0, 0, false
		}
		nums[i] = n
	}
	if len(parts) == 0 || parts[0] == "" {
		return 0, 0, 0, false
	}
	return nums[0], nums[1], nums[2], true
}

// targetLabel renders a probe target with the peer's name when known.
func targetLabel(paths *facts.DataPath, ip string) string {
	if p, ok := paths.Owner(ip); ok {
		return fmt.Sprintf("%s (%s %s)", ip, p.Host, p.Vmknic)
	}
	return ip
}

// find returns the first element of xs that match accepts (nil if none).
func find[T any](xs []T, match func(*T) bool) *T {
	for i := range xs {
		if match(&xs[i]) {
			return &xs[i]
		}
	}
	return nil
}

func statsFor(h *facts.Host, device string) *parse.RDMAStats {
	return find(h.RDMAStats, func(s *parse.RDMAStats) bool { return s.Device == device })
}

// errorCounters returns the non-zero error counters of an RDMA device
// ("Error packets received", "Queue pairs in ERR state", ...), in output order.
func errorCounters(s *parse.RDMAStats) []string {
	if s == nil {
		return nil
	}
	keys := s.Record.Keys()
	if len(keys) == 0 {
		for k := range s.Counters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	var out []string
	for _, k := range keys {
		lk := strings.ToLower(k)
		if !strings.Contains(lk, "error") && !strings.Contains(k, "ERR") {
			continue
		}
		if v, ok := s.Counters[k]; ok && v > 0 {
			out = append(out, k)
		}
	}
	return out
}

func nicDetail(h *facts.Host, vmnic string) *parse.NICDetail {
	return find(h.NICDetails, func(d *parse.NICDetail) bool {
		return d.Name == vmnic || strings.HasSuffix(d.Command, " "+vmnic)
	})
}

func dcbFor(h *facts.Host, vmnic string) *parse.DCBStatus {
	return find(h.DCB, func(d *parse.DCBStatus) bool { return d.Nic == vmnic })
}

func ipv4Of(h *facts.Host, vmk string) *parse.IPv4Interface {
	return find(h.IPv4, func(ip *parse.IPv4Interface) bool { return ip.Name == vmk })
}

// dvsVmknic returns a vmknic on the named distributed switch ("" if none),
// preferring one bound to an RDMA device.
func dvsVmknic(h *facts.Host, dvs string) string {
	for _, b := range h.RDMAVmknics {
		if v := h.VmknicNamed(b.Vmknic); v != nil && v.VDSName == dvs {
			return v.Name
		}
	}
	for _, v := range h.Vmknics {
		if v.VDSName == dvs && v.Name != "vmk0" {
			return v.Name
		}
	}
	return ""
}

func orPlaceholder(v, placeholder string) string {
	if v == "" {
		return placeholder
	}
	return v
}

// argPlaceholder is the placeholder of a stage-2 template for its argument.
func argPlaceholder(kind hostio.Kind) string {
	switch kind {
	case catalog.KindRDMAStats:
		return "vmrdmaN"
	case catalog.KindNICGet, catalog.KindDCBStatus:
		return "vmnicN"
	}
	return ""
}

func vmLabel(d parse.PVRDMADevice) string {
	name := d.VMName
	if name == "" {
		name = "world " + d.WorldID
	}
	return fmt.Sprintf("%s (PVRDMA adapter %s)", name, d.Index)
}

func pvrdmaVMNames(h *facts.Host) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range h.PVRDMADevices {
		n := d.VMName
		if n == "" {
			n = "world " + d.WorldID
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		for _, e := range h.PVRDMAListing {
			out = append(out, "device "+e.Name)
		}
	}
	if len(out) == 0 {
		for _, c := range vcenterPVRDMA(h) {
			out = append(out, c.Name)
		}
	}
	return out
}
