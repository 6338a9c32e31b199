package checks

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// linkOtherSubnet nests a VMKPING_UNREACHABLE finding under the
// PVRDMA_VMKNIC_OTHER_SUBNET finding of either end of its probe: the
// sending host's (its tagged vmknic is in another subnet than the peer's)
// or the probed host's (the address probed is its tagged vmknic's, in
// another subnet). A probe between two hosts neither of which has that
// finding is not linked: its loss has another cause.
func linkOtherSubnet(paths *facts.DataPath, fs []Finding) {
	tagged := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail && !f.Suppressed && f.RuleID == "PVRDMA_VMKNIC_OTHER_SUBNET" {
			if _, dup := tagged[f.Host]; !dup {
				tagged[f.Host] = i
			}
		}
	}
	if len(tagged) == 0 {
		return
	}
	for i, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.RuleID != "VMKPING_UNREACHABLE" || f.CausedBy != nil {
			continue
		}
		root, ok := tagged[f.Host]
		if !ok && paths != nil {
			// The subject is "vmkN -> ADDRESS (host vmkN)".
			_, target, found := strings.Cut(f.Subject, " -> ")
			ip, _, _ := strings.Cut(target, " ")
			if owner, known := paths.Owner(ip); found && known {
				root, ok = tagged[owner.Host]
			}
		}
		if ok {
			fs[i].CausedBy = &Cause{RuleID: fs[root].RuleID, Host: fs[root].Host, Subject: fs[root].Subject}
		}
	}
}
