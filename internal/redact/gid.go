package redact

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// GIDs in sysfs form (8 groups of 4 hex digits, as /sys/class/infiniband
// and ibv_devinfo print RoCE v1 entries) carry an address: an IPv4-mapped
// GID (::ffff:a.b.c.d) the interface's IPv4 address, a link-local one the
// MAC (EUI-64). They are redacted with the same tokens as the addresses,
// and written back in sysfs form, so that a redacted guest still has the
// RoCE v2 GID of its (redacted) interface address.
var reGID = regexp.MustCompile(`(?i)\b[0-9a-f]{4}(?::[0-9a-f]{4}){7}\b`)

func (r *Redactor) gid(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || a.IsUnspecified() {
		return s
	}
	var tok string
	if a.Is4In6() {
		tok = r.ipv4(a.Unmap().String())
		t, err := netip.ParseAddr(tok)
		if err != nil || !t.Is4() {
			return s
		}
		return sysfsGID(netip.AddrFrom16(t.As16()))
	}
	tok = r.ipv6(a.String())
	t, err := netip.ParseAddr(tok)
	if err != nil {
		return s
	}
	return sysfsGID(t)
}

// sysfsGID writes an address as 8 groups of 4 lowercase hex digits.
func sysfsGID(a netip.Addr) string {
	b := a.As16()
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = fmt.Sprintf("%02x%02x", b[2*i], b[2*i+1])
	}
	return strings.Join(parts, ":")
}
