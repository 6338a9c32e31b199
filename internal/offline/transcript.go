package offline

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// HostRead is what an offline loader (transcript, saved outputs) read for
// one host: the commands it recognized, where, and the other commands it
// passed over. analyze reports it per host.
type HostRead struct {
	Host     string        `json:"host"`
	Commands []ReadCommand `json:"commands"`
	// Other are commands that are not pvrdma-doctor's (uptime, cd, ping of
	// a host name): passed over quietly.
	Other []ReadCommand `json:"other,omitempty"`
}

// ReadCommand is one command of an offline input.
type ReadCommand struct {
	// Line is the transcript line of the command's prompt (0 for a file);
	// line k of its output is transcript line Line+k.
	Line int `json:"line,omitempty"`
	// File is the saved file it came from ("" in a transcript).
	File string `json:"file,omitempty"`
	// Typed is the command as typed; Command is the capture's command line
	// (the catalogue's spelling, or the typed one for a filtered form).
	Typed   string        `json:"typed"`
	Command string        `json:"command,omitempty"`
	Kinds   []hostio.Kind `json:"kinds,omitempty"`
	// Replaced is set when a later run of the same command was used instead.
	Replaced bool `json:"replaced,omitempty"`
}

// Where names the command's place in the input ("line 12", "esx01/nics.txt").
func (c ReadCommand) Where() string {
	if c.File != "" {
		return c.File
	}
	return fmt.Sprintf("line %d", c.Line)
}

// DefaultTranscriptHost names the host of a transcript whose prompts and
// commands never name one.
const DefaultTranscriptHost = "unknown-host"

// hostReads collects captures and reads per host, in order of appearance.
type hostReads struct {
	results []hostio.HostResult
	reads   []HostRead
	idx     map[string]int
	// noted is where a host's note about a command is, so that a command
	// repeated many times keeps one note (about its last run).
	noted map[string]int
}

// note sets the note of host i about command.
func (h *hostReads) note(i int, command, msg string) {
	if h.noted == nil {
		h.noted = map[string]int{}
	}
	key := h.results[i].Host + "\x00" + command
	if j, ok := h.noted[key]; ok {
		h.results[i].Notes[j] = msg
		return
	}
	h.noted[key] = len(h.results[i].Notes)
	h.results[i].Notes = append(h.results[i].Notes, msg)
}

func (h *hostReads) host(name string) int {
	if h.idx == nil {
		h.idx = map[string]int{}
	}
	i, ok := h.idx[name]
	if !ok {
		i = len(h.results)
		h.idx[name] = i
		h.results = append(h.results, hostio.HostResult{Host: name, Transport: "transcript", Status: hostio.StatusCollected})
		h.reads = append(h.reads, HostRead{Host: name})
	}
	return i
}

// add records the captures of one recognized command on a host. A later
// run of the same command replaces an earlier one; an unfiltered output
// of a kind is preferred over filtered forms of it.
func (h *hostReads) add(i int, rc collect.Recognized, rd ReadCommand, out, transport string) {
	hr := &h.results[i]
	if transport != "" {
		hr.Transport = transport
	}
	kinds := append([]hostio.Kind{rc.Kind}, rc.Also...)
	rd.Command, rd.Kinds = rc.Line, kinds
	marked := map[string]bool{}
	replace := func(command, msg string) {
		if !marked[command] {
			marked[command] = true
			h.note(i, command, msg)
			h.markReplaced(i, command)
		}
	}
	for _, k := range kinds {
		c := hostio.Capture{Host: hr.Host, Command: rc.Line, Kind: k, Stdout: out, Status: hostio.StatusCollected, Filter: rc.Filter}
		if msg, failed := commandError(out); failed {
			// The command failed on the host: say so, not "unreadable output".
			c.Status, c.Error, c.Stdout, c.Stderr = hostio.StatusFailed, msg, "", out
		}
		kept := hr.Captures[:0]
		add := true
		for _, old := range hr.Captures {
			switch {
			case old.Kind != k:
			case old.Command == c.Command:
				replace(c.Command, fmt.Sprintf("`%s` appears more than once: the run at %s is used", c.Command, rd.Where()))
				continue
			case old.Filter != "" && c.Filter == "":
				replace(old.Command, fmt.Sprintf("the filtered `%s` is superseded by the complete output at %s", old.Command, rd.Where()))
				continue
			case old.Filter == "" && c.Filter != "":
				add = false // the complete output is already there
			}
			kept = append(kept, old)
		}
		hr.Captures = kept
		if add {
			hr.Captures = append(hr.Captures, c)
		}
	}
	h.reads[i].Commands = append(h.reads[i].Commands, rd)
}

// markReplaced marks the earlier read of command on host i as replaced
// (the latest one not yet marked: earlier ones were marked before).
func (h *hostReads) markReplaced(i int, command string) {
	cmds := h.reads[i].Commands
	for j := len(cmds) - 1; j >= 0; j-- {
		if cmds[j].Command == command && !cmds[j].Replaced {
			cmds[j].Replaced = true
			return
		}
	}
}

// FromTranscript reads a pasted SSH session (parse.SplitTranscript). Each
// command recognized as a form of a catalogue command (collect.Recognize:
// other spellings, localcli, vCLI, esxcfg-*) becomes a capture of its host:
// the host the command line names (ssh root@HOST ..., --server HOST), else
// the one in its prompt, else the host of the prompts before it (a bare
// "~ #" after "[root@esx01:~]", or after "ssh root@esx01"). When no prompt
// or command names a host, everything is one host. Other commands are
// passed over quietly (HostRead.Other); they never make a host. A command
// run twice on a host is taken from its last run.
func FromTranscript(text string) (*Input, error) {
	cmds, err := parse.SplitTranscript(text)
	if err != nil {
		return nil, fmt.Errorf("not a bundle, and not a transcript either: %w", err)
	}
	in := &Input{Kind: KindTranscript}
	var h hostReads
	current := ""
	type pending struct {
		rc  collect.Recognized
		rd  ReadCommand
		out string
	}
	var unnamed []pending // commands before any host is named
	var otherUnnamed []ReadCommand
	named := map[string]bool{}
	for _, tc := range cmds {
		tc = unwrapCommand(tc)
		typed := strings.Join(strings.Fields(tc.Command), " ")
		rd := ReadCommand{Line: tc.Line, Typed: typed}
		if p := strings.TrimSpace(tc.Host); p != "" {
			current = p
			named[p] = true
		}
		rc, ok := collect.Recognize(typed)
		if !ok {
			if host, ok := sshLogin(typed); ok {
				current = host // the prompts after it are that host's
				named[host] = true
			}
			if current == "" {
				otherUnnamed = append(otherUnnamed, rd)
			} else {
				i := h.host(current)
				h.reads[i].Other = append(h.reads[i].Other, rd)
			}
			continue
		}
		host := current
		if rc.Host != "" {
			host = rc.Host
			named[host] = true
		}
		out := tc.Output
		if out != "" {
			out += "\n"
		}
		if host == "" {
			unnamed = append(unnamed, pending{rc, rd, out})
			continue
		}
		h.add(h.host(host), rc, rd, out, "")
	}
	if len(unnamed) > 0 || len(otherUnnamed) > 0 {
		// Before the first named prompt: the one host, if the transcript
		// names only one; otherwise a host of its own.
		host := DefaultTranscriptHost
		if len(named) == 1 {
			for n := range named {
				host = n
			}
		}
		if len(unnamed) > 0 {
			i := h.host(host)
			// Earlier commands first, so that a later run still wins.
			later, laterReads := h.results[i].Captures, h.reads[i].Commands
			h.results[i].Captures, h.reads[i].Commands = nil, nil
			for _, p := range unnamed {
				h.add(i, p.rc, p.rd, p.out, "")
			}
			for _, c := range later {
				h.addCapture(i, c)
			}
			h.reads[i].Commands = append(h.reads[i].Commands, laterReads...)
		}
		if i, ok := h.idx[host]; ok {
			h.reads[i].Other = append(otherUnnamed, h.reads[i].Other...)
		} else {
			for _, o := range otherUnnamed {
				in.Other = append(in.Other, fmt.Sprintf("%s: `%s`", o.Where(), o.Typed))
			}
		}
	}
	// A host only passed over (no command of ours) is not a host.
	for i := 0; i < len(h.results); i++ {
		if len(h.results[i].Captures) == 0 {
			for _, o := range h.reads[i].Other {
				in.Other = append(in.Other, fmt.Sprintf("%s: `%s` (%s)", o.Where(), o.Typed, h.results[i].Host))
			}
			continue
		}
		in.Results = append(in.Results, h.results[i])
		in.Read = append(in.Read, h.reads[i])
	}
	if len(in.Results) == 0 {
		n := len(cmds)
		return in, fmt.Errorf("the transcript holds no pvrdma-doctor command (%d other command(s) passed over); supported: %s",
			n, strings.Join(catalog.Usages(), "; "))
	}
	for i := range in.Results {
		addMissingStage1(&in.Results[i], hostio.CauseNotInTranscript)
	}
	return in, nil
}

// unwrapCommand rejoins a command line the terminal wrapped: when the
// command as typed is none of ours but it and the first lines of its
// "output" are (`vsish -e cat .../2100788_0/pr` then `operties` at 132
// columns), those lines are the rest of the command, joined as the
// terminal broke them (mid-word, or at a space). Its output then starts
// after them (Line moves with it, so that output line k stays transcript
// line Line+k).
func unwrapCommand(tc parse.TranscriptCommand) parse.TranscriptCommand {
	if _, ok := collect.Recognize(tc.Command); ok || tc.Output == "" {
		return tc
	}
	lines := strings.SplitN(tc.Output, "\n", 4)
	cmd := tc.Command
	for k := 1; k <= min(3, len(lines)); k++ {
		next := lines[k-1]
		if strings.TrimSpace(next) == "" || parse.StripPrompt(next) != strings.TrimSpace(next) {
			break // a blank line or another prompt ends the command
		}
		for _, joined := range []string{cmd + next, cmd + " " + strings.TrimLeft(next, " ")} {
			if _, ok := collect.Recognize(joined); ok {
				tc.Command, tc.Line = joined, tc.Line+k
				tc.Output = strings.Join(lines[k:], "\n")
				if k == len(lines) {
					tc.Output = ""
				}
				return tc
			}
		}
		cmd += next
	}
	return tc
}

// addCapture re-adds a capture kept aside, replacing an earlier one of the
// same command and kind.
func (h *hostReads) addCapture(i int, c hostio.Capture) {
	hr := &h.results[i]
	for j := range hr.Captures {
		if hr.Captures[j].Kind == c.Kind && hr.Captures[j].Command == c.Command {
			hr.Captures[j] = c
			return
		}
	}
	hr.Captures = append(hr.Captures, c)
}

// sshLogin recognises "ssh [options] [user@]HOST" without a remote command:
// the session continues on HOST.
func sshLogin(typed string) (string, bool) {
	host, remote, ok := collect.SSHTarget(typed)
	return host, ok && len(remote) == 0
}
