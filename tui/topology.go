package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Marks on the topology: where the path is fine, questionable, broken.
func okMark() string           { return stOK.Render("✓") }
func warnMark(s string) string { return stWarn.Render("! " + s) }
func badMark(s string) string  { return stCrit.Render("✗ " + s) }

// topology draws a host's PVRDMA data path from its facts: each VM's
// PVRDMA adapter, then the vmknic, the distributed switch, its uplinks and
// the RDMA devices paired with them, with MTUs, marking where it breaks. It
// reads the fleet's data-path model, the one the rules reason about.
func topology(name string, fleet *facts.Fleet, h *facts.Host, row *hostRow, findings []checks.Finding) []string {
	out := []string{" " + stBold.Render(sanitize(name)+" · PVRDMA data path") +
		stDim.Render("  VM → PVRDMA adapter → vmknic → switch → uplink → RDMA device")}
	if h == nil {
		state := collectionText(row)
		if row.err != "" {
			state += ": " + row.err
		}
		return append(out, "", "  "+stDim.Render("No facts for this host yet ("+sanitize(state)+")."))
	}
	if h.Status == hostio.StatusNotCollected {
		return append(out, "", "  "+badMark("not collected: "+sanitize(h.Reason)))
	}

	path := fleet.DataPath().For(h)
	want := 0
	if path.MTU.Known {
		want = facts.RDMAMTUFor(path.MTU.MTU)
		out = append(out, " "+fmt.Sprintf("Path MTU %d (%s): PVRDMA can use RDMA MTU %d", path.MTU.MTU, sanitize(strings.Join(path.MTU.Parts, ", ")), want))
	} else {
		out = append(out, " "+stDim.Render("Path MTU unknown (no PVRDMA vmknic or switch found)"))
	}
	out = append(out, "")

	// VMs and their adapters.
	vmName := map[string]string{}
	for _, vm := range h.VMs {
		vmName[vm.WorldID] = vm.DisplayName
	}
	seen := map[string]bool{}
	devs := append([]parse.PVRDMADevice(nil), h.PVRDMADevices...)
	sort.SliceStable(devs, func(i, j int) bool { return devs[i].WorldID+"_"+devs[i].Index < devs[j].WorldID+"_"+devs[j].Index })
	if len(devs) == 0 && len(h.PVRDMAListing) == 0 {
		out = append(out, "  "+stDim.Render("No VM with a PVRDMA adapter runs on this host."))
	}
	for _, d := range devs {
		seen[d.WorldID+"_"+d.Index] = true
		vm := d.VMName
		if vm == "" {
			vm = vmName[d.WorldID]
		}
		if vm == "" {
			vm = "world " + d.WorldID
		}
		out = append(out, "  VM "+stBold.Render(sanitize(vm))+stDim.Render(" (world "+sanitize(d.WorldID)+")"))
		line := fmt.Sprintf("   └─ PVRDMA adapter %s · active MTU %d · RoCE v%d · physical HCA %s",
			sanitize(d.Index), d.ActiveMTU, d.RoCEVersion, yesNo(d.PhysicalHCA == 1))
		var marks []string
		if d.PhysicalHCA != 1 {
			marks = append(marks, badMark("no physical HCA: traffic to other hosts falls back to TCP"))
		}
		if want > 0 && d.ActiveMTU > 0 && d.ActiveMTU < want {
			marks = append(marks, warnMark(fmt.Sprintf("MTU %d below the %d the path allows", d.ActiveMTU, want)))
		}
		if len(marks) == 0 {
			marks = append(marks, okMark())
		}
		out = append(out, line+"  "+strings.Join(marks, "  "))
	}
	for _, e := range h.PVRDMAListing {
		if !e.IsDir || seen[e.Name] {
			continue
		}
		wid, idx, _ := e.DeviceID()
		vm := vmName[wid]
		if vm == "" {
			vm = "world " + wid
		}
		out = append(out, "  VM "+stBold.Render(sanitize(vm)),
			"   └─ PVRDMA adapter "+sanitize(idx)+"  "+stDim.Render("(properties not collected)"))
	}
	out = append(out, "      │")

	// The host side, shared by every adapter.
	tagged, vmk, sw := path.Tagged, path.Vmknic, path.Switch
	switch {
	case vmk == nil && tagged != "":
		out = append(out, "  vmknic "+sanitize(tagged)+"  "+badMark("tagged in /Net/PVRDMAVmknic but no such vmknic"))
	case vmk == nil:
		out = append(out, "  vmknic ?  "+badMark("no vmknic tagged in /Net/PVRDMAVmknic or bound to an RDMA device"))
	default:
		line := fmt.Sprintf("  vmknic %s · MTU %d", sanitize(vmk.Name), vmk.MTU)
		if vmk.VDSName != "" {
			line += " · on " + sanitize(vmk.VDSName)
		}
		var marks []string
		switch tagged {
		case vmk.Name:
			line += " · tagged in /Net/PVRDMAVmknic"
		case "":
			marks = append(marks, badMark("/Net/PVRDMAVmknic is not set"))
		default:
			marks = append(marks, warnMark("/Net/PVRDMAVmknic names "+sanitize(tagged)))
		}
		if !vmk.Enabled {
			marks = append(marks, badMark("disabled"))
		}
		switch {
		case sw != nil && vmk.VDSName == sw.Name && vmk.MTU > 0 && sw.MTU > 0 && vmk.MTU < sw.MTU:
			marks = append(marks, warnMark(fmt.Sprintf("MTU below the switch's %d", sw.MTU)))
		case sw != nil && vmk.VDSName != sw.Name:
			// VMware's guides tag vmk0 on the management switch: it carries
			// PVRDMA's control data, not the RDMA frames.
			line += " · " + stDim.Render("off the PVRDMA vDS: control data only (valid)")
		}
		if len(marks) == 0 {
			marks = append(marks, okMark())
		}
		out = append(out, line+"  "+strings.Join(marks, "  "))
	}
	onSwitch := map[string]bool{}
	if sw == nil {
		out = append(out, "   └─ switch ?  "+badMark("no distributed switch for PVRDMA found"))
	} else {
		line := fmt.Sprintf("   └─ switch %s · MTU %d · uplinks %s", sanitize(sw.Name), sw.MTU, sanitize(strings.Join(sw.Uplinks, ", ")))
		mark := okMark()
		switch {
		case len(sw.Uplinks) == 0:
			mark = badMark("no uplink")
		case len(sw.Uplinks) > 1:
			mark = warnMark(fmt.Sprintf("%d uplinks: PVRDMA binds to one RDMA device", len(sw.Uplinks)))
		}
		out = append(out, line+"  "+mark)
		for i, up := range sw.Uplinks {
			onSwitch[up] = true
			branch, indent := "├─", "      │   "
			if i == len(sw.Uplinks)-1 {
				branch, indent = "└─", "          "
			}
			line := "      " + branch + " uplink " + sanitize(up)
			if nic := first(h.NICs, func(n *parse.NIC) bool { return n.Name == up }); nic != nil {
				line += fmt.Sprintf(" · link %s · MTU %d", sanitize(nic.LinkStatus), nic.MTU)
			}
			out = append(out, line)
			dev := first(h.RDMADevices, func(d *parse.RDMADevice) bool { return d.PairedUplink == up })
			switch {
			case dev == nil:
				out = append(out, indent+"└─ RDMA device ?  "+badMark("no RDMA device is paired with "+sanitize(up)))
			default:
				l := fmt.Sprintf("%s└─ RDMA device %s · %s · RDMA MTU %d", indent, sanitize(dev.Name), sanitize(dev.State), dev.MTU)
				if dev.Speed != "" {
					l += " · " + sanitize(dev.Speed)
				}
				if strings.EqualFold(strings.TrimSpace(dev.State), "active") {
					l += "  " + okMark()
				} else {
					l += "  " + badMark("not Active")
				}
				out = append(out, l)
			}
		}
	}
	if len(h.RDMADevices) == 0 {
		out = append(out, "", "  "+badMark("this host has no RDMA device: PVRDMA traffic to other hosts falls back to TCP"))
	} else {
		var off []string
		for _, d := range h.RDMADevices {
			if sw != nil && !onSwitch[d.PairedUplink] {
				off = append(off, fmt.Sprintf("%s (paired with %s, %s)", d.Name, d.PairedUplink, d.State))
			}
		}
		if len(off) > 0 {
			out = append(out, "", "  "+warnMark("RDMA devices not on "+sanitize(sw.Name)+": "+sanitize(strings.Join(off, "; "))))
		}
	}

	var fails []checks.Finding
	for _, f := range findings {
		if f.Status == checks.StatusFail {
			fails = append(fails, f)
		}
	}
	if len(fails) > 0 {
		out = append(out, "", " "+stLabel.Render("Findings on this host")+stDim.Render(" (esc, then enter on a finding for its evidence)"))
		for _, f := range fails {
			out = append(out, "  "+sevStyle(f.Severity).Render(fmt.Sprintf("%-8s", f.Severity))+" "+sanitize(f.RuleID)+"  "+sanitize(f.Subject))
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// first returns the first of xs that match accepts, or nil.
func first[T any](xs []T, match func(*T) bool) *T {
	for i := range xs {
		if match(&xs[i]) {
			return &xs[i]
		}
	}
	return nil
}
