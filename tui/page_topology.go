package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// topologyPage is a host's PVRDMA data path (drawn by topology), scrolled.
type topologyPage struct{ scrollPage }

func newTopologyPage(s *shared, host string) *topologyPage {
	return &topologyPage{scrollPage{s: s, name: host, lines: func() []string {
		var t *report.Topology
		if s.rep != nil {
			t = s.rep.TopologyOf(host)
		}
		var row *hostRow
		if i, ok := s.index[host]; ok {
			row = s.rows[i]
		}
		if s.rep != nil {
			for _, g := range s.rep.Guests {
				if g.Host == host {
					return guestFacts(g, s.width)
				}
			}
		}
		return topology(host, t, row, s.byHost[host], s.width)
	}}}
}

// guestFacts is a guest's facts page (t on a guest): each PVRDMA adapter
// seen from both ends, the host side (HCA, RoCE version, Active MTU) and
// the guest's (device, port state, interface and its MTU).
func guestFacts(g report.Host, width int) []string {
	out := []string{" " + stBold.Render(sanitize(g.Host)+" · PVRDMA adapters, host side ↔ guest side")}
	if len(g.Adapters) == 0 {
		out = append(out, "")
		for _, l := range wrap("No PVRDMA adapter of this guest was matched to a host's ("+sanitize(g.Verdict)+").", width-4) {
			out = append(out, "  "+stDim.Render(l))
		}
		return out
	}
	for _, a := range g.Adapters {
		out = append(out, "")
		for i, l := range wrapHanging(sanitize(a.Text()), width-2, width-5) {
			if i == 0 {
				out = append(out, "  "+l)
			} else {
				out = append(out, "     "+l)
			}
		}
	}
	return out
}

// Update: the topology only scrolls.
func (p *topologyPage) Update(tea.Msg) (page, tea.Cmd) { return p, nil }

func (p *topologyPage) crumbs(trail []string) []string { return p.crumb(trail, "topology") }

// scrollPage is a page of lines that only scrolls: the topology and the
// fix plan of a host.
type scrollPage struct {
	position
	s     *shared
	name  string          // the host
	lines func() []string // the whole page
}

func (p *scrollPage) move(d int) {
	p.offset += d
	p.clamp()
}

func (p *scrollPage) View() []string { return p.window(p.lines(), p.s.bodyHeight()) }

func (p *scrollPage) clamp() { p.offset = clampInt(p.offset, 0, len(p.lines())-p.s.bodyHeight()) }

func (p *scrollPage) host() string { return p.name }

// crumb names the host (unless an earlier page did) and the page.
func (p *scrollPage) crumb(trail []string, title string) []string {
	if len(trail) == 1 {
		trail = append(trail, sanitize(p.name))
	}
	return append(trail, title)
}

func (p *scrollPage) hints() []key.Binding {
	k := p.s.keys
	return []key.Binding{k.Back, k.arrows("scroll"), hint(k.Rescan, "rescan"), hint(k.Bundle, "bundle")}
}
