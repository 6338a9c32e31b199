package adversarial

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/tui"
)

// One count, one word, everywhere (issue 37.1): over every scenario and
// random subsets of its hosts and guests, every format shows the fleet's
// and each host's and guest's verdict and counts as report.Build's
// account computed them (text, details, Markdown, HTML, JSON, JUnit,
// SARIF, the TUI's overview), and a verdict never contradicts its
// findings or its plan.

var (
	blanks     = regexp.MustCompile(`\s+`)
	badPlurals = regexp.MustCompile(`\b1 (checks|steps|hosts|guests|findings|consequences|warnings|commands)\b`)
	mdTableRow = regexp.MustCompile(`(?m)^\| critical \| warning \| info \| findings \|.*\n.*\n\| (\d+) \| (\d+) \| (\d+) \| (\d+) \|`)
	htmlNums   = regexp.MustCompile(`<th>findings</th>.*</tr>\s*<tr><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>`)
)

func flatWords(s string) string {
	return strings.TrimSpace(blanks.ReplaceAllString(strings.ReplaceAll(s, "\u00a0", " "), " "))
}

func TestOneCountEverywhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	for _, name := range fixtures.Names() {
		in, err := offline.Load(filepath.Join("..", "..", "fixtures", "scenarios", name))
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string][]hostio.HostResult{"all": in.Results}
		for i := range 3 {
			var sub []hostio.HostResult
			for _, r := range in.Results {
				if rng.IntN(10) < 6 {
					sub = append(sub, r)
				}
			}
			if len(sub) == 0 {
				sub = in.Results[:1]
			}
			cases[fmt.Sprintf("subset%d", i)] = sub
		}
		for cname, rs := range cases {
			t.Run(name+"/"+cname, func(t *testing.T) {
				a := analysis.Run(rs, analysis.Options{Meta: report.Meta{Source: name, Version: "test"}})
				checkOneCount(t, a.Report, a.Fleet, rs)
			})
		}
	}
}

func checkOneCount(t *testing.T, r *report.Report, fleet *facts.Fleet, rs []hostio.HostResult) {
	t.Helper()
	render := func(write func(io.Writer) error) string {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	text := render(func(w io.Writer) error { return report.WriteText(w, r, report.TextOptions{Width: 200}) })
	details := render(func(w io.Writer) error { return report.WriteText(w, r, report.TextOptions{Width: 120, Details: true}) })
	md := render(func(w io.Writer) error { return report.WriteMarkdown(w, r) })
	page := render(func(w io.Writer) error { return report.WriteHTML(w, r) })
	js := render(func(w io.Writer) error { return report.WriteJSON(w, r) })
	junit := render(func(w io.Writer) error { return report.WriteJUnit(w, r) })
	sarif := render(func(w io.Writer) error { return report.WriteSARIF(w, r) })
	overview := overviewFrame(r, fleet, rs)

	human := map[string]string{"text": flatWords(text), "details": flatWords(details),
		"markdown": flatWords(strings.ReplaceAll(md, `\`, "")), "html": flatWords(html.UnescapeString(page))}
	for format, out := range human {
		if !strings.Contains(out, flatWords(r.Verdict)) {
			t.Errorf("%s does not say the fleet verdict %q", format, r.Verdict)
		}
		if m := badPlurals.FindString(out); m != "" {
			t.Errorf("%s says %q", format, m)
		}
	}

	// The summary tables count what the verdict counts.
	p := r.Summary.Problems
	want := []int{p.Critical, p.Warning, p.Info, r.Summary.RootCauses.Total()}
	for format, re := range map[string]*regexp.Regexp{"markdown": mdTableRow, "html": htmlNums} {
		src := md
		if format == "html" {
			src = page
		}
		m := re.FindStringSubmatch(src)
		if m == nil {
			t.Errorf("%s has no summary table", format)
			continue
		}
		for i, w := range want {
			if got, _ := strconv.Atoi(m[i+1]); got != w {
				t.Errorf("%s summary column %d = %d, the verdict counts %d (%s)", format, i, got, w, r.Verdict)
			}
		}
	}

	// JSON, JUnit and SARIF carry the same words and counts.
	var doc struct {
		Verdict string
		Summary struct{ Problems report.SeverityCounts }
		Hosts   []struct {
			Host, Verdict string
		}
		Guests []struct{ Host, Verdict string }
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict != r.Verdict || doc.Summary.Problems != p {
		t.Errorf("JSON: verdict %q, problems %+v; want %q, %+v", doc.Verdict, doc.Summary.Problems, r.Verdict, p)
	}
	jsonVerdicts := map[string]string{}
	for _, h := range append(doc.Hosts, doc.Guests...) {
		jsonVerdicts[h.Host] = h.Verdict
	}
	var ju report.JUnitTestSuites
	if err := xml.Unmarshal([]byte(junit), &ju); err != nil {
		t.Fatal(err)
	}
	if ju.Name != "pvrdma-doctor: "+r.Verdict {
		t.Errorf("JUnit names the run %q", ju.Name)
	}
	props := map[string]map[string]string{}
	for _, s := range ju.Suites {
		props[s.Name] = map[string]string{}
		for _, pr := range s.Properties {
			props[s.Name][pr.Name] = pr.Value
		}
	}
	var sa struct {
		Runs []struct{ Properties struct{ Verdict string } }
	}
	if err := json.Unmarshal([]byte(sarif), &sa); err != nil || len(sa.Runs) != 1 || sa.Runs[0].Properties.Verdict != r.Verdict {
		t.Errorf("SARIF does not carry the verdict %q (%v)", r.Verdict, err)
	}

	for _, h := range append(append([]report.Host(nil), r.Hosts...), r.Guests...) {
		hv := flatWords(h.Verdict)
		for format, out := range human {
			if !strings.Contains(out, hv) {
				t.Errorf("%s does not say %s's verdict %q", format, h.Host, h.Verdict)
			}
		}
		if jsonVerdicts[h.Host] != h.Verdict {
			t.Errorf("JSON says %s is %q, not %q", h.Host, jsonVerdicts[h.Host], h.Verdict)
		}
		hc := h.Headline()
		if pr, ok := props[h.Host]; ok && h.Role != hostio.RoleGuest {
			if pr["verdict"] != h.Verdict || pr["critical"] != strconv.Itoa(hc.Critical) || pr["warning"] != strconv.Itoa(hc.Warning) ||
				pr["info"] != strconv.Itoa(hc.Info) {
				t.Errorf("JUnit %s: %v; want %q %+v", h.Host, pr, h.Verdict, hc)
			}
		}
		checkVerdictWords(t, r, h)
		if row, ok := overview[h.Host]; !ok {
			t.Errorf("the TUI's overview has no row for %s", h.Host)
		} else if h.Status != hostio.StatusNotCollected {
			if !strings.Contains(row.verdict, strings.SplitN(hv, ":", 2)[0]) {
				t.Errorf("TUI %s: verdict %q, the report's %q", h.Host, row.verdict, h.Verdict)
			}
			if row.crit != hc.Critical || row.warn != hc.Warning || row.info != hc.Info {
				t.Errorf("TUI %s: CRIT %d WARN %d INFO %d beside %q", h.Host, row.crit, row.warn, row.info, h.Verdict)
			}
		}
	}
}

// checkVerdictWords holds a host's verdict to its findings and plan.
func checkVerdictWords(t *testing.T, r *report.Report, h report.Host) {
	t.Helper()
	v := h.Verdict
	hc := h.Headline()
	steps := 0
	for _, p := range r.Plans {
		if p.Host == h.Host {
			steps += len(p.Steps)
		}
	}
	switch {
	case h.Status == hostio.StatusNotCollected:
		if !strings.HasPrefix(v, "NOT CHECKED") {
			t.Errorf("%s was not collected but is %q", h.Host, v)
		}
		return
	case h.Critical > 0:
		if !strings.HasPrefix(v, "BROKEN: ") {
			t.Errorf("%s has a critical finding but is %q", h.Host, v)
		}
	case h.Warning > 0:
		if !strings.HasPrefix(v, "DEGRADED: ") {
			t.Errorf("%s has a warning (and no critical) but is %q", h.Host, v)
		}
	default:
		if strings.HasPrefix(v, "BROKEN") || strings.HasPrefix(v, "DEGRADED") {
			t.Errorf("%s has no critical or warning but is %q", h.Host, v)
		}
	}
	if h.Critical+h.Warning+h.Info > 0 && strings.Contains(v, "no findings") {
		t.Errorf("%s has findings but says %q", h.Host, v)
	}
	for sev, n := range map[string]int{"critical": hc.Critical, "warning": hc.Warning, "info": hc.Info} {
		if n > 0 && h.Critical+h.Warning > 0 && !regexp.MustCompile(fmt.Sprintf(`\b%d %s`, n, sev)).MatchString(v) {
			t.Errorf("%s: %q does not count its %d %s", h.Host, v, n, sev)
		}
	}
	if steps > 0 && h.Critical+h.Warning == 0 && !strings.HasPrefix(v, "INCOMPLETE") && !strings.Contains(v, "fix plan") &&
		h.Role != hostio.RoleGuest {
		t.Errorf("%s has a fix plan of %d steps but its verdict is %q", h.Host, steps, v)
	}
}

// overviewLine is a row of the overview: host, collection and verdict,
// then CRIT WARN INFO N/E RDMA VMS.
var overviewLine = regexp.MustCompile(`^[ ▶]+(\S+)\s+(.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s*$`)

type overviewRow struct {
	verdict          string
	crit, warn, info int
}

// overviewFrame draws the TUI's overview at 220x80 and reads each row's
// verdict and CRIT, WARN and INFO columns.
func overviewFrame(r *report.Report, fleet *facts.Fleet, rs []hostio.HostResult) map[string]overviewRow {
	var hosts []string
	for _, h := range rs {
		hosts = append(hosts, h.Host)
	}
	m := tui.NewModel(context.Background(), tui.Options{Title: r.Source, Hosts: hosts, Results: rs,
		Analyze: func([]hostio.HostResult) (*report.Report, *facts.Fleet) { return r, fleet }})
	queue := []tea.Msg{tea.WindowSizeMsg{Width: 220, Height: 80}}
	for n := 0; len(queue) > 0 && n < 20; n++ {
		_, cmd := m.Update(queue[0])
		queue = queue[1:]
		for _, got := range testutil.ExecCmd(cmd, 50*time.Millisecond) {
			if _, isKey := got.(tea.KeyPressMsg); !isKey && strings.HasPrefix(fmt.Sprintf("%T", got), "tui.") {
				queue = append(queue, got)
			}
		}
	}
	rows := map[string]overviewRow{}
	for _, line := range strings.Split(ansi.Strip(m.View().Content), "\n") {
		m := overviewLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		crit, _ := strconv.Atoi(m[3])
		warn, _ := strconv.Atoi(m[4])
		info, _ := strconv.Atoi(m[5])
		rows[strings.TrimSuffix(m[1], "!")] = overviewRow{verdict: m[2], crit: crit, warn: warn, info: info}
	}
	return rows
}
