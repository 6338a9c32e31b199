package adversarial

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
	"github.com/pvrdma-doctor/pvrdma-doctor/tui"
)

// hostNames are the values of the mixed scenario that come from hosts:
// VM display names, RDMA devices, uplinks (vmnics), vmknics, the DVS,
// port groups and standard switches, NIC and RDMA device descriptions.
var hostNames = regexp.MustCompile(`\b(hpc-node0\d|vcsa-01|win-jump01|dns-01|backup-proxy01|build-agent01|gitlab-runner01|` +
	`vmrdma\d+|vmnic\d+|vmk\d+|rdma-dvs|dvportgroup-\d+|Management Network|VM Network|vSwitch\d|` +
	`ConnectX-\d( Ex)?|X710|E810-XXV|BCM57414)\b`)

func loadMixed(t testing.TB) []hostio.HostResult {
	t.Helper()
	in, err := offline.Load(filepath.Join("..", "..", "fixtures", "scenarios", "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	return in.Results
}

// poisonCaptures returns a copy of the results in which every host-sourced
// name in every output carries p, one host's name carries p (a pasted
// session names hosts by their prompt), and a failed command, a host note
// and a host reason carry p as error text.
func poisonCaptures(rs []hostio.HostResult, p string) []hostio.HostResult {
	out := make([]hostio.HostResult, len(rs))
	for i, hr := range rs {
		hr.Captures = append([]hostio.Capture(nil), hr.Captures...)
		if hr.Host == "esx04" {
			hr.Host += p
		}
		for j := range hr.Captures {
			c := &hr.Captures[j]
			c.Host = hr.Host
			c.Stdout = hostNames.ReplaceAllString(c.Stdout, "${0}"+strings.ReplaceAll(p, "$", "$$"))
			if hr.Host == "esx05" && c.Kind == catalog.KindFirewallRules {
				c.Status, c.ExitCode, c.Stdout = hostio.StatusFailed, 1, ""
				c.Stderr = "esxcli: " + p + "\n"
				c.Error = "exit status 1: esxcli: " + p
			}
		}
		if hr.Host == "esx05" {
			hr.Status = hostio.StatusPartial
			hr.Reason = "1 command failed: " + p
			hr.Notes = append(append([]string(nil), hr.Notes...), "note from the transport: "+p)
		}
		out[i] = hr
	}
	return out
}

func analyze(rs []hostio.HostResult) (*report.Report, *facts.Fleet) {
	a := analysis.Run(rs, analysis.Options{Meta: report.Meta{Source: "adversarial campaign", Version: "test",
		Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}})
	return a.Report, a.Fleet
}

type rendered struct{ human, machine map[string]string }

func render(t testing.TB, r *report.Report) rendered {
	t.Helper()
	out := rendered{human: map[string]string{}, machine: map[string]string{}}
	for _, w := range []struct {
		name  string
		human bool
		write func(io.Writer, *report.Report) error
	}{
		{"text", true, func(w io.Writer, r *report.Report) error {
			return report.WriteText(w, r, report.TextOptions{ShowSuppressed: true})
		}},
		{"text (colour)", true, func(w io.Writer, r *report.Report) error {
			return report.WriteText(w, r, report.TextOptions{Color: true, Width: 120})
		}},
		{"markdown", true, report.WriteMarkdown},
		{"html", true, report.WriteHTML},
		{"json", false, report.WriteJSON},
		{"junit", false, report.WriteJUnit},
		{"sarif", false, report.WriteSARIF},
	} {
		var b bytes.Buffer
		if err := w.write(&b, r); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if w.human {
			out.human[w.name] = b.String()
		} else {
			out.machine[w.name] = b.String()
		}
	}
	return out
}

// ownSGR are the colour sequences the text report and the TUI write
// themselves; any other escape sequence came from a host.
var ownSGR = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// rawIn returns a description of the first raw control, format or
// invalid byte in a human sink's output, or "".
func rawIn(out string) string {
	if strings.Contains(out, sgrHostile) {
		return "the host's SGR sequence " + fmt.Sprintf("%q", sgrHostile)
	}
	out = ownSGR.ReplaceAllString(out, "")
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Sprintf("invalid byte %#x at %d", out[i], i)
		}
		if textsafe.Unsafe(r) {
			return fmt.Sprintf("%U at %d: %q", r, i, out[max(0, i-40):min(len(out), i+40)])
		}
		i += n
	}
	return ""
}

// jsonForm is how encoding/json carries s: each invalid byte becomes U+FFFD
// (JSON is UTF-8; the bundle keeps the raw bytes).
func jsonForm(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// xmlForm is how encoding/xml carries s: characters XML 1.0 cannot hold
// (C0 controls other than tab, newline and carriage return, U+FFFE/FFFF,
// invalid bytes) become U+FFFD; everything else is kept exactly.
func xmlForm(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		legal := r == 0x09 || r == 0x0a || r == 0x0d || (r >= 0x20 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
		if (r == utf8.RuneError && n == 1) || !legal {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// jsonStrings are the string leaves of a JSON document.
func jsonStrings(t testing.TB, doc string) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	set := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			set[x] = true
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return set
}

// reportStrings are the strings of the exported, JSON-visible fields of v
// (map keys aside).
func reportStrings(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			reportStrings(v.Elem(), out)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				reportStrings(v.Field(i), out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			reportStrings(v.Index(i), out)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			reportStrings(it.Value(), out)
		}
	}
}

// checkMachine asserts that JSON and SARIF carry every value exactly and
// JUnit as exactly as XML 1.0 allows.
func checkMachine(t *testing.T, label string, r *report.Report, out rendered) {
	t.Helper()
	leaves := jsonStrings(t, out.machine["json"])
	var all []string
	reportStrings(reflect.ValueOf(r).Elem(), &all)
	for _, s := range all {
		if !leaves[jsonForm(s)] {
			t.Fatalf("%s: json lost the value %q", label, s)
		}
	}
	sarif := jsonStrings(t, out.machine["sarif"])
	var junit report.JUnitTestSuites
	if err := xml.Unmarshal([]byte(out.machine["junit"]), &junit); err != nil {
		t.Fatalf("%s: junit is not well-formed XML: %v", label, err)
	}
	failures := map[string]bool{}
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failures[c.Failure.Message] = true
			}
		}
	}
	for _, f := range r.Findings {
		if f.Status != checks.StatusFail {
			continue
		}
		for _, s := range []string{f.Message, f.Fix, f.Host, f.Subject} {
			if s != "" && !sarif[jsonForm(s)] {
				t.Fatalf("%s: sarif lost %q", label, s)
			}
		}
		for _, e := range f.Evidence {
			if e.Line > 0 && !sarif[jsonForm(e.Text)] {
				t.Fatalf("%s: sarif lost the evidence line %q", label, e.Text)
			}
		}
		msg := f.Message
		if f.CausedBy != nil { // JUnit names a consequence's cause first
			msg = "[consequence of " + f.CausedBy.RuleID + " " + f.CausedBy.Subject + "] " + msg
		}
		if !failures[xmlForm(msg)] {
			t.Fatalf("%s: junit lost %q", label, f.Message)
		}
	}
}

// frames drives the TUI through every screen and returns each rendered
// frame, and the text "copy fix" put on the clipboard.
func frames(t testing.TB, r *report.Report, fleet *facts.Fleet, rs []hostio.HostResult) (out, clips []string) {
	t.Helper()
	var hosts []string
	for _, h := range rs {
		hosts = append(hosts, h.Host)
	}
	m := tui.NewModel(context.Background(), tui.Options{Title: r.Source, Hosts: hosts, Results: rs,
		Analyze: func([]hostio.HostResult) (*report.Report, *facts.Fleet) { return r, fleet }})
	send := func(msg tea.Msg) {
		queue := []tea.Msg{msg}
		for n := 0; len(queue) > 0 && n < 50; n++ {
			_, cmd := m.Update(queue[0])
			queue = queue[1:]
			for _, got := range execCmd(cmd) {
				rt := reflect.TypeOf(got)
				switch {
				case rt.Kind() == reflect.String && strings.HasPrefix(rt.PkgPath(), "charm.land/bubbletea"):
					clips = append(clips, reflect.ValueOf(got).String()) // the clipboard (OSC 52) write
				case strings.HasSuffix(rt.PkgPath(), "/tui"):
					queue = append(queue, got)
				}
			}
		}
		out = append(out, m.View().Content)
	}
	send(tea.WindowSizeMsg{Width: 120, Height: 40})
	key := testutil.Key
	// Every host: its findings, each finding with its evidence, the fix
	// copied, the topology; then help and the filter.
	for h := range rs {
		for k := 0; k < 3; k++ {
			walk := []string{"g"}
			for range h {
				walk = append(walk, "j")
			}
			walk = append(walk, "enter", "g")
			for range k {
				walk = append(walk, "j")
			}
			walk = append(walk, "enter", "tab", "tab", "w", "c", "esc", "t", "esc", "esc")
			for _, k := range walk {
				send(key(k))
			}
		}
	}
	for _, k := range []string{"?", "esc", "2", "2", "/", "e", "esc"} {
		send(key(k))
	}
	return out, clips
}

// execCmd runs a command as the program would, giving up on one that
// waits (a timer) after a moment.
func execCmd(cmd tea.Cmd) []tea.Msg { return testutil.ExecCmd(cmd, 200*time.Millisecond) }

// The campaign's core property: every hostile character, invalid byte
// and attack sequence, in every host-sourced field of a real analysis
// (VM, device, uplink, vmknic, switch and port group names, NIC
// descriptions, host names, error text), never reaches a human sink raw,
// and JSON and SARIF carry the exact value (JUnit as exactly as XML 1.0
// allows).
func TestHostileTextThroughEveryFormat(t *testing.T) {
	base := loadMixed(t)
	bs := batches(8)
	for i, p := range bs {
		label := fmt.Sprintf("batch %d %q", i, p[:min(len(p), 40)])
		r, _ := analyze(poisonCaptures(base, p))
		mustReach(t, label, r, p)
		out := render(t, r)
		for sink, text := range out.human {
			if bad := rawIn(text); bad != "" {
				t.Fatalf("%s: %s: raw %s", label, sink, bad)
			}
		}
		checkMachine(t, label, r, out)
	}
	t.Logf("%d payloads (%d control/format characters, %d invalid UTF-8 strings, %d attack sequences, %d long values) in %d analyses, "+
		"7 renderings each: no raw byte in a human sink, exact values in JSON and SARIF", len(unsafeChars())+len(invalidUTF8())+len(sequences())+len(longValues()),
		len(unsafeChars()), len(invalidUTF8()), len(sequences()), len(longValues()), len(bs))
}

// The same payloads (32 to a batch) through the TUI: every screen of
// every host, every finding with its evidence and topology, and the text
// "copy fix" writes to the clipboard.
func TestHostileTextInTUIFrames(t *testing.T) {
	base := loadMixed(t)
	bs := batches(32)
	var frameCount, clipCount int
	for i, p := range bs {
		label := fmt.Sprintf("batch %d %q", i, p[:min(len(p), 40)])
		rs := poisonCaptures(base, p)
		r, fleet := analyze(rs)
		mustReach(t, label, r, p)
		fs, clips := frames(t, r, fleet, rs)
		frameCount += len(fs)
		clipCount += len(clips)
		for j, f := range fs {
			if bad := rawIn(f); bad != "" {
				t.Fatalf("%s: TUI frame %d: raw %s", label, j, bad)
			}
		}
		for _, c := range clips {
			if bad := rawIn(c); bad != "" {
				t.Fatalf("%s: copied fix: raw %s", label, bad)
			}
		}
	}
	if clipCount == 0 {
		t.Fatal("no fix was ever copied: the walk misses the finding screen")
	}
	t.Logf("%d analyses, %d TUI frames, %d fixes copied: no raw byte", len(bs), frameCount, clipCount)
}

// mustReach fails when the payload got into no field of the report: the
// test would then prove nothing.
func mustReach(t *testing.T, label string, r *report.Report, p string) {
	t.Helper()
	var all []string
	reportStrings(reflect.ValueOf(r).Elem(), &all)
	for _, s := range all {
		if strings.Contains(s, p) {
			return
		}
	}
	t.Fatalf("%s: the payload reached no field of the report", label)
}
