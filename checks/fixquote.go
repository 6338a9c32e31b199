package checks

import (
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// Fixes are pasted into a shell (ESXi's busybox sh) by people who read
// them first, so a value read from a host goes into a fix only in a form
// that the shell reads exactly as it is shown: as it is when it holds
// nothing a shell treats specially, else in POSIX single quotes. A value
// that cannot be shown as itself (control or format characters, invalid
// UTF-8: the report shows those escaped, so a pasted copy would differ) is
// never put into a fix: a placeholder, or the VM's world ID, stands for it.

// shellArg renders a host-supplied value as one argument of a command in a
// fix; placeholder stands for an empty or unshowable value (the plans'
// commands quote the same way).
func shellArg(v, placeholder string) string { return plan.ShellArg(v, placeholder) }

// showable reports whether every character of s is shown as itself.
func showable(s string) bool { return plan.Showable(s) }

// fixVM names a VM in a fix: its display name (quoted when a shell would
// read it otherwise), or, when the name cannot be shown as itself, its
// world ID, saying so.
func fixVM(name, worldID string) string {
	if !digitsOnly(worldID) {
		worldID = ""
	}
	switch {
	case name != "" && showable(name):
		return textsafe.ShellQuote(name)
	case worldID == "":
		return "the VM"
	case name == "":
		return "the VM with world ID " + worldID
	}
	return fmt.Sprintf("the VM with world ID %s (its name has control characters; `esxcli vm process list` shows it)", worldID)
}

// fixVMNames is pvrdmaVMNames for a fix: every PVRDMA VM of the host,
// named by fixVM.
func fixVMNames(h *facts.Host) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range h.PVRDMADevices {
		n := fixVM(d.VMName, d.WorldID)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		for _, e := range h.PVRDMAListing {
			out = append(out, "device "+shellArg(e.Name, "(name not shown: control characters)"))
		}
	}
	if len(out) == 0 {
		for _, c := range vcenterPVRDMA(h) {
			out = append(out, fixVM(c.Name, ""))
		}
	}
	return out
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
