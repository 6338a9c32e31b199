package plan

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The command of set_module_params, run by a real POSIX shell against
// stand-ins for esxcfg-module (the configured options) and esxcli
// (records its -p): it keeps every option it does not set and sets the
// new ones, whatever was there (-p replaces the whole string).
func TestMergeCommandKeepsTheOtherOptions(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, c := range []struct{ current, want string }{
		{"trust_state=2", "trust_state=2 pfctx=0x08 pfcrx=0x08"},
		{"trust_state=2 pfctx=0x04 max_vfs=4,4 pfcrx=0x04", "trust_state=2 max_vfs=4,4 pfctx=0x08 pfcrx=0x08"},
		{"", "pfctx=0x08 pfcrx=0x08"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "set")
		write := func(name, body string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write("esxcfg-module", "echo \"$2 enabled = 1 options = '"+c.current+"'\"\n")
		write("esxcli", "while [ $# -gt 0 ]; do if [ \"$1\" = -p ]; then printf '%s' \"$2\" > "+out+"; fi; shift; done\n")
		cmd := exec.Command(sh, "-c", MergeCommand("nmlx5_core", nil, pfcSet))
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != c.want {
			t.Errorf("current %q: -p %q, want %q", c.current, got, c.want)
		}
		// With the current string read, the command shows it merged.
		cur := c.current
		if m := MergeCommand("nmlx5_core", &cur, pfcSet); !strings.Contains(m, "'"+c.want+"'") {
			t.Errorf("current %q read: %s", c.current, m)
		}
	}
}

// pfcSet is PFC on priority 3, as nmlx5_core's options set it.
var pfcSet = []Setting{{"pfctx", "0x08"}, {"pfcrx", "0x08"}}

// evil is a hostile host value: it must never reach a command unquoted.
const evil = `x"; reboot; $(halt) 'y`

// examples holds values of kinds, each area's test file adding its own
// (example); every test below runs over every registered kind, with its
// example or else exampleOf's.
var examples = map[Kind]Value{}

func example(v Value) bool {
	examples[v.Kind()] = v
	return true
}

// broad is every parameter the kinds take, host names hostile: a kind
// without an example of its own reads what it takes from it.
var broad = `{"vms": ["vm1", ` + strconv.Quote(evil) + `], "bind_hca": ["vm1"], "vm": ` + strconv.Quote(evil) + `, "module": "nmlx5_core",
	"set": [{"name": "pfctx", "value": "0x08"}], "current": "trust_state=2", "family": "ConnectX-5", "package": "nmlx5-rdma",
	"switch": "rdma-dvs", "uplinks": ["vmnic5"], "nic": "vmnic5", "nics": ["vmnic5"], "device": "vmrdma1", "vmknic": "vmk1",
	"mtu": 9000, "ruleset": "pvrdma", "ips": ["192.168.50.11"], "hosts": ["esx01"], "probe": "vmkping -I vmk1 -d -s 8972 -c 3 192.168.50.12",
	"mac": "00:50:56:aa:bb:cc", "mode": "pfc", "priority": 3, "adapter": "ethernet1", "value": "2", "version": "19", "netdev": "ens224",
	"port": true, "config": "cat '/vmfs/volumes/ds1/vm1/vm1.vmx'", "note": "look"}`

// exampleOf is a kind's example, or its value read from broad.
func exampleOf(t *testing.T, k Kind) Value {
	if v := examples[k]; v != nil {
		return v
	}
	v, err := Decode(k, json.RawMessage(broad))
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return v
}

// Every example's kind is registered.
func TestExamplesAreOfRegisteredKinds(t *testing.T) {
	for k := range examples {
		if _, ok := decoders[k]; !ok {
			t.Errorf("%s: an example of a kind nobody registered", k)
		}
	}
}

// Every action kind renders: words, where it is carried out, a command
// with its host values quoted (or a placeholder and a pause), the objects
// it sets, well-formed reads, and a verify read unless it says why it
// has none.
func TestRenderEveryAction(t *testing.T) {
	for _, k := range Kinds() {
		v := exampleOf(t, k)
		st := Render("esx01", v)
		if st.Text == "" || st.Text == string(k) || st.On == "" {
			t.Errorf("%s: text %q on %q", k, st.Text, st.On)
		}
		if strings.Contains(st.Command, evil) {
			t.Errorf("%s: the hostile name reaches the command unquoted: %s", k, st.Command)
		}
		if (strings.Contains(st.Command, "VM_NAME") || strings.Contains(st.Command, "IFACE")) && !st.Pause {
			t.Errorf("%s: a placeholder in a command that is not a pause: %s", k, st.Command)
		}
		for _, r := range append(st.Verify, derefs(st.Check, st.Require)...) {
			if r.Command == "" || r.Expect == "" || len(r.Match) == 0 {
				t.Errorf("%s: a read without command, expectation or match: %+v", k, r)
			}
		}
		why := ""
		if u, ok := v.(Unverified); ok {
			why = u.Unverified()
		}
		switch {
		case len(v.Reads("esx01").Verify) == 0 && why == "":
			t.Errorf("%s: no verify read, and it does not say why (Unverified)", k)
		case len(v.Reads("esx01").Verify) > 0 && why != "":
			t.Errorf("%s: verify reads, yet it says it has none: %s", k, why)
		}
		if _, ok := v.(Investigate); !ok && len(st.Sets) == 0 && !isEnvelope(k) {
			if _, ok := v.(FollowFix); !ok {
				t.Errorf("%s: sets nothing", k)
			}
		}
	}
}

// isEnvelope: the envelope's steps change the host's state, not an
// object a rule's step sets.
func isEnvelope(k Kind) bool {
	switch k {
	case KindPowerOffVMs, KindMigrateVMs, KindEnterMaintenance, KindReboot, KindExitMaintenance, KindPowerOnVMs:
		return true
	}
	return false
}

// Every kind's JSON reads back as the same value (the lab's host model
// reads the plans' JSON).
func TestDecodeRoundTrip(t *testing.T) {
	for _, k := range Kinds() {
		v := exampleOf(t, k)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(k, b)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Errorf("%s: %s reads back as %#v", k, b, back)
		}
	}
	if _, err := Decode("no_such_action", []byte(`{}`)); err == nil {
		t.Error("an unknown kind decodes")
	}
	if _, err := Decode(KindSetVmknicMTU, []byte(`{"mtu":"9000"}`)); err == nil {
		t.Error("a parameter of the wrong type decodes")
	}
}

// A guest action of a host's plan names its VM; inside the guest's own
// plan it does not, and its reads are the guest's.
func TestGuestActionInAHostPlan(t *testing.T) {
	v := GuestReloadDriver{VM: "vm01", Device: "vmw_pvrdma0", MTU: 4096}
	host := Render("esx01", v)
	if !strings.HasPrefix(host.Text, "In vm01: reload") || host.Check != nil || len(host.Verify) != 1 || host.Verify[0].On != "esxi" {
		t.Errorf("in the host's plan: %+v", host)
	}
	inside := Render("vm01", v.Inside())
	if strings.HasPrefix(inside.Text, "In ") || inside.Check == nil || inside.Verify[0].On != "guest" {
		t.Errorf("in the guest's plan: %+v", inside)
	}
}

func derefs(rs ...*Read) []Read {
	var out []Read
	for _, r := range rs {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// Reads are machine-checkable on the real output layouts.
func TestReadHolds(t *testing.T) {
	table := "Name                Enabled  Enable/Disable configurable  Allowed IP configurable\n" +
		"------------------  -------  ---------------------------  -----------------------\n" +
		"sshServer              true                         true                     true\n" +
		"pvrdma                false                         true                     true\n"
	records := "vmk1\n   Name: vmk1\n   MTU: 9000\n\nvmk0\n   Name: vmk0\n   MTU: 1500\n"
	fields := "   Pause RX: true\n   Pause TX: false\n"
	for _, c := range []struct {
		m    Match
		out  string
		want bool
	}{
		{Match{Row: "pvrdma", Field: "Enabled", Value: "true"}, table, false},
		{Match{Row: "pvrdma", Field: "Enabled", Value: "false"}, table, true},
		{Match{Row: "nfs", Field: "Enabled", Value: "false"}, table, false},
		{Match{Record: "vmk1", Field: "MTU", Value: "9000"}, records, true},
		{Match{Record: "vmk0", Field: "MTU", Value: "9000"}, records, false},
		{Match{Record: "vmk9"}, records, false},
		{Match{Record: "vmk9", Absent: true}, records, true},
		{Match{Field: "Pause RX", Value: "true"}, fields, true},
		{Match{Field: "Pause TX", Value: "true"}, fields, false},
		{Match{Field: "Pause XX", Value: ""}, fields, false},
		{Match{Line: `^\s*Pause TX: false$`}, fields, true},
		{Match{Line: `[`}, fields, false},
	} {
		if got := c.m.Holds(c.out); got != c.want {
			t.Errorf("%+v: %v, want %v", c.m, got, c.want)
		}
	}
	if (Read{Command: "x"}).Holds("anything") {
		t.Error("a read without a match holds")
	}
}

var update = flag.Bool("update", false, "rewrite the generated table of action kinds in docs/report-schema.md (go generate ./...)")

const (
	schemaDoc    = "../../docs/report-schema.md"
	actionsBegin = "<!-- BEGIN GENERATED ACTIONS (go generate ./...) -->"
	actionsEnd   = "<!-- END GENERATED ACTIONS -->"
)

// actionTable is the table of kinds: each kind, the params its value
// takes (its JSON fields, in order) and what it does (About).
func actionTable() string {
	var b strings.Builder
	b.WriteString("| action | params | what it does |\n|---|---|---|\n")
	for _, k := range Kinds() {
		v, err := Decode(k, nil)
		if err != nil {
			panic(err)
		}
		var params []string
		t := reflect.TypeOf(v)
		for i := 0; i < t.NumField(); i++ {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
				params = append(params, "`"+name+"`")
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k, strings.Join(params, ", "), strings.ReplaceAll(v.About(), "|", "\\|"))
	}
	return b.String()
}

// Every action kind is documented in docs/report-schema.md: the table is
// generated from the values; this test fails when a kind is added,
// removed or changed without regenerating it.
func TestDocsActionTable(t *testing.T) {
	data, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, actionsBegin), strings.Index(doc, actionsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: generated-actions markers missing", schemaDoc)
	}
	fresh := doc[:i+len(actionsBegin)] + "\n" + actionTable() + doc[j:]
	if fresh == doc {
		return
	}
	if *update {
		if err := os.WriteFile(schemaDoc, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go generate ./... (or make generate)", schemaDoc)
}

// Two upgrades "to at least" merge into one, to the higher minimum; a
// guest's driver reloads merge into one that shows what each needed.
func TestUpgradesMerge(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"6.5", "7.0 Update 1", "7.0 Update 1"}, {"7.0 Update 1", "6.5", "7.0 Update 1"}, {"13", "18", "18"}, {"7.0.3", "7.0 Update 1", "7.0.3"},
	} {
		if got := (UpgradeESXi{Version: c.a}).Merge(UpgradeESXi{Version: c.b}).(UpgradeESXi).Version; got != c.want {
			t.Errorf("%s + %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	if Key("esx01", UpgradeESXi{Version: "6.5"}) != Key("esx01", UpgradeESXi{Version: "7.0 Update 1"}) {
		t.Error("two ESXi upgrades of one host do not merge")
	}
	if Key("esx01", VMUpgradeHardware{VM: "a", Version: "18"}) == Key("esx01", VMUpgradeHardware{VM: "b", Version: "18"}) {
		t.Error("the upgrades of two VMs merge")
	}
	if Key("esx01", SetVmknicMTU{Vmknic: "vmk1", MTU: 9000}) == Key("esx01", SetVmknicMTU{Vmknic: "vmk1", MTU: 1500}) {
		t.Error("two different MTUs merge")
	}
	r := GuestReloadDriver{Device: "vmw_pvrdma0", Port: true}.Merge(GuestReloadDriver{Device: "vmw_pvrdma1", MTU: 4096}).(GuestReloadDriver)
	if !r.Port || r.MTU != 4096 || r.Device != "vmw_pvrdma1" {
		t.Errorf("merged reload %+v", r)
	}
}
