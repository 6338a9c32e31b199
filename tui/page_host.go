package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// hostPage is one host: its verdict, details and notes, its findings as a
// cause tree (enter opens the selected one) and the start of its fix plan.
type hostPage struct {
	position
	s    *shared
	name string
}

func newHostPage(s *shared, host string) *hostPage { return &hostPage{s: s, name: host} }

// Update opens the selected finding on enter.
func (p *hostPage) Update(msg tea.Msg) (page, tea.Cmd) {
	if !is(msg, p.s.keys.Open) {
		return p, nil
	}
	fs := p.findings()
	if len(fs) == 0 {
		return p, nil
	}
	f := fs[p.cursor]
	return newFindingPage(p.s, p.name, f.Key()+"|"+string(f.Status)), nil
}

func (p *hostPage) move(d int) {
	p.cursor += d
	p.clamp()
}

func (p *hostPage) clamp() { p.clampList(len(p.findings()), p.listRows()) }

func (p *hostPage) host() string { return p.name }

func (p *hostPage) crumbs(trail []string) []string { return append(trail, sanitize(p.name)) }

func (p *hostPage) hints() []key.Binding {
	k := p.s.keys
	sev := key.NewBinding(key.WithKeys("1", "2", "3"), key.WithHelp("1/2/3", "severities"))
	return []key.Binding{k.Open, k.Back, k.Plan, k.Filter, hint(k.Rescan, "rescan"), hint(k.Bundle, "bundle"), k.Topology, sev, k.arrows("move")}
}

// listRows is how many table rows fit between the head and the plan
// preview.
func (p *hostPage) listRows() int {
	if r := p.s.bodyHeight() - len(p.head()) - 1 - p.previewRows(); r > 1 {
		return r
	}
	return 1
}

// head is what the host screen shows above its findings: verdict,
// details and every note, wrapped (never cut: a note may say the host key
// was not verified).
func (p *hostPage) head() []string {
	host := p.name
	var out []string
	r := p.s.rows[p.s.index[host]]
	h, analyzed := p.s.reportHost(host)
	switch {
	case analyzed:
		out = append(out, " "+hostVerdictStyle(h).Render(sanitize(h.Verdict)))
		detail := []string{}
		if h.Role == hostio.RoleGuest {
			detail = guestDetail(h)
		} else {
			if h.Version != "" {
				detail = append(detail, "ESXi "+h.Version)
			}
			detail = append(detail, countOrUnknown(h.RDMADeviceCount)("RDMA device"), countOrUnknown(h.PVRDMAVMCount)("PVRDMA VM"))
		}
		if h.Transport != "" {
			detail = append(detail, "via "+h.Transport)
		}
		detail = append(detail, "collection: "+collectionText(r))
		out = append(out, " "+stDim.Render(sanitize(strings.Join(detail, " · "))))
		for _, st := range h.Stacks {
			out = append(out, labeled("stack:", report.StackText(st), p.s.width, stDim)...)
		}
		for _, n := range h.Notes {
			out = append(out, labeled("! note:", n, p.s.width, stWarn)...)
		}
		out = append(out, adapterPairLines(h, p.s.width)...)
	default:
		out = append(out, " "+stBold.Render(sanitize(host)+": "+collectionText(r)), " "+stDim.Render("findings appear when this host has been collected and analyzed"))
	}
	return out
}

func (p *hostPage) View() []string {
	out := p.head()
	_, analyzed := p.s.reportHost(p.name)
	fs := p.findings()
	if len(fs) == 0 {
		switch {
		case !analyzed:
		case len(p.s.byHost[p.name]) > 0:
			out = append(out, "", "  "+stDim.Render("no finding shown: change the filter (esc) or the severity toggles (1 2 3)"))
		default:
			out = append(out, "", "  "+stOK.Render(fmt.Sprintf("No problem found on %s: %s passed.", sanitize(p.name), plural(p.passed(), "check"))))
		}
		return out
	}
	cols := p.columns(fs)
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out = append(out, "  "+stDim.Render(renderCells(cols, titles)))
	end := min(p.offset+p.listRows(), len(fs))
	for i := p.offset; i < end; i++ {
		f := fs[i]
		sev := string(f.Severity)
		if f.Status == checks.StatusNotEvaluated {
			sev = "not eval"
		}
		msg := f.Message
		if f.Status == checks.StatusNotEvaluated {
			msg = strings.TrimPrefix(msg, "not evaluated: ")
		}
		cells := []string{sev, p.s.treeRule(f, p.name), sanitize(f.Subject), sanitize(msg)}
		if i == p.cursor {
			out = append(out, stSelected.Render("▶ "+renderCells(cols, cells)))
			continue
		}
		st := sevStyle(f.Severity)
		if f.Status == checks.StatusNotEvaluated {
			st = stDim
		}
		cells[0] = st.Render(fit(cells[0], cols[0].width))
		out = append(out, "  "+renderCells(cols, cells))
	}
	return append(out, p.planPreview()...)
}

func (p *hostPage) columns(fs []checks.Finding) []column {
	rw, sw := 4, 7
	for _, f := range fs {
		rw = max(rw, ansi.StringWidth(p.s.treeRule(f, p.name)))
		sw = max(sw, ansi.StringWidth(f.Subject))
	}
	rw = min(rw, 28)
	sw = min(sw, max(12, (p.s.width-rw-14)/3))
	cols := []column{
		{title: "SEVERITY", width: 8, prio: 9},
		{title: "RULE", width: rw, prio: 8},
		{title: "SUBJECT", width: sw, prio: 3},
		{title: "MESSAGE", prio: 0},
	}
	return layoutColumns(cols, p.s.width, 12)
}

// passed counts the checks that passed on the host.
func (p *hostPage) passed() int {
	n := 0
	if p.s.rep != nil {
		for _, f := range p.s.rep.Passed {
			if f.Host == p.name {
				n++
			}
		}
	}
	return n
}

// countOrUnknown renders a count that may be unknown: "2 RDMA devices",
// "RDMA devices unknown".
func countOrUnknown(count func() (int, bool)) func(one string) string {
	return func(one string) string {
		if n, known := count(); known {
			return plural(n, one)
		}
		return one + "s unknown"
	}
}

// findings returns the host's findings shown under the severity toggles
// and the filter.
func (p *hostPage) findings() []checks.Finding {
	var out []checks.Finding
	filter := strings.ToLower(p.filter)
	for _, f := range p.s.byHost[p.name] {
		if !p.s.showSev[f.Severity] {
			continue
		}
		if filter != "" && !strings.Contains(strings.ToLower(f.RuleID+" "+f.Subject+" "+f.Message+" "+string(f.Severity)), filter) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// previewRows is how many rows the host screen keeps below its list
// for the start of the fix plan: up to a third of the body.
// It is hidden while a filter or a severity toggle narrows the list.
func (p *hostPage) previewRows() int {
	if p.s.plan(p.name) == nil || p.filter != "" || !p.s.showSev[checks.Critical] || !p.s.showSev[checks.Warning] || !p.s.showSev[checks.Info] {
		return 0
	}
	return min(len(p.s.planLines(p.name))+1, max(p.s.bodyHeight()/3, 3))
}

// planPreview is the start of the fix plan under the host's findings.
func (p *hostPage) planPreview() []string {
	n := p.previewRows()
	if n == 0 {
		return nil
	}
	lines := p.s.planLines(p.name)
	out := []string{""}
	if len(lines) > n-1 {
		lines = lines[:n-1]
		lines[len(lines)-1] = stDim.Render("  … f: the whole fix plan")
	}
	lines[0] = lines[0] + stDim.Render("  (f: full plan)")
	return append(out, lines...)
}
