package checks

import (
	"os"
	"os/exec"
	"path/filepath"
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
		cmd := exec.Command(sh, "-c", mergeCommand("nmlx5_core", nil, nmlxPFCSet))
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
		if m := mergeCommand("nmlx5_core", &cur, nmlxPFCSet); !strings.Contains(m, "'"+c.want+"'") {
			t.Errorf("current %q read: %s", c.current, m)
		}
	}
}

// Every action kind renders: words, where it is carried out, a command
// with its host values quoted (or a placeholder and a pause), and the
// objects it sets.
func TestRenderEveryAction(t *testing.T) {
	const evil = `x"; reboot; $(halt) 'y`
	kinds := ActionKinds
	p := Params{VMs: []string{"vm1", evil}, VM: evil, Module: "nmlx5_core", Set: nmlxPFCSet, Switch: "rdma-dvs", Uplinks: []string{"vmnic5"},
		NIC: "vmnic5", Device: "vmrdma1", Vmknic: "vmk1", MTU: 9000, Ruleset: "pvrdma", IPs: []string{"192.168.50.11"}, Hosts: []string{"esx01"},
		Mode: "pfc", Priority: 3, Adapter: "ethernet1", Value: "2", Version: "19", Netdev: "ens224", Note: "look", Package: "nmlx5-rdma"}
	for _, k := range kinds {
		st := step{action: Action{Kind: k, Host: "esx01", Params: p}}.render()
		if st.Text == "" || st.Text == string(k) || st.On == "" {
			t.Errorf("%s: text %q on %q", k, st.Text, st.On)
		}
		if strings.Contains(st.Command, evil) {
			t.Errorf("%s: the hostile name reaches the command unquoted: %s", k, st.Command)
		}
		if (strings.Contains(st.Command, "VM_NAME") || strings.Contains(st.Command, "IFACE")) && !st.Pause {
			t.Errorf("%s: a placeholder in a command that is not a pause: %s", k, st.Command)
		}
		for _, v := range append(st.Verify, derefs(st.Check, st.Require)...) {
			if v.Command == "" || v.Expect == "" || len(v.Match) == 0 {
				t.Errorf("%s: a read without command, expectation or match: %+v", k, v)
			}
		}
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

// Every action kind is documented in docs/report-schema.md, with its
// params.
func TestEveryActionDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/report-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ActionKinds {
		if !strings.Contains(string(doc), "| `"+string(k)+"` |") {
			t.Errorf("docs/report-schema.md does not document the action %s", k)
		}
	}
	for _, p := range phaseOrder {
		if !strings.Contains(string(doc), "`"+string(p)+"`") {
			t.Errorf("docs/report-schema.md does not name the phase %s", p)
		}
	}
}

// Two upgrades "to at least" merge into one, to the higher minimum.
func TestUpgradesMerge(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"6.5", "7.0 Update 1", "7.0 Update 1"}, {"7.0 Update 1", "6.5", "7.0 Update 1"}, {"13", "18", "18"}, {"7.0.3", "7.0 Update 1", "7.0.3"},
	} {
		if got := mergeMinimum(Params{Version: c.a}, Params{Version: c.b}).Version; got != c.want {
			t.Errorf("%s + %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	if actionKey(Action{Kind: ActUpgradeESXi, Host: "esx01", Params: Params{Version: "6.5"}}) !=
		actionKey(Action{Kind: ActUpgradeESXi, Host: "esx01", Params: Params{Version: "7.0 Update 1"}}) {
		t.Error("two ESXi upgrades of one host do not merge")
	}
}
