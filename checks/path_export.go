package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The functions below expose the data-path helpers of path.go to the TUI's
// topology view, so that it draws the same path the rules reason about.

// PathVmknic returns the vmknic PVRDMA uses on the host: the one tagged in
// /Net/PVRDMAVmknic if it exists, else the one bound to an RDMA device (nil
// when there is none).
func PathVmknic(h *facts.Host) *parse.Vmknic { return pathVmknic(h) }

// TaggedVmknic returns the vmknic name set in /Net/PVRDMAVmknic ("" if unset).
func TaggedVmknic(h *facts.Host) string {
	name, _ := pvrdmaVmknicName(h)
	return name
}

// PVRDMASwitch returns the distributed switch PVRDMA traffic uses (nil when
// it cannot be told).
func PVRDMASwitch(h *facts.Host) *parse.DVSwitch { return pvrdmaSwitch(h) }

// PathMTU returns the Ethernet MTU the host's PVRDMA path carries (the
// lowest of the vmknic, the switch and failed jumbo probes) and the parts it
// was derived from; ok is false when nothing is known.
func PathMTU(h *facts.Host) (mtu int, parts []string, ok bool) {
	p, ok := hostPathMTU(h)
	return p.MTU, p.Parts, ok
}

// RDMAMTUFor returns the largest RoCE MTU (4096..256) an Ethernet MTU
// carries after the RoCE v2 headers.
func RDMAMTUFor(ethMTU int) int { return rdmaMTUFor(ethMTU) }
