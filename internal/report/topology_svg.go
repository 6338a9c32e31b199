package report

import (
	"fmt"
	"html/template"
	"strings"
)

// TopologySVG draws a host's data path (the topology view model) as an
// inline SVG: PVRDMA adapters -> vmknic -> distributed switch -> uplinks ->
// RDMA devices, left to right, each box coloured by its worst mark (red:
// breaks the path, amber: degrades it, green: fine), a ✗ or ! on the
// faulty ones, and each mark's words in the box's <title>. It scales to
// its container (viewBox, width 100%) and needs nothing outside the page.
// Every value is escaped.
func TopologySVG(t *Topology) template.HTML {
	if t == nil || t.NotCollected != "" {
		return ""
	}
	const (
		colW, boxW, boxH, gapY, top = 180, 150, 44, 14, 30
		maxVMs                      = 12
	)
	var b strings.Builder
	type box struct {
		x, y          int
		title, detail string
		marks         []Mark
	}
	var boxes []box
	var edges [][4]int
	ad := t.Adapters
	more := t.MoreAdapters
	if len(ad) > maxVMs {
		more += len(ad) - maxVMs
		ad = ad[:maxVMs]
	}
	rows := max(len(ad)+btoi(more > 0), 1)
	if t.Switch != nil {
		rows = max(rows, len(t.Switch.Uplinks))
	}
	height := top + rows*(boxH+gapY) + 10
	midY := top + (rows*(boxH+gapY)-gapY)/2 - boxH/2
	// Column 1: the adapters.
	for i, a := range ad {
		name := a.VM
		if name == "" {
			name = "world " + a.WorldID
		}
		detail := "properties not read"
		if a.FromVCenter {
			detail = "vCenter: HCA binding unknown"
		}
		if a.Read {
			hca := "HCA"
			if !a.PhysicalHCA {
				hca = "no HCA"
			}
			detail = fmt.Sprintf("MTU %d · RoCE v%d · %s", a.ActiveMTU, a.RoCEVersion, hca)
		}
		boxes = append(boxes, box{x: 10, y: top + i*(boxH+gapY), title: name + " #" + a.Index, detail: detail, marks: a.Marks})
	}
	if more > 0 {
		boxes = append(boxes, box{x: 10, y: top + len(ad)*(boxH+gapY), title: fmt.Sprintf("+%d more adapters", more), detail: "listed in the findings"})
	}
	switch {
	case len(ad) == 0 && t.AdaptersUnknown != "":
		boxes = append(boxes, box{x: 10, y: midY, title: "PVRDMA VMs unknown", detail: "not read"})
	case len(ad) == 0:
		boxes = append(boxes, box{x: 10, y: midY, title: "no PVRDMA VM", detail: "on this host"})
	}
	// Column 2: the vmknic; column 3: the switch.
	vmk := box{x: 10 + colW, y: midY, title: "vmknic ?", marks: t.VmknicMarks}
	if v := t.Vmknic; v != nil {
		vmk.title = "vmknic " + v.Name
		vmk.detail = fmt.Sprintf("MTU %d", v.MTU)
		if v.Tagged {
			vmk.detail += " · tagged"
		}
		if v.OffSwitch {
			vmk.detail += " · off the vDS"
		}
	}
	sw := box{x: 10 + 2*colW, y: midY, title: "switch ?", marks: t.SwitchMarks}
	if s := t.Switch; s != nil {
		sw.title = s.Name
		sw.detail = fmt.Sprintf("vDS · MTU %d", s.MTU)
	}
	for i := range ad {
		edges = append(edges, [4]int{10 + boxW, top + i*(boxH+gapY) + boxH/2, sw.x, sw.y + boxH/2})
	}
	edges = append(edges, [4]int{vmk.x + boxW, vmk.y + boxH/2, sw.x, sw.y + boxH/2})
	boxes = append(boxes, vmk, sw)
	// Columns 4 and 5: uplinks and their RDMA devices.
	if s := t.Switch; s != nil {
		for i, u := range s.Uplinks {
			y := top + i*(boxH+gapY)
			up := box{x: 10 + 3*colW, y: y, title: "uplink " + u.Name}
			if u.Link != "" {
				up.detail = fmt.Sprintf("link %s · MTU %d", u.Link, u.MTU)
			}
			dev := box{x: 10 + 4*colW, y: y, title: "no RDMA device", marks: u.DeviceMarks}
			if d := u.Device; d != nil {
				dev.title = d.Name
				dev.detail = fmt.Sprintf("%s · MTU %d", d.State, d.MTU)
			}
			edges = append(edges, [4]int{sw.x + boxW, sw.y + boxH/2, up.x, y + boxH/2}, [4]int{up.x + boxW, y + boxH/2, dev.x, y + boxH/2})
			boxes = append(boxes, up, dev)
		}
	}
	width := 10 + 4*colW + boxW + 10
	fmt.Fprintf(&b, `<svg class="topo" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s">`, width, height,
		template.HTMLEscapeString("PVRDMA data path of "+t.Host))
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString("PVRDMA data path of "+t.Host))
	for i, h := range []string{"VM adapters", "vmknic", "vDS", "uplinks", "RDMA devices"} {
		fmt.Fprintf(&b, `<text class="col" x="%d" y="16">%s</text>`, 10+i*colW, h)
	}
	for _, e := range edges {
		fmt.Fprintf(&b, `<path class="edge" d="M%d %d C%d %d %d %d %d %d"/>`, e[0], e[1], (e[0]+e[2])/2, e[1], (e[0]+e[2])/2, e[3], e[2], e[3])
	}
	for _, x := range boxes {
		level := Worst(x.marks)
		if level == "" {
			level = "none"
		}
		var why []string
		for _, m := range x.marks {
			if m.Text != "" {
				why = append(why, m.Text)
			}
		}
		tip := x.title
		if len(why) > 0 {
			tip += ": " + strings.Join(why, "; ")
		}
		fmt.Fprintf(&b, `<g class="box %s"><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="5"/>`,
			level, template.HTMLEscapeString(tip), x.x, x.y, boxW, boxH)
		// Whole, never cut: a label longer than its room is condensed to
		// fit (textLength), clear of the mark's glyph.
		room := boxW - 16
		if level == MarkBad || level == MarkWarn {
			room = boxW - 8 - 24
		}
		fitText(&b, x.x+8, x.y+18, "name", x.title, room, 8.2)
		fitText(&b, x.x+8, x.y+35, "detail", x.detail, boxW-16, 6.8)
		switch level {
		case MarkBad:
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="glyph">✗</text>`, x.x+boxW-18, x.y+18)
		case MarkWarn:
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="glyph">!</text>`, x.x+boxW-14, x.y+18)
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// TopologyMarks lists a topology's faults in words, for the list under
// its picture (what a printout and a screen reader need): "vmknic vmk1:
// /Net/PVRDMAVmknic is not set".
func TopologyMarks(t *Topology) []Mark {
	if t == nil {
		return nil
	}
	var out []Mark
	add := func(what string, ms []Mark) {
		for _, m := range ms {
			if m.Level != MarkOK && m.Text != "" {
				out = append(out, Mark{Level: m.Level, Text: what + ": " + m.Text})
			}
		}
	}
	for _, a := range t.Adapters {
		add(orDash(a.VM, "world "+a.WorldID, "")+" (PVRDMA adapter "+a.Index+")", a.Marks)
	}
	vmk := "vmknic"
	if t.Vmknic != nil {
		vmk += " " + t.Vmknic.Name
	}
	add(vmk, t.VmknicMarks)
	sw := "switch"
	if t.Switch != nil {
		sw += " " + t.Switch.Name
		for _, u := range t.Switch.Uplinks {
			add("uplink "+u.Name, u.DeviceMarks)
		}
	}
	add(sw, t.SwitchMarks)
	add(t.Host, t.HostMarks)
	return out
}

// fitText writes an SVG label whole: when its estimated width (perChar
// pixels a character, on the generous side) passes room, the browser
// condenses it into room (textLength), so that no label is cut or runs
// over its neighbour.
func fitText(b *strings.Builder, x, y int, class, s string, room int, perChar float64) {
	fit := ""
	if float64(len([]rune(s)))*perChar > float64(room) {
		fit = fmt.Sprintf(` textLength="%d" lengthAdjust="spacingAndGlyphs"`, room)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" class="%s"%s>%s</text>`, x, y, class, fit, template.HTMLEscapeString(s))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
