package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

type screenKind int

const (
	scrOverview screenKind = iota
	scrHost
	scrFinding
	scrTopology
	scrPlan
)

// view is one screen on the navigation stack; esc pops it, so the user
// always comes back to where they were.
type view struct {
	kind   screenKind
	host   string // scrHost, scrFinding, scrTopology
	key    string // scrFinding: the finding's Key()
	cursor int    // selected row (lists)
	offset int    // first visible row (lists, topology, evidence output)
	filter string // lists: the / filter
	// scrFinding
	evidence int  // which evidence is shown
	whyAll   bool // show the full "why it matters"
}

// hostRow is one host as the UI knows it: its collection progress and its
// latest finished result.
type hostRow struct {
	name   string
	phase  hostio.Phase
	done   int
	total  int
	err    string
	result *hostio.HostResult
}

// inputMode says what the text input is for.
type inputMode int

const (
	inputNone inputMode = iota
	inputFilter
	inputBundle
)

// analysisMsg carries a finished analysis back into the UI loop.
type analysisMsg struct {
	gen   int
	rep   *report.Report
	fleet *facts.Fleet
}

// bundleMsg reports the end of a bundle export.
type bundleMsg struct {
	path   string
	tokens string // the token map written next to a redacted bundle
	err    error
}

// tokensPath is where the token map of a redacted bundle goes (as
// bundle.TokensPath).
func tokensPath(bundlePath string) string { return bundlePath + ".tokens.json" }

// exportBundle writes the bundle and finds the token map it wrote, if the
// bundle was redacted (a map older than this export is not reported).
func exportBundle(export func(string) error, path string) bundleMsg {
	start := time.Now()
	if err := export(path); err != nil {
		return bundleMsg{path: path, err: err}
	}
	msg := bundleMsg{path: path}
	if st, err := os.Stat(tokensPath(path)); err == nil && !st.ModTime().Before(start.Add(-2*time.Second)) {
		msg.tokens = tokensPath(path)
	}
	return msg
}

// rescanDoneMsg reports that a rescan returned.
type rescanDoneMsg struct{ hosts []string }

// Model is the Bubble Tea model of the UI.
type Model struct {
	ctx  context.Context
	opts Options
	keys keyMap
	help help.Model

	width, height int

	rows  []*hostRow
	index map[string]int

	// The latest analysis and what was derived from it.
	rep       *report.Report
	fleet     *facts.Fleet
	repHosts  map[string]int              // host -> index in rep.Hosts
	byHost    map[string][]checks.Finding // host -> findings (fail and not evaluated)
	factsHost map[string]*facts.Host

	gen, appliedGen int  // analysis generations requested / applied
	analyzing       bool // an analysis is running
	dirty           bool // results changed since the running analysis started

	stack   []view
	showSev map[checks.Severity]bool
	helpOn  bool
	helpOff int // help scroll

	mode  inputMode
	input lineInput

	status string

	// visible caches the filtered rows of the current list screen.
	visible    []int
	visibleKey string
}

// NewModel builds the model; Program wraps it, tests drive it directly.
func NewModel(ctx context.Context, opts Options) *Model {
	if ctx == nil {
		ctx = context.Background()
	}
	m := &Model{
		ctx: ctx, opts: opts, keys: newKeyMap(), help: help.New(),
		width: 80, height: 24,
		index:   map[string]int{},
		stack:   []view{{kind: scrOverview}},
		showSev: map[checks.Severity]bool{checks.Critical: true, checks.Warning: true, checks.Info: true},
	}
	m.help.Styles = help.DefaultDarkStyles()
	for _, h := range opts.Hosts {
		m.row(h)
	}
	for i := range opts.Results {
		r := opts.Results[i]
		row := m.row(r.Host)
		row.result = &r
		row.phase = hostio.PhaseDone
		if r.Status == hostio.StatusNotCollected {
			row.phase = hostio.PhaseFailed
			row.err = r.Reason
		}
	}
	if len(opts.Results) > 0 && opts.Analyze != nil {
		// Offline data is complete: show it analyzed from the first frame.
		m.gen++
		m.apply(m.runAnalysis(m.gen)().(analysisMsg))
	}
	return m
}

// row returns the host's row, adding it when new.
func (m *Model) row(name string) *hostRow {
	if i, ok := m.index[name]; ok {
		return m.rows[i]
	}
	r := &hostRow{name: name, phase: hostio.PhaseQueued}
	m.index[name] = len(m.rows)
	m.rows = append(m.rows, r)
	m.visibleKey = ""
	return r
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

func (m *Model) top() *view { return &m.stack[len(m.stack)-1] }

// results returns the finished results in host order.
func (m *Model) results() []hostio.HostResult {
	out := make([]hostio.HostResult, 0, len(m.rows))
	for _, r := range m.rows {
		if r.result != nil {
			out = append(out, *r.result)
		}
	}
	return out
}

// runAnalysis returns a command that analyzes a snapshot of the results.
func (m *Model) runAnalysis(gen int) tea.Cmd {
	res := m.results()
	analyze := m.opts.Analyze
	return func() tea.Msg {
		rep, fleet := analyze(res)
		return analysisMsg{gen: gen, rep: rep, fleet: fleet}
	}
}

// requestAnalysis starts an analysis, or marks one as needed when one is
// already running (so a burst of finished hosts costs one or two runs).
func (m *Model) requestAnalysis() tea.Cmd {
	if m.opts.Analyze == nil {
		return nil
	}
	if m.analyzing {
		m.dirty = true
		return nil
	}
	m.analyzing = true
	m.dirty = false
	m.gen++
	return m.runAnalysis(m.gen)
}

// apply installs an analysis.
func (m *Model) apply(a analysisMsg) {
	if a.gen <= m.appliedGen || a.rep == nil {
		return
	}
	m.appliedGen = a.gen
	m.rep, m.fleet = a.rep, a.fleet
	m.repHosts = make(map[string]int, len(a.rep.Hosts))
	for i, h := range a.rep.Hosts {
		m.repHosts[h.Host] = i
	}
	m.byHost = map[string][]checks.Finding{}
	for _, f := range a.rep.Findings {
		m.byHost[f.Host] = append(m.byHost[f.Host], f)
	}
	m.factsHost = map[string]*facts.Host{}
	if a.fleet != nil {
		for i := range a.fleet.Hosts {
			m.factsHost[a.fleet.Hosts[i].Host] = &a.fleet.Hosts[i]
		}
	}
	m.visibleKey = ""
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.clamp()
		return m, nil
	case EventMsg:
		return m, m.onEvent(hostio.Event(msg))
	case analysisMsg:
		m.analyzing = false
		m.apply(msg)
		m.clamp()
		if m.dirty {
			return m, m.requestAnalysis()
		}
		return m, nil
	case bundleMsg:
		switch {
		case msg.err != nil:
			m.status = "bundle not written: " + msg.err.Error()
		case msg.tokens != "":
			m.status = "support bundle written to " + msg.path + " (redacted). Its token map turns the tokens back into real names; keep it private: " + msg.tokens
		default:
			m.status = "support bundle written to " + msg.path
		}
		m.clamp()
		return m, nil
	case rescanDoneMsg:
		m.status = "rescan of " + joinMax(msg.hosts, 3) + " finished"
		return m, nil
	case tea.MouseWheelMsg:
		d := 0
		switch msg.Button {
		case tea.MouseWheelUp:
			d = -3
		case tea.MouseWheelDown:
			d = 3
		}
		if m.helpOn {
			m.helpOff = max(m.helpOff+d, 0)
		} else if d != 0 {
			m.move(d)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.PasteMsg:
		if m.mode != inputNone {
			m.input.insert(msg.Content)
			m.syncFilter()
		}
	}
	return m, nil
}

// onEvent records a collection event.
func (m *Model) onEvent(ev hostio.Event) tea.Cmd {
	r := m.row(ev.Host)
	r.phase, r.done, r.total, r.err = ev.Phase, ev.Done, ev.Total, ev.Err
	if ev.Result != nil {
		res := *ev.Result
		r.result = &res
		return m.requestAnalysis()
	}
	return nil
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.mode != inputNone {
		return m.onInputKey(msg)
	}
	k := m.keys
	m.status = ""
	if m.helpOn {
		switch {
		case key.Matches(msg, k.Quit):
			return tea.Quit
		case key.Matches(msg, k.Help, k.Back):
			m.helpOn = false
		case key.Matches(msg, k.Down):
			m.helpOff++
		case key.Matches(msg, k.Up):
			if m.helpOff > 0 {
				m.helpOff--
			}
		}
		return nil
	}
	v := m.top()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.helpOn, m.helpOff = true, 0
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-m.pageSize())
	case key.Matches(msg, k.PageDown):
		m.move(m.pageSize())
	case key.Matches(msg, k.Top):
		m.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.move(1 << 30)
	case key.Matches(msg, k.Open):
		m.open()
	case key.Matches(msg, k.Back):
		switch {
		case v.filter != "":
			v.filter = ""
			m.visibleKey = ""
			m.clamp()
		case len(m.stack) > 1:
			m.stack = m.stack[:len(m.stack)-1]
			m.clamp()
		}
	case key.Matches(msg, k.Topology):
		if h := m.currentHost(); h != "" && v.kind != scrTopology {
			m.stack = append(m.stack, view{kind: scrTopology, host: h})
		}
	case key.Matches(msg, k.Plan):
		if h := m.currentHost(); h != "" && v.kind != scrPlan {
			m.stack = append(m.stack, view{kind: scrPlan, host: h})
		}
	case key.Matches(msg, k.Filter):
		if v.kind == scrOverview || v.kind == scrHost {
			m.mode = inputFilter
			m.input.SetValue(v.filter)
			return nil
		}
		m.status = "filter works on the host and finding lists"
	case key.Matches(msg, k.Critical):
		m.toggle(checks.Critical)
	case key.Matches(msg, k.Warning):
		m.toggle(checks.Warning)
	case key.Matches(msg, k.Info):
		m.toggle(checks.Info)
	case key.Matches(msg, k.NextEvidence):
		m.cycleEvidence(1)
	case key.Matches(msg, k.PrevEvidence):
		m.cycleEvidence(-1)
	case key.Matches(msg, k.Why):
		if v.kind == scrFinding {
			v.whyAll = !v.whyAll
			m.centerEvidence()
		}
	case key.Matches(msg, k.Copy):
		if f, ok := m.currentFinding(); ok && v.kind == scrFinding {
			if f.Fix == "" {
				m.status = "this finding has no fix to copy"
				return nil
			}
			m.status = "fix copied to the clipboard (OSC 52: the terminal must allow it; the fix is also shown above)"
			return tea.SetClipboard(shownFix(f))
		}
		m.status = "open a finding to copy its fix"
	case key.Matches(msg, k.Rescan):
		if h := m.currentHost(); h != "" {
			return m.rescan([]string{h})
		}
		m.status = "no host selected"
	case key.Matches(msg, k.RescanAll):
		names := make([]string, len(m.rows))
		for i, r := range m.rows {
			names[i] = r.name
		}
		return m.rescan(names)
	case key.Matches(msg, k.Bundle):
		if m.opts.ExportBundle == nil {
			m.status = "support bundle export is not available for this run"
			return nil
		}
		m.mode = inputBundle
		path := m.opts.BundlePath
		if path == "" {
			path = "pvrdma-doctor-bundle.tar.gz"
		}
		m.input.SetValue(path)
		return nil
	}
	return nil
}

func (m *Model) onInputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		return tea.Quit
	case "esc":
		if m.mode == inputFilter {
			m.top().filter = ""
			m.visibleKey = ""
			m.clamp()
		}
		m.mode = inputNone
		return nil
	case "enter":
		mode := m.mode
		m.mode = inputNone
		if mode == inputBundle {
			path := strings.TrimSpace(m.input.Value())
			if path == "" {
				m.status = "no path given: bundle not written"
				return nil
			}
			m.status = "writing support bundle to " + path + " ..."
			export := m.opts.ExportBundle
			return func() tea.Msg { return exportBundle(export, path) }
		}
		return nil
	}
	if m.input.Update(msg) {
		m.syncFilter()
	}
	return nil
}

// syncFilter applies the filter as it is typed.
func (m *Model) syncFilter() {
	if m.mode != inputFilter {
		return
	}
	v := m.top()
	v.filter = m.input.Value()
	v.cursor, v.offset = 0, 0
	m.visibleKey = ""
	m.clamp()
}

func (m *Model) toggle(s checks.Severity) {
	m.showSev[s] = !m.showSev[s]
	m.visibleKey = ""
	m.clamp()
}

// rescan asks the cli to collect hosts again.
func (m *Model) rescan(hosts []string) tea.Cmd {
	if m.opts.Rescan == nil {
		m.status = "rescan is not available: this data was not collected live"
		return nil
	}
	var busy []string
	for _, h := range hosts {
		if r := m.rows[m.index[h]]; !finished(r.phase) {
			busy = append(busy, h)
		}
	}
	if len(busy) > 0 {
		m.status = joinMax(busy, 3) + " still being collected: wait for it to finish"
		return nil
	}
	for _, h := range hosts {
		r := m.rows[m.index[h]]
		r.phase, r.done, r.total, r.err = hostio.PhaseQueued, 0, 0, ""
	}
	m.status = "rescanning " + joinMax(hosts, 3)
	rescan, ctx := m.opts.Rescan, m.ctx
	return func() tea.Msg {
		rescan(ctx, hosts)
		return rescanDoneMsg{hosts: hosts}
	}
}

func finished(p hostio.Phase) bool { return p == hostio.PhaseDone || p == hostio.PhaseFailed }

func joinMax(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// open drills down from the selected row.
func (m *Model) open() {
	v := m.top()
	switch v.kind {
	case scrOverview:
		vis := m.visibleRows()
		if len(vis) == 0 {
			return
		}
		m.stack = append(m.stack, view{kind: scrHost, host: m.rows[vis[v.cursor]].name})
	case scrHost:
		fs := m.hostFindings(v.host, v.filter)
		if len(fs) == 0 {
			return
		}
		f := fs[v.cursor]
		m.stack = append(m.stack, view{kind: scrFinding, host: v.host, key: f.Key() + "|" + string(f.Status)})
		m.centerEvidence()
	}
}

// currentHost is the host the current screen is about (the selected one
// on the overview).
func (m *Model) currentHost() string {
	v := m.top()
	if v.kind != scrOverview {
		return v.host
	}
	vis := m.visibleRows()
	if len(vis) == 0 {
		return ""
	}
	return m.rows[vis[v.cursor]].name
}

// currentFinding resolves the finding screen's finding in the latest analysis.
func (m *Model) currentFinding() (checks.Finding, bool) {
	v := m.top()
	if v.kind != scrFinding {
		return checks.Finding{}, false
	}
	for _, f := range m.byHost[v.host] {
		if f.Key()+"|"+string(f.Status) == v.key {
			return f, true
		}
	}
	return checks.Finding{}, false
}

// hostFindings returns a host's findings shown under the severity toggles
// and the filter.
func (m *Model) hostFindings(host, filter string) []checks.Finding {
	var out []checks.Finding
	filter = strings.ToLower(filter)
	for _, f := range m.byHost[host] {
		if !m.showSev[f.Severity] {
			continue
		}
		if filter != "" && !strings.Contains(strings.ToLower(f.RuleID+" "+f.Subject+" "+f.Message+" "+string(f.Severity)), filter) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// visibleRows returns the overview rows matching the filter (cached).
func (m *Model) visibleRows() []int {
	v := m.stack[0]
	if m.visibleKey == "rows:"+v.filter && m.visible != nil {
		return m.visible
	}
	f := strings.ToLower(v.filter)
	out := make([]int, 0, len(m.rows))
	for i, r := range m.rows {
		if f == "" || strings.Contains(strings.ToLower(m.rowSearchText(r)), f) {
			out = append(out, i)
		}
	}
	m.visible, m.visibleKey = out, "rows:"+v.filter
	return out
}

// rowSearchText is what the overview filter matches: name, verdict,
// collection state and the rule IDs of the host's failing findings (not
// the checks that could not be evaluated: /MTU must not list a host only
// because its MTU checks did not run).
func (m *Model) rowSearchText(r *hostRow) string {
	parts := []string{r.name, string(r.phase), r.err}
	if h, ok := m.reportHost(r.name); ok {
		parts = append(parts, h.Verdict, string(h.Status))
	}
	for _, f := range m.byHost[r.name] {
		if f.Status == checks.StatusFail {
			parts = append(parts, f.RuleID)
		}
	}
	return strings.Join(parts, " ")
}

func (m *Model) reportHost(name string) (*report.Host, bool) {
	if m.rep == nil {
		return nil, false
	}
	i, ok := m.repHosts[name]
	if !ok {
		return nil, false
	}
	return &m.rep.Hosts[i], true
}

// listLen is the number of rows of the current list screen.
func (m *Model) listLen() int {
	v := m.top()
	switch v.kind {
	case scrOverview:
		return len(m.visibleRows())
	case scrHost:
		return len(m.hostFindings(v.host, v.filter))
	}
	return 0
}

// move moves the selection (lists) or scrolls (finding output, topology).
func (m *Model) move(d int) {
	v := m.top()
	switch v.kind {
	case scrOverview, scrHost:
		v.cursor += d
	default:
		v.offset += d
	}
	m.clamp()
}

func (m *Model) pageSize() int {
	if p := m.bodyHeight() - 3; p > 1 {
		return p
	}
	return 1
}

// clamp keeps every cursor and offset in range after any change.
func (m *Model) clamp() {
	v := m.top()
	switch v.kind {
	case scrOverview, scrHost:
		n := m.listLen()
		v.cursor = clampInt(v.cursor, 0, n-1)
		rows := m.listRows()
		if v.cursor < v.offset {
			v.offset = v.cursor
		}
		if v.cursor >= v.offset+rows {
			v.offset = v.cursor - rows + 1
		}
		v.offset = clampInt(v.offset, 0, n-rows)
	case scrFinding:
		_, total, rows := m.evidenceWindow()
		v.offset = clampInt(v.offset, 0, total-rows)
	case scrTopology:
		total := len(m.topologyLines())
		v.offset = clampInt(v.offset, 0, total-m.bodyHeight())
	case scrPlan:
		total := len(m.planLines(v.host))
		v.offset = clampInt(v.offset, 0, total-m.bodyHeight())
	}
}

func clampInt(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// cycleEvidence shows the next or previous evidence of a finding.
func (m *Model) cycleEvidence(d int) {
	v := m.top()
	f, ok := m.currentFinding()
	if v.kind != scrFinding || !ok || len(f.Evidence) == 0 {
		return
	}
	n := len(f.Evidence)
	v.evidence = ((v.evidence+d)%n + n) % n
	m.centerEvidence()
}

// centerEvidence scrolls the evidence output so the offending line is in
// the middle of its pane.
func (m *Model) centerEvidence() {
	v := m.top()
	if v.kind != scrFinding {
		return
	}
	line, _, rows := m.evidenceWindow()
	if line > 0 {
		v.offset = line - 1 - rows/2
	} else {
		v.offset = 1 << 30 // no line: show the end, where the marker is
	}
	m.clamp()
}
