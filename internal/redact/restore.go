package redact

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Restore turns the results of a redacted bundle back into the originals
// with its token map (what `plan --tokens` reads): every text of every
// result and capture goes through Reverse, so that what is derived from
// them (plans: their commands, file names and prose) names the real
// hosts, addresses and paths. It refuses a map that is not the bundle's:
// one under which a result's host name stays a token.
func Restore(in []hostio.HostResult, tm *TokenMap) ([]hostio.HostResult, error) {
	if tm == nil {
		return nil, errors.New("no token map")
	}
	rv := newReverser(tm)
	out := Clone(in)
	var unknown []string
	for i := range out {
		hr := &out[i]
		was := hr.Host
		hr.Host = rv.text(hr.Host)
		if hr.Host == was && HasToken(was) {
			unknown = append(unknown, was)
		}
		hr.Address = rv.text(hr.Address)
		hr.Reason = rv.text(hr.Reason)
		for j := range hr.Notes {
			hr.Notes[j] = rv.text(hr.Notes[j])
		}
		for j := range hr.Captures {
			c := &hr.Captures[j]
			c.Host = rv.text(c.Host)
			c.Command = rv.text(c.Command)
			c.Stdout = rv.text(c.Stdout)
			c.Stderr = rv.text(c.Stderr)
			c.Error = rv.text(c.Error)
			c.Filter = rv.text(c.Filter)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("the token map does not hold %s: it is not the map of this bundle (use the .tokens.json written next to it)", strings.Join(unknown, ", "))
	}
	return out, nil
}

// reToken finds the tokens redaction writes, by their format: names
// (host-001, vm-0001, user-01, cluster-01, datacenter-01, datastore-01,
// path-0001, local-path-01), fingerprints, IPv4 tokens (198.18.0.0/15,
// 240.0.0.0/4), MAC tokens (02:00:00:..., in any notation) and UUID
// tokens (zeros then a counter). IPv6 tokens, in any spelling, are
// found by isIPv6TokenForm.
var reToken = regexp.MustCompile(`\b(?:` +
	`(?:host-[0-9]{3,}|vm-[0-9]{4,}|user-[0-9]{2,}|cluster-[0-9]{2,}|datacenter-[0-9]{2,}|switch-[0-9]{2,}|portgroup-[0-9]{2,}|moid-[0-9]{4,}|datastore-[0-9]{2,}|local-path-[0-9]{2,}|path-[0-9]{4,})\b` +
	`|(?:SHA256|MD5):fingerprint-[0-9]+\b` +
	`|(?:198\.1[89]|24[0-9]\.[0-9]{1,3}|25[0-4]\.[0-9]{1,3})\.[0-9]{1,3}\.[0-9]{1,3}\b` +
	`|(?i:02[:-]00[:-]00[:-][0-9a-f]{2}[:-][0-9a-f]{2}[:-][0-9a-f]{2}|0200\.00[0-9a-f]{2}\.[0-9a-f]{4})\b` +
	`|00000000-(?:0000-0000-0000-|00000000-0000-)[0-9a-f]{12}\b|00 00 00 00 00 00 00 00-00 00(?: [0-9a-f]{2}){6}\b` +
	`)`)

// isTokenIPv4 reports whether a is in the ranges of IPv4 tokens.
func isTokenIPv4(a netip.Addr) bool {
	b := a.As4()
	return b[0] == 198 && (b[1] == 18 || b[1] == 19) || b[0] >= 240 && b[0] <= 254
}

// isIPv6TokenForm reports whether s is an IPv6 token in any spelling: the
// documentation prefix, fe80::db8:N, or an IPv4 token mapped or embedded
// (a GID).
func isIPv6TokenForm(s string) bool {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return false
	}
	if v4, _, ok := embeddedIPv4(a); ok {
		return isTokenIPv4(v4)
	}
	b := a.As16()
	if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 {
		return true
	}
	return b[0] == 0xfe && b[1] == 0x80 && b[12] == 0x0d && b[13] == 0xb8 && b[8]|b[9]|b[10]|b[11] == 0
}

// tokenSpans returns where s holds tokens, left to right, not overlapping.
func tokenSpans(s string) [][2]int {
	var spans [][2]int
	for _, m := range findAll(s, findIPv6) {
		if isIPv6TokenForm(s[m[0]:m[1]]) {
			spans = append(spans, m)
		}
	}
	for _, m := range reToken.FindAllStringIndex(s, -1) {
		if !overlapsSpan(spans, m[0], m[1]) {
			spans = append(spans, [2]int{m[0], m[1]})
			sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
		}
	}
	return spans
}

// HasToken reports whether s holds a redaction token (by its format).
func HasToken(s string) bool { return len(tokenSpans(s)) > 0 }

// Tokens returns the tokens s holds, in order, each once.
func Tokens(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range tokenSpans(s) {
		if t := s[m[0]:m[1]]; !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// MarkTokens writes every token of s as «token», so that a reader of a
// plan made from a redacted bundle sees which values stand for their
// site's and must not be typed as they are.
func MarkTokens(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range tokenSpans(s) {
		b.WriteString(s[last:m[0]])
		b.WriteString("«" + s[m[0]:m[1]] + "»")
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// MarkRunbook is a plan's Markdown checklist made from a redacted input
// without its token map: a warning first, every token marked.
func MarkRunbook(md string) string {
	return "> **Made from a redacted bundle without its token map.** Every value marked «…» is a redaction token, " +
		"not one of your hosts, addresses or paths: do not type it as it is. No script was written (its commands would carry tokens). Run `pvrdma-doctor plan --input BUNDLE " +
		"--tokens BUNDLE.tokens.json` for runbooks that name the real values.\n\n" + MarkTokens(md)
}

// MarkedName is the file name stem of a runbook made from a redacted
// input without its token map ("host-001" -> "redacted-host-001"): never
// taken for a host's own runbook.
func MarkedName(host string) string { return "redacted-" + host }
