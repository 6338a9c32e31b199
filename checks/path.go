package checks

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// What the rules conclude from the data-path model (facts.HostPath, derived
// once per fleet in package facts): whether a device is relevant to
// PVRDMA, and how to read a refused probe.

// onDataPath reports whether an RDMA device is relevant to PVRDMA: its
// paired uplink is an uplink of the PVRDMA vDS, or the vDS has no usable
// RDMA device and this one is Active (it is the device the fix puts there).
// A host without PVRDMA has no data path at all.
func onDataPath(h *facts.Host, p *facts.HostPath, d parse.RDMADevice) bool {
	if use, known, _ := pvrdmaInUse(h, p); known && !use {
		return false
	}
	sw := p.Switch
	if sw == nil {
		return true // cannot tell: the safer reading keeps its severity
	}
	if hasString(sw.Uplinks, d.PairedUplink) {
		return true
	}
	return len(p.Usable) == 0 && strings.EqualFold(strings.TrimSpace(d.State), "active")
}

// offPathSeverity caps a finding about a device PVRDMA does not use at info.
func offPathSeverity(h *facts.Host, p *facts.HostPath, d parse.RDMADevice, sev Severity) Severity {
	if onDataPath(h, p, d) {
		return sev
	}
	return Info
}

func hasString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// hasPVRDMA reports whether the host runs VMs with PVRDMA adapters: by
// vsish, else (vsish not read) by vCenter's configuration of its
// powered-on VMs.
func hasPVRDMA(h *facts.Host) bool {
	return len(h.PVRDMAListing) > 0 || len(h.PVRDMADevices) > 0 || len(vcenterPVRDMA(h)) > 0
}

// jumboRefused reports whether the sending host refused the jumbo probe of
// a pair itself (its vmknic MTU is below the frame).
func jumboRefused(pp facts.ProbePair, v *parse.Vmknic) bool {
	if pp.Jumbo == nil || !pp.Jumbo.Failed() {
		return false
	}
	if vm := pp.Jumbo.Vmknic(); vm != "" && vm != v.Name {
		return false
	}
	return pp.Jumbo.MessageTooLong || (v.MTU > 0 && v.MTU < pp.Jumbo.Payload+28)
}
