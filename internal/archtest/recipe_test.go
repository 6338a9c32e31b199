package archtest

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The recipes of docs/ARCHITECTURE.md ("How to add a command", "How to add
// a rule", "How to add a plan action") state which files a person writes;
// everything else follows from the catalogue or is regenerated.
// TestRecipeNewCommandAndRule keeps that true: in a temporary copy of the
// tree it adds a throwaway stage-1 command (`esxcli system module
// parameters list -m nmlx4_en`, its parser, fact and lab output), a rule
// reading it and a kind of plan action (disable_pause, with its effect on
// the lab's host model), by hand-edits to at most maxCommandFiles,
// maxRuleFiles and maxActionFiles files, runs the one regeneration command,
// and runs the tests. A new sync point (a table kept by hand, a count
// written into a test, a switch over the kinds) makes it fail.

const (
	maxCommandFiles = 5 // parser, its test, its testdata, the spec, the lab model's output
	maxRuleFiles    = 4 // the rule, its prose, its table test, a scenario case
	maxActionFiles  = 2 // the kind's value, its effect on the lab's host model
)

// edit is one hand edit: a new file, or text inserted into a file after
// (or, with before, in front of) the first match of an anchor.
type edit struct {
	path   string
	anchor string // a regexp; "" creates the file, "$" appends to it
	before bool
	text   string
}

// bt is a backquote, for the Go sources below (struct tags).
const bt = "`"

var commandEdits = []edit{
	{path: "parse/modparams.go", text: `package parse

// ModuleParameter is one row of ` + bt + `esxcli system module parameters list -m MODULE` + bt + `.
type ModuleParameter struct {
	Name  string ` + bt + `json:"name"` + bt + `
	Type  string ` + bt + `json:"type"` + bt + `
	Value string ` + bt + `json:"value"` + bt + `
	Ref
}

// ModuleParameters parses ` + bt + `esxcli system module parameters list -m MODULE` + bt + `:
// a table Name, Type, Value (empty when unset), Description.
func ModuleParameters(text string) ([]ModuleParameter, error) {
	recs, sk, err := readItems(text, layoutTable, []string{"Name", "Type", "Value", "Description"}, []string{"Name", "Type"})
	if err != nil {
		return nil, err
	}
	var out []ModuleParameter
	for _, r := range recs {
		out = append(out, ModuleParameter{Name: r.Get("Name"), Type: r.Get("Type"), Value: r.Get("Value"), Ref: r.Ref})
	}
	return result(out, len(out), sk)
}
`},
	{path: "parse/modparams_test.go", text: `package parse

import "testing"

func TestModuleParameters(t *testing.T) {
	ps := parsed(t, ModuleParameters, sample(t, "esxcli_system_module_parameters_list_m_nmlx5_core__recipe.txt"))
	eq(t, "parameters", len(ps), 4)
	eq(t, "unset", ps[0].Name+"="+ps[0].Value, "DRSS=")
	eq(t, "pfctx", ps[2].Name+"="+ps[2].Value, "pfctx=0x08")
	eq(t, "line", ps[2].Line, 5)
}

func FuzzModuleParameters(f *testing.F) {
	fuzzList(f, ModuleParameters, func(p ModuleParameter) Ref { return p.Ref })
}
`},
	{path: "parse/testdata/esxcli_system_module_parameters_list_m_nmlx5_core__recipe.txt", text: `Name         Type  Value  Description
-----------  ----  -----  -----------
DRSS         int          Number of RSS queues of the default queue
pfcrx        int   0x08   Priority Flow Control on receive (bitmap of priorities)
pfctx        int   0x08   Priority Flow Control on transmit (bitmap of priorities)
trust_state  int          Trust state: 1 PCP, 2 DSCP
`},
	{path: "internal/catalog/specs.go", anchor: `\tKindVmkping\s+hostio\.Kind = "vmkping"\n`,
		text: "\tKindModuleParams hostio.Kind = \"nmlx4_en_parameters\"\n"},
	{path: "internal/catalog/specs.go", anchor: `type HostFacts struct \{\n`,
		text: "\t// NMLX4Params are nmlx4_en's module parameters.\n\tNMLX4Params []parse.ModuleParameter " + bt + `json:"module_parameters,omitempty"` + bt + "\n"},
	{path: "internal/catalog/specs.go", anchor: `\t\{Kind: KindPVRDMAProperties, Stage: 2,`, before: true, text: `	{Kind: KindModuleParams, Stage: 1, Line: "esxcli system module parameters list -m nmlx4_en",
		Forms:  esxcli("system module parameters list", Option{Short: "-m", Long: "--module", Role: OptFixed, Value: "nmlx4_en"}),
		Parser: List(parse.ModuleParameters, func(v *parse.ModuleParameter, l string) { v.Command = l }, func(f *HostFacts) *[]parse.ModuleParameter { return &f.NMLX4Params })},

`},
	{path: "fixtures/internal/scenariogen/model/render.go", anchor: `var stage1Outputs = map\[hostio\.Kind\]func\(h \*Host\) string\{\n`,
		text: "\tcatalog.KindModuleParams: (*Host).moduleParams,\n"},
	{path: "fixtures/internal/scenariogen/model/render.go", anchor: `type Host struct \{\n`,
		text: "\t// PFCTX, PFCRX are nmlx5_core's PFC parameters (\"\": 0x08).\n\tPFCTX, PFCRX string\n"},
	{path: "fixtures/internal/scenariogen/model/render.go", anchor: "$", text: `
// moduleParams renders ` + bt + `esxcli system module parameters list -m nmlx4_en` + bt + `.
func (h *Host) moduleParams() string {
	t := esxfmt.Table{Headers: []string{"Name", "Type", "Value", "Description"}}
	t.Rows = [][]string{
		{"DRSS", "int", "", "Number of RSS queues of the default queue"},
		{"pfcrx", "int", cmp.Or(h.PFCRX, "0x08"), "Priority Flow Control on receive (bitmap of priorities)"},
		{"pfctx", "int", cmp.Or(h.PFCTX, "0x08"), "Priority Flow Control on transmit (bitmap of priorities)"},
	}
	return t.Render()
}
`},
}

var ruleEdits = []edit{
	{path: "checks/rules_lossless.go", anchor: `var rulesLossless = \[\]\*Rule\{\n`, text: `	{ID: "HOST_NMLX5_PFC_PARAMS", Severity: Warning, Check: checkNMLX5PFCParams,
		Needs: []hostio.Kind{catalog.KindModuleParams}},
`},
	{path: "checks/rules_lossless.go", anchor: "$", text: `
func checkNMLX5PFCParams(in *Input, r *Reporter) {
	h := in.Host
	tx, rx := -1, -1
	for i, p := range h.NMLX4Params {
		switch p.Name {
		case "pfctx":
			tx = i
		case "pfcrx":
			rx = i
		}
	}
	if tx < 0 || rx < 0 {
		r.NotEvaluated("nmlx5_core", "pfctx or pfcrx is not listed")
		return
	}
	t, x := h.NMLX4Params[tx], h.NMLX4Params[rx]
	if t.Value == "" || t.Value != x.Value {
		r.Fail("nmlx5_core", fmt.Sprintf("nmlx5_core's PFC parameters are unset or differ (pfctx %q, pfcrx %q)", t.Value, x.Value),
			nmlx5PFC+", then reboot "+h.Host+".", Ev(h.Host, t.Ref), Ev(h.Host, x.Ref))
		return
	}
	r.Pass("nmlx5_core")
}
`},
	{path: "checks/catalogue.yaml", anchor: "$", text: `
  HOST_NMLX5_PFC_PARAMS:
    title: "nmlx5_core's PFC module parameters are unset or differ"
    why: >-
      With nmlx5 (ConnectX-4 and later) the host enables PFC through the module parameters pfctx and
      pfcrx, one bitmap of priorities each; unset, or set differently for sending and receiving, RoCE
      traffic is not lossless in one direction.
    fix: >-
      esxcli system module parameters set -m nmlx5_core -p "pfctx=0x08 pfcrx=0x08", then reboot the host.
    sources: [mellanox-pfc]
`},
	{path: "checks/rules_lossless_test.go", anchor: `"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"\n`,
		text: "\t\"github.com/pvrdma-doctor/pvrdma-doctor/parse\"\n"},
	{path: "checks/rules_lossless_test.go", anchor: "$", text: `
func TestRuleNMLX5PFCParams(t *testing.T) {
	const cmd = "esxcli system module parameters list -m nmlx4_en"
	params := func(tx, rx string) func(h *facts.Host) {
		return func(h *facts.Host) {
			collected(h, cmd)
			h.NMLX4Params = []parse.ModuleParameter{{Name: "pfcrx", Value: rx, Ref: ref(cmd, 4, "pfcrx  int  "+rx)},
				{Name: "pfctx", Value: tx, Ref: ref(cmd, 5, "pfctx  int  "+tx)}}
		}
	}
	runCases(t, "HOST_NMLX5_PFC_PARAMS", []ruleCase{
		{name: "fires", hosts: one(params("0x08", "")), want: []want{{"esx01", "nmlx5_core", StatusFail, Warning, "unset or differ", "pfcrx"}}, exact: true},
		{name: "passes", hosts: one(params("0x08", "0x08")), want: []want{{host: "esx01", subject: "nmlx5_core", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(nil), want: []want{{host: "esx01", status: StatusNotEvaluated, subject: "esx01"}}, exact: true},
	})
}
`},
	{path: "fixtures/internal/scenariogen/model/scenarios.go", anchor: `\te2\.NoOutboundRule = true\n`, text: "\te2.PFCRX = \"0x00\"\n"},
	{path: "fixtures/internal/scenariogen/model/scenarios.go", anchor: `\t\t\t\{"PVRDMA_FIREWALL_CLOSED", "esx02", "pvrdma", "warning", ""\},\n`,
		text: "\t\t\t{\"HOST_NMLX5_PFC_PARAMS\", \"esx02\", \"nmlx5_core\", \"warning\", \"\"},\n"},
	// Its fix plan gains the step of a rule without a plan step of its own.
	{path: "fixtures/internal/scenariogen/model/scenarios.go", anchor: `"esx02": \{"restore_ruleset_rules", "guest_set_mtu", "guest_reload_driver"`, text: `, "follow_fix"`},
}

// actionEdits add a kind of plan action no rule proposes yet (as allow_ip
// was): its value in its area's file of checks/plan, and its effect in
// the lab's host model. The package's tests hold it to what it disrupts, a renderer, quoted
// host values, a verify read, its JSON read back and a generated row in
// docs/report-schema.md; the model's, to an effect.
var actionEdits = []edit{
	{path: "checks/plan/host.go", anchor: "$", text: `
// DisablePause turns global pause off on an uplink (PFC replaces it).
type DisablePause struct {
	NIC string ` + bt + `json:"nic,omitempty"` + bt + `
}

const KindDisablePause Kind = "disable_pause"

var _ = register[DisablePause]()

func (DisablePause) Kind() Kind { return KindDisablePause }

func (DisablePause) About() string { return "global pause off on the uplink (PFC replaces it)" }

func (a DisablePause) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Turn off global pause on %s (PFC replaces it).", a.NIC),
		Command: fmt.Sprintf("esxcli network nic pauseParams set -n %s -r false -t false", ShellArg(a.NIC, "vmnicN")),
		Sets:    sets("global pause of "+a.NIC+" on "+host, "off")}
}

func (a DisablePause) Reads(string) Reads {
	c := esxiRead("esxcli network nic get -n "+ShellArg(a.NIC, "vmnicN"), "Pause RX: false, Pause TX: false",
		Match{Field: "Pause RX", Value: "false"}, Match{Field: "Pause TX", Value: "false"})
	return Reads{Check: c, Verify: reads(c)}
}

func (a DisablePause) Disrupts(host string) Disruption {
	return disrupts("%s's link on %s goes down for a few seconds while it renegotiates flow control: traffic on it stops", a.NIC, host)
}
`},
	{path: "fixtures/internal/scenariogen/model/effects.go", anchor: `\tplan\.KindSetPause:\s+onHost\(setPause\),\n`,
		text: "\tplan.KindDisablePause: onHost(disablePause),\n"},
	{path: "fixtures/internal/scenariogen/model/effects.go", anchor: "$", text: `
func disablePause(_ *Scenario, h *Host, p plan.DisablePause) error {
	n, err := h.nicOrErr(p.NIC)
	if err != nil {
		return err
	}
	n.PauseRX, n.PauseTX = false, false
	return nil
}
`},
}

func TestRecipeNewCommandAndRule(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the tree, regenerates and tests it (a few minutes)")
	}
	for _, tool := range []string{"go", "git", "gofmt"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, root, dir)
	cmdFiles := apply(t, dir, commandEdits)
	ruleFiles := apply(t, dir, ruleEdits)
	actionFiles := apply(t, dir, actionEdits)
	t.Logf("command: %d hand-edited files %v; rule: %d %v; plan action: %d %v", len(cmdFiles), cmdFiles, len(ruleFiles), ruleFiles,
		len(actionFiles), actionFiles)
	if len(cmdFiles) > maxCommandFiles {
		t.Errorf("a new command takes %d hand-edited files, want at most %d", len(cmdFiles), maxCommandFiles)
	}
	if len(ruleFiles) > maxRuleFiles {
		t.Errorf("a new rule takes %d hand-edited files, want at most %d", len(ruleFiles), maxRuleFiles)
	}
	if len(actionFiles) > maxActionFiles {
		t.Errorf("a new plan action takes %d hand-edited files, want at most %d", len(actionFiles), maxActionFiles)
	}
	var gofiles []string
	for _, f := range append(append(cmdFiles, ruleFiles...), actionFiles...) {
		if strings.HasSuffix(f, ".go") {
			gofiles = append(gofiles, f)
		}
	}
	run(t, dir, "gofmt", append([]string{"-w"}, gofiles...)...)
	run(t, dir, "go", "generate", "./...")
	hand := map[string]bool{}
	for _, f := range append(append(cmdFiles, ruleFiles...), actionFiles...) {
		hand[f] = true
	}
	regenerated := changedFiles(t, root, dir, hand)
	t.Logf("regenerated by go generate ./...: %d files %v", len(regenerated), regenerated)
	if len(regenerated) == 0 {
		t.Error("go generate ./... regenerated nothing: the new command's outputs are not in the scenarios")
	}
	schema := false
	for _, f := range regenerated {
		schema = schema || f == "docs/report-schema.md"
	}
	if !schema {
		t.Error("go generate ./... did not add the new plan action to docs/report-schema.md's table")
	}
	run(t, dir, "go", "vet", "./...")
	run(t, dir, "go", append([]string{"test", "-short", "-count=1"}, affected...)...)
}

// affected are the packages whose tests can hold a copy of what the
// catalogue says (command lists, counts, outputs, findings, plans): every
// package but the transports' own and the slow hostile-input and OpenSSH
// suites, which read the catalogue only through these.
var affected = []string{
	"./parse/...", "./internal/catalog/...", "./internal/facts/...", "./checks/...", "./collect/...", "./fixtures",
	"./fixtures/lab/...", "./fixtures/vclab/...", "./internal/analysis/...", "./internal/report/...", "./internal/bundle/...", "./internal/offline/...",
	"./internal/diff/...", "./internal/redact/...", "./cmd/pvrdma-doctor/internal/cli/...", "./tui/...", "./collect/vcenter/...", "./internal/archtest/...",
}

// copyTree copies the files git knows (tracked, and untracked but not
// ignored) from root to dir.
func copyTree(t *testing.T, root, dir string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// apply makes the edits in dir and returns the files they touched.
func apply(t *testing.T, dir string, edits []edit) []string {
	t.Helper()
	touched := map[string]bool{}
	for _, e := range edits {
		p := filepath.Join(dir, filepath.FromSlash(e.path))
		old, err := os.ReadFile(p)
		switch {
		case e.anchor == "":
			if err == nil {
				t.Fatalf("%s exists already", e.path)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			old = nil
		case err != nil:
			t.Fatal(err)
		}
		var s string
		switch e.anchor {
		case "":
			s = e.text
		case "$":
			s = string(old) + e.text
		default:
			loc := regexp.MustCompile(e.anchor).FindIndex(old)
			if loc == nil {
				t.Fatalf("%s: anchor %q not found: the recipe test's edit needs updating to the file", e.path, e.anchor)
			}
			at := loc[1]
			if e.before {
				at = loc[0]
			}
			s = string(old[:at]) + e.text + string(old[at:])
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		touched[e.path] = true
	}
	var out []string
	for f := range touched {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// changedFiles lists the files of dir that differ from root's (or are
// new), leaving out the hand-edited ones.
func changedFiles(t *testing.T, root, dir string, hand map[string]bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if hand[rel] {
			return nil
		}
		now, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if was, err := os.ReadFile(filepath.Join(root, rel)); err != nil || !bytes.Equal(was, now) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 80))
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
