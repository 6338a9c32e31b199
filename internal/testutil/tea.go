package testutil

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// ExecCmd runs a Bubble Tea command as the program would, batches
// included, and returns the messages it produced. With giveUp > 0 a
// command that takes longer (a timer) is abandoned and gives nothing; with
// giveUp 0 every command is waited for.
func ExecCmd(cmd tea.Cmd, giveUp time.Duration) []tea.Msg {
	if cmd == nil {
		return nil
	}
	var msg tea.Msg
	if giveUp > 0 {
		ch := make(chan tea.Msg, 1)
		go func() { ch <- cmd() }()
		select {
		case msg = <-ch:
		case <-time.After(giveUp):
			return nil
		}
	} else {
		msg = cmd()
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, ExecCmd(c, giveUp)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// namedKeys are the key names Key knows besides single characters.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"tab":       {Code: tea.KeyTab},
	"backspace": {Code: tea.KeyBackspace},
	"down":      {Code: tea.KeyDown},
	"up":        {Code: tea.KeyUp},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
}

// Key is the key press of a name ("enter", "esc", "tab", "backspace",
// "down", "up", "ctrl+c") or of a character ("j", "?", "/"): the first rune
// of k, typed as k.
func Key(k string) tea.KeyPressMsg {
	if m, ok := namedKeys[k]; ok {
		return m
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}
