package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Which VMs run PVRDMA on a host. vsish's PVRDMA device listing is what the
// host itself runs; when it was not read (SSH off or refused), vCenter's
// configuration of the host's powered-on VMs (an adapter of type
// VirtualVmxnet3Vrdma) says the same from outside, so that a scan through
// vCenter alone still concludes.

// pvrdmaKnowledge is what is known of a host's PVRDMA VMs.
type pvrdmaKnowledge struct {
	// Known is false when neither vsish nor vCenter listed the host's VMs;
	// Why then says why.
	Known bool
	Why   string
	// VCenter is set when the VMs are vCenter's (vsish was not read);
	// Configs are then their configurations.
	VCenter bool
	Configs []parse.VMConfig
}

// pvrdmaOn returns what is known of the host's PVRDMA VMs.
func pvrdmaOn(h *facts.Host) pvrdmaKnowledge {
	if len(h.PVRDMAListing) > 0 || len(h.PVRDMADevices) > 0 {
		return pvrdmaKnowledge{Known: true}
	}
	ok, why := h.Available(catalog.KindPVRDMADeviceLs)
	if ok {
		return pvrdmaKnowledge{Known: true}
	}
	if okVC, _ := h.Available(catalog.KindVCenterVMs); okVC {
		return pvrdmaKnowledge{Known: true, VCenter: true, Configs: h.VCenterPVRDMAVMs(true)}
	}
	return pvrdmaKnowledge{Why: why}
}

// vcenterPVRDMA returns the powered-on PVRDMA VMs vCenter lists on a host
// whose vsish listing was not read (nil otherwise).
func vcenterPVRDMA(h *facts.Host) []parse.VMConfig {
	if k := pvrdmaOn(h); k.VCenter {
		return k.Configs
	}
	return nil
}

// vcenterVMEvidence points at each VM's PVRDMA adapter in vCenter's
// configuration (its type, VirtualVmxnet3Vrdma), at most max of them.
func vcenterVMEvidence(host string, cs []parse.VMConfig, max int) []Evidence {
	var ev []Evidence
	for _, c := range cs {
		if len(ev) == max {
			break
		}
		for _, a := range c.PVRDMA() {
			e := adapterEv(host, c, a, "Type", "")
			if e.Property != "" {
				e.Property = c.Name + ": " + e.Property
			}
			ev = append(ev, e)
			break
		}
	}
	return ev
}

// pvrdmaEvidence points at what shows the host's PVRDMA VMs: the first
// entry of the vsish listing, else vCenter's first PVRDMA adapter; note
// (when set) says what it shows.
func pvrdmaEvidence(h *facts.Host, note string) []Evidence {
	var ev []Evidence
	if len(h.PVRDMAListing) > 0 {
		ev = []Evidence{Ev(h.Host, h.PVRDMAListing[0].Ref)}
	} else {
		ev = vcenterVMEvidence(h.Host, vcenterPVRDMA(h), 1)
	}
	for i := range ev {
		if note != "" {
			ev[i].Note = note
		}
	}
	return ev
}

// noDeviceEvidence points at the empty RDMA device list: vCenter's
// config.network.rdmaDevice when the list is vCenter's, else the output.
func noDeviceEvidence(h *facts.Host) []Evidence {
	if vc := h.VCenterHost; vc != nil && vc.RDMADeviceList.Command != "" {
		for _, s := range h.Sources[catalog.KindRDMADeviceList] {
			if s.Parsed && s.Command == vc.RDMADeviceList.Command {
				return []Evidence{Ev(h.Host, vc.RDMADeviceList)}
			}
		}
	}
	var ev []Evidence
	for _, s := range h.Sources[catalog.KindRDMADeviceList] {
		if s.Parsed { // a list that was not read lists nothing
			ev = append(ev, Evidence{Host: h.Host, Command: s.Command, Note: "no RDMA device listed"})
		}
	}
	return ev
}
