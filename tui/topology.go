package tui

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
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
	d := &topoDrawing{width: width}
	d.out = []string{" " + stBold.Render(sanitize(name)+" · PVRDMA data path")}
	for _, l := range wrap("VM → PVRDMA adapter → vmknic → switch → uplink → RDMA device", width-2) {
		d.out = append(d.out, " "+stDim.Render(l))
	}
	if t == nil {
		d.noFacts(row)
		return d.out
	}
	if t.NotCollected != "" {
		d.out = append(d.out, "")
		for i, l := range wrap("✗ not collected: "+sanitize(t.NotCollected), width-4) {
			if i > 0 {
				l = "  " + l
			}
			d.out = append(d.out, "  "+stCrit.Render(l))
		}
		return d.out
	}
	d.pathMTU(t)
	d.adapters(t)
	d.out = append(d.out, "      │")
	d.vmknic(t)
	d.switchAndUplinks(t)
	if len(t.HostMarks) > 0 {
		d.out = append(d.out, "")
		d.line("  ", "this host", t.HostMarks)
	}
	d.failures(findings)
	return d.out
}

// topoDrawing is a topology being drawn: its lines so far, at a width.
type topoDrawing struct {
	out   []string
	width int
}

// noFacts draws a host without a topology: why there are no facts yet.
func (d *topoDrawing) noFacts(row *hostRow) {
	state := "not scanned"
	if row != nil {
		state = collectionText(row)
		if row.err != "" {
			state += ": " + row.err
		}
	}
	d.out = append(d.out, "")
	for _, l := range wrap("No facts for this host yet ("+sanitize(state)+").", d.width-4) {
		d.out = append(d.out, "  "+stDim.Render(l))
	}
}

// line writes an element: its text (wrapped under indent+3) and its
// marks, each on lines of its own under it.
func (d *topoDrawing) line(indent, text string, marks []report.Mark) {
	w := d.width - len([]rune(indent))
	ls := wrapHanging(text, w, w-3)
	ok := report.Worst(marks) == report.MarkOK
	for i, l := range ls {
		switch {
		case i == 0 && ok && len(ls) == 1 && len([]rune(l))+2 <= w:
			d.out = append(d.out, indent+l+" "+okMark())
		case i == 0:
			d.out = append(d.out, indent+l)
		default:
			d.out = append(d.out, indent+"   "+l)
		}
	}
	if ok && len(ls) > 1 {
		d.out = append(d.out, indent+"   "+okMark())
	}
	for _, m := range marks {
		if m.Level == report.MarkOK || m.Text == "" {
			continue
		}
		d.mark(indent, m, w)
	}
}

// mark writes a ✗ or ! mark and its reason, wrapped to w under indent.
func (d *topoDrawing) mark(indent string, m report.Mark, w int) {
	glyph, st := "! ", stWarn
	if m.Level == report.MarkBad {
		glyph, st = "✗ ", stCrit
	}
	for i, l := range wrapHanging(sanitize(m.Text), w-5, w-5) {
		if i == 0 {
			d.out = append(d.out, indent+"   "+st.Render(glyph+l))
		} else {
			d.out = append(d.out, indent+"     "+st.Render(l))
		}
	}
}

// pathMTU writes the path MTU and the RDMA MTU it allows, or that it is
// unknown.
func (d *topoDrawing) pathMTU(t *report.Topology) {
	if t.PathMTU > 0 {
		for _, l := range wrap(fmt.Sprintf("Path MTU %d (%s): PVRDMA can use RDMA MTU %d", t.PathMTU, sanitize(strings.Join(t.PathParts, ", ")), t.RDMAMTU), d.width-2) {
			d.out = append(d.out, " "+l)
		}
	} else {
		d.out = append(d.out, " "+stDim.Render("Path MTU unknown (no PVRDMA vmknic or switch found)"))
	}
	d.out = append(d.out, "")
}

// adapters writes each VM's PVRDMA adapter (or why they are unknown, or
// that there are none) and how many more there are.
func (d *topoDrawing) adapters(t *report.Topology) {
	switch {
	case t.AdaptersUnknown != "":
		for _, l := range wrap("PVRDMA VMs unknown: "+sanitize(t.AdaptersUnknown), d.width-2) {
			d.out = append(d.out, "  "+stDim.Render(l))
		}
	case len(t.Adapters) == 0:
		d.out = append(d.out, "  "+stDim.Render("No VM with a PVRDMA adapter runs on this host."))
	}
	for _, a := range t.Adapters {
		d.adapter(a)
	}
	if t.MoreAdapters > 0 {
		d.out = append(d.out, "  "+stDim.Render(fmt.Sprintf("and %d more PVRDMA adapters (the findings list them)", t.MoreAdapters)))
	}
}

// adapter writes a VM and its PVRDMA adapter: from vCenter, not read, or
// with the properties vsish read.
func (d *topoDrawing) adapter(a report.TopoAdapter) {
	vm := a.VM
	if vm == "" {
		vm = "world " + a.WorldID
	}
	if a.FromVCenter {
		d.out = append(d.out, "  VM "+stBold.Render(sanitize(vm))+stDim.Render(" (vCenter)"))
		d.line("   ", "└─ PVRDMA adapter "+sanitize(a.Index)+" · HCA binding unknown (vsish needs SSH)", a.Marks)
		return
	}
	d.out = append(d.out, "  VM "+stBold.Render(sanitize(vm))+stDim.Render(" (world "+sanitize(a.WorldID)+")"))
	if !a.Read {
		d.out = append(d.out, "   └─ PVRDMA adapter "+sanitize(a.Index)+"  "+stDim.Render("(properties not collected)"))
		return
	}
	d.line("   ", fmt.Sprintf("└─ PVRDMA adapter %s · active MTU %d · RoCE v%d · physical HCA %s",
		sanitize(a.Index), a.ActiveMTU, a.RoCEVersion, yesNo(a.PhysicalHCA)), a.Marks)
}

// vmknic writes the PVRDMA vmknic: MTU, switch, tagged, off the PVRDMA
// vDS.
func (d *topoDrawing) vmknic(t *report.Topology) {
	v := t.Vmknic
	if v == nil {
		d.line("  ", "vmknic ?", t.VmknicMarks)
		return
	}
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
	d.line("  ", text, t.VmknicMarks)
}

// switchAndUplinks writes the PVRDMA switch, then each uplink and the
// RDMA device paired with it.
func (d *topoDrawing) switchAndUplinks(t *report.Topology) {
	s := t.Switch
	if s == nil {
		d.line("   ", "└─ switch ?", t.SwitchMarks)
		return
	}
	d.line("   ", fmt.Sprintf("└─ switch %s · MTU %d · uplinks %s", sanitize(s.Name), s.MTU, sanitize(uplinkNames(s))), t.SwitchMarks)
	for i, u := range s.Uplinks {
		branch, indent := "├─", "      │   "
		if i == len(s.Uplinks)-1 {
			branch, indent = "└─", "          "
		}
		text := branch + " uplink " + sanitize(u.Name)
		if u.Link != "" {
			text += fmt.Sprintf(" · link %s · MTU %d", sanitize(u.Link), u.MTU)
		}
		d.out = append(d.out, "      "+text)
		dev := "└─ RDMA device ?"
		if rd := u.Device; rd != nil {
			dev = fmt.Sprintf("└─ RDMA device %s · %s · RDMA MTU %d", sanitize(rd.Name), sanitize(rd.State), rd.MTU)
			if rd.Speed != "" {
				dev += " · " + sanitize(rd.Speed)
			}
		}
		d.line(indent, dev, u.DeviceMarks)
	}
}

// failures lists the host's failed findings, each on its own lines.
func (d *topoDrawing) failures(findings []checks.Finding) {
	var fails []checks.Finding
	for _, f := range findings {
		if f.Status == checks.StatusFail {
			fails = append(fails, f)
		}
	}
	if len(fails) == 0 {
		return
	}
	width := d.width
	d.out = append(d.out, "", " "+stLabel.Render("Findings on this host"))
	for _, l := range wrap("(esc, then enter on a finding for its evidence)", width-2) {
		d.out = append(d.out, " "+stDim.Render(l))
	}
	for _, f := range fails {
		for i, l := range wrapHanging(fmt.Sprintf("%-8s %s  %s", f.Severity, sanitize(f.RuleID), sanitize(f.Subject)), width-2, width-11) {
			if i == 0 {
				sev := fmt.Sprintf("%-8s", f.Severity)
				d.out = append(d.out, "  "+sevStyle(f.Severity).Render(sev)+strings.TrimPrefix(l, sev))
			} else {
				d.out = append(d.out, "           "+l)
			}
		}
	}
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
