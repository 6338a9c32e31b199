package parse

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// VMConfigFromVMX reads a .vmx file (the output of `cat` of a VM's Config
// File) into the shared VM configuration model, Source "vmx". A line that
// is not `key = "value"` is skipped and reported in a *PartialError
// returned with everything the other lines say.
func VMConfigFromVMX(text string) (VMConfig, error) {
	c, sk, n := readVMX(text)
	if n == 0 && len(sk) == 0 {
		return VMConfig{}, errorf(0, "empty .vmx file")
	}
	return result(c.VMConfig(), n, sk)
}

// SetCommand records the command a configuration was read with on it and
// on every reference it holds (the catalogue's stamp; tests building facts
// by hand).
func (v *VMConfig) SetCommand(cmd string) {
	v.Command = cmd
	for k, r := range v.Refs {
		r.Command = cmd
		v.Refs[k] = r
	}
	for i := range v.Adapters {
		v.Adapters[i].Command = cmd
		for k, r := range v.Adapters[i].Refs {
			r.Command = cmd
			v.Adapters[i].Refs[k] = r
		}
	}
	for i := range v.Passthrough {
		v.Passthrough[i].Command = cmd
	}
}

// VMXEscape writes a value the way a .vmx does (VMXUnescape reads it
// back): '"', '|' and control characters as "|" and two hex digits.
func VMXEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '|' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "|%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

var (
	reEthernetKey = regexp.MustCompile(`^(?i)ethernet([0-9]{1,3})\.`)
	rePassthruKey = regexp.MustCompile(`^(?i)pciPassthru([0-9]{1,3})\.`)
)

// VMConfig converts a parsed .vmx into the shared VM configuration model
// (Source "vmx"). Keys read: displayName, uuid.bios, vc.uuid,
// virtualHW.version, guestOS, firmware (absent: BIOS), memSize,
// sched.mem.min, sched.mem.pin; per ethernetN (present unless
// ethernetN.present is FALSE): virtualDev, generatedAddress or address,
// startConnected, networkName, dvs.switchId, dvs.portgroupId; per
// pciPassthruN (present unless FALSE): id, vendorId, deviceId; and every
// vrdma* and pciPassthru.* key as written (Extra). A .vmx does not record
// the runtime connection state (Connected) nor a PVRDMA adapter's device
// protocol: those stay unset.
func (c VMXConfig) VMConfig() VMConfig {
	v := VMConfig{Source: "vmx", Refs: map[string]Ref{}, Extra: map[string]string{}}
	ref := func(field, key string) (VMXEntry, bool) {
		e, ok := c.Lookup(key)
		if ok {
			v.Refs[field] = e.Ref
		}
		return e, ok
	}
	if e, ok := ref("Name", "displayName"); ok {
		v.Name = VMXUnescape(e.Value)
		v.Ref = e.Ref
	}
	if e, ok := ref("UUID", "uuid.bios"); ok {
		v.UUID = strings.TrimSpace(e.Value)
	}
	if e, ok := ref("InstanceUUID", "vc.uuid"); ok {
		v.InstanceUUID = strings.TrimSpace(e.Value)
	}
	if _, ok := ref("HWVersion", "virtualHW.version"); ok {
		v.HWVersion, _ = c.VirtualHWVersion()
	}
	if e, ok := ref("GuestOS", "guestOS"); ok {
		v.GuestOS = strings.TrimSpace(e.Value)
	}
	v.Firmware = "bios"
	if _, ok := ref("Firmware", "firmware"); ok && c.Firmware() != "" {
		v.Firmware = c.Firmware()
	}
	if _, ok := ref("MemoryMB", "memSize"); ok {
		mb, _ := c.MemSizeMB()
		v.MemoryMB = int64(mb)
	}
	if _, ok := ref("MemReservationMB", "sched.mem.min"); ok {
		if mb, ok := c.MemMinMB(); ok {
			v.MemReservationMB, v.MemReservationSet = int64(mb), true
		}
	}
	if _, ok := ref("MemLockedToMax", "sched.mem.pin"); ok {
		v.MemLockedToMax, v.MemLockedToMaxSet = c.Bool("sched.mem.pin")
	}
	eths, pts := map[int]bool{}, map[int]bool{}
	for _, e := range c.Entries {
		lk := strings.ToLower(e.Key)
		if strings.HasPrefix(lk, "vrdma") || strings.HasPrefix(lk, "pcipassthru.") {
			v.Extra[e.Key] = e.Value
			v.Refs[e.Key] = e.Ref
		}
		if m := reEthernetKey.FindStringSubmatch(e.Key); m != nil {
			n, _ := strconv.Atoi(m[1])
			eths[n] = true
		}
		if m := rePassthruKey.FindStringSubmatch(e.Key); m != nil {
			n, _ := strconv.Atoi(m[1])
			pts[n] = true
		}
	}
	for _, n := range sortedKeys(eths) {
		p := fmt.Sprintf("ethernet%d.", n)
		if on, ok := c.Bool(p + "present"); ok && !on {
			continue
		}
		a := VMAdapter{Label: fmt.Sprintf("ethernet%d", n), Refs: map[string]Ref{}}
		get := func(field, key string) string {
			e, ok := c.Lookup(p + key)
			if !ok {
				return ""
			}
			a.Refs[field] = e.Ref
			return strings.TrimSpace(e.Value)
		}
		a.Type = strings.ToLower(get("Type", "virtualDev"))
		a.Ref = a.Refs["Type"]
		if a.MAC = get("MAC", "generatedAddress"); a.MAC == "" {
			a.MAC = get("MAC", "address")
		}
		if get("StartConnected", "startConnected") != "" {
			a.StartConnected, a.StartConnectedSet = c.Bool(p + "startConnected")
		}
		a.Network = VMXUnescape(get("Network", "networkName"))
		a.DVSUUID = get("DVSUUID", "dvs.switchId")
		a.PortgroupKey = get("PortgroupKey", "dvs.portgroupId")
		if a.Ref.Line == 0 {
			for _, r := range a.Refs {
				if a.Ref.Line == 0 || r.Line < a.Ref.Line {
					a.Ref = r
				}
			}
		}
		v.Adapters = append(v.Adapters, a)
	}
	for _, n := range sortedKeys(pts) {
		p := fmt.Sprintf("pciPassthru%d.", n)
		if on, ok := c.Bool(p + "present"); ok && !on {
			continue
		}
		d := PassthroughDevice{Label: fmt.Sprintf("pciPassthru%d", n)}
		if e, ok := c.Lookup(p + "id"); ok {
			d.ID, d.Ref = NormalizePCIAddress(e.Value), e.Ref
		}
		d.VendorID = normalizeHexID(c.Get(p + "vendorId"))
		d.DeviceID = normalizeHexID(c.Get(p + "deviceId"))
		if d.Ref.Line == 0 {
			e, _ := c.Lookup(p + "present")
			d.Ref = e.Ref
		}
		v.Passthrough = append(v.Passthrough, d)
	}
	if len(v.Extra) == 0 {
		v.Extra = nil
	}
	return v
}

// PVRDMA returns the VM's PVRDMA (vrdma) adapters.
func (v VMConfig) PVRDMA() []VMAdapter {
	var out []VMAdapter
	for _, a := range v.Adapters {
		if strings.EqualFold(a.Type, "vrdma") {
			out = append(out, a)
		}
	}
	return out
}

// RefOf returns where a field or Extra key was read (the VM's own Ref
// when the source did not say).
func (v VMConfig) RefOf(field string) Ref {
	if r, ok := v.Refs[field]; ok {
		return r
	}
	return v.Ref
}

// RefOf returns where an adapter's field was read (the adapter's Ref when
// the source did not say).
func (a VMAdapter) RefOf(field string) Ref {
	if r, ok := a.Refs[field]; ok {
		return r
	}
	return a.Ref
}

// ExtraValue returns an Extra key's value, ignoring the key's case.
func (v VMConfig) ExtraValue(key string) (string, bool) {
	if s, ok := v.Extra[key]; ok {
		return s, true
	}
	for k, s := range v.Extra {
		if strings.EqualFold(k, key) {
			return s, true
		}
	}
	return "", false
}

// ExtraRef is RefOf for an Extra key, ignoring the key's case.
func (v VMConfig) ExtraRef(key string) Ref {
	for k := range v.Extra {
		if strings.EqualFold(k, key) {
			return v.RefOf(k)
		}
	}
	return v.Ref
}

// NormalizePCIAddress writes a PCI address as `esxcli hardware pci list`
// does ("0000:3b:00.0"), from that form ("0000:3B:00.0" too: hexadecimal
// bus, as vCenter writes it) or the .vmx's decimal-bus form
// ("00000:059:00.0": a five-digit segment, pciPassthruN.id); anything else
// is returned trimmed, unchanged. It runs for every PCI device of every
// host: it reads the address by hand, without a regexp or fmt.
func NormalizePCIAddress(s string) string {
	s = strings.TrimSpace(s)
	seg, rest, ok1 := strings.Cut(s, ":")
	bus, rest, ok2 := strings.Cut(rest, ":")
	slot, fn, ok3 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || !ok3 || len(slot) != 2 || !isHex(slot) || len(fn) != 1 || fn[0] < '0' || fn[0] > '7' {
		return s
	}
	switch {
	case len(seg) == 4 && isHex(seg) && len(bus) == 2 && isHex(bus):
		return strings.ToLower(s)
	case len(seg) == 5 && isDec(seg) && len(bus) == 3 && isDec(bus):
		sv, _ := strconv.Atoi(seg)
		bv, _ := strconv.Atoi(bus)
		if sv > 0xffff || bv > 0xff {
			return s
		}
		const hex = "0123456789abcdef"
		b := make([]byte, 0, len("0000:00:00.0"))
		b = append(b, hex[sv>>12&0xf], hex[sv>>8&0xf], hex[sv>>4&0xf], hex[sv&0xf], ':', hex[bv>>4], hex[bv&0xf], ':')
		b = append(b, strings.ToLower(slot)...)
		b = append(b, '.', fn[0])
		return string(b)
	}
	return s
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isDec(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// normalizeHexID writes a hexadecimal PCI vendor or device ID as "0x10de"
// (other forms are kept as written).
func normalizeHexID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return ""
	}
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		if n, err := strconv.ParseUint(h, 16, 16); err == nil {
			return fmt.Sprintf("0x%04x", n)
		}
	}
	return s
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// VMXUnescape decodes the escapes a .vmx writes in values: "|" and two
// hexadecimal digits stand for one byte ("|22" a double quote, "|7C" the
// bar itself, "|0A" a newline). Anything else is kept as written.
func VMXUnescape(s string) string {
	if !strings.Contains(s, "|") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && i+3 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
