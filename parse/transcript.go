package parse

import (
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
// one text. A prompt with no
// command only ends the previous output. Text before the first prompt is
// ignored. It is an error when no prompt is found.
func SplitTranscript(text string) ([]TranscriptCommand, error) {
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
		if p, ok := parsePrompt(l); ok {
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
	if len(out) == 0 {
		return nil, &Error{Msg: "no shell prompt found: expected lines like \"[root@esx01:~] esxcli rdma device list\" or \"~ # esxcli rdma device list\" before each command's output"}
	}
	return out, nil
}

// StripPrompt returns the command of a line that starts with a shell
// prompt, and the line itself (trimmed) otherwise.
func StripPrompt(s string) string {
	if p, ok := parsePrompt(s); ok {
		return p.Command
	}
	return strings.TrimSpace(s)
}
