package offline

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func hasPrefix(files map[string][]byte, prefix string) bool {
	for p := range files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// savedOutputs reads one folder per host under prefix (or a lone host's
// files directly under prefix, named label), each file named after its
// command (catalog.FileName), with optional <name>.stderr / <name>.exit.
// A stage-1 command without a file is recorded as a skipped capture whose
// Cause is missing (hostio.CauseNotSaved, or hostio.CauseMissingFromBundle for
// the host folders of a bundle), so that the host is partial.
// reads says per host which file gave which command.
func savedOutputs(files map[string][]byte, prefix, label string, missing hostio.Cause) (results []hostio.HostResult, ignored []string, reads []HostRead) {
	type hostFiles struct{ names []string }
	byHost := map[string]*hostFiles{}
	for p := range files {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		host, name, nested := strings.Cut(rel, "/")
		if !nested {
			host, name = "", rel
		}
		if strings.Contains(name, "/") {
			continue
		}
		if byHost[host] == nil {
			byHost[host] = &hostFiles{}
		}
		byHost[host].names = append(byHost[host].names, name)
	}
	for _, h := range slices.Sorted(maps.Keys(byHost)) {
		hf := byHost[h]
		sort.Strings(hf.names)
		name := h
		dir := prefix + h + "/"
		if h == "" {
			name, dir = label, prefix
			if name == "" {
				name = "host"
			}
		}
		hr := hostio.HostResult{Host: name, Transport: "saved-output", Status: hostio.StatusCollected}
		rd := HostRead{Host: name}
		var ign []string
		for _, n := range hf.names {
			if !strings.HasSuffix(n, ".txt") {
				if !strings.HasSuffix(n, ".stderr") && !strings.HasSuffix(n, ".exit") && n != "scenario.yaml" {
					ign = append(ign, path.Join(h, n)+": not a command output (expected <command>.txt)")
				}
				continue
			}
			caps, ok := savedCaptures(name, n, files[dir+n])
			if !ok {
				ign = append(ign, path.Join(h, n)+": not named after a pvrdma-doctor command")
				continue
			}
			for _, c := range caps {
				hr.Captures = append(hr.Captures, withStatusFiles(c, files, dir, n))
			}
			rd.Commands = append(rd.Commands, savedRead(path.Join(h, n), caps))
		}
		if len(hr.Captures) == 0 {
			// A folder without any command output is not a host (docs, ...).
			if h != "" {
				ignored = append(ignored, h+"/: no command outputs")
			}
			continue
		}
		ignored = append(ignored, ign...)
		addMissingStage1(&hr, missing)
		results = append(results, hr)
		reads = append(reads, rd)
	}
	return results, ignored, reads
}

// addMissingStage1 completes a host read from an offline input (saved
// outputs, transcript): every stage-1 command it lacks becomes a skipped
// capture whose Error says why (missing), the host is finalized, and it is
// partial when something was missing, as a live scan that could not run
// those commands would be. It sorts the captures.
func addMissingStage1(hr *hostio.HostResult, missing hostio.Cause) {
	have := map[hostio.Kind]bool{}
	for _, c := range hr.Captures {
		have[c.Kind] = true
	}
	setRole(hr)
	stage1 := collect.Stage1()
	if hr.Role == hostio.RoleGuest {
		stage1 = collect.GuestStage1()
	}
	n := 0
	for _, c := range stage1 {
		if !have[c.Kind] {
			hr.Captures = append(hr.Captures, hostio.Capture{Host: hr.Host, Command: c.Line, Kind: c.Kind,
				Status: hostio.StatusSkipped, Error: missing.Error(""), Cause: missing})
			n++
		}
	}
	sortCaptures(hr.Captures)
	hr.Finalize()
	if n == 0 || hr.Status == hostio.StatusNotCollected {
		return
	}
	hr.Status = hostio.StatusPartial
	why := fmt.Sprintf("%d of the %d base commands missing (%s)", n, len(stage1), missing.Error(""))
	if missing.NotInInput() {
		// Not a fault of the host: what the input holds (coverage).
		why = fmt.Sprintf("%d of the %d base commands not collected: not in the input (%s)", n, len(stage1), inputName[missing])
	}
	if hr.Reason != "" {
		why = hr.Reason + "; " + why
	}
	hr.Reason = why
}

// setRole makes a host read from an offline input a Linux guest when
// every command it holds is a guest's (ibv_devinfo, ip addr, lsmod ...):
// a guest folder of saved outputs, or a pasted session in a guest.
func setRole(hr *hostio.HostResult) {
	if hr.Role != "" || len(hr.Captures) == 0 {
		return
	}
	for _, c := range hr.Captures {
		if !isGuestKind(c.Kind) {
			return
		}
	}
	hr.Role = hostio.RoleGuest
	// A guest tool that exits non-zero still answered (not installed, no
	// module, no device): collected with its exit status, as a scan
	// records it, for the facts to read.
	for i := range hr.Captures {
		c := &hr.Captures[i]
		if c.Status == hostio.StatusFailed && c.ExitCode != 0 && c.Error == fmt.Sprintf("exit status %d", c.ExitCode) {
			c.Status, c.Error = hostio.StatusCollected, ""
		}
		pastedGuestAnswer(c)
	}
}

// pastedGuestAnswer reads the answers a guest tool gives on its error
// stream (a pasted session mixes them into its output, with no exit
// status) as the collector records them: the program not installed (exit
// 127), no module, no RDMA device, a kernel log not readable.
func pastedGuestAnswer(c *hostio.Capture) {
	if c.ExitCode != 0 || c.Status != hostio.StatusCollected && c.Status != hostio.StatusFailed {
		return
	}
	text := strings.TrimSpace(c.Stdout + "\n" + c.Stderr)
	var exit int
	switch {
	case strings.Contains(text, "command not found") || strings.HasSuffix(firstLine([]byte(text)), ": not found"):
		exit = 127
	case c.Kind == catalog.KindGuestModinfo && parse.ModuleNotFound(text),
		c.Kind == catalog.KindGuestDmesg && parse.DmesgDenied(text),
		c.Kind == catalog.KindGuestIBClass && strings.Contains(text, "No such file or directory"):
		exit = 1
	case (c.Kind == catalog.KindGuestDevinfo || c.Kind == catalog.KindGuestDevices) && strings.Contains(text, "No IB devices found"):
		exit = 255
	default:
		return
	}
	c.Status, c.Error, c.ExitCode = hostio.StatusCollected, "", exit
	if c.Stderr == "" {
		c.Stderr, c.Stdout = c.Stdout, ""
	}
}

func isGuestKind(k hostio.Kind) bool {
	return collect.Recognized{Kind: k}.IsGuest() || k == catalog.KindGuestBWClient || k == catalog.KindGuestBWServer
}

// inputName names the offline input a command is missing from.
var inputName = map[hostio.Cause]string{
	hostio.CauseNotInTranscript: "a pasted transcript",
	hostio.CauseNotSaved:        "a folder of saved outputs",
}

// sortCaptures orders captures like the collector: stage 1 in catalogue
// order, then stage 2 and 3 by command line.
func sortCaptures(cs []hostio.Capture) {
	rank := map[string]int{}
	for i, c := range append(collect.Stage1(), collect.GuestStage1()...) {
		rank[c.Line] = i + 1
	}
	stage := func(k hostio.Kind) int {
		switch k {
		case catalog.KindVmkping:
			return 3
		}
		return 2
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ri, rj := rank[cs[i].Command], rank[cs[j].Command]
		switch {
		case ri > 0 && rj > 0:
			return ri < rj
		case ri > 0 || rj > 0:
			return ri > 0
		}
		if si, sj := stage(cs[i].Kind), stage(cs[j].Kind); si != sj {
			return si < sj
		}
		return cs[i].Command < cs[j].Command
	})
}

// recognizeSaved names the catalogue command of a saved output file whose
// name is not the catalogue's own (catalog.FileName): the command its
// first line echoes ("[root@esx01:~] esxcli network nic list", "# esxcfg-nics -l"),
// else the file name read as a command ("localcli_network_nic_list.txt",
// "esxcfg-vmknic -l.txt").
func recognizeSaved(name string, content []byte) (collect.Recognized, string, bool) {
	if cmd := parse.StripPrompt(firstLine(content)); cmd != "" {
		if rc, ok := collect.Recognize(cmd); ok {
			return rc, cmd, true
		}
	}
	base := strings.TrimSuffix(name, ".txt")
	words := strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == ' ' })
	// The program's own name may hold underscores (ibv_devinfo.txt,
	// show_gids.txt, ofed_info_-s.txt): try them joined too.
	for i := 1; i <= min(3, len(words)); i++ {
		typed := strings.Join(append([]string{strings.Join(words[:i], "_")}, words[i:]...), " ")
		if rc, ok := collect.Recognize(typed); ok {
			return rc, typed, true
		}
	}
	return collect.Recognized{}, "", false
}

func firstLine(b []byte) string {
	s := string(b[:min(len(b), 4096)])
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// savedCaptures makes the captures of one saved output file of host: the
// catalogue command its name spells (catalog.FileName), or a command it
// is recognized as (recognizeSaved); a legacy tool's output feeds every
// kind it carries. ok is false for a file that is no command output.
func savedCaptures(host, name string, content []byte) ([]hostio.Capture, bool) {
	if line, ok := collect.CommandForFile(name); ok {
		return []hostio.Capture{{Host: host, Command: line, Kind: catalog.KindOf(line), Stdout: string(content), Status: hostio.StatusCollected}}, true
	}
	rc, _, ok := recognizeSaved(name, content)
	if !ok {
		return nil, false
	}
	var caps []hostio.Capture
	for _, k := range append([]hostio.Kind{rc.Kind}, rc.Also...) {
		caps = append(caps, hostio.Capture{Host: host, Command: rc.Line, Kind: k, Stdout: string(content), Status: hostio.StatusCollected, Filter: rc.Filter})
	}
	return caps, true
}

// withStatusFiles applies a saved output's optional <name>.stderr and
// <name>.exit files (in dir) to its capture; an output that is the error
// the command printed makes it failed, and so does a non-zero exit status
// unless it is the command's answer (collect.ApplyExit).
func withStatusFiles(c hostio.Capture, files map[string][]byte, dir, n string) hostio.Capture {
	if msg, failed := commandError(c.Stdout); failed {
		c.Status, c.Error, c.Stderr, c.Stdout = hostio.StatusFailed, msg, c.Stdout, ""
	}
	base := strings.TrimSuffix(n, ".txt")
	for _, se := range []string{dir + n + ".stderr", dir + base + ".stderr"} {
		if b, ok := files[se]; ok {
			c.Stderr = string(b)
			break
		}
	}
	for _, ex := range []string{dir + n + ".exit", dir + base + ".exit"} {
		if b, ok := files[ex]; ok {
			var code int
			if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &code); err == nil && code != 0 {
				// What the exit status means is the collector's reading:
				// a probe without a reply (vmkping exits 1), a guest
				// tool's answer, a host without the subject are results.
				c.ExitCode = code
				collect.ApplyExit(&c)
			}
			break
		}
	}
	return c
}

// savedRead is the read of one saved file (named file, under its host).
func savedRead(file string, caps []hostio.Capture) ReadCommand {
	rd := ReadCommand{File: file}
	for _, c := range caps {
		rd.Command, rd.Typed = c.Command, c.Command
		rd.Kinds = append(rd.Kinds, c.Kind)
	}
	return rd
}

// reCommandError matches the first line of what a shell or esxcli prints
// instead of output when a command fails: an unknown namespace on an
// older release, a missing legacy tool, a bad option, a missing vsish node.
var reCommandError = regexp.MustCompile(`^(?:Error:|Error |error:|Unknown command or namespace|Invalid (?:option|argument)|.*: (?:command )?not found$|.*: No such file or directory$|VSI_NODE_NOT_FOUND|Usage: (?:esxcli|vmkping|vsish))`)

// commandError reports whether a command's output is the error it printed
// instead of output, and the error line.
func commandError(out string) (string, bool) {
	if strings.TrimSpace(out) == "^C" {
		// Interrupted before it printed anything: a hung command, not an
		// empty output. (An output before a ^C is kept: ping prints its
		// statistics after one.)
		return "interrupted (^C) before it printed anything", true
	}
	first := firstLine([]byte(out))
	if first == "" || !reCommandError.MatchString(first) {
		return "", false
	}
	return first, true
}
