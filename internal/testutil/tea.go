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
