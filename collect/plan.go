package collect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// planStage2 derives the dependent commands from a host's stage 1 captures:
// the vsish properties of every PVRDMA backend listed, the counters of every
// RDMA device, and the details and DCB state of every RDMA paired uplink.
// Every value taken from host output is validated by the command
// constructors before it can reach a command line; invalid ones are
// reported and skipped.
func planStage2(caps []Capture) ([]Command, []error) {
	var cmds []Command
	var errs []error
	add := func(c Command, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, have := range cmds {
			if have.Line == c.Line {
				return
			}
		}
		cmds = append(cmds, c)
	}
	if c, ok := collected(caps, KindPVRDMADeviceLs); ok {
		entries, err := parse.VsishLs(c.Stdout)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot list PVRDMA devices: %w", err))
		}
		for _, e := range entries {
			wid, idx, found := strings.Cut(e.Name, "_")
			if !found {
				errs = append(errs, fmt.Errorf("skipping unexpected PVRDMA device entry %q", e.Name))
				continue
			}
			add(PVRDMAProperties(wid, idx))
		}
	}
	if c, ok := collected(caps, KindRDMADeviceList); ok {
		devs, err := parse.RDMADeviceList(c.Stdout)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot read RDMA devices: %w", err))
		}
		for _, d := range devs {
			add(RDMAStats(d.Name))
		}
		for _, d := range devs {
			if d.PairedUplink == "" || d.PairedUplink == "N/A" {
				continue
			}
			add(NICGet(d.PairedUplink))
			add(DCBStatus(d.PairedUplink))
		}
	}
	sort.SliceStable(cmds, func(i, j int) bool { return kindOrder(cmds[i].Kind) < kindOrder(cmds[j].Kind) })
	return cmds, errs
}

func kindOrder(k Kind) int {
	switch k {
	case KindPVRDMAProperties:
		return 0
	case KindRDMAStats:
		return 1
	case KindNICGet:
		return 2
	case KindDCBStatus:
		return 3
	}
	return 4
}

func collected(caps []Capture, k Kind) (Capture, bool) {
	for _, c := range caps {
		if c.Kind == k && c.OK() {
			return c, true
		}
	}
	return Capture{}, false
}

// probeSourceOf finds the host's PVRDMA vmknic (the /Net/PVRDMAVmknic tag,
// else the vmknic bound to an RDMA device) and its IPv4 address.
func probeSourceOf(caps []Capture) probeSource {
	var src probeSource
	if c, ok := collected(caps, KindPVRDMAVmknicOpt); ok {
		if s, err := parse.AdvancedSettingList(c.Stdout); err == nil {
			src.Vmknic = strings.TrimSpace(s.StringValue)
		}
	}
	if src.Vmknic == "" {
		if c, ok := collected(caps, KindRDMAVmknicList); ok {
			if rows, err := parse.RDMAVmknicList(c.Stdout); err == nil && len(rows) > 0 {
				src.Vmknic = rows[0].Vmknic
			}
		}
	}
	if src.Vmknic == "" {
		return probeSource{}
	}
	if c, ok := collected(caps, KindIPInterfaceList); ok {
		if nics, err := parse.IPInterfaceList(c.Stdout); err == nil {
			for _, n := range nics {
				if n.Name == src.Vmknic {
					src.Netstack = n.Netstack
				}
			}
		}
	}
	if c, ok := collected(caps, KindIPv4Get); ok {
		if rows, err := parse.IPv4Get(c.Stdout); err == nil {
			for _, r := range rows {
				if r.Name == src.Vmknic && r.Address != "" && r.Address != "0.0.0.0" {
					src.IP = r.Address
				}
			}
		}
	}
	if src.IP == "" {
		return probeSource{}
	}
	return src
}

// stageOf orders captures in a host result: stage 1 in catalogue order,
// then stage 2, then probes.
func stageOf(c Capture) int {
	for i, s := range stage1 {
		if s.Kind == c.Kind {
			return i
		}
	}
	return len(stage1) + kindOrder(c.Kind)
}
