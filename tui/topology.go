package tui

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// Marks on the topology: where the path is fine, questionable, broken.
func okMark() string { return stOK.Render("✓") }

// topology draws a host's PVRDMA data path from the report's topology
// view model (report.Topology, the one the HTML report draws as a
// picture): each VM's PVRDMA adapter, then the vmknic, the distributed
// switch, its uplinks and the RDMA devices paired with them, with MTUs.
// Every ✗ and ! is followed by its reason, wrapped to the width: a
// verdict is never cut, whatever the terminal.
func topology(name string, t *report.Topology, row *hostRow, findings []checks.Finding, width int) []string {
	out := []string{" " + stBold.Render(sanitize(name)+" · PVRDMA data path")}
	for _, l := range wrap("VM → PVRDMA adapter → vmknic → switch → uplink → RDMA device", width-2) {
		out = append(out, " "+stDim.Render(l))
	}
	if t == nil {
		state := "not scanned"
		if row != nil {
			state = collectionText(row)
			if row.err != "" {
				state += ": " + row.err
			}
		}
		out = append(out, "")
		for _, l := range wrap("No facts for this host yet ("+sanitize(state)+").", width-4) {
			out = append(out, "  "+stDim.Render(l))
		}
		return out
	}
	// line writes an element: its text (wrapped under indent+3) and its
	// marks, each on lines of its own under it.
	line := func(indent, text string, marks []report.Mark) {
		w := width - len([]rune(indent))
		ls := wrapHanging(text, w, w-3)
		ok := report.Worst(marks) == report.MarkOK
		for i, l := range ls {
			switch {
			case i == 0 && ok && len(ls) == 1 && len([]rune(l))+2 <= w:
				out = append(out, indent+l+" "+okMark())
			case i == 0:
				out = append(out, indent+l)
			default:
				out = append(out, indent+"   "+l)
			}
		}
		if ok && len(ls) > 1 {
			out = append(out, indent+"   "+okMark())
		}
		for _, m := range marks {
			if m.Level == report.MarkOK || m.Text == "" {
				continue
			}
			glyph, st := "! ", stWarn
			if m.Level == report.MarkBad {
				glyph, st = "✗ ", stCrit
			}
			for i, l := range wrapHanging(sanitize(m.Text), w-5, w-5) {
				if i == 0 {
					out = append(out, indent+"   "+st.Render(glyph+l))
				} else {
					out = append(out, indent+"     "+st.Render(l))
				}
			}
		}
	}
	if t.NotCollected != "" {
		out = append(out, "")
		for i, l := range wrap("✗ not collected: "+sanitize(t.NotCollected), width-4) {
			if i > 0 {
				l = "  " + l
			}
			out = append(out, "  "+stCrit.Render(l))
		}
		return out
	}
	if t.PathMTU > 0 {
		for _, l := range wrap(fmt.Sprintf("Path MTU %d (%s): PVRDMA can use RDMA MTU %d", t.PathMTU, sanitize(strings.Join(t.PathParts, ", ")), t.RDMAMTU), width-2) {
			out = append(out, " "+l)
		}
	} else {
		out = append(out, " "+stDim.Render("Path MTU unknown (no PVRDMA vmknic or switch found)"))
	}
	out = append(out, "")
	switch {
	case t.AdaptersUnknown != "":
		for _, l := range wrap("PVRDMA VMs unknown: "+sanitize(t.AdaptersUnknown), width-2) {
			out = append(out, "  "+stDim.Render(l))
		}
	case len(t.Adapters) == 0:
		out = append(out, "  "+stDim.Render("No VM with a PVRDMA adapter runs on this host."))
	}
	for _, a := range t.Adapters {
		vm := a.VM
		if vm == "" {
			vm = "world " + a.WorldID
		}
		if a.FromVCenter {
			out = append(out, "  VM "+stBold.Render(sanitize(vm))+stDim.Render(" (vCenter)"))
			line("   ", "└─ PVRDMA adapter "+sanitize(a.Index)+" · HCA binding unknown (vsish needs SSH)", a.Marks)
			continue
		}
		out = append(out, "  VM "+stBold.Render(sanitize(vm))+stDim.Render(" (world "+sanitize(a.WorldID)+")"))
		if !a.Read {
			out = append(out, "   └─ PVRDMA adapter "+sanitize(a.Index)+"  "+stDim.Render("(properties not collected)"))
			continue
		}
		line("   ", fmt.Sprintf("└─ PVRDMA adapter %s · active MTU %d · RoCE v%d · physical HCA %s",
			sanitize(a.Index), a.ActiveMTU, a.RoCEVersion, yesNo(a.PhysicalHCA)), a.Marks)
	}
	if t.MoreAdapters > 0 {
		out = append(out, "  "+stDim.Render(fmt.Sprintf("and %d more PVRDMA adapters (the findings list them)", t.MoreAdapters)))
	}
	out = append(out, "      │")
	if v := t.Vmknic; v != nil {
		text := fmt.Sprintf("vmknic %s · MTU %d", sanitize(v.Name), v.MTU)
		if v.Switch != "" {
			text += " · on " + sanitize(v.Switch)
		}
		if v.Tagged {
			text += " · tagged in /Net/PVRDMAVmknic"
		}
		if v.OffSwitch {
			// VMware's guides tag vmk0 on the management switch: it
			// carries PVRDMA's control data, not the RDMA frames.
			text += " · off the PVRDMA vDS: control data only (valid)"
		}
		line("  ", text, t.VmknicMarks)
	} else {
		line("  ", "vmknic ?", t.VmknicMarks)
	}
	if s := t.Switch; s != nil {
		line("   ", fmt.Sprintf("└─ switch %s · MTU %d · uplinks %s", sanitize(s.Name), s.MTU, sanitize(uplinkNames(s))), t.SwitchMarks)
		for i, u := range s.Uplinks {
			branch, indent := "├─", "      │   "
			if i == len(s.Uplinks)-1 {
				branch, indent = "└─", "          "
			}
			text := branch + " uplink " + sanitize(u.Name)
			if u.Link != "" {
				text += fmt.Sprintf(" · link %s · MTU %d", sanitize(u.Link), u.MTU)
			}
			out = append(out, "      "+text)
			dev := "└─ RDMA device ?"
			if d := u.Device; d != nil {
				dev = fmt.Sprintf("└─ RDMA device %s · %s · RDMA MTU %d", sanitize(d.Name), sanitize(d.State), d.MTU)
				if d.Speed != "" {
					dev += " · " + sanitize(d.Speed)
				}
			}
			line(indent, dev, u.DeviceMarks)
		}
	} else {
		line("   ", "└─ switch ?", t.SwitchMarks)
	}
	if len(t.HostMarks) > 0 {
		out = append(out, "")
		line("  ", "this host", t.HostMarks)
	}

	var fails []checks.Finding
	for _, f := range findings {
		if f.Status == checks.StatusFail {
			fails = append(fails, f)
		}
	}
	if len(fails) > 0 {
		out = append(out, "", " "+stLabel.Render("Findings on this host"))
		for _, l := range wrap("(esc, then enter on a finding for its evidence)", width-2) {
			out = append(out, " "+stDim.Render(l))
		}
		for _, f := range fails {
			for i, l := range wrapHanging(fmt.Sprintf("%-8s %s  %s", f.Severity, sanitize(f.RuleID), sanitize(f.Subject)), width-2, width-11) {
				if i == 0 {
					sev := fmt.Sprintf("%-8s", f.Severity)
					out = append(out, "  "+sevStyle(f.Severity).Render(sev)+strings.TrimPrefix(l, sev))
				} else {
					out = append(out, "           "+l)
				}
			}
		}
	}
	return out
}

func uplinkNames(s *report.TopoSwitch) string {
	var n []string
	for _, u := range s.Uplinks {
		n = append(n, u.Name)
	}
	return strings.Join(n, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
