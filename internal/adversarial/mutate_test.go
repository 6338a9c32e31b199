package adversarial

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/offline"
)

// The mutations of the partial-input property (issue 23): what an admin's
// input really looks like next to a full scan. Of every scenario's
// results, a case drops hosts and commands (host and guest), truncates
// outputs at a line, swaps outputs between commands (of one host or of
// two), marks commands failed or timed out, drops a line from the middle
// or puts a stray line in it, and may turn the result into the pasted
// session an admin would have typed (read back through offline's
// transcript reader). A chooser drives every choice: a seeded PRNG in the
// property test, the fuzzer's bytes in the fuzz target.

// chooser picks a number in [0, n).
type chooser interface{ intn(n int) int }

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser reads the choices from the fuzzer's bytes (0 once they run
// out: the input unchanged).
type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) intn(n int) int {
	if c.i+2 > len(c.b) {
		return 0
	}
	v := int(binary.LittleEndian.Uint16(c.b[c.i:]))
	c.i += 2
	return v % n
}

// scenarioCase is one scenario's complete results, collected in memory as
// a scan would (probes, guests).
type scenarioCase struct {
	name    string
	results []hostio.HostResult
}

var (
	scenariosOnce sync.Once
	scenarioList  []scenarioCase
	scenariosErr  error
)

// allScenarios collects every scenario once per test binary.
func allScenarios(t testing.TB) []scenarioCase {
	t.Helper()
	scenariosOnce.Do(func() {
		for _, name := range fixtures.Names() {
			sc, err := fixtures.Load(name)
			if err != nil {
				scenariosErr = err
				return
			}
			var targets []hostio.Target
			for _, h := range sc.Hosts {
				targets = append(targets, hostio.Target{Name: h.Name})
			}
			for _, g := range sc.Guests {
				targets = append(targets, hostio.Target{Name: g.Name, Role: hostio.RoleGuest})
			}
			rs := collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true,
				Logger: slog.New(slog.DiscardHandler)})
			scenarioList = append(scenarioList, scenarioCase{name: name, results: rs})
		}
	})
	if scenariosErr != nil {
		t.Fatal(scenariosErr)
	}
	return scenarioList
}

// mutated is one case's input and what was done to it.
type mutated struct {
	results []hostio.HostResult
	// log says what was done, for a failure message.
	log []string
	// hostsLost is set when a host was dropped or not collected: the
	// rules that compare a host with its peers may then have nothing to
	// say about it.
	hostsLost bool
	// clean names the hosts whose outputs were only dropped or failed
	// (none truncated, swapped or edited): every rule that evaluated such
	// a host on the complete input must still say something about it.
	clean map[string]bool
	// transcript is set when the case was read back as a pasted session.
	transcript string
}

func (m *mutated) logf(format string, a ...any) { m.log = append(m.log, fmt.Sprintf(format, a...)) }

// mutate applies one case's mutations to a copy of base.
func mutate(c chooser, base []hostio.HostResult) *mutated {
	m := &mutated{clean: map[string]bool{}}
	dropPct := c.intn(90)
	for _, hr0 := range base {
		hr := hr0
		hr.Captures = append([]hostio.Capture(nil), hr0.Captures...)
		hr.Notes = append([]string(nil), hr0.Notes...)
		switch c.intn(20) {
		case 0:
			m.logf("drop host %s", hr.Host)
			m.hostsLost = true
			continue
		case 1:
			m.logf("host %s not collected", hr.Host)
			m.hostsLost = true
			hr.Status, hr.Reason, hr.Captures = hostio.StatusNotCollected, "connection refused (injected)", nil
			m.results = append(m.results, hr)
			continue
		}
		m.results = append(m.results, hr)
	}
	for hi := range m.results {
		hr := &m.results[hi]
		if hr.Status == hostio.StatusNotCollected {
			continue
		}
		clean := true
		var kept []hostio.Capture
		for ci := range hr.Captures {
			cp := hr.Captures[ci]
			if c.intn(100) < dropPct {
				m.logf("%s: drop `%s`", hr.Host, cp.Command)
				continue
			}
			switch op := c.intn(100); {
			case op < 8:
				lines := strings.SplitAfter(cp.Stdout, "\n")
				n := c.intn(len(lines) + 1)
				m.logf("%s: truncate `%s` after line %d", hr.Host, cp.Command, n)
				cp.Stdout = strings.Join(lines[:n], "")
				clean = false
			case op < 14:
				m.logf("%s: `%s` failed", hr.Host, cp.Command)
				cp.Status, cp.ExitCode, cp.Stdout = hostio.StatusFailed, 1, ""
				cp.Stderr, cp.Error = "error (injected)\n", "exit status 1: error (injected)"
			case op < 18:
				m.logf("%s: `%s` timed out", hr.Host, cp.Command)
				cp.Status, cp.ExitCode, cp.Stdout, cp.Error = hostio.StatusTimedOut, -1, "", "timed out after 30s (injected)"
			case op < 24 && len(hr.Captures) > 1:
				o := hr.Captures[c.intn(len(hr.Captures))]
				m.logf("%s: `%s` prints the output of `%s`", hr.Host, cp.Command, o.Command)
				cp.Stdout = o.Stdout
				clean = false
			case op < 27:
				other := base[c.intn(len(base))]
				if len(other.Captures) > 0 {
					o := other.Captures[c.intn(len(other.Captures))]
					m.logf("%s: `%s` prints the output of %s's `%s`", hr.Host, cp.Command, other.Host, o.Command)
					cp.Stdout = o.Stdout
					clean = false
				}
			case op < 30:
				lines := strings.SplitAfter(cp.Stdout, "\n")
				i := c.intn(len(lines))
				if c.intn(2) == 0 {
					m.logf("%s: `%s` loses line %d", hr.Host, cp.Command, i+1)
					lines = append(lines[:i], lines[i+1:]...)
				} else {
					stray := []string{"...\n", "<<truncated>>\n", "   Name: \n", ":\n", "----  ----\n", "\t\x1b[31m?\n", "\n"}[c.intn(7)]
					m.logf("%s: `%s` gets %q at line %d", hr.Host, cp.Command, stray, i+1)
					lines = append(lines[:i], append([]string{stray}, lines[i:]...)...)
				}
				cp.Stdout = strings.Join(lines, "")
				clean = false
			}
			kept = append(kept, cp)
		}
		hr.Captures = kept
		hr.Reason = ""
		hr.Finalize()
		if clean {
			m.clean[hr.Host] = true
		}
	}
	if c.intn(4) == 0 {
		m.asTranscript(c)
	}
	return m
}

// asTranscript turns the case into the session an admin would paste (each
// host's commands after its prompt; a failed command prints its error)
// and reads it back as analyze does.
func (m *mutated) asTranscript(c chooser) {
	var b strings.Builder
	first := ""
	for _, hr := range m.results {
		if first == "" && hr.Role != hostio.RoleGuest {
			first = hr.Host
		}
	}
	for _, hr := range m.results {
		// A guest's commands pasted under an ESXi host's prompt (a
		// session that ssh'ed on without its prompt showing it).
		mixed := hr.Role == hostio.RoleGuest && first != "" && c.intn(8) == 0
		if mixed {
			// The guest is gone as a host of its own, and the ESXi host
			// holds what is not its own: neither is a clean host.
			m.logf("%s: its commands pasted under %s's prompt", hr.Host, first)
			m.clean[first], m.hostsLost = false, true
		}
		for _, cp := range hr.Captures {
			if cp.Transport == "vcenter" {
				continue // not a command anyone types
			}
			prompt := "[root@" + hr.Host + ":~] "
			switch {
			case mixed:
				prompt = "[root@" + first + ":~] "
			case hr.Role == hostio.RoleGuest:
				prompt = "root@" + hr.Host + ":~# "
				if c.intn(4) == 0 {
					prompt += "sudo "
				}
			}
			if line := prompt + cp.Command; len(line) > 60 && c.intn(3) == 0 {
				// The terminal wrapped the command line.
				at := 40 + c.intn(len(line)-40)
				m.logf("%s: `%s` wrapped at column %d", hr.Host, cp.Command, at)
				prompt, cp.Command = "", line[:at]+"\n"+line[at:]
			}
			// What the terminal showed: a failed command its error, one
			// that hung the ^C that ended it.
			out := cp.Stdout
			switch cp.Status {
			case hostio.StatusFailed:
				out = cp.Stderr
			case hostio.StatusTimedOut:
				out = "^C"
			}
			b.WriteString(prompt + cp.Command + "\n" + strings.TrimRight(out, "\n") + "\n")
		}
	}
	m.transcript = b.String()
	in, err := offline.FromTranscript(m.transcript)
	m.logf("read back as a pasted session (%d hosts)", len(m.results))
	if err != nil || in == nil {
		m.logf("transcript: %v", err)
		m.results = nil
		if in != nil {
			m.results = in.Results
		}
		return
	}
	m.results = in.Results
	// The transcript names every command a host's folder lacks; the rules
	// then report them missing, as on a scan: the hosts stay as clean as
	// they were.
}
