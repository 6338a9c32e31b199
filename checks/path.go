package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// This file derives, from a host's facts, the pieces of the PVRDMA data
// path the rules reason about: the tagged vmknic, its switch, the RDMA
// devices and the Ethernet MTU the path really carries.

// pvrdmaVmknicName returns the vmknic tagged in /Net/PVRDMAVmknic ("" if unset).
func pvrdmaVmknicName(h *facts.Host) (string, parse.Ref) {
	if h.PVRDMAVmknic == nil {
		return "", parse.Ref{}
	}
	ref := h.PVRDMAVmknic.Record.RefOf("String Value")
	if ref.Line == 0 {
		ref = h.PVRDMAVmknic.Ref
	}
	return strings.TrimSpace(h.PVRDMAVmknic.StringValue), ref
}

func findVmknic(h *facts.Host, name string) *parse.Vmknic {
	for i := range h.Vmknics {
		if h.Vmknics[i].Name == name {
			return &h.Vmknics[i]
		}
	}
	return nil
}

// pathVmknic returns the vmknic PVRDMA uses: the tagged one if it exists,
// else the one bound to an RDMA device.
func pathVmknic(h *facts.Host) *parse.Vmknic {
	if name, _ := pvrdmaVmknicName(h); name != "" {
		if v := findVmknic(h, name); v != nil {
			return v
		}
	}
	for _, b := range h.RDMAVmknics {
		if v := findVmknic(h, b.Vmknic); v != nil {
			return v
		}
	}
	return nil
}

// pvrdmaSwitch returns the distributed switch the PVRDMA data path uses:
// the one whose ports the PVRDMA VMs' adapters are connected to, else the
// one holding an RDMA device's paired uplink (an Active one first), else the
// one of the PVRDMA vmknic, else the only distributed switch. The tagged
// vmknic is only a late hint: VMware's own setup guides tag vmk0 on the
// management standard switch while the RDMA data flows over the vDS.
func pvrdmaSwitch(h *facts.Host) *parse.DVSwitch {
	vms := map[string]bool{}
	for _, d := range h.PVRDMADevices {
		if d.VMName != "" {
			vms[d.VMName] = true
		}
	}
	if len(vms) > 0 {
		for i := range h.DVSwitches {
			for _, port := range h.DVSwitches[i].Record.Nested["DVPort"] {
				client := port.Get("Client")
				if j := strings.LastIndex(client, ".eth"); j > 0 && vms[client[:j]] {
					return &h.DVSwitches[i]
				}
			}
		}
	}
	for _, devs := range [][]parse.RDMADevice{activeRDMA(h), h.RDMADevices} {
		for i := range h.DVSwitches {
			for _, d := range devs {
				if hasString(h.DVSwitches[i].Uplinks, d.PairedUplink) {
					return &h.DVSwitches[i]
				}
			}
		}
	}
	if v := pathVmknic(h); v != nil && v.VDSName != "" {
		for i := range h.DVSwitches {
			if h.DVSwitches[i].Name == v.VDSName {
				return &h.DVSwitches[i]
			}
		}
	}
	if len(h.DVSwitches) == 1 {
		return &h.DVSwitches[0]
	}
	return nil
}

// dataPathVmknic returns the PVRDMA vmknic when it is on the PVRDMA vDS
// (so that its MTU and its probes are part of the data path), else nil.
func dataPathVmknic(h *facts.Host) *parse.Vmknic {
	v, sw := pathVmknic(h), pvrdmaSwitch(h)
	if v == nil || sw == nil || v.VDSName != sw.Name {
		return nil
	}
	return v
}

// rdmaUplinks returns the uplinks of the PVRDMA vDS that are paired with an
// RDMA device (Active ones first).
func rdmaUplinks(h *facts.Host) []string {
	sw := pvrdmaSwitch(h)
	if sw == nil {
		return nil
	}
	var out []string
	for _, devs := range [][]parse.RDMADevice{activeRDMA(h), h.RDMADevices} {
		for _, d := range devs {
			if hasString(sw.Uplinks, d.PairedUplink) && !hasString(out, d.PairedUplink) {
				out = append(out, d.PairedUplink)
			}
		}
	}
	return out
}

// onDataPath reports whether an RDMA device is relevant to PVRDMA: its
// paired uplink is an uplink of the PVRDMA vDS, or the vDS has no usable
// RDMA device and this one is Active (it is the device the fix puts there).
// A host without PVRDMA has no data path at all.
func onDataPath(h *facts.Host, d parse.RDMADevice) bool {
	if use, known, _ := pvrdmaInUse(h); known && !use {
		return false
	}
	sw := pvrdmaSwitch(h)
	if sw == nil {
		return true // cannot tell: the safer reading keeps its severity
	}
	if hasString(sw.Uplinks, d.PairedUplink) {
		return true
	}
	return len(usableRDMA(h)) == 0 && strings.EqualFold(strings.TrimSpace(d.State), "active")
}

// offPathSeverity caps a finding about a device PVRDMA does not use at info.
func offPathSeverity(h *facts.Host, d parse.RDMADevice, sev Severity) Severity {
	if onDataPath(h, d) {
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

// activeRDMA returns the RDMA devices whose state is Active.
func activeRDMA(h *facts.Host) []parse.RDMADevice {
	var out []parse.RDMADevice
	for _, d := range h.RDMADevices {
		if strings.EqualFold(strings.TrimSpace(d.State), "active") {
			out = append(out, d)
		}
	}
	return out
}

// usableRDMA returns the Active RDMA devices PVRDMA can use: those whose
// paired uplink is an uplink of the PVRDMA distributed switch. When the
// switch is unknown, every Active device counts (the safer reading for a
// TCP-fallback finding is not to claim one without proof).
func usableRDMA(h *facts.Host) []parse.RDMADevice {
	active := activeRDMA(h)
	sw := pvrdmaSwitch(h)
	if sw == nil {
		return active
	}
	var out []parse.RDMADevice
	for _, d := range active {
		if hasString(sw.Uplinks, d.PairedUplink) {
			out = append(out, d)
		}
	}
	return out
}

// hasPVRDMA reports whether the host runs VMs with PVRDMA adapters.
func hasPVRDMA(h *facts.Host) bool {
	return len(h.PVRDMAListing) > 0 || len(h.PVRDMADevices) > 0
}

// pathMTU is the Ethernet MTU the PVRDMA data path of a host carries, with
// the evidence it was derived from. The data path is the PVRDMA vDS and its
// RDMA uplink; probes sent from a vmknic on that vDS can prove less. The
// tagged vmknic's own MTU is not part of it: RDMA frames do not cross the
// vmknic (MTU_MISMATCH compares it when it sits on the vDS).
type pathMTU struct {
	MTU      int
	Evidence []Evidence
	Parts    []string // "rdma-dvs MTU 9000", "vmnic4 MTU 9000", "vmkping 8972 to 192.168.50.12 lost"
	// Proved is set when a probe proved the path carries no more than MTU.
	Proved bool
}

func hostPathMTU(h *facts.Host) (pathMTU, bool) {
	var p pathMTU
	lower := func(mtu int, part string, ev Evidence) {
		if mtu <= 0 {
			return
		}
		if p.MTU == 0 || mtu < p.MTU {
			p.MTU = mtu
		}
		p.Parts = append(p.Parts, part)
		p.Evidence = append(p.Evidence, ev)
	}
	sw := pvrdmaSwitch(h)
	if sw == nil {
		return p, false
	}
	lower(sw.MTU, sw.Name+" MTU "+strconv.Itoa(sw.MTU), Ev(h.Host, sw.Record.RefOf("MTU")))
	for _, u := range rdmaUplinks(h) {
		if n := nicByName(h, u); n != nil && n.MTU > 0 && n.MTU != sw.MTU {
			lower(n.MTU, u+" MTU "+strconv.Itoa(n.MTU), Ev(h.Host, n.Ref))
		}
	}
	if p.MTU == 0 {
		return p, false
	}
	// Probes from a vmknic on the vDS measure what the physical path really
	// carries; a local "Message too long" refusal proves nothing about it.
	if v := dataPathVmknic(h); v != nil {
		for _, pp := range probePairs(h) {
			if jumboLost(pp, v) && pp.Jumbo.Payload+28 <= p.MTU {
				lower(1500, fmt.Sprintf("vmkping -d -s %d to %s lost", pp.Jumbo.Payload, pp.Target), Ev(h.Host, pp.Jumbo.Ref))
				p.Proved = true
			}
		}
	}
	return p, true
}

// jumboLost reports whether the jumbo probe of a pair, sent from vmknic,
// left the host and got no reply while the small probe to the same peer
// did: the network between them drops jumbo frames (silent loss).
// A vmknic whose MTU is below the frame cannot have sent it: that is a
// local refusal even when vmkping printed no "Message too long".
func jumboLost(pp probePair, v *parse.Vmknic) bool {
	if pp.Small == nil || pp.Jumbo == nil || pingFailed(*pp.Small) || !pingFailed(*pp.Jumbo) || pp.Jumbo.MessageTooLong {
		return false
	}
	if v.MTU > 0 && v.MTU < pp.Jumbo.Payload+28 {
		return false
	}
	vm := pingVmknic(*pp.Jumbo)
	return vm == "" || vm == v.Name
}

// jumboRefused reports whether the sending host refused the jumbo probe of
// a pair itself (its vmknic MTU is below the frame).
func jumboRefused(pp probePair, v *parse.Vmknic) bool {
	if pp.Jumbo == nil || !pingFailed(*pp.Jumbo) {
		return false
	}
	if vm := pingVmknic(*pp.Jumbo); vm != "" && vm != v.Name {
		return false
	}
	return pp.Jumbo.MessageTooLong || (v.MTU > 0 && v.MTU < pp.Jumbo.Payload+28)
}

// rdmaMTUFor returns the largest RoCE MTU (4096..256) an Ethernet MTU
// carries after 96 bytes of RoCE v2 headers (Linux iboe_get_mtu).
func rdmaMTUFor(ethMTU int) int {
	usable := ethMTU - 96
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if usable >= m {
			return m
		}
	}
	return 0
}
