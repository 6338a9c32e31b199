package tui

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Guests in the TUI: a scanned Linux guest is a row of the overview like a
// host, and opens the host screen (page_host.go) with its own details (its
// kernel and distribution instead of the ESXi release). On the screens of a
// host and of a guest, every PVRDMA adapter whose guest was scanned is shown
// with both its sides: the host's (vsish: HCA, RoCE version, Active MTU) and
// the guest's (port state, interface MTU), the same adapter by MAC.

// guestDetail is the detail line of a guest's screen.
func guestDetail(h *report.Host) []string {
	if h.Version == "" {
		return []string{"Linux guest"}
	}
	return []string{"guest: " + h.Version}
}

// adapterPairLines shows every adapter pair of a host or guest, wrapped.
func adapterPairLines(h *report.Host, width int) []string {
	var out []string
	for _, a := range h.Adapters {
		out = append(out, labeled("⇄", sanitize(a.Text()), width, stDim)...)
	}
	return out
}
