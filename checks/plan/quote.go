package plan

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// Commands are pasted into a shell (ESXi's busybox sh) by people who read
// them first, so a value read from a host goes into a command only in a
// form the shell reads exactly as it is shown: as it is when it holds
// nothing a shell treats specially, else in POSIX single quotes. A value
// that cannot be shown as itself (control or format characters, invalid
// UTF-8: the report shows those escaped, so a pasted copy would differ) is
// never put into a command: a placeholder stands for it.

// ShellArg renders a host-supplied value as one argument of a command;
// placeholder stands for an empty or unshowable value.
func ShellArg(v, placeholder string) string {
	if v == "" || !Showable(v) {
		return placeholder
	}
	return textsafe.ShellQuote(v)
}

// Showable reports whether every character of s is shown as itself: no
// control or format character, no invalid UTF-8, nothing unprintable.
func Showable(s string) bool {
	if !textsafe.IsSafe(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' || r == '\t' || !unicode.IsPrint(r) && r != ' ' && r != '\u00a0' {
			return false
		}
	}
	return true
}

// quoteAll shell-quotes names for a command (placeholder for unshowable).
func quoteAll(names []string, placeholder string) string {
	var out []string
	for _, n := range names {
		out = append(out, ShellArg(n, placeholder))
	}
	return strings.Join(out, " ")
}

// unshowable reports whether a name cannot be put into a command as
// itself (the command then has a placeholder a person must fill).
func unshowable(names ...string) bool {
	for _, n := range names {
		if n == "" || !Showable(n) {
			return true
		}
	}
	return false
}

// govcVM is a VM name as govc's -vm argument.
func govcVM(name string) string { return ShellArg(name, "VM_NAME") }

// MaxListed is how many names a message, subject or plan step lists
// before it says how many more there are: a host that lists thousands of
// PVRDMA devices must not turn each finding into megabytes of names.
const MaxListed = 8

// JoinNames joins names with ", ", listing at most MaxListed of them and
// then "and N more".
func JoinNames(names []string) string {
	if len(names) <= MaxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:MaxListed], ", "), len(names)-MaxListed)
}

// orPlaceholder is v, or placeholder when v is empty.
func orPlaceholder(v, placeholder string) string {
	if v == "" {
		return placeholder
	}
	return v
}

// govcDevice is a VM adapter's device name in a govc command: the name
// vCenter's device list gives it (govc names an ethernet card
// "ethernet-" and its unit number less 7, which the .vmx's ethernetN does
// not give), else the placeholder DEVICE_NAME (`govc device.ls -vm VM`
// lists the names).
func govcDevice(name string) string { return ShellArg(name, "DEVICE_NAME") }

// govcPortgroup is a port group in govc's -net, else the placeholder
// PORTGROUP.
func govcPortgroup(name string) string { return ShellArg(name, "PORTGROUP") }

// SettingsText is "a=1 b=2".
func SettingsText(set []Setting) string {
	var out []string
	for _, s := range set {
		out = append(out, s.Name+"="+s.Value)
	}
	return strings.Join(out, " ")
}
