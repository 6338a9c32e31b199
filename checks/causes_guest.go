package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// The guest side of the cause graph: a guest adapter and its host-side
// adapter (same MAC) are one adapter, so their findings are linked where a
// source says one follows from the other. A guest interface MTU that caps
// RoCE is the cause of the host-side LOW_MTU of the same adapter; a kernel
// without vmw_pvrdma is the cause of the guest's missing PVRDMA device.
//
// A guest port DOWN is never nested under a host-side finding: without a
// physical HCA (no RDMA device, an uplink off the vDS, a device down)
// PVRDMA falls back to TCP (seed 004), and such adapters keep their guest
// port ACTIVE; no document ties a DOWN port to the host side, while seeds
// 000/001 tie it to the guest's module load order.

// linkGuestCauses links the guest findings of a run to the host findings
// of the same adapters. It runs inside linkCauses, before severities are
// made consistent along the links.
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
	// hostFinding is the first failing finding of a rule on a host, for
	// the subject given.
	hostFinding := func(rule, host, subject string) int {
		if i, ok := byKey[rule+"|"+host+"|"+subject]; ok {
			return i
		}
		return -1
	}
	for gi := range fleet.Guests {
		g := &fleet.Guests[gi]
		// No PVRDMA device because the kernel has no vmw_pvrdma module.
		if i, ok := byKey["GUEST_NO_PVRDMA_DEVICE|"+g.Guest+"|"+g.Guest]; ok && g.ModuleMissing {
			if j, ok := byKey["GUEST_KERNEL_TOO_OLD|"+g.Guest+"|"+g.Guest]; ok && fs[i].CausedBy == nil {
				fs[i].CausedBy = &Cause{RuleID: fs[j].RuleID, Host: fs[j].Host, Subject: fs[j].Subject}
			}
		}
		for _, a := range g.Adapters {
			h, d := fleet.HostSide(a)
			if h == nil || d == nil {
				continue
			}
			// The host's LOW_MTU of this adapter under the guest's MTU.
			if i, ok := byKey["GUEST_NETDEV_MTU_LIMITS_RDMA_MTU|"+g.Guest+"|"+guestLabel(a)]; ok {
				if j := hostFinding("LOW_MTU", h.Host, vmLabel(*d)); j >= 0 && fs[j].CausedBy == nil {
					fs[j].CausedBy = &Cause{RuleID: fs[i].RuleID, Host: fs[i].Host, Subject: fs[i].Subject}
					if fs[i].Severity.Rank() < fs[j].Severity.Rank() {
						fs[i].Severity = fs[j].Severity // a cause is never less severe than its consequence
					}
				}
			}
		}
	}
}
