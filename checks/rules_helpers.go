package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
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
		if s.Status != hostio.StatusCollected {
			msg := fmt.Sprintf("`%s` %s", s.Command, strings.ReplaceAll(string(s.Status), "_", " "))
			if s.Error != "" {
				msg += " (" + s.Error + ")"
			}
			return false, msg
		}
		return false, fmt.Sprintf("`%s` output could not be parsed (%s)", s.Command, s.Error)
	}
	return false, "`" + strings.Replace(collect.Describe(kind), "<"+argPlaceholder(kind)+">", arg, 1) + "` was not run"
}

// pvrdmaInUse reports whether the host is meant to carry PVRDMA: it runs
// PVRDMA VMs or has a vmknic tagged for PVRDMA. known is false when neither
// input could be read.
func pvrdmaInUse(h *facts.Host) (use, known bool, why string) {
	if hasPVRDMA(h) {
		return true, true, ""
	}
	if name, _ := pvrdmaVmknicName(h); name != "" {
		return true, true, ""
	}
	okLs, whyLs := h.Available(hostio.KindPVRDMADeviceLs)
	okTag, whyTag := h.Available(hostio.KindPVRDMAVmknicOpt)
	if okLs && okTag {
		return false, true, ""
	}
	var reasons []string
	for _, w := range []string{whyLs, whyTag} {
		if w != "" {
			reasons = append(reasons, w)
		}
	}
	return false, false, strings.Join(reasons, "; ")
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

var rePingVmknic = regexp.MustCompile(`-I\s+(vmk[0-9]+)`)

// pingVmknic returns the vmknic a probe was sent from (from its command).
func pingVmknic(p parse.Ping) string {
	if m := rePingVmknic.FindStringSubmatch(p.Command); m != nil {
		return m[1]
	}
	return ""
}

// pingFailed reports whether no reply came back.
func pingFailed(p parse.Ping) bool {
	return p.MessageTooLong || (p.HasStats && p.Received == 0) || (!p.HasStats && len(p.Failures) > 0)
}

// peerAddr names the host and vmknic that own an IPv4 address in the fleet.
type peerAddr struct{ Host, Vmknic string }

// fleetAddrs maps every IPv4 address of the fleet to its host and vmknic.
// The map is shared within a RunRules call (see runMemo): read it only.
func fleetAddrs(fleet *facts.Fleet) map[string]peerAddr {
	if m := memoOf(fleet); m != nil {
		m.addrsOnce.Do(func() { m.addrs = buildFleetAddrs(fleet) })
		return m.addrs
	}
	return buildFleetAddrs(fleet)
}

func buildFleetAddrs(fleet *facts.Fleet) map[string]peerAddr {
	m := map[string]peerAddr{}
	if fleet == nil {
		return m
	}
	for _, h := range fleet.Hosts {
		for _, ip := range h.IPv4 {
			if ip.Address != "" {
				m[ip.Address] = peerAddr{h.Host, ip.Name}
			}
		}
	}
	return m
}

// targetLabel renders a probe target with the peer's name when known.
func targetLabel(addrs map[string]peerAddr, ip string) string {
	if p, ok := addrs[ip]; ok {
		return fmt.Sprintf("%s (%s %s)", ip, p.Host, p.Vmknic)
	}
	return ip
}

// probePair is the small and the jumbo probe to one target.
type probePair struct {
	Target       string
	Small, Jumbo *parse.Ping
}

// probePairs groups a host's probes by target, sorted by target.
func probePairs(h *facts.Host) []probePair {
	idx := map[string]*probePair{}
	for i := range h.Pings {
		p := &h.Pings[i]
		pp := idx[p.Target]
		if pp == nil {
			pp = &probePair{Target: p.Target}
			idx[p.Target] = pp
		}
		if p.Payload+28 <= 1500 {
			pp.Small = p
		} else {
			pp.Jumbo = p
		}
	}
	out := make([]probePair, 0, len(idx))
	for _, pp := range idx {
		out = append(out, *pp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

func statsFor(h *facts.Host, device string) *parse.RDMAStats {
	for i := range h.RDMAStats {
		if h.RDMAStats[i].Device == device {
			return &h.RDMAStats[i]
		}
	}
	return nil
}

// errorCounters returns the non-zero error counters of an RDMA device
// ("Error packets received", "Queue pairs in ERR state", ...), in output order.
func errorCounters(s *parse.RDMAStats) []string {
	if s == nil {
		return nil
	}
	keys := append([]string(nil), s.Record.Keys...)
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
	for i := range h.NICDetails {
		if h.NICDetails[i].Name == vmnic || strings.HasSuffix(h.NICDetails[i].Command, " "+vmnic) {
			return &h.NICDetails[i]
		}
	}
	return nil
}

func dcbFor(h *facts.Host, vmnic string) *parse.DCBStatus {
	for i := range h.DCB {
		if h.DCB[i].Nic == vmnic {
			return &h.DCB[i]
		}
	}
	return nil
}

func nicByName(h *facts.Host, vmnic string) *parse.NIC {
	for i := range h.NICs {
		if h.NICs[i].Name == vmnic {
			return &h.NICs[i]
		}
	}
	return nil
}

func ipv4Of(h *facts.Host, vmk string) *parse.IPv4Interface {
	for i := range h.IPv4 {
		if h.IPv4[i].Name == vmk {
			return &h.IPv4[i]
		}
	}
	return nil
}

// dvsVmknic returns a vmknic on the named distributed switch ("" if none),
// preferring one bound to an RDMA device.
func dvsVmknic(h *facts.Host, dvs string) string {
	for _, b := range h.RDMAVmknics {
		if v := findVmknic(h, b.Vmknic); v != nil && v.VDSName == dvs {
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
	case hostio.KindRDMAStats:
		return "vmrdmaN"
	case hostio.KindNICGet, hostio.KindDCBStatus:
		return "vmnicN"
	}
	return ""
}
