package checks

import (
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// The cause graph: one problem on a host often shows up as several
// findings (no RDMA device -> the host falls back to TCP -> every PVRDMA
// adapter on it has no physical HCA). Each finding may name the finding
// that causes it; reports lead with root causes and nest the consequences
// under them, with their evidence, never dropping them.

// Cause names the finding that causes another: rule, host and subject.
type Cause struct {
	RuleID  string `json:"rule_id"`
	Host    string `json:"host"`
	Subject string `json:"subject"`
}

// Key is the cause's finding key (as Finding.Key).
func (c Cause) Key() string { return c.RuleID + "|" + c.Host + "|" + c.Subject }

// causeEdge is one kind of causal link between two rules.
type causeEdge struct {
	Cause, Effect string
	// Why says, in a few words, why the effect follows ("and therefore ...").
	Why string
}

// causeEdges are every link linkCauses can make, for `rules explain`.
var causeEdges = []causeEdge{
	{"NO_RDMA_DEVICE", "TCP_FALLBACK", "without an RDMA device, cross-host PVRDMA traffic falls back to TCP"},
	{"NO_RDMA_DEVICE", "PHYSICAL_HCA_UNAVAILABLE", "without an RDMA device, no PVRDMA adapter on the host can bind to an HCA"},
	{"RDMA_UPLINK_NOT_ON_DVS", "TCP_FALLBACK", "the PVRDMA vDS has no Active RDMA uplink, so the host's PVRDMA traffic falls back to TCP"},
	{"RDMA_UPLINK_NOT_ON_DVS", "PHYSICAL_HCA_UNAVAILABLE", "the adapters cannot bind to an HCA that is not an uplink of their vDS"},
	{"RDMA_DEVICE_DOWN", "TCP_FALLBACK", "the PVRDMA vDS's only RDMA device is down, so the host's PVRDMA traffic falls back to TCP"},
	{"RDMA_DEVICE_DOWN", "PHYSICAL_HCA_UNAVAILABLE", "the adapters lose their HCA while its device is down"},
	{"ROCE_NOT_SUPPORTED", "TCP_FALLBACK", "a device without RoCE cannot carry PVRDMA traffic"},
	{"ROCE_NOT_SUPPORTED", "PHYSICAL_HCA_UNAVAILABLE", "a device without RoCE cannot back a PVRDMA adapter"},
	{"PFC_DISABLED", "RDMA_ERRORS", "without lossless Ethernet, congestion drops RoCE packets, which the device counts as errors"},
	{"MTU_MISMATCH", "ACTIVE_MTU_ABOVE_PATH", "the path drops jumbo frames, so RoCE packets above 1500 bytes are lost"},
	{"PATH_MTU_BLOCKED", "ACTIVE_MTU_ABOVE_PATH", "a link on the path drops frames above the measured path MTU, so the larger RoCE packets are lost"},
	{"MTU_MISMATCH", "LOW_MTU", "the PVRDMA vmknic's MTU caps the RDMA MTU the host reports for its adapters (1500 allows 1024)"},
	{"PATH_MTU_BLOCKED", "LOW_MTU", "adapters on a host whose paths carry less than the vDS MTU run at a lower RDMA MTU than their peers"},
	{"ESXI_VERSION_UNSUPPORTED", "NO_RDMA_DEVICE", "an ESXi release without PVRDMA support"},
	{"ESXI_VERSION_UNSUPPORTED", "PVRDMA_FIREWALL_CLOSED", "an ESXi release without PVRDMA has no pvrdma ruleset"},
	{"ESXI_VERSION_UNSUPPORTED", "PVRDMA_VMKNIC_UNSET", "an ESXi release without PVRDMA has no /Net/PVRDMAVmknic"},
	{"VM_DEVICE_PROTOCOL_MISMATCH", "ROCE_VERSION_MISMATCH", "the adapter speaks a RoCE version its host's device does not support, so it differs from its peers'"},
	{"ROCE_NOT_SUPPORTED", "VM_DEVICE_PROTOCOL_MISMATCH", "a device without RoCE supports no adapter's RoCE version"},
}

// CanCause returns the rules a rule's findings can cause, sorted.
func CanCause(id string) []string { return edgeEnds(id, true) }

// CanBeCausedBy returns the rules whose findings can cause this rule's.
func CanBeCausedBy(id string) []string { return edgeEnds(id, false) }

func edgeEnds(id string, fromCause bool) []string {
	var out []string
	for _, e := range causeEdges {
		if fromCause && e.Cause == id {
			out = append(out, e.Effect)
		}
		if !fromCause && e.Effect == id {
			out = append(out, e.Cause)
		}
	}
	sort.Strings(out)
	return out
}

// CauseWhy is the reason an effect follows from a cause ("" if no edge).
func CauseWhy(cause, effect string) string {
	for _, e := range causeEdges {
		if e.Cause == cause && e.Effect == effect {
			return e.Why
		}
	}
	return ""
}

// hcaCauses are the rules, in order of preference, that explain why a
// host's PVRDMA adapters have no physical HCA: the first one found is the
// root cause of the host's TCP_FALLBACK and PHYSICAL_HCA_UNAVAILABLE.
var hcaCauses = []string{"NO_RDMA_DEVICE", "RDMA_UPLINK_NOT_ON_DVS", "RDMA_DEVICE_DOWN", "ROCE_NOT_SUPPORTED"}

// linkCauses sets CausedBy on the findings that follow from another
// finding of the same run, then makes severities consistent along each
// link: a consequence is never more severe than its cause, and a cause
// never less severe than its worst consequence (consequences are capped:
// the cause's severity is the rule's judgement of how much the problem
// matters, e.g. NO_RDMA_DEVICE is info when no peer host runs PVRDMA).
func linkCauses(fleet *facts.Fleet, paths *facts.DataPath, fs []Finding) {
	type hostIdx map[string][]int // rule -> indexes of failing findings
	byHost := map[string]hostIdx{}
	for i, f := range fs {
		if f.Status != StatusFail || f.Suppressed {
			continue
		}
		if byHost[f.Host] == nil {
			byHost[f.Host] = hostIdx{}
		}
		byHost[f.Host][f.RuleID] = append(byHost[f.Host][f.RuleID], i)
	}
	host := func(name string) *facts.Host {
		if fleet == nil {
			return nil
		}
		for i := range fleet.Hosts {
			if fleet.Hosts[i].Host == name {
				return &fleet.Hosts[i]
			}
		}
		return nil
	}
	causeOf := func(i int) *Cause {
		f := fs[i]
		return &Cause{RuleID: f.RuleID, Host: f.Host, Subject: f.Subject}
	}
	for name, idx := range byHost {
		h := host(name)
		// The HCA root: the first rule of hcaCauses that fired on the host
		// (RDMA_DEVICE_DOWN only for a device on the data path).
		hca := -1
		for _, rule := range hcaCauses {
			for _, i := range idx[rule] {
				if rule == "RDMA_DEVICE_DOWN" && fs[i].Severity == Info {
					continue // a device PVRDMA does not use
				}
				hca = i
				break
			}
			if hca >= 0 {
				break
			}
		}
		if hca >= 0 && (h == nil || len(paths.For(h).Usable) == 0) {
			for _, rule := range []string{"TCP_FALLBACK", "PHYSICAL_HCA_UNAVAILABLE"} {
				for _, i := range idx[rule] {
					fs[i].CausedBy = causeOf(hca)
				}
			}
		}
		// RDMA errors on a device whose uplink has no lossless configuration.
		for _, i := range idx["RDMA_ERRORS"] {
			for _, j := range idx["PFC_DISABLED"] {
				if h != nil && pairedUplink(h, fs[i].Subject) == fs[j].Subject {
					fs[i].CausedBy = causeOf(j)
				}
			}
		}
		// An Active MTU above what the path proved: the path drops jumbo frames.
		for _, i := range idx["ACTIVE_MTU_ABOVE_PATH"] {
			for _, j := range idx["MTU_MISMATCH"] {
				if fs[j].Severity == Critical {
					fs[i].CausedBy = causeOf(j)
				}
			}
		}
		// The host's PVRDMA vmknic below its vDS's MTU: PVRDMA reports the
		// port MTU from the ESXi side, so the vmknic caps the adapters' RDMA
		// MTU (a guest interface already at the path MTU cannot raise it).
		if h != nil {
			linkVmknicMTU(h, paths.For(h), fs, idx["MTU_MISMATCH"], idx["LOW_MTU"], causeOf)
		}
		// A measured path below the configured MTU: the blocked link is the
		// cause of the adapters' MTU findings on the hosts at both ends.
		for _, rule := range []string{"ACTIVE_MTU_ABOVE_PATH", "LOW_MTU"} {
			for _, i := range idx[rule] {
				if fs[i].CausedBy != nil {
					continue
				}
				if is := idx["PATH_MTU_BLOCKED"]; len(is) > 0 {
					fs[i].CausedBy = causeOf(is[0])
				}
			}
		}
		linkVMCauses(fs, idx, causeOf)
		// An ESXi release without PVRDMA explains the host's other findings.
		if v := idx["ESXI_VERSION_UNSUPPORTED"]; len(v) > 0 {
			for rule, is := range idx {
				if CauseWhy("ESXI_VERSION_UNSUPPORTED", rule) == "" {
					continue
				}
				for _, i := range is {
					if fs[i].CausedBy == nil {
						fs[i].CausedBy = causeOf(v[0])
					}
				}
			}
		}
	}
	// Guest findings and the host findings of the same adapter.
	linkGuestCauses(fleet, fs)
	// Severity along the links (chains are at most two deep; iterate to a
	// fixed point anyway).
	key := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail {
			key[f.Key()] = i
		}
	}
	for changed, n := true, 0; changed && n < 8; n++ {
		changed = false
		for i := range fs {
			c := fs[i].CausedBy
			if c == nil {
				continue
			}
			j, ok := key[c.Key()]
			if !ok {
				fs[i].CausedBy = nil
				continue
			}
			if fs[i].Severity.Rank() > fs[j].Severity.Rank() {
				fs[i].Severity = fs[j].Severity
				changed = true
			}
		}
	}
}

// pairedUplink returns the paired uplink of an RDMA device ("" if unknown).
func pairedUplink(h *facts.Host, device string) string {
	for _, d := range h.RDMADevices {
		if d.Name == device {
			return d.PairedUplink
		}
	}
	return ""
}

// RootCauses returns the failing findings that no other finding causes.
func RootCauses(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Status == StatusFail && f.CausedBy == nil {
			out = append(out, f)
		}
	}
	return out
}

// Consequences returns the findings caused by the finding with key, in order.
func Consequences(fs []Finding, key string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Status == StatusFail && f.CausedBy != nil && f.CausedBy.Key() == key {
			out = append(out, f)
		}
	}
	return out
}

// ThereforeText is how a consequence reads under its cause: "and therefore
// <message>".
func ThereforeText(f Finding) string {
	m := strings.TrimSpace(f.Message)
	if m == "" {
		return ""
	}
	return "and therefore " + m
}

// linkVmknicMTU makes MTU_MISMATCH on the host's PVRDMA vmknic the cause of
// the host's LOW_MTU findings whose Active MTU is within what the vmknic's
// MTU allows.
func linkVmknicMTU(h *facts.Host, hp *facts.HostPath, fs []Finding, mismatch, low []int, causeOf func(int) *Cause) {
	v := hp.DataVmknic
	if v == nil || v.MTU <= 0 {
		return
	}
	capped := facts.RDMAMTUFor(v.MTU)
	for _, j := range mismatch {
		if fs[j].Subject != v.Name {
			continue
		}
		for _, i := range low {
			if fs[i].CausedBy != nil {
				continue
			}
			for _, d := range h.PVRDMADevices {
				if vmLabel(d) == fs[i].Subject && d.ActiveMTU > 0 && d.ActiveMTU <= capped {
					fs[i].CausedBy = causeOf(j)
				}
			}
		}
	}
}
