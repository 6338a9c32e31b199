package parse

import (
	"regexp"
	"strings"
)

// TranscriptCommand is one command of a pasted SSH session.
type TranscriptCommand struct {
	// Host is the host name shown in the prompt ("" for a "~ #" prompt).
	Host string `json:"host"`
	// Command is the command line typed after the prompt.
	Command string `json:"command"`
	// Output is the text between this prompt line and the next; its line
	// k (1-based) is line Line+k of the transcript.
	Output string `json:"output"`
	// Line is the 1-based line of the prompt in the transcript.
	Line int `json:"line"`
}

// SplitTranscript splits a pasted SSH session into its commands, at each
// prompt line ("[root@esx01:~] esxcli ...", "[root@esx01:/vmfs/volumes/ds1] ...",
// "~ # ...", "# esxcli ...", "$ ssh root@esx01 esxcli ...", "root@esx01:~# ...",
// "> esxcli --server esx01 ..." from vCLI notes). Hosts may differ within
// one text. A prompt with no command only ends the previous output. Text
// before the first prompt is ignored. A text without any prompt is split
// at the lines that echo a command pvrdma-doctor knows; it is an error
// when there are none either.
func SplitTranscript(text string) ([]TranscriptCommand, error) {
	out := splitAt(text, parsePrompt)
	if len(out) == 0 {
		// No prompt at all: a copy that kept only the commands, echoed
		// on lines of their own ("esxcli network nic list", then its output).
		out = splitEchoed(text)
	}
	if len(out) == 0 {
		return nil, &Error{Msg: "no shell prompt found: expected lines like \"[root@esx01:~] esxcli rdma device list\" or \"~ # esxcli rdma device list\" before each command's output"}
	}
	return out, nil
}

// reTitledList matches the commands whose output is a list of titled
// records: inside it, a title may look like a command.
var reTitledList = regexp.MustCompile(`(?:vm process|ip interface|vswitch standard|vswitch dvs vmware|hardware pci) list\b`)

// splitEchoed splits text without prompts at the lines (at column 0) that
// are commands pvrdma-doctor knows, except, inside the output of a list of
// titled records, a record's title that looks like one (a VM named
// "esxcli vm process list", followed by its indented keys).
func splitEchoed(text string) []TranscriptCommand {
	ls := splitLines(text)
	var out []TranscriptCommand
	var b strings.Builder
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Output = strings.TrimRight(b.String(), "\n")
		}
		b.Reset()
	}
	titled := false
	for i, l := range ls {
		t := l.text
		if indent(t) == 0 && looksLikeCommand(t) && reEcho.MatchString(t) && !(titled && startsRecord(ls, i)) {
			flush()
			cmd := strings.TrimSpace(t)
			out = append(out, TranscriptCommand{Command: cmd, Line: l.no})
			titled = reTitledList.MatchString(cmd)
			continue
		}
		if len(out) > 0 {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	flush()
	return out
}

// splitAt splits text into commands at each line isStart recognises.
func splitAt(text string, isStart func(string) (promptInfo, bool)) []TranscriptCommand {
	var out []TranscriptCommand
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur >= 0 {
			out[cur].Output = strings.TrimRight(b.String(), "\n")
		}
		b.Reset()
	}
	no := 0
	for rest := text; rest != ""; {
		var l string
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			l, rest = rest, ""
		}
		no++
		l = normalizeCopy(strings.TrimSuffix(l, "\r"))
		if p, ok := isStart(l); ok {
			flush()
			cur = -1
			if p.Command != "" {
				out = append(out, TranscriptCommand{Host: p.Host, Command: p.Command, Line: no})
				cur = len(out) - 1
			}
			continue
		}
		if cur >= 0 {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	flush()
	return out
}

// StripPrompt returns the command of a line that starts with a shell
// prompt, and the line itself (trimmed) otherwise.
func StripPrompt(s string) string {
	if p, ok := parsePrompt(s); ok {
		return p.Command
	}
	return strings.TrimSpace(s)
}
