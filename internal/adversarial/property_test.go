package adversarial

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
	"github.com/pvrdma-doctor/pvrdma-doctor/tui"
)

// The partial-input property (issue 23): any subset of a scan's inputs,
// damaged as real inputs are (mutate_test.go), gives a report. For every
// case: analysis.Run and every output format finish without a panic (not
// even one the engine or a renderer recovered: those would hide a bug);
// the TUI draws each of its pages at 80x24; every finding's evidence is a
// line of its command's output as read; no subject both passes and fails
// a rule; every "not evaluated" says why; and on a host whose outputs were
// only dropped or failed, every rule that said something about it on the
// complete input still does (evaluated, or not evaluated with the reason).
//
// Seeded: a failure names its seed and case, and
// go test ./internal/adversarial -run TestPartialInputs -partial.seed=S -partial.case=N
// replays exactly that case. Seeds that found bugs are kept as regular
// cases in partialRegressions.

var (
	partialSeed  = flag.Uint64("partial.seed", 0, "seed of the partial-input property test (0: a fixed default, or $PARTIAL_SEED)")
	partialCases = flag.Int("partial.cases", 0, "cases of the partial-input property test (0: 2000, 200 with -short)")
	partialCase  = flag.Int("partial.case", -1, "run only this case of the seed")

	partialMaxFailures = flag.Int("partial.maxfail", 3, "stop after this many failing cases")
)

// partialRegressions are cases that found bugs, replayed on every run:
// seed, case, and what the bug was.
var partialRegressions = []struct {
	seed uint64
	n    int
	bug  string
}{
	{23, 45, "TCP_FALLBACK read the PVRDMA vDS's name without the vDS list: nil dereference"},
	{23, 3, "TCP_FALLBACK cited an RDMA device list that was not collected as \"no RDMA device listed\""},
	{23, 8, "rules said nothing where the inputs listing their subjects (VMs, adapters, probes) were dropped"},
	{23, 154, "VM_PEERS_ON_DIFFERENT_DVS passed over PVRDMA VMs without a configuration silently"},
	{23, 1497, "two VMs whose .vmx lost displayName were one subject, passing and failing at once"},
	{23, 1705, "a pasted command interrupted by ^C was read as an empty listing"},
	{23, 17, "a guest's commands pasted under an ESXi host's prompt panicked in facts (reflect.Set)"},
	{2, 184, "a lone failed jumbo probe: no path rule said anything"},
	{6, 1512, "a stray line in a table became an RDMA device without a name (a finding about no subject)"},
	{7, 1497, "a stray \"Name:\" line emptied a switch's name (a finding about no subject)"},
	{9, 2736, "GPU_DUPLICATE_DEVICE passed over PVRDMA VMs whose .vmx was not read silently"},
	{23, 738, "PFC_DISABLED left an idle host's unread DCB status to HOST_NOT_READY, which could not read it either: silent"},
	{23, 1434, "one PVRDMA adapter without an HCA read, its host's other adapters lost: the host was taken to fall back, and VM_PEERS_WITHOUT_RDMA was silent"},
}

func TestPartialInputs(t *testing.T) {
	scs := allScenarios(t)
	seed := *partialSeed
	if seed == 0 {
		if _, err := fmt.Sscan(os.Getenv("PARTIAL_SEED"), &seed); err != nil || seed == 0 {
			seed = 23
		}
	}
	n := *partialCases
	if n == 0 {
		n = 2000
		if testing.Short() {
			n = 200
		}
	}
	first, last := 0, n-1
	if *partialCase >= 0 {
		first, last = *partialCase, *partialCase
	}
	for _, reg := range partialRegressions {
		runPartialCase(t, scs, reg.seed, reg.n)
	}
	for _, sc := range scs {
		baselineOf(sc) // before the workers share the cache
	}
	// The cases are independent: one worker per CPU.
	start := time.Now()
	var failed atomic.Int32
	var next atomic.Int64
	next.Store(int64(first))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i > last || int(failed.Load()) >= *partialMaxFailures {
					return
				}
				if !runPartialCase(t, scs, seed, i) {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	t.Logf("seed %d: %d cases in %v (%.0f cases/s)", seed, last-first+1, el.Round(time.Millisecond), float64(last-first+1)/el.Seconds())
}

// runPartialCase runs case n of seed: scenario n mod the scenarios, the
// mutations from the PRNG of (seed, n).
func runPartialCase(t *testing.T, scs []scenarioCase, seed uint64, n int) bool {
	t.Helper()
	sc := scs[n%len(scs)]
	m := mutate(randChooser{rand.New(rand.NewPCG(seed, uint64(n)))}, sc.results)
	label := fmt.Sprintf("seed %d case %d (scenario %s)", seed, n, sc.name)
	msg := checkPartial(sc, m, n%3 == 0)
	if msg == "" {
		return true
	}
	log := m.log
	if len(log) > 40 && !testing.Verbose() {
		log = append(log[:40:40], fmt.Sprintf("and %d more (-v shows them)", len(m.log)-40))
	}
	t.Errorf("%s: %s\nmutations:\n  %s\nreplay: go test ./internal/adversarial -run TestPartialInputs -partial.seed=%d -partial.case=%d -v",
		label, msg, strings.Join(log, "\n  "), seed, n)
	return false
}

// baselines caches each scenario's (rule, host) pairs with a result on the
// complete input.
var baselines = map[string]map[string]bool{}

func baselineOf(sc scenarioCase) map[string]bool {
	if b, ok := baselines[sc.name]; ok {
		return b
	}
	a := analysis.Run(sc.results, analysis.Options{Meta: partialMeta})
	b := map[string]bool{}
	for _, f := range append(append([]checks.Finding(nil), a.Checks.Findings...), a.Checks.Passed...) {
		b[f.RuleID+"|"+f.Host] = true
	}
	baselines[sc.name] = b
	return b
}

var partialMeta = report.Meta{Source: "partial-input property", Version: "test", Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

// checkPartial runs one mutated case through the pipeline and every sink
// and returns what is wrong with it ("" when nothing). A panic is caught
// and returned with its stack, so that the run goes on to name the case.
func checkPartial(sc scenarioCase, m *mutated, withTUI bool) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprintf("panic: %v\n%s", v, stack())
		}
	}()
	a := analysis.Run(m.results, analysis.Options{Meta: partialMeta})
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, ie := range a.Report.InternalErrors {
		add("internal error recovered (%s %s %s): %s\n%s", ie.Where, ie.RuleID, ie.Host, ie.Panic, ie.Stack)
	}
	all := append(append([]checks.Finding(nil), a.Checks.Findings...), a.Checks.Passed...)
	checkEvidence(m.results, all, add)
	status := map[string]checks.Status{}
	said := map[string]bool{}
	for _, f := range all {
		said[f.RuleID+"|"+f.Host] = true
		if f.Status == checks.StatusNotEvaluated && strings.TrimSpace(strings.TrimPrefix(f.Message, "not evaluated:")) == "" {
			add("%s on %s (%s): not evaluated without a reason", f.RuleID, f.Host, f.Subject)
		}
		if strings.TrimSpace(f.Subject) == "" {
			add("%s on %s (%s): a finding about no subject: %s", f.RuleID, f.Host, f.Status, f.Message)
		}
		k := f.Key()
		if prev, ok := status[k]; ok && prev != f.Status && prev != checks.StatusNotEvaluated && f.Status != checks.StatusNotEvaluated {
			add("%s on %s (%s) both %s and %s", f.RuleID, f.Host, f.Subject, prev, f.Status)
		}
		status[k] = f.Status
	}
	// What the complete input evaluated, the partial one still speaks of.
	base := baselineOf(sc)
	present := map[string]bool{}
	for _, hr := range m.results {
		if hr.Status != hostio.StatusNotCollected && m.clean[hr.Host] {
			present[hr.Host] = true
		}
	}
	// The path rules share the measured pairs, each leaving a pair to the
	// one that owns its outcome (a pair no size reaches is
	// PATH_UNREACHABLE's, not PATH_MTU_BLOCKED's): one of them speaks.
	var pathRules []string
	for _, r := range checks.Rules() {
		if slices.Contains(r.ListedBy, catalog.KindVmkping) {
			pathRules = append(pathRules, r.ID)
		}
	}
	saidOfPaths := func(h string) bool {
		for _, id := range pathRules {
			if said[id+"|"+h] {
				return true
			}
		}
		return false
	}
	for _, r := range checks.Rules() {
		path := slices.Contains(pathRules, r.ID)
		if m.hostsLost && (r.Scope == checks.FleetScope || path) {
			continue // a rule about a host and its peers: the peers may be gone
		}
		if r.ID == checks.CollectionFailed && m.transcript != "" {
			continue // what a pasted session lacks is coverage, not a finding
		}
		for h := range present {
			if base[r.ID+"|"+h] && !said[r.ID+"|"+h] && !(path && saidOfPaths(h)) {
				add("%s said nothing about %s, whose outputs were only dropped or failed (on the complete input it did)", r.ID, h)
			}
		}
	}
	for _, w := range sinks {
		var b bytes.Buffer
		if err := w.write(&b, a.Report); err != nil {
			add("%s: %v", w.name, err)
		}
		if strings.Contains(b.String(), "could not be shown: internal error") {
			add("%s: a section failed to render:\n%s", w.name, b.String())
		}
	}
	if withTUI {
		for i, f := range tuiFrames(m.results, a) {
			lines := strings.Split(f, "\n")
			if len(lines) != 24 {
				add("TUI frame %d has %d lines", i, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > 80 {
					add("TUI frame %d has a line of %d cells: %q", i, w, ansi.Strip(l))
					break
				}
			}
			if strings.Contains(ansi.Strip(f), "internal error") {
				add("TUI frame %d shows an internal error:\n%s", i, ansi.Strip(f))
			}
		}
	}
	if len(problems) > 5 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return strings.Join(problems, "\n")
}

// checkEvidence checks that every piece of evidence that names a line is
// that line of its command's output on its host, as the case gave it.
func checkEvidence(rs []hostio.HostResult, fs []checks.Finding, add func(string, ...any)) {
	out := map[string]map[string]hostio.Capture{}
	for _, hr := range rs {
		out[hr.Host] = map[string]hostio.Capture{}
		for _, c := range hr.Captures {
			out[hr.Host][c.Command] = c
		}
	}
	// As a terminal shows the line (what the parsers read): colour codes
	// gone, tabs expanded, runs of blanks as one.
	norm := func(s string) string {
		return strings.Join(strings.Fields(textsafe.ExpandTabs(ansi.Strip(strings.ReplaceAll(s, "\u00a0", " ")))), " ")
	}
	for _, f := range fs {
		for _, e := range f.Evidence {
			if e.Line <= 0 {
				// A command cited without a line: when it was not
				// collected, the evidence may only say so.
				if c, ok := out[e.Host][e.Command]; ok && !c.OK() && f.RuleID != checks.CollectionFailed &&
					(c.Error == "" || !strings.Contains(e.Note, c.Error)) {
					add("%s on %s (%s): evidence `%s` (%s) from a command that was not collected (%s: %s)",
						f.RuleID, f.Host, f.Subject, e.Command, e.Note, c.Status, c.Error)
				}
				continue
			}
			cmd, stderr := strings.CutSuffix(e.Command, " (stderr)")
			c, ok := out[e.Host][cmd]
			if stderr {
				c.Stdout = c.Stderr
				c.Status = hostio.StatusCollected
			}
			if !ok {
				add("%s on %s (%s): evidence from `%s` on %s, which the input does not hold", f.RuleID, f.Host, f.Subject, e.Command, e.Host)
				continue
			}
			if !c.OK() {
				add("%s on %s (%s): evidence line %d of `%s`, which was not collected (%s)", f.RuleID, f.Host, f.Subject, e.Line, e.Command, c.Status)
				continue
			}
			lines := strings.Split(c.Stdout, "\n")
			if e.Line > len(lines) {
				add("%s on %s (%s): evidence line %d of `%s`, which has %d lines", f.RuleID, f.Host, f.Subject, e.Line, e.Command, len(lines))
				continue
			}
			if got := lines[e.Line-1]; norm(got) != norm(e.Text) {
				add("%s on %s (%s): evidence line %d of `%s` is %q, the finding says %q", f.RuleID, f.Host, f.Subject, e.Line, e.Command, got, e.Text)
			}
		}
	}
}

// sinks are every output format.
var sinks = []struct {
	name  string
	write func(io.Writer, *report.Report) error
}{
	{"text", func(w io.Writer, r *report.Report) error { return report.WriteText(w, r, report.TextOptions{}) }},
	{"json", report.WriteJSON},
	{"markdown", report.WriteMarkdown},
	{"html", report.WriteHTML},
	{"junit", report.WriteJUnit},
	{"sarif", report.WriteSARIF},
}

// tuiFrames draws the TUI at 80x24 on every page it has for the case: the
// overview, the first rows' host (or guest) pages, a finding, its
// evidence, the topology, the fix plan, the path matrix, the readiness
// table and the help.
func tuiFrames(rs []hostio.HostResult, a *analysis.Analysis) []string {
	var hosts []string
	for _, h := range rs {
		hosts = append(hosts, h.Host)
	}
	m := tui.NewModel(context.Background(), tui.Options{Title: "partial", Hosts: hosts, Results: rs,
		Analyze: func([]hostio.HostResult) (*report.Report, *facts.Fleet) { return a.Report, a.Fleet }})
	var out []string
	send := func(msg tea.Msg) {
		queue := []tea.Msg{msg}
		for n := 0; len(queue) > 0 && n < 20; n++ {
			_, cmd := m.Update(queue[0])
			queue = queue[1:]
			for _, got := range testutil.ExecCmd(cmd, 50*time.Millisecond) {
				if _, isKey := got.(tea.KeyPressMsg); !isKey && strings.HasSuffix(fmt.Sprintf("%T", got), "Msg") &&
					strings.HasPrefix(fmt.Sprintf("%T", got), "tui.") {
					queue = append(queue, got)
				}
			}
		}
		out = append(out, m.View().Content)
	}
	send(tea.WindowSizeMsg{Width: 80, Height: 24})
	key := testutil.Key
	for _, walk := range [][]string{
		{"g", "enter", "enter", "tab", "esc", "esc", "t", "esc", "f", "esc", "esc"},
		{"g", "j", "enter", "G", "enter", "w", "esc", "esc", "esc"},
		{"G", "enter", "enter", "esc", "esc"},
		{"m", "j", "esc", "?", "esc"},
		{"s", "j", "esc"}, // the readiness page (issue 29)
	} {
		for _, k := range walk {
			send(key(k))
		}
	}
	return out
}

// stack is the current goroutine's stack, for a panic's message.
func stack() string {
	buf := make([]byte, 64<<10)
	return string(buf[:runtimeStack(buf)])
}

func runtimeStack(buf []byte) int { return runtime.Stack(buf, false) }
