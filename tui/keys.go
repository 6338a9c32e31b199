package tui

import (
	"charm.land/bubbles/v2/key"
)

// keyMap holds every binding of the UI; docs/tui.md lists the same keys.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Back, Topology, Plan, Matrix      key.Binding
	Readiness                               key.Binding
	Filter, Critical, Warning, Info         key.Binding
	NextEvidence, PrevEvidence, Why, Copy   key.Binding
	Left, Right                             key.Binding
	Rescan, RescanAll, Bundle               key.Binding
	Help, Quit                              key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space"), key.WithHelp("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		Open:         key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "open")),
		Back:         key.NewBinding(key.WithKeys("esc", "left", "h", "backspace"), key.WithHelp("esc", "back")),
		Topology:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "topology")),
		Plan:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix plan")),
		Matrix:       key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "path matrix")),
		Readiness:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "setup readiness")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Critical:     key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "critical")),
		Warning:      key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "warning")),
		Info:         key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "info")),
		NextEvidence: key.NewBinding(key.WithKeys("tab", "n"), key.WithHelp("tab/n", "next evidence")),
		PrevEvidence: key.NewBinding(key.WithKeys("shift+tab", "p"), key.WithHelp("shift+tab/p", "previous evidence")),
		Left:         key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "evidence sideways, left")),
		Right:        key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "evidence sideways, right")),
		Why:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "why: full text")),
		Copy:         key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy fix")),
		Rescan:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rescan")),
		RescanAll:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rescan all")),
		Bundle:       key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "export bundle")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// groups returns every binding, grouped as the help screen shows them.
func (k keyMap) groups() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Back, k.Topology, k.Plan, k.Matrix, k.Readiness, k.Help, k.Quit},
		{k.Filter, k.Critical, k.Warning, k.Info},
		{k.NextEvidence, k.PrevEvidence, k.Left, k.Right, k.Why, k.Copy},
		{k.Rescan, k.RescanAll, k.Bundle},
	}
}

// groupTitles name the groups of groups(), in order.
var groupTitles = []string{"Move", "Navigate", "Filter", "Finding", "Actions"}

// hint is a binding as the footer shows it: a short label of its own.
func hint(b key.Binding, label string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, label))
}

// arrows is ↑/↓ as the footer hints it, with its own label ("move",
// "scroll"); each page's hints() lists the keys of its footer.
func (k keyMap) arrows(label string) key.Binding {
	b := hint(k.Down, label)
	b.SetHelp("↑↓", label)
	return b
}

type keyBinding = key.Binding
