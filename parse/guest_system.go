package parse

import (
	"regexp"
	"strconv"
	"strings"
)

// Parsers of the guest's system commands: uname -r, /etc/os-release,
// lsmod, modinfo, ofed_info -s, the package lists and dmesg.

var reKernelRelease = regexp.MustCompile(`^([0-9]+)\.([0-9]+)(?:\.([0-9]+))?[-.+_~a-zA-Z0-9]*$`)

// reUnameAll is `uname -a`: kernel name, host name, then the release.
var reUnameAll = regexp.MustCompile(`^Linux\s+\S+\s+(\S+)\s`)

// UnameRelease parses `uname -r` ("5.15.0-91-generic"), or the release in
// `uname -a` ("Linux hpc-node01 5.15.0-91-generic #101-Ubuntu SMP ...").
func UnameRelease(text string) (KernelRelease, error) {
	for _, l := range guestClean(text) {
		if m := reUnameAll.FindStringSubmatch(strings.TrimSpace(l.text) + " "); m != nil {
			if rm := reKernelRelease.FindStringSubmatch(m[1]); rm != nil {
				k := KernelRelease{Release: rm[0], Ref: l.ref()}
				k.Major, _ = strconv.Atoi(rm[1])
				k.Minor, _ = strconv.Atoi(rm[2])
				if rm[3] != "" {
					k.Patch, _ = strconv.Atoi(rm[3])
				}
				return k, nil
			}
		}
		if strings.TrimSpace(l.text) != "" {
			break
		}
	}
	m, at, err := oneLine(text, reKernelRelease, "a kernel release like 5.15.0-91-generic", "no kernel release")
	if err != nil {
		return KernelRelease{}, err
	}
	k := KernelRelease{Release: m[0], Ref: at}
	k.Major, _ = strconv.Atoi(m[1])
	k.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		k.Patch, _ = strconv.Atoi(m[3])
	}
	return k, nil
}

// oneLine reads the output of a command that prints one line: the first
// non-blank line, trimmed, must match re. It returns the submatches and
// where the line was read, or an error saying what was expected (want)
// or, for empty output, what is missing (none).
func oneLine(text string, re *regexp.Regexp, want, none string) ([]string, Ref, error) {
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		m := re.FindStringSubmatch(t)
		if m == nil {
			return nil, Ref{}, errorf(l.no, "expected %s, got %q", want, t)
		}
		return m, l.ref(), nil
	}
	return nil, Ref{}, errorf(0, "empty output: %s", none)
}

var reOSReleaseLine = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=(.*)$`)

// OSReleaseFile parses /etc/os-release (KEY=value lines, values optionally
// quoted). Comment and blank lines are ignored; other lines are skipped.
func OSReleaseFile(text string) (OSRelease, error) {
	var sk skips
	o := OSRelease{Record: newRecord(Ref{})}
	n := 0
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		m := reOSReleaseLine.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not a KEY=value line")
			continue
		}
		v := unquoteShell(m[2])
		o.Record.Set(m[1], Field{Value: v, Ref: l.ref()})
		if n == 0 {
			o.Ref = l.ref()
		}
		n++
		switch m[1] {
		case "ID":
			o.ID = strings.ToLower(v)
		case "ID_LIKE":
			o.IDLike = v
		case "VERSION_ID":
			o.VersionID = v
		case "VERSION_CODENAME":
			o.VersionCodename = v
		case "PRETTY_NAME":
			o.PrettyName = v
		}
	}
	if n == 0 && len(sk) == 0 {
		return OSRelease{}, errorf(0, "empty output: no os-release keys")
	}
	return result(o, n, sk)
}

func unquoteShell(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return strings.ReplaceAll(v, `\"`, `"`)
}

var reLsmodRow = regexp.MustCompile(`^([A-Za-z0-9_]+)\s+([0-9]+)\s+(-?[0-9]+)(?:\s+(\S+))?\s*$`)

// Lsmod parses `lsmod` (its "Module Size Used by" header optional, so the
// output of `lsmod | grep X` reads too).
func Lsmod(text string) ([]KernelModule, error) {
	var sk skips
	var out []KernelModule
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "Module ") && strings.Contains(t, "Used by") {
			continue
		}
		m := reLsmodRow.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not an lsmod row (module size used-by)")
			continue
		}
		km := KernelModule{Name: m[1], Ref: l.ref()}
		km.Size, _ = strconv.ParseInt(m[2], 10, 64)
		km.UsedBy, _ = strconv.Atoi(m[3])
		if m[4] != "" && m[4] != "-" {
			for _, u := range strings.Split(strings.Trim(m[4], "[]"), ",") {
				if u != "" {
					km.Users = append(km.Users, u)
				}
			}
		}
		out = append(out, km)
	}
	return result(out, len(out), sk)
}

var reModinfoLine = regexp.MustCompile(`^([a-z_][a-z0-9_]*):\s*(.*)$`)

// Modinfo parses `modinfo MODULE` ("key:   value" lines; keys repeat for
// alias and parm). A module that is not found prints nothing on stdout
// (the error is on stderr): that is an error here, and a fact for the
// guest builder (ModuleNotFound).
func Modinfo(text string) (ModInfo, error) {
	var sk skips
	mi := ModInfo{Record: newRecord(Ref{})}
	n := 0
	for _, l := range guestClean(text) {
		t := strings.TrimRight(l.text, " \t")
		if strings.TrimSpace(t) == "" {
			continue
		}
		m := reModinfoLine.FindStringSubmatch(strings.TrimSpace(t))
		if m == nil {
			sk.add(l.ref(), nil, "not a modinfo key: value line")
			continue
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if n == 0 {
			mi.Ref = l.ref()
		}
		n++
		if !mi.Record.Has(key) {
			mi.Record.Set(key, Field{Value: val, Ref: l.ref()})
		}
		switch key {
		case "filename":
			mi.Filename = val
		case "version":
			mi.Version = val
		case "depends":
			mi.Depends = val
		case "vermagic":
			mi.Vermagic = val
		}
	}
	if n == 0 && len(sk) == 0 {
		return ModInfo{}, errorf(0, "empty output: module not found")
	}
	if mi.Filename == "" && n > 0 {
		sk.add(mi.Ref, nil, "no filename: line")
	}
	return result(mi, n, sk)
}

// ModuleNotFound reports whether modinfo's stderr says the module does not
// exist ("modinfo: ERROR: Module vmw_pvrdma not found.").
func ModuleNotFound(stderr string) bool {
	return strings.Contains(stderr, "modinfo: ERROR: Module ") && strings.Contains(stderr, " not found")
}

var reOFED = regexp.MustCompile(`^((?:MLNX_OFED_LINUX|MLNX_EN|OFED(?:-internal)?|DOCA)[-_][A-Za-z0-9._-]+):?$`)

// OFEDInfoS parses `ofed_info -s` ("MLNX_OFED_LINUX-5.0-2.1.8.0:").
func OFEDInfoS(text string) (OFEDInfo, error) {
	m, at, err := oneLine(text, reOFED, "an OFED version like MLNX_OFED_LINUX-5.0-2.1.8.0:", "no OFED version")
	if err != nil {
		return OFEDInfo{}, err
	}
	return OFEDInfo{Version: m[1], Ref: at}, nil
}

// DpkgQuery parses `dpkg-query -W` (default format "${binary:Package}\t${Version}":
// one package per line, name and version separated by a tab; a package
// known but not installed has an empty version and is left out).
func DpkgQuery(text string) ([]Package, error) {
	if isDpkgList(text) {
		return dpkgList(text)
	}
	var sk skips
	var out []Package
	n := 0
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		f := strings.Fields(t)
		if len(f) > 2 || !validPkgName(f[0]) {
			sk.add(l.ref(), nil, "not a dpkg-query package line (name, tab, version)")
			continue
		}
		n++
		if len(f) == 1 {
			continue // known to dpkg, not installed
		}
		name, arch, _ := strings.Cut(f[0], ":")
		out = append(out, Package{Name: name, Arch: arch, Version: f[1], Manager: "dpkg", Ref: l.ref()})
	}
	return result(out, n, sk)
}

// isDpkgList reports whether text is `dpkg -l`'s table (its
// "Desired=Unknown/Install/..." legend or "||/ Name" header).
func isDpkgList(text string) bool {
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		return strings.HasPrefix(t, "Desired=") || strings.HasPrefix(t, "||/") || strings.HasPrefix(t, "| Status=") ||
			reDpkgListRow.MatchString(t)
	}
	return false
}

// reDpkgListRow is a `dpkg -l` row: the status letters, the package, its
// version, architecture and description.
var reDpkgListRow = regexp.MustCompile(`^([uihrp][ncHUFWti ]?[ R]?)\s+(\S+)\s+(\S+)(?:\s+(\S+))?(?:\s+.*)?$`)

// dpkgList parses `dpkg -l [PATTERN]`: its legend and header are not
// rows; a row is installed when its status is "ii" (or "hi", held); "rc"
// (removed, config files left) and "un" (unknown) are not installed.
func dpkgList(text string) ([]Package, error) {
	var sk skips
	var out []Package
	n := 0
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		switch {
		case t == "", strings.HasPrefix(t, "Desired="), strings.HasPrefix(t, "| "), strings.HasPrefix(t, "|/"),
			strings.HasPrefix(t, "||/"), strings.HasPrefix(t, "+++-"):
			if t != "" {
				n++
			}
			continue
		}
		m := reDpkgListRow.FindStringSubmatch(t)
		if m == nil || !validPkgName(m[2]) {
			sk.add(l.ref(), nil, "not a dpkg -l row (status, name, version, architecture, description)")
			continue
		}
		n++
		if st := strings.TrimSpace(m[1]); st != "ii" && st != "hi" {
			continue // not installed
		}
		name, arch, _ := strings.Cut(m[2], ":")
		if arch == "" && m[4] != "" && m[4] != "all" {
			arch = m[4]
		}
		out = append(out, Package{Name: name, Arch: arch, Version: m[3], Manager: "dpkg", Ref: l.ref()})
	}
	return result(out, n, sk)
}

var rePkgName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9+._-]*(?::[a-z0-9_-]+)?$`)

func validPkgName(s string) bool { return rePkgName.MatchString(s) }

var (
	reRPMNVRA        = regexp.MustCompile(`^([A-Za-z0-9_+.-]+)-([^-\s]+)-([^-\s]+?)(?:\.(x86_64|noarch|aarch64|i686|i386|ppc64le|s390x))?$`)
	reRPMNotInstaled = regexp.MustCompile(`^package \S+ is not installed$`)
)

// RPMQuery parses `rpm -qa` or `rpm -q NAME...` (one name-version-release.arch
// per line; "package X is not installed" lines are facts of absence and
// left out).
func RPMQuery(text string) ([]Package, error) {
	var sk skips
	var out []Package
	n := 0
	for _, l := range guestClean(text) {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		if reRPMNotInstaled.MatchString(t) {
			n++
			continue
		}
		m := reRPMNVRA.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not an rpm name-version-release line")
			continue
		}
		n++
		out = append(out, Package{Name: m[1], Version: m[2] + "-" + m[3], Arch: m[4], Manager: "rpm", Ref: l.ref()})
	}
	return result(out, n, sk)
}

var reDmesg = regexp.MustCompile(`^(?:\[\s*([0-9]+\.[0-9]+|[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4})\]\s*)?vmw_pvrdma(?:\s+([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]))?:?\s*(.*)$`)

// DmesgPVRDMA keeps the vmw_pvrdma lines of `dmesg` (every other line is
// another driver's and is not an error). Only the upstream driver's name is
// matched: forks (amd_emrdma) are other drivers.
func DmesgPVRDMA(text string) ([]DmesgLine, error) {
	var out []DmesgLine
	for _, l := range splitLines(text) {
		t := strings.TrimSpace(l.text)
		if !strings.Contains(t, "vmw_pvrdma") {
			continue
		}
		m := reDmesg.FindStringSubmatch(t)
		if m == nil {
			// "... probe of 0000:0b:00.1 failed" lines of the driver core
			// name the driver after a prefix; keep them whole.
			out = append(out, DmesgLine{Message: t, Ref: l.ref()})
			continue
		}
		out = append(out, DmesgLine{Time: m[1], PCI: m[2], Message: strings.TrimSpace(m[3]), Ref: l.ref()})
	}
	return out, nil
}

// DmesgDenied reports whether dmesg's stderr says the kernel log is not
// readable by this user (kernel.dmesg_restrict).
func DmesgDenied(stderr string) bool {
	return strings.Contains(stderr, "read kernel buffer failed") || strings.Contains(stderr, "Operation not permitted")
}

// ToolMissing reports whether a command's result says its program is not
// installed: exit status 127 (the shell's "command not found"), or a
// non-zero exit whose stderr says "PROGRAM: command not found" (or
// busybox's "PROGRAM: not found"). Noise a login shell prints about other
// programs (a .bashrc calling a tool that is missing) is not it.
func ToolMissing(exit int, stderr, program string) bool {
	if exit == 127 {
		return true
	}
	if exit == 0 || program == "" {
		return false
	}
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, program+": command not found") || strings.HasSuffix(l, " "+program+": not found") || l == program+": not found" {
			return true
		}
	}
	return false
}

// reBashPrompt is the prompt of a RHEL-family bash ("[user@host ~]$ cmd"),
// which the ESXi prompt reader does not take (its directory follows a space).
var reBashPrompt = regexp.MustCompile(`^\s*\[[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+ [^\]]*\][#$](?:\s|$)`)

// guestClean is clean for guest outputs: also drops a leading bash prompt
// line and cuts at the next one.
func guestClean(text string) []line {
	ls := clean(text, false)
	i := 0
	for i < len(ls) && (isBlank(ls[i].text) || reBashPrompt.MatchString(ls[i].text)) {
		i++
	}
	for j := i; j < len(ls); j++ {
		if reBashPrompt.MatchString(ls[j].text) {
			return ls[i:j]
		}
	}
	return ls[i:]
}
