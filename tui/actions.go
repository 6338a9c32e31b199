package tui

import (
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The actions the cli injects (rescan, export a bundle), run off the UI
// loop; their results come back as messages.

// bundleMsg reports the end of a bundle export.
type bundleMsg struct {
	path   string
	tokens string // the token map written next to a redacted bundle
	err    error
}

// status is what the status line says about the export.
func (msg bundleMsg) status() string {
	switch {
	case msg.err != nil:
		return "bundle not written: " + msg.err.Error()
	case msg.tokens != "":
		return "support bundle written to " + msg.path + " (redacted). Its token map turns the tokens back into real names; keep it private: " + msg.tokens
	}
	return "support bundle written to " + msg.path
}

// tokensPath is where the token map of a redacted bundle goes (as
// bundle.TokensPath).
func tokensPath(bundlePath string) string { return bundlePath + ".tokens.json" }

// exportBundle writes the bundle and finds the token map it wrote, if the
// bundle was redacted (a map older than this export is not reported).
func exportBundle(export func(string) error, path string) bundleMsg {
	start := time.Now()
	if err := export(path); err != nil {
		return bundleMsg{path: path, err: err}
	}
	msg := bundleMsg{path: path}
	if st, err := os.Stat(tokensPath(path)); err == nil && !st.ModTime().Before(start.Add(-2*time.Second)) {
		msg.tokens = tokensPath(path)
	}
	return msg
}

// writeBundle exports a support bundle to the path typed in the prompt.
func (s *shared) writeBundle(path string) tea.Cmd {
	if path == "" {
		s.status = "no path given: bundle not written"
		return nil
	}
	s.status = "writing support bundle to " + path + " ..."
	export := s.opts.ExportBundle
	return func() tea.Msg { return exportBundle(export, path) }
}

// rescanDoneMsg reports that a rescan returned.
type rescanDoneMsg struct{ hosts []string }

// rescan asks the cli to collect hosts again.
func (s *shared) rescan(hosts []string) tea.Cmd {
	if s.opts.Rescan == nil {
		s.status = "rescan is not available: this data was not collected live"
		return nil
	}
	var busy []string
	for _, h := range hosts {
		if r := s.rows[s.index[h]]; !finished(r.phase) {
			busy = append(busy, h)
		}
	}
	if len(busy) > 0 {
		s.status = joinMax(busy, 3) + " still being collected: wait for it to finish"
		return nil
	}
	for _, h := range hosts {
		r := s.rows[s.index[h]]
		r.phase, r.done, r.total, r.err = hostio.PhaseQueued, 0, 0, ""
	}
	s.status = "rescanning " + joinMax(hosts, 3)
	rescan, ctx := s.opts.Rescan, s.ctx
	return func() tea.Msg {
		rescan(ctx, hosts)
		return rescanDoneMsg{hosts: hosts}
	}
}
