package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/report"
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
		return topology(host, t, row, s.byHost[host], s.width)
	}}}
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
