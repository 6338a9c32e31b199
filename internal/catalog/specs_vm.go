package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Kinds of the VM-side commands.
const (
	// KindHardwarePCI is `esxcli hardware pci list`: the host's PCI
	// devices, their passthrough state (GPUs for passthrough VMs).
	KindHardwarePCI hostio.Kind = "hardware_pci_list"
	// KindVMX is `cat '<Config File>'` of a PVRDMA VM's .vmx.
	KindVMX hostio.Kind = "vmx"
)

// FromPVRDMAVMs: the Config File (.vmx path) of every VM of `esxcli vm
// process list` that has a PVRDMA adapter in the vsish listing (its World
// ID). Its value is set apart from the other sources' so that sources
// added elsewhere do not collide with it.
const FromPVRDMAVMs Source = 100

// vmxSafe is one character of a .vmx path that may stand between single
// quotes: anything printable but the quote itself (which single quotes
// cannot hold), the backslash, '/' (the separator, matched apart), control
// characters (C0, DEL, C1) and the invisible format characters (zero
// width, bidirectional overrides) that would make a line read differently
// than it runs.
const vmxSafe = `'\\/\x00-\x1f\x7f-\x9f\x{200b}-\x{200f}\x{202a}-\x{202e}\x{2060}-\x{206f}\x{feff}`

// vmxSegment is one path segment that is neither "." nor ".." (the
// length of the whole line is bounded apart: MaxVMXPath).
const vmxSegment = `(?:[^.` + vmxSafe + `][^` + vmxSafe + `]*|\.[^.` + vmxSafe + `][^` + vmxSafe + `]*|\.\.[^` + vmxSafe + `]+)`

// MaxVMXPath bounds the length of a .vmx path the doctor reads (the
// catalogue's constructor and the allowlist refuse longer ones).
const MaxVMXPath = 1024

// argVMXPath is the Config File of a VM as `esxcli vm process list`
// prints it: an absolute path under /vmfs/volumes/ (datastore, folders,
// file) ending in ".vmx", at most 16 segments below /vmfs/volumes/.
var argVMXPath = Arg{Placeholder: "<Config File>", Pattern: `/vmfs/volumes(?:/` + vmxSegment + `){2,16}\.vmx`, Check: VisiblePath}

// VisiblePath reports whether every character of a path shows as itself,
// so that the line an admin reads is the line that runs: valid UTF-8, and
// only letters, marks, digits, punctuation, symbols and the ASCII space
// (unicode.IsPrint). That refuses every control (Cc: C0, DEL, C1, the raw
// byte 0x9B reads as U+FFFD and is refused too), format (Cf: soft hyphen
// U+00AD, Arabic letter mark U+061C, bidirectional controls, zero-width
// characters, tag characters U+E0000-U+E007F), private use (Co),
// surrogate (Cs) and unassigned (Cn) character, the line and paragraph
// separators and every space but U+0020 (Zs: a no-break space looks like
// a space); and the default-ignorable characters some categories hide
// (Hangul fillers, the combining grapheme joiner, variation selectors),
// noncharacters and U+FFFD itself.
func VisiblePath(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) ||
			unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Noncharacter_Code_Point) {
			return false
		}
	}
	return true
}

// vmSpecs are the commands of the VM side (specs.go appends them to the
// catalogue): the host's PCI devices (stage 1) and the .vmx of each PVRDMA
// VM (stage 2).
var vmSpecs = []*Spec{
	{Kind: KindHardwarePCI, Stage: 1, Line: "esxcli hardware pci list",
		Forms: esxcli("hardware pci list"),
		Parser: List(parse.HardwarePCIList, func(v *parse.PCIDevice, l string) {
			v.Command = l
			SetRecordCommand(&v.Record, l)
		}, func(f *HostFacts) *[]parse.PCIDevice { return &f.PCIDevices }),
		Diff: &DiffKey{What: "PCI device", Key: Keyed(func(p parse.PCIDevice) string { return p.Address }), Skip: []string{"Record"}}},
	{Kind: KindVMX, Stage: 2, Line: "cat '" + argVMXPath.Placeholder + "'",
		Args: []Arg{argVMXPath}, Quoted: true,
		Refuse: "refusing .vmx path %q: expected an absolute path under /vmfs/volumes/ ending in .vmx, without a single quote, " +
			"backslash, control, invisible or format character, invalid UTF-8 or \"..\" segment, at most 1024 bytes",
		From: FromPVRDMAVMs, Noun: ".vmx files of PVRDMA VMs",
		Example: []string{"/vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/hpc node01 (gpu)/hpc node01 (gpu).vmx"},
		When: "for each VM with a PVRDMA adapter (its World ID in the vsish listing): its `Config File` from `esxcli vm process list`, " +
			"single-quoted (a path with a single quote, a control, invisible or format character or invalid UTF-8 is refused, with the reason)",
		README: "`cat '<Config File>'` (the .vmx of each PVRDMA VM, path from `esxcli vm process list`, under /vmfs/volumes/ only)",
		Parser: Each(parse.VMConfigFromVMX, stampVMX, func(f *HostFacts) *[]parse.VMConfig { return &f.VMConfigs }),
		Diff:   &DiffKey{What: "VM configuration", Key: Keyed(func(v parse.VMConfig) string { return v.ConfigFile }), Skip: []string{"Refs"}}},
}

func stampVMX(v *parse.VMConfig, l string) {
	v.SetCommand(l)
	if v.ConfigFile == "" {
		v.ConfigFile = strings.TrimSuffix(strings.TrimPrefix(l, "cat '"), "'")
	}
}

// VMXCommand builds the command reading a VM's .vmx from its Config File,
// refusing a path it cannot pass safely (see argVMXPath).
func VMXCommand(configFile string) (hostio.Command, error) {
	s, _ := Lookup(KindVMX)
	if len(configFile) > MaxVMXPath {
		return hostio.Command{}, fmt.Errorf(s.Refuse, configFile[:64]+"...")
	}
	return s.Command(configFile)
}

// quotedFileName is FileName for an instance of a Quoted spec: the text
// before the argument as FileName writes it, then the argument with '/'
// written '_' and every byte other than a letter, digit, '.' or '-'
// written %XX, so that the name maps back to the exact path
// ("cat '/vmfs/volumes/ds/vm 1/vm 1.vmx'" ->
// "cat__vmfs_volumes_ds_vm%201_vm%201.vmx.txt").
func quotedFileName(line string) (string, bool) {
	if !strings.HasPrefix(line, "cat '") {
		return "", false
	}
	for _, s := range specs {
		if !s.Quoted || !s.Allowed(line) {
			continue
		}
		pre, _, _ := strings.Cut(s.Line, s.Args[0].Placeholder)
		post := strings.TrimPrefix(s.Line[len(pre):], s.Args[0].Placeholder)
		arg := strings.TrimSuffix(strings.TrimPrefix(line, pre), post)
		return strings.Trim(reFileUnsafe.ReplaceAllString(pre, "_"), "_") + "_" + escapeFileArg(arg) + ".txt", true
	}
	return "", false
}

func escapeFileArg(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/':
			b.WriteByte('_')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unescapeFileArg reverses escapeFileArg; ok is false for a name it did
// not write.
func unescapeFileArg(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '_':
			b.WriteByte('/')
		case '%':
			if i+3 > len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
