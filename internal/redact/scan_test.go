package redact

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The patterns are the specification of the finders.
var finderSpecs = []struct {
	name string
	re   *regexp.Regexp
	find finder
}{
	{"MAC", reMAC, findMAC},
	{"GID", reGID, findGID},
	{"UUIDSpaced", reUUIDSpaced, findUUIDSpaced},
	{"UUIDDashed", reUUIDDashed, findUUIDDashed},
	{"IPv4", reIPv4, findIPv4},
	{"IPv6", reIPv6, findIPv6},
	{"Path", rePath, findPath},
}

func checkFinders(t *testing.T, s string) {
	t.Helper()
	for _, f := range finderSpecs {
		var want [][2]int
		for _, m := range f.re.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := findAll(s, f.find); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s in %q: finder %v, regexp %v", f.name, s, got, want)
		}
	}
}

// randomText is text made of what the formats are made of, and pieces of
// real identifiers, so that near-misses are frequent.
func randomText(r *rand.Rand) string {
	pieces := []string{"0", "1", "9", "a", "f", "A", "F", "g", "x", "_", "-", ":", ".", " ", "\n", "é",
		"00:50:56:8a:01:a0", "fe80::250:56ff:fe8a:1a0", "10.1.2.3", "1234.5.6.7", "192.168.50.255",
		"42 3e 1a 5c 9d 7e 2b 11-5e db c6 0a 77 01 19 02", "5bc7459f-967eeb48-b3f7-20677cd9a16c",
		"4203c2a1-1111-2222-3333-444455556666", "fe80:0000:0000:0000:0250:56ff:fe8a:01a0", "::ffff:10.0.0.1", "::",
		"/vmfs/volumes/", "/vmfs/volumes/ds1/vm 1/vm 1.vmx", "\t", "\r", "\f", "\v"}
	var b strings.Builder
	for n := r.IntN(40); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestFindersMatchRegexps(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 7))
	for range 30000 {
		checkFinders(t, randomText(r))
	}
	for _, s := range []string{"", ":", "::", "a:b", "1.2.3", "1.2.3.4.5.6.7.8", "1.2.3.4567", "1.2.3.4.",
		"aa:bb:cc:dd:ee:ff:11", "_aa:bb:cc:dd:ee:ff", "x5bc7459f-967eeb48-b3f7-20677cd9a16c"} {
		checkFinders(t, s)
	}
}

func FuzzFinders(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f.Add(randomText(r))
	}
	f.Fuzz(func(t *testing.T, s string) { checkFinders(t, s) })
}
