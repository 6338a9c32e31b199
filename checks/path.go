package checks

import (
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

// pvrdmaSwitch returns the distributed switch PVRDMA traffic uses: the one
// of the PVRDMA vmknic, else the one holding an RDMA paired uplink, else the
// only distributed switch.
func pvrdmaSwitch(h *facts.Host) *parse.DVSwitch {
	if v := pathVmknic(h); v != nil && v.VDSName != "" {
		for i := range h.DVSwitches {
			if h.DVSwitches[i].Name == v.VDSName {
				return &h.DVSwitches[i]
			}
		}
	}
	for i := range h.DVSwitches {
		for _, d := range h.RDMADevices {
			if hasString(h.DVSwitches[i].Uplinks, d.PairedUplink) {
				return &h.DVSwitches[i]
			}
		}
	}
	if len(h.DVSwitches) == 1 {
		return &h.DVSwitches[0]
	}
	return nil
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

// pathMTU is the Ethernet MTU the PVRDMA path of a host carries, with the
// evidence it was derived from. ok is false when nothing is known.
type pathMTU struct {
	MTU      int
	Evidence []Evidence
	Parts    []string // "vmk1 9000", "rdma-dvs 9000", "vmkping 8972 to 192.168.50.12 failed"
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
	if v := pathVmknic(h); v != nil {
		lower(v.MTU, v.Name+" MTU "+strconv.Itoa(v.MTU), Ev(h.Host, v.Record.RefOf("MTU")))
	}
	if s := pvrdmaSwitch(h); s != nil {
		lower(s.MTU, s.Name+" MTU "+strconv.Itoa(s.MTU), Ev(h.Host, s.Record.RefOf("MTU")))
	}
	if p.MTU == 0 {
		return p, false
	}
	// Probes measure what the physical path really carries.
	for _, ping := range h.Pings {
		if ping.Payload+28 <= 1500 || ping.Payload+28 > p.MTU {
			continue
		}
		if ping.MessageTooLong || (ping.HasStats && ping.Received == 0) {
			lower(1500, "vmkping -d -s "+strconv.Itoa(ping.Payload)+" to "+ping.Target+" failed", Ev(h.Host, ping.Ref))
		}
	}
	return p, true
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
