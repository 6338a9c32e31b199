// Package plan is the vocabulary of fix plans: each kind of action a plan
// step can take is one typed value (its own parameters, and nothing a
// kind does not use), which says in words and as the exact command what
// to do and where (Words), and which reads show it is already done or
// took effect (Reads). Values are registered by kind (register), so the
// JSON of a step decodes back into its value (Decode) and the lab's host
// model gives each registered kind its effect
// (fixtures/internal/scenariogen/model, effects.go), which its test checks
// for every kind.
//
// The rules of package checks contribute values in named phases; checks'
// planner places, merges (Merging) and orders (Ranked) them and Render
// turns each into its step.
package plan

//go:generate go test . -count=1 -run ^TestDocsActionTable$ -update

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Kind names what a plan step does (its "action" in the JSON report).
type Kind string

// Value is one action of one kind with its parameters.
type Value interface {
	// Kind is the action's kind.
	Kind() Kind
	// About says what it does, in docs/report-schema.md's table of
	// kinds (generated: go generate ./...).
	About() string
	// Words say where and how a person carries it out on host (the
	// plan's host or guest), with the real names filled in.
	Words(host string) Words
	// Reads are what must hold first, the read that shows it is already
	// done and the reads that show it took effect. A kind that can have
	// no verify read says why (Unverified).
	Reads(host string) Reads
}

// Words are an action in words: where it is carried out (On: esxi,
// vcenter, guest, switch or hardware), whether a person must do it
// (Pause), what to do and why, the exact command when there is one
// (host values shell-quoted), what to know first, and the objects it
// leaves in a state.
type Words struct {
	On       string
	Pause    bool
	Text     string
	Command  string
	Warnings []string
	Sets     []Effect
}

// Reads are an action's read-only commands: Require must hold before it
// can work, Check holds when it is done already, Verify shows it took
// effect once the whole plan is done.
type Reads struct {
	Require *Read
	Check   *Read
	Verify  []Read
}

// Unverified is a kind that has no verify read (a person's action whose
// result nothing on the host shows, or a state the plan undoes later):
// Unverified says why.
type Unverified interface {
	Unverified() string
}

// Merging is a kind of which one step stands for several proposals of
// the same object: MergeKey names the object (two proposals with the same
// kind, host and key merge), Merge joins two.
type Merging interface {
	Value
	MergeKey() string
	Merge(other Value) Value
}

// Ranked is a kind that goes after others in its phase (a higher rank
// later; the others rank 0).
type Ranked interface {
	Rank() int
}

// InVM is a kind carried out on one VM (a setting) or inside it (a guest
// action in a host's plan): TargetVM names it ("" when none).
type InVM interface {
	TargetVM() string
}

// VMSetting is a VM setting, proposed for the finding's VM once the
// planner knows it: ForVM fills in the VM and the command that reads its
// configuration (.vmx), for the verify read.
type VMSetting interface {
	Value
	ForVM(vm, config string) Value
}

// RunbookLines are the shell lines a runbook runs before and after an
// action's command (set_module_params shows the options before and
// after).
type RunbookLines interface {
	RunbookLines() (before, after []string)
}

// Effect is one object a step changes and the state it leaves it in.
type Effect struct {
	Object string `json:"object"`
	State  string `json:"state"`
}

// Setting is one name=value a step sets.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// decoders are the registered kinds: each decodes its parameters; order
// lists them as registered (by file, then as declared).
var (
	decoders = map[Kind]func(json.RawMessage) (Value, error){}
	order    []Kind
)

// register makes a kind known (its JSON decodes into it); each kind's
// file registers it.
func register[T Value]() bool {
	var zero T
	k := zero.Kind()
	if _, dup := decoders[k]; dup {
		panic("plan: kind " + string(k) + " registered twice")
	}
	decoders[k] = func(raw json.RawMessage) (Value, error) {
		var v T
		if len(raw) == 0 || string(raw) == "null" {
			return v, nil
		}
		err := json.Unmarshal(raw, &v)
		return v, err
	}
	order = append(order, k)
	return true
}

// Kinds lists every registered kind, in the order they are registered:
// the envelope, the guest's, the host's, the notes, the VMs'.
func Kinds() []Kind { return slices.Clone(order) }

// Decode reads an action's parameters (the JSON report's "params") as
// the value of its kind.
func Decode(k Kind, params json.RawMessage) (Value, error) {
	d, ok := decoders[k]
	if !ok {
		return nil, fmt.Errorf("unknown plan action %q", k)
	}
	v, err := d(params)
	if err != nil {
		return nil, fmt.Errorf("plan action %s: %w", k, err)
	}
	return v, nil
}

// VMOf is the VM an action is carried out on or in ("" when none).
func VMOf(v Value) string {
	if x, ok := v.(InVM); ok {
		return x.TargetVM()
	}
	return ""
}

// RankOf orders actions within a phase.
func RankOf(v Value) int {
	if x, ok := v.(Ranked); ok {
		return x.Rank()
	}
	return 0
}

// Key identifies an action on host: two proposals with the same key are
// one step (merged by Merging kinds).
func Key(host string, v Value) string {
	if m, ok := v.(Merging); ok {
		return string(v.Kind()) + "\x00" + host + "\x00" + m.MergeKey()
	}
	b, _ := json.Marshal(v)
	return string(v.Kind()) + "\x00" + host + "\x00" + string(b)
}

// Rendering is an action rendered as a plan step carries it.
type Rendering struct {
	Words
	Reads
}

// Render renders an action on host. A guest action in a host's plan (the
// guest of one of its VMs, maybe not scanned) says which VM, and its
// reads are the host side's when it has one (HostSide), else none; a
// command with a placeholder a person fills in, or run neither on a host,
// a guest nor vCenter, or naming a VM the command cannot show, is a
// pause.
func Render(host string, v Value) Rendering {
	r := Rendering{Words: v.Words(host), Reads: v.Reads(host)}
	vm := VMOf(v)
	if r.On == "guest" && vm != "" {
		r.Text = "In " + vm + ": " + strings.ToLower(r.Text[:1]) + r.Text[1:]
		r.Check = nil
		r.Verify = nil
		if hs, ok := v.(HostSide); ok {
			r.Verify = hs.HostSideVerify()
		}
	}
	if strings.Contains(r.Command, "IFACE") || strings.Contains(r.Command, "ADDRESS") {
		r.Pause = true // a person fills in the placeholder
	}
	if r.Command != "" && r.On != "guest" && r.On != "esxi" && r.On != "vcenter" {
		r.Pause = true
	}
	names := vmNames(v)
	if vm != "" {
		names = append(names, vm)
	}
	if unshowable(names...) {
		r.Pause = true // a placeholder stands for a name the command cannot show
	}
	return r
}

// HostSide is a guest action whose effect the host shows too: in a host's
// plan its verify reads are the host's.
type HostSide interface {
	HostSideVerify() []Read
}

// vmLister is an action on several VMs.
type vmLister interface {
	vmList() []string
}

func vmNames(v Value) []string {
	if x, ok := v.(vmLister); ok {
		return append([]string(nil), x.vmList()...)
	}
	return nil
}

// sets builds a step's effects from object, state pairs.
func sets(pairs ...string) []Effect {
	var out []Effect
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Effect{pairs[i], pairs[i+1]})
	}
	return out
}

// GuestAction is an action inside the guest of one of a host's VMs, as
// the host's plan carries it: Inside is the same action in the guest's
// own plan.
type GuestAction interface {
	Value
	TargetVM() string
	Inside() Value
}
