package redact

import "strings"

// Hand-written finders for the identifier formats: each returns exactly
// the matches regexp's FindAllStringIndex returns for its pattern
// (TestFindersMatchRegexps checks it on random text), without the
// backtracking machine, which costs about 20 ns a byte per pattern on a
// line dense with addresses. The patterns stay the specification.

// finder returns the first match at or after from, or -1.
type finder func(s string, from int) (start, end int)

// findAll returns the matches of find in s, left to right, non-overlapping.
func findAll(s string, find finder) [][2]int {
	var out [][2]int
	for from := 0; from <= len(s); {
		i, j := find(s, from)
		if i < 0 {
			break
		}
		out = append(out, [2]int{i, j})
		from = j
	}
	return out
}

// replaceFound replaces every match of find by f(match).
func replaceFound(s string, find finder, f func(string) string) string {
	var b strings.Builder
	last := 0
	for from := 0; from <= len(s); {
		i, j := find(s, from)
		if i < 0 {
			break
		}
		b.WriteString(s[last:i])
		b.WriteString(f(s[i:j]))
		last, from = j, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// byteClass marks, for each byte, what the finders look for.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' {
			t[c] |= classHex
		}
		if b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' {
			t[c] |= classWord
		}
	}
	return t
}()

const (
	classHex uint8 = 1 << iota
	classWord
)

func isHex(c byte) bool { return byteClass[c]&classHex != 0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isW is regexp's \w (ASCII letters, digits, '_'): what \b looks at.
func isW(c byte) bool { return byteClass[c]&classWord != 0 }

// hexRun reports whether s[i:i+n] are hex digits.
func hexRun(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isHex(s[k]) {
			return false
		}
	}
	return true
}

// joined reports whether s[i:] is groups of hex digits of the given
// lengths joined by sep, and returns the end.
func joined(s string, i int, sep byte, lens ...int) (int, bool) {
	for g, n := range lens {
		if g > 0 {
			if i >= len(s) || s[i] != sep {
				return 0, false
			}
			i++
		}
		if !hexRun(s, i, n) {
			return 0, false
		}
		i += n
	}
	return i, true
}

// eight is eight groups of n digits.
func eight(n int) []int { return []int{n, n, n, n, n, n, n, n} }

// boundedAt reports regexp's \b before i and after j for a match made of
// word characters at both ends.
func boundedAt(s string, i, j int) bool {
	return (i == 0 || !isW(s[i-1])) && (j == len(s) || !isW(s[j]))
}

// findFixed finds the leftmost match of a pattern \b<body>\b whose body
// starts with a hex digit; body returns its end at i, or false.
func findFixed(s string, from int, body func(s string, i int) (int, bool)) (int, int) {
	for i := from; i < len(s); i++ {
		if !isHex(s[i]) || i > 0 && isW(s[i-1]) {
			continue
		}
		if j, ok := body(s, i); ok {
			return i, j
		}
	}
	return -1, -1
}

// findMAC is reMAC: \b xx:xx:xx:xx:xx:xx \b.
func findMAC(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j, ok := joined(s, i, ':', 2, 2, 2, 2, 2, 2)
		return j, ok && boundedAt(s, i, j)
	})
}

// findGID is reGID: \b xxxx(:xxxx){7} \b.
func findGID(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j, ok := joined(s, i, ':', eight(4)...)
		return j, ok && boundedAt(s, i, j)
	})
}

// findUUIDSpaced is reUUIDSpaced: \b xx( xx){7}-xx( xx){7} \b.
func findUUIDSpaced(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j, ok := joined(s, i, ' ', eight(2)...)
		if !ok || j >= len(s) || s[j] != '-' {
			return 0, false
		}
		j, ok = joined(s, j+1, ' ', eight(2)...)
		return j, ok && boundedAt(s, i, j)
	})
}

// findUUIDDashed is reUUIDDashed: \b 8-(4-4-4-12 | 8-4-12) \b, the first
// alternative first.
func findUUIDDashed(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		if !hexRun(s, i, 8) || i+8 >= len(s) || s[i+8] != '-' {
			return 0, false
		}
		k := i + 9
		if j, ok := joined(s, k, '-', 4, 4, 4, 12); ok && boundedAt(s, i, j) {
			return j, true
		}
		if j, ok := joined(s, k, '-', 8, 4, 12); ok && boundedAt(s, i, j) {
			return j, true
		}
		return 0, false
	})
}

// findIPv4 is reIPv4: d{1,3}.d{1,3}.d{1,3}.d{1,3}, leftmost, the last
// number greedy. The first three numbers are whole digit runs (a digit
// cannot stand where the '.' must), so a start is valid only where its
// run and the next two are 1 to 3 digits long, each followed by '.'.
func findIPv4(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if !isDigit(s[i]) {
			continue
		}
		p := i
		ok := true
		for g := 0; g < 3 && ok; g++ {
			n := digits(s, p, 3)
			if n == 0 || p+n >= len(s) || s[p+n] != '.' {
				ok = false
				break
			}
			p += n + 1
		}
		if !ok {
			continue
		}
		if n := digits(s, p, 3); n > 0 {
			return i, p + n
		}
	}
	return -1, -1
}

// digits returns the length of the run of digits at s[i:], at most max.
func digits(s string, i, max int) int {
	n := 0
	for i+n < len(s) && n < max && isDigit(s[i+n]) {
		n++
	}
	return n
}

// findIPv6 is reIPv6: [0-9a-f:]*:[0-9a-f:]*:[0-9a-f:.]*, case-insensitive,
// leftmost, greedy. A match starts where a run of hex digits and colons
// holding at least two colons starts, and ends where the run of hex
// digits, colons and dots from there ends.
func findIPv6(s string, from int) (int, int) {
	isHC := func(c byte) bool { return c == ':' || isHex(c) }
	for i := from; i < len(s); {
		if !isHC(s[i]) {
			i++
			continue
		}
		j, colons := i, 0
		for j < len(s) && isHC(s[j]) {
			if s[j] == ':' {
				colons++
			}
			j++
		}
		if colons >= 2 {
			for j < len(s) && (isHC(s[j]) || s[j] == '.') {
				j++
			}
			return i, j
		}
		i = j
	}
	return -1, -1
}

// findPath is rePath: "/vmfs/volumes/" and the rest of the line, up to its
// last character that is not a space (\s: tab, newline, form feed,
// carriage return, space); at least one such character after the prefix.
func findPath(s string, from int) (int, int) {
	const prefix = "/vmfs/volumes/"
	for from <= len(s) {
		k := strings.Index(s[from:], prefix)
		if k < 0 {
			return -1, -1
		}
		i := from + k
		e := i + len(prefix)
		for e < len(s) && s[e] != '\r' && s[e] != '\n' {
			e++
		}
		for e > i+len(prefix) && isSpaceRE(s[e-1]) {
			e--
		}
		if e > i+len(prefix) {
			return i, e
		}
		from = i + 1
	}
	return -1, -1
}

// isSpaceRE is regexp's \s.
func isSpaceRE(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// findMACDash is \b xx-xx-xx-xx-xx-xx \b (Windows, IEEE notation).
func findMACDash(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j, ok := joined(s, i, '-', 2, 2, 2, 2, 2, 2)
		return j, ok && boundedAt(s, i, j) && (i == 0 || s[i-1] != '-') && (j == len(s) || s[j] != '-')
	})
}

// findMACDot is \b xxxx.xxxx.xxxx \b (Cisco notation), not part of a
// longer dotted run.
func findMACDot(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j, ok := joined(s, i, '.', 4, 4, 4)
		return j, ok && boundedAt(s, i, j) && (i == 0 || s[i-1] != '.') && (j == len(s) || s[j] != '.')
	})
}

// findMACBare is \b [0-9a-f]{12} \b: a MAC without separators, looked for
// only on a line that names a MAC field (macContext).
func findMACBare(s string, from int) (int, int) {
	return findFixed(s, from, func(s string, i int) (int, bool) {
		j := i + 12
		return j, hexRun(s, i, 12) && boundedAt(s, i, j)
	})
}

// macContext reports whether a line names a MAC field ("MAC Address",
// "mac=", "hwaddr", "lladdr", "ether"), where twelve bare hex digits are
// a MAC.
func macContext(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		c := s[i] | 0x20
		switch {
		case c == 'm' && s[i+1]|0x20 == 'a' && s[i+2]|0x20 == 'c':
			return true
		case c == 'h' && i+6 <= len(s) && strings.EqualFold(s[i:i+6], "hwaddr"),
			c == 'l' && i+6 <= len(s) && strings.EqualFold(s[i:i+6], "lladdr"),
			c == 'e' && i+5 <= len(s) && strings.EqualFold(s[i:i+5], "ether"):
			return true
		}
	}
	return false
}
