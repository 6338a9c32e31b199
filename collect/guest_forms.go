package collect

import (
	"path"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The guest commands as admins type them (pasted sessions, saved outputs,
// `parse --command`): every command of the guest catalogue
// (internal/catalog/specs_guest.go) and the spellings and sibling tools
// whose output carries the same facts: ibv_devinfo with or without -v and
// -d DEV, ibstat, ip addr|a|address [show], ip link [show], ip -d/-o,
// rdma link [show], show_gids, lsmod, modinfo vmw_pvrdma, cat
// /etc/os-release, uname -r|-a, dmesg [-T], ofed_info -s, dpkg -l,
// dpkg-query -W, rpm -qa|-q, ls /sys/class/infiniband. The guest parsers
// read every one of these outputs. A form that shows only part of what
// the catalogue command shows (one device, a grep) is a filtered form:
// its facts are kept, and the checks that need the whole output say so.
// Like the ESXi forms, nothing here is ever sent to a guest.

// recognizeGuest names the guest catalogue command of a typed command
// (w: its words, without a pipe; filter: the pipe's, if any).
func recognizeGuest(w []string, filter string, r Recognized) (Recognized, bool) {
	w = withoutSudo(w)
	if len(w) == 0 {
		return Recognized{}, false
	}
	line := strings.Join(w, " ")
	if w[0] == "grep" && catalog.GuestAllowed(line) { // the sysfs port read, exactly
		r.Kind, r.Line = catalog.KindOf(line), line
		if r.Kind == "" {
			return Recognized{}, false
		}
		return guestFiltered(r, filter, line, ""), true
	}
	match, ok := guestForms[path.Base(w[0])]
	if !ok {
		return Recognized{}, false
	}
	m, ok := match(w[1:], filter)
	if !ok {
		return Recognized{}, false
	}
	spec, ok := catalog.Lookup(m.kind)
	if !ok {
		return Recognized{}, false
	}
	r.Kind, r.Line = m.kind, line
	if m.also != nil {
		r.Also = m.also
	}
	if spec.Allowed(line) {
		r.Line = spec.Line
	}
	return guestFiltered(r, m.filter, line, m.sel), true
}

// withoutSudo drops the leading sudo words of a typed command and sudo's
// own options (-E, -n).
func withoutSudo(w []string) []string {
	for len(w) > 0 && w[0] == "sudo" {
		w = w[1:]
		for len(w) > 0 && strings.HasPrefix(w[0], "-") {
			w = w[1:]
		}
	}
	return w
}

// guestForm is what a guest form's matcher reads in a typed command.
type guestForm struct {
	kind   hostio.Kind   // the guest catalogue command whose facts it shows
	sel    string        // what a filtering argument selects
	also   []hostio.Kind // the other commands whose facts its output carries
	filter string        // the pipe that still filters its output
}

// guestMatcher reads a tool's arguments and pipe: the form they make, or
// false when its output is not one the guest parsers read.
type guestMatcher func(args []string, filter string) (guestForm, bool)

// guestForms maps each tool admins type (the base name of its path) to
// the matcher of its forms.
var guestForms = map[string]guestMatcher{
	"ibv_devinfo": matchDevinfo,
	"ibv_devices": noArgs(catalog.KindGuestDevices),
	"ibstat":      matchIbstat,
	"ip":          matchIP,
	"rdma":        matchRDMALink,
	"show_gids":   matchShowGIDs,
	"lsmod":       noArgs(catalog.KindGuestLsmod),
	"modinfo":     oneArg(catalog.KindGuestModinfo, "vmw_pvrdma"),
	"cat":         oneArg(catalog.KindGuestOSRelease, "/etc/os-release", "/usr/lib/os-release"),
	"uname":       oneArg(catalog.KindGuestKernel, "-r", "-a", "--all", "--kernel-release"),
	"dmesg":       matchDmesg,
	"ofed_info":   oneArg(catalog.KindGuestOFED, "-s"),
	"dpkg":        matchPackageList(catalog.KindGuestDpkg, "-l", "--list"),
	"dpkg-query":  matchPackageList(catalog.KindGuestDpkg, "-l", "--list", "-W", "--show"),
	"rpm":         matchRPM,
	"ls":          matchIBClass,
}

// noArgs matches a tool typed without arguments.
func noArgs(kind hostio.Kind) guestMatcher {
	return func(args []string, filter string) (guestForm, bool) {
		return guestForm{kind: kind, filter: filter}, len(args) == 0
	}
}

// oneArg matches a tool typed with exactly one argument, one of these.
func oneArg(kind hostio.Kind, allowed ...string) guestMatcher {
	return func(args []string, filter string) (guestForm, bool) {
		return guestForm{kind: kind, filter: filter}, len(args) == 1 && slices.Contains(allowed, args[0])
	}
}

// matchDevinfo reads `ibv_devinfo [-v] [-d DEV] [-i PORT]` (and the long
// options): a device or port named is a filter.
func matchDevinfo(args []string, filter string) (guestForm, bool) {
	sel := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-v" || a == "--verbose":
		case a == "-d" || a == "--ib-dev" || a == "-i" || a == "--ib-port":
			if i+1 >= len(args) {
				return guestForm{}, false
			}
			i++
			sel = strings.TrimSpace(sel + " " + args[i])
		case strings.HasPrefix(a, "--ib-dev=") || strings.HasPrefix(a, "--ib-port="):
			_, v, _ := strings.Cut(a, "=")
			sel = strings.TrimSpace(sel + " " + v)
		case strings.HasPrefix(a, "-d") && len(a) > 2:
			sel = strings.TrimSpace(sel + " " + a[2:])
		default:
			return guestForm{}, false
		}
	}
	return guestForm{kind: catalog.KindGuestDevinfo, sel: sel, filter: filter}, true
}

// matchIbstat reads `ibstat [CA [PORT]]`: port states from the umad view,
// never the verbs listing ibv_devinfo is (a filtered form of it, whatever
// its arguments).
func matchIbstat(args []string, filter string) (guestForm, bool) {
	if len(args) > 2 || len(args) > 0 && strings.HasPrefix(args[0], "-") {
		return guestForm{}, false
	}
	return guestForm{kind: catalog.KindGuestDevinfo, sel: strings.TrimSpace("ibstat " + strings.Join(args, " ")), filter: filter}, true
}

// matchIP reads the forms of recognizeIP; `ip addr` without -o prints
// each interface's link line (MTU, MAC) above its addresses: the links'
// facts too.
func matchIP(args []string, filter string) (guestForm, bool) {
	k, s, ok := recognizeIP(args)
	if !ok {
		return guestForm{}, false
	}
	f := guestForm{kind: k, sel: s, filter: filter}
	if k == catalog.KindGuestIPAddr && !slices.Contains(args, "-o") && !slices.Contains(args, "-oneline") {
		f.also = []hostio.Kind{catalog.KindGuestIPLink}
	}
	return f, true
}

// matchRDMALink reads `rdma link [show|list|ls|sh] [DEV/PORT]`: a link
// named is a filter.
func matchRDMALink(args []string, filter string) (guestForm, bool) {
	if len(args) == 0 || args[0] != "link" && args[0] != "l" {
		return guestForm{}, false
	}
	rest := args[1:]
	if len(rest) > 0 && (rest[0] == "show" || rest[0] == "list" || rest[0] == "ls" || rest[0] == "sh") {
		rest = rest[1:]
	}
	if len(rest) > 1 {
		return guestForm{}, false
	}
	return guestForm{kind: catalog.KindGuestRDMALink, sel: strings.Join(rest, " "), filter: filter}, true
}

// matchShowGIDs reads `show_gids [DEV [PORT]]`: the GIDs of every port
// (or of one device), not the port state the catalogue's sysfs read also
// gives, so always a filtered form.
func matchShowGIDs(args []string, filter string) (guestForm, bool) {
	if len(args) > 2 {
		return guestForm{}, false
	}
	return guestForm{kind: catalog.KindGuestSysfsPort, sel: strings.TrimSpace("show_gids " + strings.Join(args, " ")), filter: filter}, true
}

// matchDmesg reads `dmesg` with options that keep its format; a grep that
// keeps every vmw_pvrdma line filters nothing the parser reads.
func matchDmesg(args []string, filter string) (guestForm, bool) {
	for _, a := range args {
		switch a {
		case "-T", "--ctime", "-L", "--color=never", "-x", "--decode", "-k", "--kernel", "-P", "--nopager":
		default:
			return guestForm{}, false
		}
	}
	if dmesgGrepKeepsPVRDMA(filter) {
		filter = "" // the parser keeps the vmw_pvrdma lines, which such a grep keeps all of
	}
	return guestForm{kind: catalog.KindGuestDmesg, filter: filter}, true
}

// matchPackageList matches a package listing typed with one of these
// options first; the packages named after it are a filter.
func matchPackageList(kind hostio.Kind, options ...string) guestMatcher {
	return func(args []string, filter string) (guestForm, bool) {
		if len(args) == 0 || !slices.Contains(options, args[0]) {
			return guestForm{}, false
		}
		return guestForm{kind: kind, sel: strings.Join(args[1:], " "), filter: filter}, true
	}
}

// matchRPM reads `rpm -qa [PATTERN]` and `rpm -q PACKAGE...` (a filter).
func matchRPM(args []string, filter string) (guestForm, bool) {
	if len(args) == 0 || args[0] != "-qa" && args[0] != "-q" {
		return guestForm{}, false
	}
	sel := strings.Join(args[1:], " ")
	if args[0] == "-q" && sel == "" {
		return guestForm{}, false
	}
	return guestForm{kind: catalog.KindGuestRPM, sel: sel, filter: filter}, true
}

// matchIBClass reads `ls [-1] /sys/class/infiniband[/]`.
func matchIBClass(args []string, filter string) (guestForm, bool) {
	if len(args) == 1 && args[0] == "-1" {
		return guestForm{}, false
	}
	if len(args) > 0 && args[0] == "-1" {
		args = args[1:]
	}
	if len(args) != 1 || strings.TrimSuffix(args[0], "/") != "/sys/class/infiniband" {
		return guestForm{}, false
	}
	return guestForm{kind: catalog.KindGuestIBClass, filter: filter}, true
}

// guestFiltered sets what a filtered form covers: the selection of its
// arguments and its pipe; the line is then the typed one.
func guestFiltered(r Recognized, filter, line, sel string) Recognized {
	switch {
	case sel != "" && filter != "":
		r.Filter = sel + " | " + filter
	case sel != "":
		r.Filter = sel
	default:
		r.Filter = filter
	}
	if r.Filter != "" {
		r.Line = line
		if filter != "" {
			r.Line += " | " + filter
		}
	}
	return r
}

// recognizeIP reads `ip [OPTIONS] addr|link [show] [dev] [NAME]`: its
// options may be -o/-oneline, -d/-details, -4, -c/-color(=never), -s;
// one interface named is a filter, as is -6 (no IPv4 address).
func recognizeIP(args []string) (hostio.Kind, string, bool) {
	var sel []string
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		switch args[i] {
		case "-o", "-oneline", "-d", "-details", "-4", "-c", "-color", "-color=never", "--color=never", "-s", "-stats":
		case "-6":
			sel = append(sel, "-6")
		default:
			return "", "", false // -br and the like print another format
		}
	}
	if i >= len(args) {
		return "", "", false
	}
	var kind hostio.Kind
	switch obj := args[i]; {
	case obj == "a" || obj == "ad" || obj == "addr" || obj == "address":
		kind = catalog.KindGuestIPAddr
	case obj == "l" || obj == "li" || obj == "link":
		kind = catalog.KindGuestIPLink
	default:
		return "", "", false
	}
	rest := args[i+1:]
	if len(rest) > 0 {
		switch rest[0] {
		case "s", "sh", "show", "list", "ls", "lst":
			rest = rest[1:]
		}
	}
	if len(rest) > 0 && rest[0] == "dev" {
		rest = rest[1:]
	}
	if len(rest) > 1 {
		return "", "", false
	}
	sel = append(sel, rest...)
	return kind, strings.Join(sel, " "), true
}

// dmesgGrepKeepsPVRDMA reports whether a pipe through grep keeps every
// vmw_pvrdma line: `grep [-i] PATTERN` with PATTERN a part of
// "vmw_pvrdma" (case-insensitively with -i).
func dmesgGrepKeepsPVRDMA(filter string) bool {
	f := strings.Fields(filter)
	if len(f) < 2 || f[0] != "grep" || strings.Contains(filter, "|") {
		return false
	}
	fold, pat := false, ""
	for _, a := range f[1:] {
		switch {
		case a == "-i":
			fold = true
		case strings.HasPrefix(a, "-"):
			return false
		case pat == "":
			pat = strings.Trim(a, `"'`)
		default:
			return false
		}
	}
	if fold {
		return pat != "" && strings.Contains("vmw_pvrdma", strings.ToLower(pat))
	}
	return pat != "" && strings.Contains("vmw_pvrdma", pat)
}

// IsGuest reports whether a recognized command is a guest command.
func (r Recognized) IsGuest() bool { return catalog.GuestKind(r.Kind) }
