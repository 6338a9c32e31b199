package redact

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

// macForms are the notations of one MAC (b: its 6 bytes) admins and tools
// write: colons, dashes, Cisco's dotted groups, bare in a MAC field, each
// in both cases.
func macForms(b [6]byte) []string {
	h := fmt.Sprintf("%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5])
	pairs := []string{h[0:2], h[2:4], h[4:6], h[6:8], h[8:10], h[10:12]}
	var out []string
	for _, f := range []string{
		strings.Join(pairs, ":"),
		strings.Join(pairs, "-"),
		h[0:4] + "." + h[4:8] + "." + h[8:12],
		h,
	} {
		out = append(out, f, strings.ToUpper(f))
	}
	return out
}

// ipv4Forms are the spellings of one IPv4 address: plain, with leading
// zeros, IPv4-mapped and IPv4-compatible IPv6 (hex and dotted tails, any
// case, compressed or not).
func ipv4Forms(b [4]byte) []string {
	hi, lo := uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3])
	return []string{
		fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("%03d.%03d.%03d.%03d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("%d.%d.%03d.%02d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("::ffff:%x:%x", hi, lo),
		fmt.Sprintf("::FFFF:%X:%X", hi, lo),
		fmt.Sprintf("0:0:0:0:0:ffff:%04x:%04x", hi, lo),
		fmt.Sprintf("::ffff:%d.%d.%d.%d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("::%x:%x", hi, lo),
		fmt.Sprintf("0000:0000:0000:0000:0000:ffff:%04x:%04x", hi, lo), // a GID
	}
}

// ipv6Forms are the spellings of one IPv6 address: compressed, expanded,
// upper case.
func ipv6Forms(a netip.Addr) []string {
	full := a.StringExpanded()
	return []string{a.String(), full, strings.ToUpper(a.String()), strings.ToUpper(full)}
}

// canonicalToken reads a token in any notation back to the canonical
// identifier it is (MAC: colons; an address: its IPv4 if it carries one).
func canonicalToken(kind, s string) string {
	if kind == TokenMAC {
		if c := macCanon(s); c != "" {
			return c
		}
		return "?" + s
	}
	if c, ok := ipv4Canon(s); ok {
		return c
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return "?" + s
	}
	if v4, _, ok := embeddedIPv4(a); ok {
		return v4.String()
	}
	return a.String()
}

// One token per identifier, whatever its spelling (issue 38.1): each
// random MAC, IPv4 and IPv6 address written in every form, in a MAC field
// or in a sentence, redacts to the same token (read canonically), no form
// of the original survives, the token map holds it once, and the
// redaction is idempotent.
func TestEveryFormOfAnIdentifierGetsOneToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	for i := 0; i < 300; i++ {
		red := NewRedactor()
		var kind string
		var forms []string
		switch i % 3 {
		case 0:
			kind = TokenMAC
			var b [6]byte
			for k := range b {
				b[k] = byte(rng.IntN(256))
			}
			b[0] = b[0]&^3 | 0x10 // unicast, universal; never a token's 02:00:00
			forms = macForms(b)
		case 1:
			kind = TokenIPv4
			b := [4]byte{byte(10 + rng.IntN(100)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(1 + rng.IntN(254))}
			forms = ipv4Forms(b)
		default:
			kind = TokenIPv6
			var b [16]byte
			for k := range b {
				b[k] = byte(rng.IntN(256))
			}
			b[0], b[1], b[4] = 0x2a, 0x02, 0 // global unicast, a zero run to compress
			b[5] = 0
			forms = ipv6Forms(netip.AddrFrom16(b))
		}
		var toks []string
		for _, f := range forms {
			for _, text := range []string{
				fmt.Sprintf("   MAC Address: %s\n", f),
				fmt.Sprintf("peer %s is up (mac %s)\n", f, f),
			} {
				if kind != TokenMAC && strings.Contains(text, "MAC") {
					continue
				}
				out := red.Text(text)
				if strings.Contains(strings.ToLower(out), strings.ToLower(f)) {
					t.Fatalf("%s %q survives: %q -> %q", kind, f, text, out)
				}
				if again := red.Text(out); again != out {
					t.Fatalf("redacting twice: %q -> %q -> %q", text, out, again)
				}
				for _, w := range strings.Fields(out) {
					w = strings.Trim(w, "()")
					if c := canonicalToken(kind, w); !strings.HasPrefix(c, "?") {
						toks = append(toks, c)
					}
				}
			}
		}
		for _, tk := range toks {
			if tk != toks[0] {
				t.Fatalf("%s forms %q gave several tokens: %q", kind, forms, toks)
			}
		}
		n := 0
		for _, tk := range red.TokenMap().Tokens {
			if tk.Kind == kind {
				n++
			}
		}
		if len(toks) == 0 || n != 1 {
			t.Fatalf("%s forms %q: tokens %q, %d in the map: %+v", kind, forms, toks, n, red.TokenMap().Tokens)
		}
	}
}

// Twelve hex digits are a MAC only in a MAC field: elsewhere (a serial, a
// hash) they are left alone.
func TestBareHexIsAMACOnlyInAMACField(t *testing.T) {
	red := NewRedactor()
	if out := red.Text("Serial Number: b8cef61c0110\n"); out != "Serial Number: b8cef61c0110\n" {
		t.Errorf("a serial redacted: %q", out)
	}
	if out := red.Text("   Mac Address: B8CEF61C0110\n"); strings.Contains(out, "B8CEF61C0110") {
		t.Errorf("a MAC field kept: %q", out)
	}
}

// Every token redaction hands out is recognised as one by its format
// (what plan marks in a redacted bundle's checklists), and a text of
// originals holds none.
func TestEveryTokenIsRecognised(t *testing.T) {
	red := NewRedactor()
	red.Learn(propFleet())
	rng := rand.New(rand.NewPCG(38, 2))
	var orig strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&orig, "x %s y\n", propIdentifier(rng))
	}
	orig.WriteString("esx-prod-17.corp.example 10.1.2.3 b8-ce-f6-1c-01-10 b8ce.f61c.0110 ::ffff:c0a8:320b\n")
	if HasToken(orig.String()) {
		t.Errorf("tokens found in originals: %q", Tokens(orig.String()))
	}
	for _, l := range strings.Split(strings.TrimSpace(red.Text(orig.String())), "\n") {
		if !HasToken(l) {
			t.Errorf("no token recognised in the redacted line %q", l)
		}
	}
	for _, tk := range red.TokenMap().Tokens {
		if tk.Kind == TokenIPv4Net || tk.Kind == TokenUUID {
			continue // a /16, and a UUID's counter: written whole in the text
		}
		if !HasToken(tk.Token) {
			t.Errorf("%s token %q not recognised", tk.Kind, tk.Token)
		}
	}
}

// A MAC token in any notation reads back as the original in that
// notation (in lower case, as Reverse gives identifiers back).
func TestMACTokensReverseInTheirNotation(t *testing.T) {
	red := NewRedactor()
	in := "a b8:ce:f6:1c:01:10 b B8-CE-F6-1C-01-10 c b8ce.f61c.0110\n   MAC Address: b8cef61c0110\n"
	out := red.Text(in)
	tm := red.TokenMap()
	if back := tm.Reverse(out); back != strings.ToLower(in[:len(in)-30])+in[len(in)-30:] {
		t.Errorf("reversed %q\nfrom %q", back, in)
	}
}
