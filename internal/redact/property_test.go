package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The fleet the properties redact: hosts, VMs (one whose name a .vmx
// spells with escapes), and the identifiers their outputs print.
var (
	propHosts = []string{"esx-prod-17.corp.example", "esx-prod-18.corp.example", "gpu-a.lab.example"}
	propVMs   = []string{"payroll-db-01", "hpc node01 (gpu)", "team|Keta", `say "hi"`, "ünï-vm", "web-01"}
)

// propFleet is the results redaction learns from: each host lists the VMs.
func propFleet() []hostio.HostResult {
	var list strings.Builder
	for i, vm := range propVMs {
		fmt.Fprintf(&list, "%s\n   World ID: %d\n   Display Name: %s\n   Config File: /vmfs/volumes/ds-%d/%s/%s.vmx\n\n", vm, 2100000+i, vm, i%2, vm, vm)
	}
	var out []hostio.HostResult
	for _, h := range propHosts {
		out = append(out, hostio.HostResult{Host: h, Status: hostio.StatusCollected, Captures: []hostio.Capture{
			{Host: h, Command: "esxcli vm process list", Kind: catalog.KindVMProcessList, Stdout: list.String(), Status: hostio.StatusCollected}}})
	}
	return out
}

// propIdentifier is one identifier in its canonical spelling (what
// reversal gives back), outside the ranges tokens use.
func propIdentifier(r *rand.Rand) string {
	b := func() int { return r.IntN(256) }
	switch r.IntN(13) {
	case 12:
		// An IPv4-mapped IPv6 address (ibv_devinfo -v prints GIDs so).
		return fmt.Sprintf("::ffff:10.%d.%d.%d", b(), b(), 1+r.IntN(254))
	case 0:
		return fmt.Sprintf("10.%d.%d.%d", b(), b(), 1+r.IntN(254))
	case 1:
		return fmt.Sprintf("192.168.%d.%d", b(), 1+r.IntN(254))
	case 2:
		return fmt.Sprintf("fe80::250:56ff:fe%02x:%x", b(), 1+r.IntN(0xfffe))
	case 3:
		return fmt.Sprintf("fd00:%x::%x", 1+r.IntN(0xfff), 1+r.IntN(0xfff))
	case 4:
		return fmt.Sprintf("00:50:56:%02x:%02x:%02x", b(), b(), b())
	case 5:
		return fmt.Sprintf("42 3e %02x %02x fb 2d 5d 5e-db c6 90 f1 87 e5 %02x %02x", b(), b(), b(), b())
	case 6:
		return fmt.Sprintf("4203c2a1-%04x-2222-3333-4444%08x", r.IntN(0x10000), r.Uint32())
	case 7:
		return fmt.Sprintf("5bc7459f-967eeb48-%04x-20677cd9a16c", r.IntN(0x10000))
	case 8:
		return fmt.Sprintf("/vmfs/volumes/datastore%d/%s/%s.vmx", r.IntN(3), propVMs[r.IntN(len(propVMs))], "cfg")
	case 9:
		return propHosts[r.IntN(len(propHosts))]
	case 10:
		return propVMs[r.IntN(len(propVMs))]
	default:
		// A GID of an IPv4 address, as sysfs writes it.
		return fmt.Sprintf("0000:0000:0000:0000:0000:ffff:0a%02x:%02x%02x", b(), b(), 1+r.IntN(254))
	}
}

// propText is lines of identifiers between plain words, or, when wild,
// any text made of what identifiers are made of.
func propText(r *rand.Rand, wild bool) string {
	s, _ := propTextIDs(r, wild)
	return s
}

// propTextIDs is propText and the identifiers it holds.
func propTextIDs(r *rand.Rand, wild bool) (string, []string) {
	if wild {
		return randomText(r), nil
	}
	var ids []string
	words := []string{"Name:", "state", "up", "=", "vmk1", "MTU 9000", "(", ")", "\"", ",", "host"}
	var s strings.Builder
	for n := 1 + r.IntN(12); n > 0; n-- {
		switch r.IntN(4) {
		case 0:
			s.WriteString(words[r.IntN(len(words))])
		case 1:
			s.WriteString("\n")
		default:
			id := propIdentifier(r)
			ids = append(ids, id)
			s.WriteString(id)
		}
		s.WriteString(" ")
	}
	return s.String(), ids
}

// Redacting twice is redacting once: a token is never redacted again, in
// whatever spelling it comes back (a GID's long form of an IPv6 token, a
// UUID token's three forms), by the same redactor or by one seeded with
// its map (issue 24.7: fe80::1 had been redacted again to fe80::8).
func TestRedactTwiceIsRedactOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 71))
	for i := range 3000 {
		x := propText(r, i%3 == 0)
		red := NewRedactor()
		red.Learn(propFleet())
		once := red.Text(x)
		if twice := red.Text(once); twice != once {
			t.Fatalf("redacting twice changed the text:\ninput %q\nonce  %q\ntwice %q", x, once, twice)
		}
		tm := red.TokenMap()
		seeded := NewRedactor()
		if err := seeded.Seed(&tm); err != nil {
			t.Fatal(err)
		}
		if again := seeded.Text(once); again != once {
			t.Fatalf("a redactor seeded with the map redacted the tokens again:\ninput %q\nonce  %q\nagain %q", x, once, again)
		}
	}
}

// Reversing with the map gives back the input (in canonical spellings):
// every identifier got a token of its own, and the map holds it.
func TestReverseGivesBackTheInput(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 72))
	for range 3000 {
		x, ids := propTextIDs(r, false)
		red := NewRedactor()
		red.Learn(propFleet())
		out := red.Text(x)
		tm := red.TokenMap()
		if back := tm.Reverse(out); back != x {
			t.Fatalf("reversed redaction differs:\ninput    %q\nredacted %q\nreversed %q", x, out, back)
		}
		// And nothing is left: every identifier got a token.
		for _, id := range ids {
			if i := strings.LastIndex(id, "::ffff:"); i >= 0 {
				id = id[i+len("::ffff:"):] // the IPv4 address is the identifier
			}
			if strings.Contains(out, id) {
				t.Fatalf("%q left in %q", id, out)
			}
		}
	}
}

// One address in its short and long spellings gets one token; the map
// lists originals only.
func TestOneTokenPerAddress(t *testing.T) {
	r := NewRedactor()
	out := r.Text("short fe80::250:56ff:fe8a:1a0 long fe80:0000:0000:0000:0250:56ff:fe8a:01a0 upper FE80::250:56FF:FE8A:1A0\n")
	if out != "short fe80::db8:1 long fe80:0000:0000:0000:0000:0000:0db8:0001 upper fe80::db8:1\n" {
		t.Errorf("got %q", out)
	}
	for _, tk := range r.TokenMap().Tokens {
		if r.tokens[tk.Original] {
			t.Errorf("a token was redacted again: %q -> %q", tk.Original, tk.Token)
		}
	}
}

// A .vmx spells a name with |XX escapes, in either case, or with a raw
// '|': the decoded value is what is redacted, so every spelling gets the
// VM's token.
func TestVMXSpellingsRedacted(t *testing.T) {
	vmx := "displayName = \"team|7CKeta\"\nannotation = \"team|7cKeta\"\nextendedConfigFile = \"team|Keta.vmxf\"\nnvram = \"say |22hi|22.nvram\"\n"
	in := propFleet()
	in[0].Captures = append(in[0].Captures, hostio.Capture{Host: propHosts[0], Command: "cat '/vmfs/volumes/ds/x/x.vmx'", Kind: catalog.KindVMX,
		Stdout: vmx, Status: hostio.StatusCollected})
	r := NewRedactor()
	r.Learn(in)
	out := r.Results(in)[0].Captures[1].Stdout
	for _, leak := range []string{"Keta", "hi"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q left in the .vmx:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, `displayName = "vm-0003"`) {
		t.Errorf("redacted .vmx:\n%s", out)
	}
}

// FuzzRedactTwice: redacting twice is redacting once, on any text.
func FuzzRedactTwice(f *testing.F) {
	r := rand.New(rand.NewPCG(24, 73))
	for range 20 {
		f.Add(propText(r, r.IntN(2) == 0))
	}
	f.Fuzz(func(t *testing.T, x string) {
		red := NewRedactor()
		red.Learn(propFleet())
		once := red.Text(x)
		if twice := red.Text(once); twice != once {
			t.Fatalf("input %q\nonce  %q\ntwice %q", x, once, twice)
		}
	})
}

// Found by FuzzRedactTwice: a loopback address spelled with a dotted tail
// (::0.0.0.1) is kept, its tail is redacted by the IPv4 pass, and the
// result (::198.18.0.1) is a non-loopback address; it is redacted text and
// stays as it is, and it reads back as the original (an IPv6 address in
// its canonical spelling, as Reverse documents).
func TestRedactIPv6WithRedactedIPv4Tail(t *testing.T) {
	red := NewRedactor()
	red.Learn(propFleet())
	for _, c := range []struct{ in, back string }{
		{"x ::0.0.0.1", "x ::0.0.0.1"},
		// An IPv4-compatible address is its IPv4 address (issue 38.1):
		// its tail's token reads back as the tail.
		{"::10.1.2.3 and ::0.0.0.1", "::10.1.2.3 and ::0.0.0.1"},
		{"ff02::0.0.0.7", "ff02::0.0.0.7"},
	} {
		once := red.Text(c.in)
		if twice := red.Text(once); twice != once {
			t.Errorf("%q: once %q, twice %q", c.in, once, twice)
		}
		if strings.Contains(once, "10.1.2.3") {
			t.Errorf("%q: an IPv4 address left in %q", c.in, once)
		}
		tm := red.TokenMap()
		if back := tm.Reverse(once); back != c.back {
			t.Errorf("%q: redacted %q, reversed %q; want %q", c.in, once, back, c.back)
		}
	}
}
