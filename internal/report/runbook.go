package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// A runbook is one plan as files a person works through (`pvrdma-doctor
// plan`): a Markdown checklist, and a commented POSIX sh script of the
// commands that run on the plan's host (or in its guest). Before each
// step the script runs its read-only check and skips the step when it is
// already done, so running it again is harmless; every step a person
// carries out (a power action, a reboot, the vSphere Client, the switch,
// the hardware, a placeholder to fill in) is an explicit pause. A command
// that disrupts something (its kind's plan.Disrupting: maintenance mode, a
// link, an MTU, a removal) runs only after a confirm that says what, with
// the step's objects, and takes nothing but yes; the checklist says the
// same beside the command. The doctor writes the files and runs nothing.

// RunbookFileName is a safe file name for a plan's host or guest.
func RunbookFileName(host, ext string) string {
	var b strings.Builder
	for _, r := range host {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "host"
	}
	return name + "." + ext
}

// runbookSide is where a plan's script runs: "guest" for a guest's plan,
// else "esxi".
func runbookSide(p checks.Plan) string {
	for _, s := range p.Steps {
		if s.On == "guest" && plan.VMOf(s.Params) == "" {
			return "guest"
		}
		if s.On == "esxi" {
			return "esxi"
		}
	}
	return "esxi"
}

// WriteRunbookMarkdown writes a plan as a Markdown checklist.
func WriteRunbookMarkdown(w io.Writer, r *Report, p checks.Plan) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Fix plan for %s\n\n", md(p.Host))
	fmt.Fprintf(&b, "From pvrdma-doctor %s (%s, %s). Each step says where it is carried out; tick it when done. "+
		"`%s` runs the commands of the steps on %s, each after its check.\n\n", md(r.Tool.Version), md(r.Source),
		r.GeneratedAt.Format("2006-01-02 15:04 UTC"), RunbookFileName(p.Host, "sh"), md(p.Host))
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "- [ ] **%d.** %s _(%s)_\n", s.N, md(s.Text), where(s))
		for _, wn := range s.Warnings {
			fmt.Fprintf(&b, "  - **Note:** %s.\n", md(wn))
		}
		if s.Require != nil {
			fmt.Fprintf(&b, "  - First: %s.\n", md(ReadText(*s.Require)))
		}
		if s.Command != "" {
			fmt.Fprintf(&b, "\n  ```sh\n  %s\n  ```\n\n", strings.ReplaceAll(textsafe.Clean(s.Command), "\n", "\n  "))
		}
		if d := stepDisruption(s, p); d != "" {
			fmt.Fprintf(&b, "  > **Disrupts:** %s.\n\n", md(d))
		}
		if s.Check != nil {
			fmt.Fprintf(&b, "  - Already done when %s.\n", md(ReadText(*s.Check)))
		}
		if len(s.Resolves) > 0 {
			fmt.Fprintf(&b, "  - Resolves: %s.\n", md(ResolvesText(s)))
		}
	}
	if vs := PlanVerifies(p); len(vs) > 0 {
		b.WriteString("\n## Verify once the plan is done\n\n")
		for _, v := range vs {
			fmt.Fprintf(&b, "- [ ] %s\n", md(ReadText(v)))
		}
	}
	if p.Rescan != "" {
		fmt.Fprintf(&b, "\n## Then\n\n`%s`: %s.\n", textsafe.Clean(p.Rescan), md(rescanExpect(p)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// where says in words where a step is carried out.
func where(s checks.PlanStep) string {
	switch s.On {
	case "esxi":
		return "ESXi shell"
	case "vcenter":
		return "vCenter"
	case "guest":
		if plan.VMOf(s.Params) != "" {
			return "in " + plan.VMOf(s.Params)
		}
		return "in the guest"
	case "switch":
		return "physical switch"
	case "hardware":
		return "at the server"
	}
	return s.On
}

// shellHelpers are the script's functions: the pauses, and the readers
// of esxcli's three output layouts that the checks' matches name (a
// table's row and column, a record's field, a get command's field).
const shellHelpers = `FROM=1
if [ "${1:-}" = --from ] && [ -n "${2:-}" ]; then FROM=$2; fi

# pause MESSAGE: a step a person carries out; Enter continues, Ctrl-C stops.
pause() {
	printf '\n>>> %s\n    Press Enter when it is done (Ctrl-C stops here). ' "$1"
	read -r _ || exit 1
}

# confirm N MESSAGE: step N's command disrupts what MESSAGE says; it runs
# only on an explicit yes (or y), read from standard input; any other
# answer, or none, stops the script before it.
confirm() {
	printf '\n!!! %s\n    Type yes to run it, anything else stops here: ' "$2"
	answer=
	read -r answer || answer=
	case "$answer" in
	[Yy] | [Yy][Ee][Ss]) return 0 ;;
	esac
	printf '\n    Stopped: nothing of step %s was run. Run this script again with --from %s to continue from it.\n' "$1" "$1"
	exit 1
}

# step N TEXT: announce a step; false when --from skips it.
step() {
	[ "$1" -ge "$FROM" ] || return 1
	printf '\n== Step %s: %s\n' "$1" "$2"
}

trim_awk='function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# kv_is(line, f, v): line is "f: v" (v compared without case; "f:" is empty).
function kv_is(line, f, v,   i, k, x) {
	line = trim(line); i = index(line, ": ")
	if (i > 0) { k = substr(line, 1, i - 1); x = trim(substr(line, i + 2)) }
	else if (substr(line, length(line)) == ":") { k = substr(line, 1, length(line) - 1); x = "" }
	else return 0
	return k == f && tolower(x) == tolower(v)
}'

# row_has ROW COLUMN VALUE: stdin is an esxcli table with a row whose first
# column is ROW and (unless COLUMN is empty) whose COLUMN is VALUE.
row_has() {
	awk -v row="$1" -v col="$2" -v val="$3" "$trim_awk"'
	NR == 1 { hdr = $0; next }
	NR == 2 {
		n = 0; i = 1; L = length($0)
		while (i <= L) {
			while (i <= L && substr($0, i, 1) != "-") i++
			if (i > L) break
			n++; st[n] = i
			while (i <= L && substr($0, i, 1) == "-") i++
		}
		for (k = 1; k <= n; k++) {
			e = (k < n) ? st[k+1] - st[k] : length(hdr)
			if (trim(substr(hdr, st[k], e)) == col) c = k
		}
		next
	}
	n > 0 {
		if (trim(substr($0, st[1], (n > 1 ? st[2] - st[1] : length($0)))) != row) next
		if (col == "") { found = 1; exit }
		if (c == 0) next
		e = (c < n) ? st[c+1] - st[c] : length($0)
		if (tolower(trim(substr($0, st[c], e))) == tolower(val)) { found = 1; exit }
	}
	END { exit !found }'
}

# record_has TITLE FIELD VALUE: stdin is a list of esxcli records with one
# titled TITLE whose FIELD is VALUE (with FIELD empty: the record exists).
record_has() {
	awk -v t="$1" -v f="$2" -v v="$3" "$trim_awk"'
	/^[^ \t]/ { inr = (trim($0) == t); if (inr && f == "") { found = 1; exit } next }
	inr && kv_is($0, f, v) { found = 1; exit }
	END { exit !found }'
}

# field_is FIELD VALUE: stdin is the output of an esxcli get command whose
# FIELD is VALUE.
field_is() {
	awk -v f="$1" -v v="$2" "$trim_awk"'
	kv_is($0, f, v) { found = 1; exit }
	END { exit !found }'
}

# world_id VM: the VM's World ID (it changes at every power-on).
world_id() {
	esxcli vm process list | awk -v n="$1" '/^[^ \t]/ { cur = $0; next } cur == n && /World ID:/ { print $3; exit }'
}
`

// ereOf translates the regular expressions the plans use (RE2) to POSIX
// ERE for grep -E: \s and \S become character classes. ok is false for
// anything else a grep could read differently.
func ereOf(re string) (string, bool) {
	out := strings.NewReplacer(`\s`, `[[:space:]]`, `\S`, `[^[:space:]]`).Replace(re)
	for _, bad := range []string{`\b`, `\d`, `\w`, `(?`, `\B`, `\D`, `\W`} {
		if strings.Contains(out, bad) {
			return "", false
		}
	}
	return out, true
}

var reWorldID = regexp.MustCompile(`<worldID>`)

// readCommand is a read's command for the script, with the VM's World ID
// looked up when it has one.
func readCommand(v plan.Read) string {
	if v.VM == "" {
		return v.Command
	}
	return reWorldID.ReplaceAllString(v.Command, `$(world_id `+textsafe.ShellQuote(v.VM)+`)`)
}

// shellCondition is a sh condition true when the read holds ("" when a
// match cannot be tested by sh).
func shellCondition(v plan.Read) string {
	var conds []string
	cmd := readCommand(v)
	for _, m := range v.Match {
		var test string
		switch {
		case m.Line != "":
			ere, ok := ereOf(m.Line)
			if !ok {
				return ""
			}
			test = cmd + " 2>/dev/null | grep -Eq " + textsafe.ShellQuote(ere)
		case m.Row != "":
			test = cmd + " 2>/dev/null | row_has " + textsafe.ShellQuote(m.Row) + " " + textsafe.ShellQuote(m.Field) + " " + textsafe.ShellQuote(m.Value)
		case m.Record != "":
			test = cmd + " 2>/dev/null | record_has " + textsafe.ShellQuote(m.Record) + " " + textsafe.ShellQuote(m.Field) + " " + textsafe.ShellQuote(m.Value)
		case m.Field != "":
			test = cmd + " 2>/dev/null | field_is " + textsafe.ShellQuote(m.Field) + " " + textsafe.ShellQuote(m.Value)
		default:
			return ""
		}
		if m.Absent {
			test = "! { " + test + "; }"
		} else {
			test = "{ " + test + "; }"
		}
		conds = append(conds, test)
	}
	return strings.Join(conds, " && ")
}

// comment writes text as sh comment lines of at most 78 columns.
func comment(b *strings.Builder, indent, text string) {
	for _, l := range strings.Split(Wrap(textsafe.Line(text), 76-len(indent)), "\n") {
		b.WriteString(indent + "# " + strings.TrimRight(l, " ") + "\n")
	}
}

// WriteRunbookShell writes the plan's commands as a POSIX sh script for
// its host's shell (or its guest's).
func WriteRunbookShell(w io.Writer, r *Report, p checks.Plan) error {
	side := runbookSide(p)
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	comment(&b, "", fmt.Sprintf("Fix plan for %s, from pvrdma-doctor %s (%s, %s).", p.Host, r.Tool.Version, r.Source,
		r.GeneratedAt.Format("2006-01-02 15:04 UTC")))
	if side == "guest" {
		comment(&b, "", "Run it in "+p.Host+"'s shell, as a user that may sudo.")
	} else {
		comment(&b, "", "Run it in "+p.Host+"'s ESXi Shell (or over SSH): sh "+RunbookFileName(p.Host, "sh")+
			". Steps carried out elsewhere (vCenter, the switch, the server, a guest) are pauses that say what to do.")
	}
	comment(&b, "", "Each step runs its read-only check first and is skipped when it is already done, so running the script again is "+
		"harmless; a reboot stops it, and it continues with --from N afterwards. Read each step before pressing Enter. Before a command that "+
		"disrupts something (a link, an MTU, maintenance mode, a removal), it says what and runs it only when you type yes; any other "+
		"answer stops the script there, and --from N resumes it.")
	b.WriteString("set -u\nset -f\n\n")
	b.WriteString(shellHelpers)
	for _, s := range p.Steps {
		b.WriteString("\n")
		comment(&b, "", fmt.Sprintf("Step %d (%s, %s): %s", s.N, s.Phase, where(s), s.Text))
		for _, wn := range s.Warnings {
			comment(&b, "", "Note: "+wn+".")
		}
		if len(s.Resolves) > 0 {
			comment(&b, "", "Resolves: "+ResolvesText(s)+".")
		}
		fmt.Fprintf(&b, "if step %d %s; then\n", s.N, textsafe.ShellQuote(textsafe.Line(s.Text)))
		check := ""
		if s.Check != nil && s.Check.On == side {
			check = shellCondition(*s.Check)
		}
		body := stepBody(s, side, p)
		if check != "" {
			fmt.Fprintf(&b, "\tif %s; then\n\t\techo %s\n\telse\n", check, textsafe.ShellQuote(fmt.Sprintf("   already done: %s", textsafe.Line(s.Check.Expect))))
			for _, l := range body {
				b.WriteString("\t\t" + l + "\n")
			}
			b.WriteString("\tfi\n")
		} else {
			for _, l := range body {
				b.WriteString("\t" + l + "\n")
			}
		}
		b.WriteString("fi\n")
	}
	vs := PlanVerifies(p)
	if len(vs) > 0 {
		b.WriteString("\n# Verify: what the plan's steps show once it is done.\nprintf '\\n== Verify\\n'\nbad=0\n")
		for _, v := range vs {
			cond := ""
			if v.On == side {
				cond = shellCondition(v)
			}
			label := textsafe.ShellQuote(textsafe.Line(v.Command + ": " + v.Expect))
			if cond == "" {
				fmt.Fprintf(&b, "echo %s\n", textsafe.ShellQuote(textsafe.Line("   check by hand: "+ReadText(v))))
				continue
			}
			fmt.Fprintf(&b, "if %s; then echo \"   ok: \"%s; else echo \"   NOT YET: \"%s; bad=1; fi\n", cond, label, label)
		}
		b.WriteString("[ \"$bad\" = 0 ] || exit 1\n")
	}
	if p.Rescan != "" {
		b.WriteString("\n")
		comment(&b, "", "Then, from where you run pvrdma-doctor: "+p.Rescan+".")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stepBody is what the script does for a step that is not done yet.
func stepBody(s checks.PlanStep, side string, p checks.Plan) []string {
	q := func(s string) string { return textsafe.ShellQuote(textsafe.Line(s)) }
	var out []string
	if s.Require != nil && s.Require.On == side {
		if c := shellCondition(*s.Require); c != "" {
			out = append(out, "if ! { "+c+"; }; then", "\tpause "+q("First: "+ReadText(*s.Require)), "fi")
		}
	}
	runsHere := s.Command != "" && s.On == side && (side == "guest" || s.On == "esxi") && !strings.Contains(s.Command, "PORTGROUP")
	switch {
	case s.Action == plan.KindReboot:
		msg := fmt.Sprintf("Reboot %s now: %s -- when it is back, run this script again with --from %d.", p.Host, s.Command, s.N+1)
		if d := stepDisruption(s, p); d != "" {
			msg += " Disrupts: " + d + "."
		}
		out = append(out, "pause "+q(msg), "exit 0")
	case runsHere && !s.Pause:
		var before, after []string
		if rl, ok := s.Params.(plan.RunbookLines); ok {
			before, after = rl.RunbookLines()
		}
		out = append(out, before...)
		for _, wn := range s.Warnings {
			out = append(out, "echo "+q("   Note: "+wn+"."))
		}
		if d := stepDisruption(s, p); d != "" {
			out = append(out, fmt.Sprintf("confirm %d %s", s.N, q("Disrupts: "+d+".")))
		}
		out = append(out, s.Command+" || { echo "+q(fmt.Sprintf("step %d failed", s.N))+"; exit 1; }")
		out = append(out, after...)
	default:
		msg := fmt.Sprintf("Step %d (%s): %s", s.N, where(s), s.Text)
		if s.Command != "" {
			msg += " Command: " + s.Command
		}
		for _, wn := range s.Warnings {
			msg += " Note: " + wn + "."
		}
		if d := stepDisruption(s, p); d != "" {
			msg += " Disrupts: " + d + "."
		}
		out = append(out, "pause "+q(msg))
	}
	return out
}

// stepDisruption is what a step's command interrupts, as its kind
// declares it ("" when nothing, or for a step without an action value).
func stepDisruption(s checks.PlanStep, p checks.Plan) string {
	if s.Params == nil {
		return ""
	}
	return plan.DisruptionOf(p.Host, s.Params).What
}
