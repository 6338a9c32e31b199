package tui

import tea "charm.land/bubbletea/v2"

// planPage is a host's whole fix plan (planLines), scrolled.
type planPage struct{ scrollPage }

func newPlanPage(s *shared, host string) *planPage {
	return &planPage{scrollPage{s: s, name: host, lines: func() []string { return s.planLines(host) }}}
}

// Update: the fix plan only scrolls.
func (p *planPage) Update(tea.Msg) (page, tea.Cmd) { return p, nil }

func (p *planPage) crumbs(trail []string) []string { return p.crumb(trail, "fix plan") }
