package parse

import (
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// line is one line of the original text with its 1-based line number.
type line struct {
	no   int
	text string
}

// ref returns the evidence pointer of a line.
func (l line) ref() Ref { return Ref{Line: l.no, Text: l.text} }

// splitLines splits text into lines numbered from 1, dropping the CR of
// CRLF line ends and a final empty line after the last newline.
func splitLines(text string) []line {
	if text == "" {
		return nil
	}
	parts := strings.Split(text, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	ls := make([]line, len(parts))
	for i, p := range parts {
		ls[i] = line{no: i + 1, text: normalizeCopy(strings.TrimRight(p, "\r"))}
	}
	return ls
}

// reSGR matches the colour sequences (SGR: ESC [ ... m) that session
// recordings (script, tmux logs) keep around coloured prompts. ESXi's
// commands print no colour, so nothing else is dropped: any other escape
// sequence in a line is the host's own text (a VM named with a terminal
// title sequence, say) and stays, to be shown escaped by the human sinks.
var reSGR = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// normalizeCopy undoes what copying through documents and terminals does
// to a line: no-break spaces (wiki and mail copies) become spaces, colour
// sequences of recorded sessions are dropped.
func normalizeCopy(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 && strings.IndexByte(s, 0xc2) < 0 {
		return s
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = reSGR.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "\u00a0") {
		s = strings.ReplaceAll(s, "\u00a0", " ")
	}
	return s
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// isFence reports whether a line is a Markdown code fence ("```",
// "```console", "~~~"), which pastes from tickets and wikis carry around
// outputs: never output itself.
func isFence(s string) bool {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return false
	}
	return reFence.MatchString(t)
}

var reFence = regexp.MustCompile("^(?:```+|~~~+)[A-Za-z0-9_+.-]*\\s*$")

// indent is the column of the first non-blank character, with tab stops
// every 8 columns as a terminal shows them (a copy may have turned runs of
// spaces into tabs).
func indent(s string) int {
	col := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			col++
		case '\t':
			col += 8 - col%8
		default:
			return col
		}
	}
	return col
}

// expandTabs replaces tabs by spaces up to the next 8-column tab stop.
func expandTabs(s string) string { return textsafe.ExpandTabs(s) }

// knownCommands are the first words of commands an ESXi support session
// runs; they let a bare "# " prompt be told apart from a comment.
const knownCommands = `esxcli|localcli|vsish|vmkping|ping|cat|esxcfg-[a-z]+|vim-cmd|grep|less|more|tail|head|ls|vmware|esxtop|ssh`

var (
	// [root@esx01:~] cmd    [root@vc1] cmd    [root@hpc-node01 ~]# cmd (RHEL)
	rePromptBracket = regexp.MustCompile(`^\s*\[([^\[\]@\s]+)@([^\[\]:\s]+)(?:[:\s][^\[\]]*)?\]\s*[#$]?(?:\s+(.*))?$`)
	// ~ # cmd    /tmp # cmd
	rePromptTilde = regexp.MustCompile(`^\s*(~|/[^\s#$]*)\s*[#$](?:\s+(.*))?$`)
	// # esxcli ...
	rePromptHash = regexp.MustCompile(`^\s*[#$]\s+((?:` + knownCommands + `)(?:\s.*)?)$`)
	// root@esx01:~# cmd
	rePromptUserHost = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)@([A-Za-z0-9_.-]+):[^\s#$]*\s*[#$](?:\s+(.*))?$`)
	// the command after a ">" prompt (vCLI, vMA, PowerShell notes): "> esxcli ..."
	reAngleCommand = regexp.MustCompile(`^(?:` + knownCommands + `)(?:\s.*)?$`)
	// an echoed command line without prompt
	reEcho = regexp.MustCompile(`^\s*(?:(?:esxcli|localcli)(?:\s+--?[a-z-]+(?:=\S+)?)*(?:\s+[a-z][a-z0-9-]*){2,}(?:\s+-{1,2}\S+(?:\s+\S+)?)*\s*(?:\|.*)?|vsish\s+-e\s+(?:ls|cat|get)\s+/\S*|(?:vmkping|ping)(?:\s+\S+)+|esxcfg-[a-z]+(?:\s+-\S+)*|cat\s+\S+\.vmx)\s*$`)
)

// looksLikeCommand is a cheap filter before reEcho: the first word is a
// command pvrdma-doctor knows.
func looksLikeCommand(s string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	switch w {
	case "esxcli", "localcli", "vsish", "vmkping", "ping", "cat":
		return true
	}
	return strings.HasPrefix(w, "esxcfg-")
}

// anglePrompt recognises "PROMPT> command" as pasted from vCLI or vMA
// notes ("> esxcli --server esx01 ...", "C:\...\bin> esxcli ...",
// "vi-admin@vma:~> esxcli ..."): a prompt without '<' (so XML is never
// one) before a command pvrdma-doctor knows or a shell command.
func anglePrompt(s string) (string, bool) {
	i := strings.IndexByte(s, '>')
	if i < 0 || strings.IndexByte(s[:i], '<') >= 0 {
		return "", false
	}
	rest := strings.TrimSpace(s[i+1:])
	if rest == "" || (!looksLikeCommand(rest) && !strings.HasPrefix(rest, "ssh ")) {
		return "", false
	}
	if !reAngleCommand.MatchString(rest) {
		return "", false
	}
	return rest, true
}

// promptInfo is a recognised shell prompt line.
type promptInfo struct {
	Host    string
	Command string
}

// parsePrompt recognises a shell prompt line ("[root@esx01:~] cmd",
// "~ # cmd", "# esxcli ...", "root@esx01:~# cmd").
func parsePrompt(s string) (promptInfo, bool) {
	// Every prompt form holds '#', '$', ']' or '>', and each regexp needs
	// a few characters the line must hold: skip them cheaply otherwise.
	if !strings.ContainsAny(s, "#$]") {
		if cmd, ok := anglePrompt(s); ok {
			return promptInfo{Command: cmd}, true
		}
		return promptInfo{}, false
	}
	t := strings.TrimLeft(s, " \t")
	at := strings.IndexByte(s, '@') >= 0
	if at && t != "" && t[0] == '[' {
		if m := rePromptBracket.FindStringSubmatch(s); m != nil {
			return promptInfo{Host: m[2], Command: strings.TrimSpace(m[3])}, true
		}
	}
	if t != "" && (t[0] == '~' || t[0] == '/') {
		if m := rePromptTilde.FindStringSubmatch(s); m != nil {
			return promptInfo{Command: strings.TrimSpace(m[2])}, true
		}
	}
	if t != "" && (t[0] == '#' || t[0] == '$') {
		if m := rePromptHash.FindStringSubmatch(s); m != nil {
			return promptInfo{Command: strings.TrimSpace(m[1])}, true
		}
	}
	if at && strings.IndexByte(s, ':') >= 0 {
		if m := rePromptUserHost.FindStringSubmatch(s); m != nil {
			return promptInfo{Host: m[2], Command: strings.TrimSpace(m[3])}, true
		}
	}
	if cmd, ok := anglePrompt(s); ok {
		return promptInfo{Command: cmd}, true
	}
	return promptInfo{}, false
}

func isPrompt(s string) bool { _, ok := parsePrompt(s); return ok }

// clean returns the output lines of one command: CR dropped, leading blank
// lines, prompt lines and an echoed command line removed, and everything
// from the next prompt line on (the start of another command) cut off.
// Line numbers stay those of the original text. titled is set by readers
// of record lists, whose first line may be a title that looks like a
// command (a VM named "esxcli vm process list"): there a command-like line
// followed by an indented key line is kept as a title.
func clean(text string, titled bool) []line {
	ls := splitLines(text)
	if strings.Contains(text, "``") || strings.Contains(text, "~~~") {
		kept := ls[:0:0]
		for _, l := range ls {
			if !isFence(l.text) {
				kept = append(kept, l)
			}
		}
		ls = kept
	}
	i := 0
	echoed := false
	for i < len(ls) {
		t := ls[i].text
		switch {
		case isBlank(t), isPrompt(t):
			i++
			continue
		case !echoed && looksLikeCommand(t) && reEcho.MatchString(t) && !(titled && startsRecord(ls, i)):
			echoed = true
			i++
			continue
		}
		break
	}
	end := len(ls)
	for j := i; j < len(ls); j++ {
		if isPrompt(ls[j].text) {
			end = j
			break
		}
	}
	for end > i && isBlank(ls[end-1].text) {
		end--
	}
	return ls[i:end]
}

// startsRecord reports whether line i is followed by an indented key line,
// i.e. it is the title of a record (a VM whose display name looks like a
// command) rather than an echoed command.
func startsRecord(ls []line, i int) bool {
	if i+1 >= len(ls) {
		return false
	}
	n := ls[i+1].text
	return indent(n) > 0 && strings.Contains(n, ":") && indent(ls[i].text) == 0 && !strings.HasPrefix(strings.TrimSpace(n), "PING ")
}
