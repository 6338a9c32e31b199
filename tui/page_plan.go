package tui

import tea "charm.land/bubbletea/v2"

// planPage is a host's whole fix plan (planLines), scrolled.
type planPage struct{ scrollPage }

func newPlanPage(s *shared, host string) *planPage {
	return &planPage{scrollPage{s: s, name: host, lines: func() []string { return s.planLines(host) }}}
}

func (p *planPage) Update(msg tea.Msg) (page, tea.Cmd) {
	p.scroll(msg)
	return p, nil
}

func (p *planPage) crumbs(trail []string) []string { return p.crumb(trail, "fix plan") }
