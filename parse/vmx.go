package parse

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// VMXEntry is one `key = "value"` line of a .vmx file.
type VMXEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Ref
}

// VMXConfig is a parsed .vmx file: every key as written (case kept), in
// file order; lookups ignore case. A repeated key keeps its last value.
type VMXConfig struct {
	Entries []VMXEntry `json:"entries"`
	index   map[string]int
}

// PVRDMAAdapter is an `ethernetN.virtualDev = "vrdma"` adapter of a VM.
type PVRDMAAdapter struct {
	// Ethernet is N of ethernetN.
	Ethernet int `json:"ethernet"`
	// NativeEndpointSupport is vrdmaN.nativeEndpointSupport; Set tells
	// whether the key is present.
	NativeEndpointSupport    bool `json:"native_endpoint_support"`
	NativeEndpointSupportSet bool `json:"native_endpoint_support_set"`
	Ref
}

// vmxSpace is what separates the parts of a .vmx line (RE2's \s).
const vmxSpace = " \t\n\f\r"

// vmxLine splits a `key = "value"` (or `key = value`) line: the key of
// letters, digits and `_.:[]-`, then `=`, then a quoted value (everything
// up to the line's last quote) or an unquoted one without quotes or
// spaces; spaces around the parts are allowed. It is the grammar
// `^\s*([A-Za-z0-9_.:\[\]-]+)\s*=\s*(?:"(.*)"|([^"\s]*))\s*$` without a
// regexp (.vmx files are read by the thousand; vmx_test checks the two
// agree).
func vmxLine(s string) (key, val string, ok bool) {
	t := strings.TrimLeft(s, vmxSpace)
	i := 0
	for i < len(t) && vmxKeyByte(t[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	key = t[:i]
	rest := strings.TrimLeft(t[i:], vmxSpace)
	if rest == "" || rest[0] != '=' {
		return "", "", false
	}
	rest = strings.TrimRight(strings.TrimLeft(rest[1:], vmxSpace), vmxSpace)
	if strings.HasPrefix(rest, `"`) {
		if len(rest) < 2 || rest[len(rest)-1] != '"' || strings.ContainsAny(rest, "\n") {
			return "", "", false
		}
		return key, rest[1 : len(rest)-1], true
	}
	if strings.ContainsAny(rest, `"`+vmxSpace) {
		return "", "", false
	}
	return key, rest, true
}

func vmxKeyByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '_' || b == '.' || b == ':' || b == '[' || b == ']' || b == '-'
}

// VMX parses a .vmx file: `key = "value"` lines; blank lines and "#"
// comments are skipped. A line of another shape is an error (VMConfigFromVMX
// is the tolerant reader the scan uses).
func VMX(text string) (VMXConfig, error) {
	c, sk, _ := readVMX(text)
	if len(sk) > 0 {
		return VMXConfig{}, errorf(sk[0].Line, "expected `key = \"value\"`, got %q", strings.TrimSpace(sk[0].Text))
	}
	return c, nil
}

// readVMX reads every `key = "value"` line of a .vmx (a repeated key keeps
// its last value) and lists the lines of another shape; n counts the
// lines read.
func readVMX(text string) (c VMXConfig, sk skips, n int) {
	c = VMXConfig{index: map[string]int{}}
	for _, l := range clean(text, false) {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		key, v, ok := vmxLine(l.text)
		if !ok {
			sk.add(l.ref(), errorf(l.no, "expected `key = \"value\"`"), "line skipped")
			continue
		}
		n++
		e := VMXEntry{Key: key, Value: v, Ref: l.ref()}
		lk := strings.ToLower(key)
		if i, dup := c.index[lk]; dup {
			c.Entries[i] = e
			continue
		}
		c.index[lk] = len(c.Entries)
		c.Entries = append(c.Entries, e)
	}
	return c, sk, n
}

// Lookup returns the entry of a key, ignoring case.
func (c VMXConfig) Lookup(key string) (VMXEntry, bool) {
	if c.index == nil {
		for _, e := range c.Entries {
			if strings.EqualFold(e.Key, key) {
				return e, true
			}
		}
		return VMXEntry{}, false
	}
	i, ok := c.index[strings.ToLower(key)]
	if !ok {
		return VMXEntry{}, false
	}
	return c.Entries[i], true
}

// Get returns a key's value ("" when absent), ignoring case.
func (c VMXConfig) Get(key string) string {
	e, _ := c.Lookup(key)
	return e.Value
}

// Bool reads a boolean key ("TRUE", "true", "False", ...); ok is false
// when the key is absent or not a boolean.
func (c VMXConfig) Bool(key string) (v, ok bool) {
	e, found := c.Lookup(key)
	if !found {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(e.Value)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Int reads an integer key; ok is false when absent or not a number.
func (c VMXConfig) Int(key string) (int, bool) {
	e, found := c.Lookup(key)
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(e.Value))
	return n, err == nil
}

// VirtualHWVersion is virtualHW.version.
func (c VMXConfig) VirtualHWVersion() (int, bool) { return c.Int("virtualHW.version") }

// MemPinned is sched.mem.pin (reserve all guest memory).
func (c VMXConfig) MemPinned() bool { v, _ := c.Bool("sched.mem.pin"); return v }

// MemMinMB is sched.mem.min (memory reservation, MB).
func (c VMXConfig) MemMinMB() (int, bool) { return c.Int("sched.mem.min") }

// MemSizeMB is memSize (MB).
func (c VMXConfig) MemSizeMB() (int, bool) { return c.Int("memSize") }

// Firmware is firmware ("efi", "bios"; "" when absent, which means BIOS).
func (c VMXConfig) Firmware() string { return strings.ToLower(c.Get("firmware")) }

// Use64bitMMIO is pciPassthru.use64bitMMIO.
func (c VMXConfig) Use64bitMMIO() bool { v, _ := c.Bool("pciPassthru.use64bitMMIO"); return v }

// MMIOSizeGB is pciPassthru.64bitMMIOSizeGB.
func (c VMXConfig) MMIOSizeGB() (int, bool) { return c.Int("pciPassthru.64bitMMIOSizeGB") }

// AsyncMode is vrdma.asyncMode; ok is false when absent.
func (c VMXConfig) AsyncMode() (v, ok bool) { return c.Bool("vrdma.asyncMode") }

var reEthernetDev = regexp.MustCompile(`^(?i)ethernet([0-9]+)\.virtualDev$`)

// PVRDMAAdapters lists the adapters with ethernetN.virtualDev = "vrdma"
// (any case), by N.
func (c VMXConfig) PVRDMAAdapters() []PVRDMAAdapter {
	var out []PVRDMAAdapter
	for _, e := range c.Entries {
		m := reEthernetDev.FindStringSubmatch(e.Key)
		if m == nil || !strings.EqualFold(strings.TrimSpace(e.Value), "vrdma") {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		a := PVRDMAAdapter{Ethernet: n, Ref: e.Ref}
		a.NativeEndpointSupport, a.NativeEndpointSupportSet = c.Bool("vrdma" + m[1] + ".nativeEndpointSupport")
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ethernet < out[j].Ethernet })
	return out
}
