package tui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// lineInput is a one-line text field (the filter and the bundle path):
// type, paste, move with ←/→ home/end, delete with backspace, ctrl+w
// (word) and ctrl+u (to the start).
type lineInput struct {
	value []rune
	pos   int
}

func (in *lineInput) Value() string { return string(in.value) }

func (in *lineInput) SetValue(s string) {
	in.value = []rune(s)
	in.pos = len(in.value)
}

func (in *lineInput) insert(s string) {
	var rs []rune
	for _, r := range s {
		if unicode.IsPrint(r) {
			rs = append(rs, r)
		}
	}
	v := make([]rune, 0, len(in.value)+len(rs))
	v = append(v, in.value[:in.pos]...)
	v = append(v, rs...)
	v = append(v, in.value[in.pos:]...)
	in.value = v
	in.pos += len(rs)
}

// Update edits the value; it reports whether the key was used.
func (in *lineInput) Update(msg tea.KeyPressMsg) bool {
	switch msg.String() {
	case "left", "ctrl+b":
		in.pos = max(in.pos-1, 0)
	case "right", "ctrl+f":
		in.pos = min(in.pos+1, len(in.value))
	case "home", "ctrl+a":
		in.pos = 0
	case "end", "ctrl+e":
		in.pos = len(in.value)
	case "backspace", "ctrl+h":
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
		}
	case "delete", "ctrl+d":
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
		}
	case "ctrl+u":
		in.value = in.value[in.pos:]
		in.pos = 0
	case "ctrl+k":
		in.value = in.value[:in.pos]
	case "ctrl+w":
		i := in.pos
		for i > 0 && in.value[i-1] == ' ' {
			i--
		}
		for i > 0 && in.value[i-1] != ' ' {
			i--
		}
		in.value = append(in.value[:i], in.value[in.pos:]...)
		in.pos = i
	case "space":
		in.insert(" ")
	default:
		if msg.Text == "" || msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		in.insert(msg.Text)
	}
	return true
}

// View draws the value with a block cursor (never blinking, so snapshots
// are stable).
func (in *lineInput) View() string {
	var b strings.Builder
	b.WriteString(sanitize(string(in.value[:in.pos])))
	cur := " "
	if in.pos < len(in.value) {
		cur = sanitize(string(in.value[in.pos]))
	}
	b.WriteString(stSelected.Render(cur))
	if in.pos < len(in.value) {
		b.WriteString(sanitize(string(in.value[in.pos+1:])))
	}
	return b.String()
}
