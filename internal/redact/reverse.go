package redact

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Reverse turns a redacted text back into the original with its token
// map: every token is replaced by the identifier it stands for, in the
// token's spelling (a UUID token in the spaced form gives the original
// UUID in the spaced form, a GID token the original address as a GID).
// Identifiers are given back in the canonical form redaction read them in
// (IPv6 compressed, MACs and UUIDs in lowercase); a name redacted under
// several spellings (a host's FQDN and short name, a VM name and its .vmx
// or datastore escapes) comes back in the first one learned.
func (m *TokenMap) Reverse(s string) string {
	rv := newReverser(m)
	return rv.text(s)
}

type reverser struct {
	names  *Redactor         // tokens of names, as names to replace
	byTok  map[string]string // kind+"\x00"+token -> original
	uuids  map[int64]string  // token number -> original hex
	locals []Token           // local paths, token -> original
}

func newReverser(m *TokenMap) *reverser {
	rv := &reverser{names: NewRedactor(), byTok: map[string]string{}, uuids: map[int64]string{}}
	for _, t := range m.Tokens {
		key := t.Kind + "\x00" + t.Token
		if _, dup := rv.byTok[key]; !dup {
			rv.byTok[key] = t.Original
		}
		switch t.Kind {
		case TokenHost, TokenVM, TokenUser, TokenCluster, TokenDatacenter, TokenSwitch, TokenPortgroup, TokenMoID:
			if _, dup := rv.names.names[t.Token]; !dup {
				rv.names.addNameToken(t.Kind, t.Token, t.Original)
			}
		case TokenUUID:
			if n, err := strconv.ParseInt(t.Token, 16, 64); err == nil {
				rv.uuids[n] = t.Original
			}
		case TokenLocalPath:
			rv.locals = append(rv.locals, t)
		}
	}
	return rv
}

func (rv *reverser) orig(kind, tok string) (string, bool) {
	o, ok := rv.byTok[kind+"\x00"+tok]
	return o, ok
}

func (rv *reverser) text(s string) string { return mapLines(s, rv.line) }

// line reverses one line: the passes of redaction, each replacing only
// what is a token.
func (rv *reverser) line(s string) string {
	s = replaceFound(s, findGID, rv.gid)
	s = replaceFound(s, findUUIDDashed, rv.uuid)
	s = replaceFound(s, findUUIDSpaced, rv.uuid)
	mac := func(t string) string {
		if o, ok := rv.orig(TokenMAC, macCanon(t)); ok {
			return macAs(o, t) // in the token's notation
		}
		return t
	}
	s = replaceFound(s, findMAC, mac)
	s = replaceFound(s, findMACDash, mac)
	s = replaceFound(s, findMACDot, mac)
	if macContext(s) {
		s = replaceFound(s, findMACBare, mac)
	}
	s = replaceBounded(s, findIPv6, func(t string) string {
		a, err := netip.ParseAddr(t)
		if err != nil {
			return t
		}
		if o, ok := rv.orig(TokenIPv6, a.String()); ok {
			return o
		}
		return t
	})
	s = replaceBounded(s, findIPv4, func(t string) string {
		if o, ok := rv.orig(TokenIPv4, t); ok {
			return o
		}
		return t
	})
	s = replaceFound(s, findPath, rv.path)
	s = rv.names.replaceNames(s)
	for _, p := range rv.locals {
		s = replacePathPrefix(s, p.Token, p.Original)
	}
	return reFingerprintToken.ReplaceAllStringFunc(s, func(t string) string {
		if o, ok := rv.orig(TokenFingerprint, t); ok {
			return o
		}
		return t
	})
}

// reFingerprintToken finds a fingerprint token ("SHA256:fingerprint-0001").
var reFingerprintToken = regexp.MustCompile(`\b(?:SHA256|MD5):fingerprint-[0-9]+\b`)

// gid reverses a GID whose address is a token.
func (rv *reverser) gid(t string) string {
	a, err := netip.ParseAddr(t)
	if err != nil {
		return t
	}
	var o string
	var ok bool
	if a.Is4In6() {
		if o, ok = rv.orig(TokenIPv4, a.Unmap().String()); ok {
			if oa, err := netip.ParseAddr(o); err == nil && oa.Is4() {
				return sysfsGID(netip.AddrFrom16(oa.As16()))
			}
		}
		return t
	}
	if o, ok = rv.orig(TokenIPv6, a.String()); ok {
		if oa, err := netip.ParseAddr(o); err == nil {
			return sysfsGID(oa)
		}
	}
	return t
}

// uuid reverses a UUID token in the form it is written in.
func (rv *reverser) uuid(t string) string {
	hex := strings.ToLower(uuidSeparators.Replace(t))
	if len(hex) != 32 || strings.Trim(hex[:20], "0") != "" {
		return t
	}
	n, err := strconv.ParseInt(hex[20:], 16, 64)
	if err != nil {
		return t
	}
	o, ok := rv.uuids[n]
	if !ok || len(o) != 32 {
		return t
	}
	switch {
	case strings.Contains(t, " "):
		var b strings.Builder
		for i := 0; i < 32; i += 2 {
			switch {
			case i == 16:
				b.WriteByte('-')
			case i > 0:
				b.WriteByte(' ')
			}
			b.WriteString(o[i : i+2])
		}
		return b.String()
	case len(t) == 36 && t[13] == '-':
		return fmt.Sprintf("%s-%s-%s-%s-%s", o[:8], o[8:12], o[12:16], o[16:20], o[20:])
	default:
		return fmt.Sprintf("%s-%s-%s-%s", o[:8], o[8:16], o[16:20], o[20:])
	}
}

// path reverses the tokens of a /vmfs/volumes/... path.
func (rv *reverser) path(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/vmfs/volumes/"), "/")
	for i, c := range parts {
		if i == 0 {
			if o, ok := rv.orig(TokenDatastore, c); ok {
				parts[i] = o
			}
			continue
		}
		base, ext := c, ""
		if j := strings.LastIndexByte(c, '.'); j > 0 && len(c)-j <= 8 {
			base, ext = c[:j], c[j:]
		}
		if o, ok := rv.orig(TokenPath, base); ok {
			parts[i] = o + ext
		}
	}
	return "/vmfs/volumes/" + strings.Join(parts, "/")
}
