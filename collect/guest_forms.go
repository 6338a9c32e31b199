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
	for len(w) > 0 && w[0] == "sudo" {
		w = w[1:]
		for len(w) > 0 && strings.HasPrefix(w[0], "-") {
			w = w[1:] // sudo's own options (-E, -n)
		}
	}
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
	tool, args := path.Base(w[0]), w[1:]
	var kind hostio.Kind
	sel := "" // what a filtering argument selects
	switch tool {
	case "ibv_devinfo":
		kind = catalog.KindGuestDevinfo
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-v" || a == "--verbose":
			case a == "-d" || a == "--ib-dev" || a == "-i" || a == "--ib-port":
				if i+1 >= len(args) {
					return Recognized{}, false
				}
				i++
				sel = strings.TrimSpace(sel + " " + args[i])
			case strings.HasPrefix(a, "--ib-dev=") || strings.HasPrefix(a, "--ib-port="):
				_, v, _ := strings.Cut(a, "=")
				sel = strings.TrimSpace(sel + " " + v)
			case strings.HasPrefix(a, "-d") && len(a) > 2:
				sel = strings.TrimSpace(sel + " " + a[2:])
			default:
				return Recognized{}, false
			}
		}
	case "ibv_devices":
		if len(args) > 0 {
			return Recognized{}, false
		}
		kind = catalog.KindGuestDevices
	case "ibstat":
		// Port states from the umad view: never the verbs listing
		// ibv_devinfo is (a filtered form of it, whatever its arguments).
		if len(args) > 2 || len(args) > 0 && strings.HasPrefix(args[0], "-") {
			return Recognized{}, false
		}
		kind, sel = catalog.KindGuestDevinfo, strings.TrimSpace("ibstat "+strings.Join(args, " "))
	case "ip":
		k, s, ok := recognizeIP(args)
		if !ok {
			return Recognized{}, false
		}
		kind, sel = k, s
		if k == catalog.KindGuestIPAddr && !slices.Contains(args, "-o") && !slices.Contains(args, "-oneline") {
			// `ip addr` prints each interface's link line (MTU, MAC)
			// above its addresses: the links' facts too.
			r.Also = []hostio.Kind{catalog.KindGuestIPLink}
		}
	case "rdma":
		if len(args) == 0 || args[0] != "link" && args[0] != "l" {
			return Recognized{}, false
		}
		rest := args[1:]
		if len(rest) > 0 && (rest[0] == "show" || rest[0] == "list" || rest[0] == "ls" || rest[0] == "sh") {
			rest = rest[1:]
		}
		if len(rest) > 1 {
			return Recognized{}, false
		}
		kind, sel = catalog.KindGuestRDMALink, strings.Join(rest, " ")
	case "show_gids":
		if len(args) > 2 {
			return Recognized{}, false
		}
		// The GIDs of every port (or of one device), not the port state
		// the catalogue's sysfs read also gives.
		kind, sel = catalog.KindGuestSysfsPort, strings.TrimSpace("show_gids "+strings.Join(args, " "))
	case "lsmod":
		if len(args) > 0 {
			return Recognized{}, false
		}
		kind = catalog.KindGuestLsmod
	case "modinfo":
		if len(args) != 1 || args[0] != "vmw_pvrdma" {
			return Recognized{}, false
		}
		kind = catalog.KindGuestModinfo
	case "cat":
		if len(args) != 1 || args[0] != "/etc/os-release" && args[0] != "/usr/lib/os-release" {
			return Recognized{}, false
		}
		kind = catalog.KindGuestOSRelease
	case "uname":
		if len(args) != 1 || args[0] != "-r" && args[0] != "-a" && args[0] != "--all" && args[0] != "--kernel-release" {
			return Recognized{}, false
		}
		kind = catalog.KindGuestKernel
	case "dmesg":
		for _, a := range args {
			switch a {
			case "-T", "--ctime", "-L", "--color=never", "-x", "--decode", "-k", "--kernel", "-P", "--nopager":
			default:
				return Recognized{}, false
			}
		}
		kind = catalog.KindGuestDmesg
		if dmesgGrepKeepsPVRDMA(filter) {
			filter = "" // the parser keeps the vmw_pvrdma lines, which such a grep keeps all of
		}
	case "ofed_info":
		if len(args) != 1 || args[0] != "-s" {
			return Recognized{}, false
		}
		kind = catalog.KindGuestOFED
	case "dpkg", "dpkg-query":
		if len(args) == 0 || args[0] != "-l" && args[0] != "--list" && !(tool == "dpkg-query" && (args[0] == "-W" || args[0] == "--show")) {
			return Recognized{}, false
		}
		kind, sel = catalog.KindGuestDpkg, strings.Join(args[1:], " ")
	case "rpm":
		if len(args) == 0 || args[0] != "-qa" && args[0] != "-q" {
			return Recognized{}, false
		}
		kind, sel = catalog.KindGuestRPM, strings.Join(args[1:], " ")
		if args[0] == "-q" && sel == "" {
			return Recognized{}, false
		}
	case "ls":
		if len(args) == 1 && args[0] == "-1" {
			return Recognized{}, false
		}
		if len(args) > 0 && args[0] == "-1" {
			args = args[1:]
		}
		if len(args) != 1 || strings.TrimSuffix(args[0], "/") != "/sys/class/infiniband" {
			return Recognized{}, false
		}
		kind = catalog.KindGuestIBClass
	default:
		return Recognized{}, false
	}
	spec, ok := catalog.Lookup(kind)
	if !ok {
		return Recognized{}, false
	}
	r.Kind, r.Line = kind, line
	if spec.Allowed(line) {
		r.Line = spec.Line
	}
	return guestFiltered(r, filter, line, sel), true
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
