package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// The guest side of the cause graph: a guest adapter and its host-side
// adapter (same MAC) are one adapter, so their findings are linked. A
// host-side root cause (no physical HCA, TCP fallback, an RDMA device down)
// is never blamed on the guest: a guest port down under it nests under the
// host's root finding. A guest interface MTU that caps RoCE is the cause of
// the host-side LOW_MTU of the same adapter.

var guestCauseEdges = []causeEdge{
	{"PHYSICAL_HCA_UNAVAILABLE", "GUEST_PORT_DOWN", "an adapter without a physical HCA on its host cannot bring its guest port up over RDMA"},
	{"NO_RDMA_DEVICE", "GUEST_PORT_DOWN", "without an RDMA device on the host, the guest's PVRDMA port has no HCA behind it"},
	{"TCP_FALLBACK", "GUEST_PORT_DOWN", "the host falls back to TCP for PVRDMA traffic"},
	{"RDMA_DEVICE_DOWN", "GUEST_PORT_DOWN", "the host's RDMA device behind the adapter is down"},
	{"RDMA_UPLINK_NOT_ON_DVS", "GUEST_PORT_DOWN", "the adapter's vDS has no Active RDMA uplink on the host"},
	{"ROCE_NOT_SUPPORTED", "GUEST_PORT_DOWN", "the host's device has no RoCE"},
	{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "LOW_MTU", "the guest interface's MTU caps the adapter's RoCE MTU"},
}

func init() { causeEdges = append(causeEdges, guestCauseEdges...) }

// hostRootRules are the host-side findings, in order of preference, that
// a guest port down nests under.
var hostRootRules = []string{"PHYSICAL_HCA_UNAVAILABLE", "NO_RDMA_DEVICE", "RDMA_UPLINK_NOT_ON_DVS", "RDMA_DEVICE_DOWN", "ROCE_NOT_SUPPORTED", "TCP_FALLBACK"}

// linkGuestCauses links the guest findings of a run to the host findings
// of the same adapters (both ways, see above). It runs inside linkCauses,
// before severities are made consistent along the links.
func linkGuestCauses(fleet *facts.Fleet, fs []Finding) {
	if fleet == nil || len(fleet.Guests) == 0 {
		return
	}
	byKey := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail && !f.Suppressed {
			byKey[f.Key()] = i
		}
	}
	// root walks a finding's causes up to its root.
	root := func(i int) int {
		for n := 0; n < 8 && fs[i].CausedBy != nil; n++ {
			j, ok := byKey[fs[i].CausedBy.Key()]
			if !ok {
				break
			}
			i = j
		}
		return i
	}
	// hostFinding is the first failing finding of a rule on a host, for
	// the subject given ("" for any subject).
	hostFinding := func(rule, host, subject string) int {
		for i, f := range fs {
			if f.Status == StatusFail && !f.Suppressed && f.RuleID == rule && f.Host == host && (subject == "" || f.Subject == subject) {
				return i
			}
		}
		return -1
	}
	for gi := range fleet.Guests {
		g := &fleet.Guests[gi]
		for _, a := range g.Adapters {
			h, d := fleet.HostSide(a)
			if h == nil || d == nil {
				continue
			}
			label := guestLabel(a)
			hostSubject := vmLabel(*d)
			// A guest port down under a host-side root cause.
			if i, ok := byKey["GUEST_PORT_DOWN|"+g.Guest+"|"+label]; ok {
				for _, rule := range hostRootRules {
					subj := ""
					if rule == "PHYSICAL_HCA_UNAVAILABLE" {
						subj = hostSubject
					}
					if j := hostFinding(rule, h.Host, subj); j >= 0 {
						if rule == "RDMA_DEVICE_DOWN" && fs[j].Severity == Info {
							continue // a device PVRDMA does not use
						}
						r := root(j)
						fs[i].CausedBy = &Cause{RuleID: fs[r].RuleID, Host: fs[r].Host, Subject: fs[r].Subject}
						break
					}
				}
			}
			// The host's LOW_MTU of this adapter under the guest's MTU.
			if i, ok := byKey["GUEST_NETDEV_MTU_LIMITS_RDMA_MTU|"+g.Guest+"|"+label]; ok {
				if j := hostFinding("LOW_MTU", h.Host, hostSubject); j >= 0 && fs[j].CausedBy == nil {
					fs[j].CausedBy = &Cause{RuleID: fs[i].RuleID, Host: fs[i].Host, Subject: fs[i].Subject}
					if fs[i].Severity.Rank() < fs[j].Severity.Rank() {
						fs[i].Severity = fs[j].Severity // a cause is never less severe than its consequence
					}
				}
			}
		}
	}
}
