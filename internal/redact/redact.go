// Package redact replaces the identifiers of host results (host and VM
// names, addresses, UUIDs, datastore paths, and what the doctor itself
// adds: dialled addresses, SSH users, local paths, host key fingerprints)
// by consistent, obviously fake tokens that keep the format of the value,
// and keeps the token map that turns them back into names. It works on
// captures and text only; the bundle writer applies it.
package redact

import (
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Token kinds of a TokenMap.
const (
	TokenHost      = "host"
	TokenVM        = "vm"
	TokenIPv4      = "ipv4"
	TokenIPv4Net   = "ipv4-net"
	TokenIPv6      = "ipv6"
	TokenMAC       = "mac"
	TokenUUID      = "uuid"
	TokenDatastore = "datastore"
	TokenPath      = "path"
	// Identifiers the doctor itself adds to what it records (redact_ids.go).
	TokenUser        = "user"
	TokenLocalPath   = "local-path"
	TokenFingerprint = "fingerprint"
)

// TokenMap lists every replacement of a redaction. It is what turns a
// redacted bundle back into names, so it is written next to the bundle
// (mode 0600) and never inside it.
type TokenMap struct {
	Note        string    `json:"note"`
	Tokens      []Token   `json:"tokens"`
	NotRedacted []Skipped `json:"not_redacted,omitempty"`
}

// Token is one identifier and its replacement.
type Token struct {
	Kind     string `json:"kind"`
	Original string `json:"original"`
	Token    string `json:"token"`
}

// Skipped is a name deliberately left as is, with the reason.
type Skipped struct {
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// Redactor replaces identifiers by consistent, obviously fake tokens that
// keep the format of the value, so that a redacted bundle parses and
// analyses to the same findings:
//
//   - host names -> host-001, VM display names -> vm-0001 (whole-word matches)
//   - IPv4 -> 198.18.x.y / 198.19.x.y (RFC 2544 benchmarking range, then
//     240.0.0.0/4): the first two octets are mapped per /16 and the last two
//     kept, so every subnet relation of masks /16 and longer is preserved
//     (same subnet, gateway, broadcast); netmasks, 0.0.0.0, loopback,
//     link-local and multicast addresses are kept
//   - IPv6 -> 2001:db8:<n>::<m> (documentation prefix), per /64 and address
//   - MAC -> 02:00:00:xx:xx:xx (locally administered)
//   - UUIDs (canonical, ESXi's "42 3e ... 5e-db c6 ..." and VMFS forms) ->
//     zero UUIDs ending in a counter, in the same form
//   - /vmfs/volumes/<datastore>/<dir>/<file> -> /vmfs/volumes/datastore-01/dir-0001/file-0001.vmx
//
// The same value always gets the same token, in every file.
type Redactor struct {
	names map[string]string // literal names -> token
	// Indexes of names, rebuilt when dirty (see replaceNames).
	byFirstWord map[string][]string // multi-word names by their first word, longest first
	oddNames    []string            // names starting with a non-word rune, longest first
	dirty       bool
	tokens      map[string]bool // every token handed out
	byValue     map[string]int  // kind+"\x00"+original -> index in order
	order       []Token
	skipped     []Skipped
	counters    map[string]int

	v4net map[[2]byte][2]byte
	v6net map[string]int

	// seeded are the tokens of a seeded token map; collisions the real
	// names found equal to one of them (redact_ids.go).
	seeded     map[string]bool
	collisions []Skipped
	// localPaths are local paths to replace, longest first.
	localPaths []Token
}

// NewRedactor returns an empty redactor.
func NewRedactor() *Redactor {
	return &Redactor{names: map[string]string{}, tokens: map[string]bool{}, byValue: map[string]int{},
		counters: map[string]int{}, v4net: map[[2]byte][2]byte{}, v6net: map[string]int{}}
}

func (r *Redactor) record(kind, orig, tok string) {
	key := kind + "\x00" + orig
	if _, ok := r.byValue[key]; ok {
		return
	}
	r.byValue[key] = len(r.order)
	r.order = append(r.order, Token{kind, orig, tok})
	r.tokens[tok] = true
}

func (r *Redactor) lookup(kind, orig string) (string, bool) {
	if i, ok := r.byValue[kind+"\x00"+orig]; ok {
		return r.order[i].Token, true
	}
	return "", false
}

// next returns the next counter value of a kind.
func (r *Redactor) next(kind string) int {
	r.counters[kind]++
	return r.counters[kind]
}

// TokenMap returns every replacement made so far.
func (r *Redactor) TokenMap() TokenMap {
	return TokenMap{
		Note:        "pvrdma-doctor redaction map: keep it private; it turns the tokens of the bundle back into names",
		Tokens:      append([]Token(nil), r.order...),
		NotRedacted: append([]Skipped(nil), r.skipped...),
	}
}

// Seed makes the redactor reuse the tokens of an earlier map, so that
// bundles of the same fleet taken at different times can be compared.
func (r *Redactor) Seed(tm *TokenMap) error {
	for _, t := range tm.Tokens {
		switch t.Kind {
		case TokenHost, TokenVM, TokenUser:
			r.addNameToken(t.Kind, t.Original, t.Token)
		case TokenLocalPath:
			r.addLocalPath(t.Original, t.Token)
		case TokenIPv4Net:
			o, err1 := netip.ParsePrefix(t.Original)
			n, err2 := netip.ParsePrefix(t.Token)
			if err1 != nil || err2 != nil || !o.Addr().Is4() || !n.Addr().Is4() {
				return fmt.Errorf("token map: bad %s entry %q -> %q", t.Kind, t.Original, t.Token)
			}
			ob, nb := o.Addr().As4(), n.Addr().As4()
			r.v4net[[2]byte{ob[0], ob[1]}] = [2]byte{nb[0], nb[1]}
			r.record(t.Kind, t.Original, t.Token)
			r.next(TokenIPv4Net)
		case TokenIPv4, TokenIPv6, TokenMAC, TokenUUID, TokenDatastore, TokenPath, TokenFingerprint:
			r.record(t.Kind, t.Original, t.Token)
		default:
			return fmt.Errorf("token map: unknown kind %q", t.Kind)
		}
		r.seedCounter(t.Kind, t.Token)
		r.markSeeded(t.Token)
	}
	return nil
}

// seedCounter keeps a kind's counter above a seeded token's number, so that
// new tokens never collide with seeded ones.
func (r *Redactor) seedCounter(kind, tok string) {
	var n int64
	var err error
	switch kind {
	case TokenHost, TokenVM, TokenDatastore, TokenPath, TokenUser, TokenLocalPath, TokenFingerprint:
		_, num, _ := cutLast(tok, "-")
		n, err = strconv.ParseInt(num, 10, 64)
	case TokenMAC:
		n, err = strconv.ParseInt(strings.ReplaceAll(strings.TrimPrefix(tok, "02:00:00:"), ":", ""), 16, 64)
	case TokenUUID:
		n, err = strconv.ParseInt(tok, 16, 64)
	case TokenIPv6:
		_, num, _ := cutLast(tok, ":")
		n, err = strconv.ParseInt(num, 16, 64)
	default:
		return
	}
	if err == nil && int(n) > r.counters[kind] {
		r.counters[kind] = int(n)
	}
}

func cutLast(s, sep string) (string, string, bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

var (
	reReservedName = regexp.MustCompile(`^(?i:vmk|vmnic|vmrdma|vmhba|vusb|vswitch|dvsportset-|dvportgroup-)[0-9]+$`)
	// vocabulary are words of ESXi output that a name must not shadow.
	vocabulary = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(`true false yes no on off up down active inactive enabled disabled none n/a na
			full half static dhcp cswitch listen advertise both name mtu uuid client uplinks driver state speed
			description default unknown error root localhost esxi vmware esxcli vsish vmkping ping host hosts vm vms
			allowed inbound outbound tcp udp dst src true. rdma pvrdma defaulttcpipstack`) {
			m[w] = true
		}
		return m
	}()
)

// Learn registers the names to redact: host names and VM display names
// (from `esxcli vm process list`). IPs, MACs, UUIDs and datastore paths
// need no learning: they are recognised by their format.
func (r *Redactor) Learn(results []hostio.HostResult) {
	for _, hr := range results {
		r.learnHost(hr.Host)
	}
	r.learnDoctorText(results)
	for _, hr := range results {
		for _, c := range hr.Captures {
			if c.Kind == catalog.KindVCenterHost && c.Stdout != "" {
				// The host's cluster, named by the customer.
				if h, _ := parse.VCenterHostConfig(c.Stdout); h.Cluster != nil {
					r.learnName(TokenHost, h.Cluster.Name)
				}
				continue
			}
			if c.Kind == catalog.KindVCenterVMs && c.Stdout != "" {
				// VMs read from vCenter, of hosts SSH may not have reached.
				vms, _ := parse.VCenterVMConfig(c.Stdout)
				for _, vm := range vms {
					r.learnName(TokenVM, vm.Name)
					if vm.Guest != nil {
						// The guest's own name (VMware Tools' guest.hostName);
						// its addresses are redacted by their format.
						r.learnName(TokenHost, vm.Guest.HostName)
					}
				}
				continue
			}
			if c.Kind != catalog.KindVMProcessList || c.Stdout == "" {
				continue
			}
			vms, err := parse.VMProcessList(c.Stdout)
			if err != nil {
				// Unparsable, or partly: still catch the names the parser would print.
				for _, m := range reDisplayName.FindAllStringSubmatch(c.Stdout, -1) {
					r.learnName(TokenVM, m[1])
				}
				if _, partial := parse.Skipped(err); !partial {
					continue
				}
			}
			for _, vm := range vms {
				// The title line can differ from the display name: both are names.
				for _, name := range []string{vm.DisplayName, vm.Title} {
					if tok := r.learnName(TokenVM, name); tok != "" {
						// Datastore paths spell '/' in names as %2f.
						if esc := strings.ReplaceAll(strings.TrimSpace(name), "/", "%2f"); esc != strings.TrimSpace(name) {
							r.addNameChecked(TokenVM, esc, tok)
						}
						// A .vmx writes '"', '|' and control characters as |XX.
						if esc := parse.VMXEscape(strings.TrimSpace(name)); esc != strings.TrimSpace(name) {
							r.addNameChecked(TokenVM, esc, tok)
						}
					}
				}
			}
		}
	}
}

var reDisplayName = regexp.MustCompile(`(?m)^\s*Display Name:[ \t]*(.*?)[ \t]*\r?$`)

func (r *Redactor) learnHost(h string) {
	h = strings.TrimSpace(h)
	if host, _, err := splitHostPort(h); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if _, err := netip.ParseAddr(h); err == nil {
		return // an address: redacted by format
	}
	tok := r.learnName(TokenHost, h)
	if tok == "" {
		return
	}
	if short, _, ok := strings.Cut(h, "."); ok && short != "" {
		if _, isIP := netip.ParseAddr(short); isIP != nil {
			r.addNameChecked(TokenHost, short, tok)
		}
	}
}

// splitHostPort accepts "name:port" and "[v6]:port".
func splitHostPort(s string) (string, string, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
		return "", "", fmt.Errorf("no port")
	}
	if _, err := strconv.Atoi(s[i+1:]); err != nil {
		return "", "", err
	}
	return s[:i], s[i+1:], nil
}

// learnName registers a name and returns its token ("" when skipped).
func (r *Redactor) learnName(kind, name string) string {
	name = strings.TrimSpace(name)
	if tok, ok := r.names[name]; ok {
		return tok
	}
	var tok string
	switch kind {
	case TokenHost:
		tok = fmt.Sprintf("host-%03d", r.next(kind))
	case TokenUser:
		tok = fmt.Sprintf("user-%02d", r.next(kind))
	default:
		tok = fmt.Sprintf("vm-%04d", r.next(kind))
	}
	if !r.addNameChecked(kind, name, tok) {
		r.counters[kind]--
		return ""
	}
	return tok
}

func (r *Redactor) addNameChecked(kind, name, tok string) bool {
	if _, ok := r.names[name]; ok {
		return true
	}
	why := ""
	switch {
	case name == "":
		return false
	case utf8.RuneCountInString(name) < 3:
		why = "shorter than 3 characters: replacing it would alter unrelated text"
	case strings.Trim(name, "0123456789.") == "":
		why = "a number: replacing it would alter unrelated values"
	case reReservedName.MatchString(name) || vocabulary[strings.ToLower(name)]:
		why = "an ESXi keyword or device name: replacing it would alter the output's meaning"
	case r.seeded[name]:
		// A real name equal to a token of the reused map: it would stay
		// in the bundle, indistinguishable from a token.
		r.collisions = append(r.collisions, Skipped{kind, name, "a real identifier equal to a token of the token map"})
		return false
	case r.tokens[name]:
		why = "already a redaction token"
	}
	if why != "" {
		r.skipped = append(r.skipped, Skipped{kind, name, why})
		return false
	}
	r.addNameToken(kind, name, tok)
	return true
}

func (r *Redactor) addNameToken(kind, name, tok string) {
	r.names[name] = tok
	r.dirty = true
	r.record(kind, name, tok)
}

func isWordRune(c rune) bool {
	return c == '_' || c == '-' || unicode.IsLetter(c) || unicode.IsDigit(c)
}

// wordRun returns the length in bytes of the run of word runes at s's start.
func wordRun(s string) int {
	n := 0
	for n < len(s) {
		c, size := utf8.DecodeRuneInString(s[n:])
		if !isWordRune(c) {
			break
		}
		n += size
	}
	return n
}

func longestFirst(list []string) {
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
}

// index rebuilds the name indexes: a name made only of word runes is found
// by an exact lookup of the word run at a word start; a longer name is
// found through its first word; the rare name starting with another rune
// is tried everywhere.
func (r *Redactor) index() {
	r.byFirstWord = map[string][]string{}
	r.oddNames = r.oddNames[:0]
	for n := range r.names {
		w := wordRun(n)
		switch {
		case w == 0:
			r.oddNames = append(r.oddNames, n)
		case w < len(n):
			r.byFirstWord[n[:w]] = append(r.byFirstWord[n[:w]], n)
		}
	}
	for _, l := range r.byFirstWord {
		longestFirst(l)
	}
	longestFirst(r.oddNames)
	r.dirty = false
}

// nameAt returns the learned name that occurs at s[i:] as whole words,
// longest first, or "". prev is the rune before i.
func (r *Redactor) nameAt(s string, i int, prev rune) string {
	bounded := func(n string) bool {
		if first, _ := utf8.DecodeRuneInString(n); isWordRune(first) && isWordRune(prev) {
			return false
		}
		lastR, _ := utf8.DecodeLastRuneInString(n)
		if after, _ := utf8.DecodeRuneInString(s[i+len(n):]); i+len(n) < len(s) && isWordRune(lastR) && isWordRune(after) {
			return false
		}
		return true
	}
	best := ""
	if !isWordRune(prev) {
		if w := wordRun(s[i:]); w > 0 {
			for _, n := range r.byFirstWord[s[i:i+w]] {
				if strings.HasPrefix(s[i:], n) && bounded(n) {
					best = n
					break
				}
			}
			if best == "" {
				if _, ok := r.names[s[i:i+w]]; ok {
					best = s[i : i+w]
				}
			}
		}
	}
	for _, n := range r.oddNames {
		if len(n) > len(best) && strings.HasPrefix(s[i:], n) && bounded(n) {
			best = n
			break
		}
	}
	return best
}

// replaceNames replaces whole-word occurrences of the learned names,
// longest first, in one left-to-right pass. Its cost grows with the text,
// not with the number of names (a 1,000-host fleet has thousands).
func (r *Redactor) replaceNames(s string) string {
	if len(r.names) == 0 {
		return s
	}
	if r.dirty || r.byFirstWord == nil {
		r.index()
	}
	var b strings.Builder
	last := 0
	prev := rune(' ')
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		if n := r.nameAt(s, i, prev); n != "" {
			b.WriteString(s[last:i])
			b.WriteString(r.names[n])
			i += len(n)
			last = i
			prev, _ = utf8.DecodeLastRuneInString(n)
			continue
		}
		prev = c
		i += size
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

var (
	// rePath runs to the end of the line: datastore, folder and file names
	// may hold spaces and quotes.
	rePath       = regexp.MustCompile(`/vmfs/volumes/[^\r\n]*[^\s]`)
	reUUIDSpaced = regexp.MustCompile(`(?i)\b[0-9a-f]{2}(?: [0-9a-f]{2}){7}-[0-9a-f]{2}(?: [0-9a-f]{2}){7}\b`)
	reUUIDDashed = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-(?:[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{12})\b`)
	reMAC        = regexp.MustCompile(`(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b`)
	reIPv6       = regexp.MustCompile(`(?i)[0-9a-f:]*:[0-9a-f:]*:[0-9a-f:.]*`)
	reIPv4       = regexp.MustCompile(`[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}`)
)

// Text redacts one string.
func (r *Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	s = r.doctorIDs(s)
	s = r.replaceNames(s)
	s = rePath.ReplaceAllStringFunc(s, r.path)
	s = reUUIDSpaced.ReplaceAllStringFunc(s, r.uuid)
	s = reUUIDDashed.ReplaceAllStringFunc(s, r.uuid)
	s = reGID.ReplaceAllStringFunc(s, r.gid)
	s = reMAC.ReplaceAllStringFunc(s, r.mac)
	s = replaceBounded(s, reIPv6, r.ipv6)
	s = replaceBounded(s, reIPv4, r.ipv4)
	return s
}

// replaceBounded replaces matches not glued to a word or a dotted number
// ("4.23.0.66-1vmw" is a driver version, not an address).
func replaceBounded(s string, re *regexp.Regexp, f func(string) string) string {
	locs := re.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		i, j := l[0], l[1]
		if i > 0 {
			if c := s[i-1]; isASCIIWord(c) || c == '.' {
				continue
			}
		}
		if j < len(s) {
			c := s[j]
			if isASCIIWord(c) || (c == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				continue
			}
		}
		rep := f(s[i:j])
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = j
	}
	b.WriteString(s[last:])
	return b.String()
}

func isASCIIWord(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (r *Redactor) ipv4(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return s
	}
	b := a.As4()
	if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || isMask(b) {
		return s
	}
	if tok, ok := r.lookup(TokenIPv4, s); ok {
		return tok
	}
	key := [2]byte{b[0], b[1]}
	net, ok := r.v4net[key]
	if !ok {
		n := r.next(TokenIPv4Net) - 1
		if n < 2 {
			net = [2]byte{198, byte(18 + n)}
		} else {
			n -= 2
			net = [2]byte{byte(240 + n/256%15), byte(n % 256)}
		}
		r.v4net[key] = net
		r.record(TokenIPv4Net, fmt.Sprintf("%d.%d.0.0/16", b[0], b[1]), fmt.Sprintf("%d.%d.0.0/16", net[0], net[1]))
	}
	tok := fmt.Sprintf("%d.%d.%d.%d", net[0], net[1], b[2], b[3])
	r.record(TokenIPv4, s, tok)
	return tok
}

// isMask reports whether b is a netmask (contiguous ones, incl. 0.0.0.0).
func isMask(b [4]byte) bool {
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	inv := ^v
	return inv&(inv+1) == 0
}

func (r *Redactor) ipv6(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Is4In6() || strings.Count(s, ":") < 2 {
		return s
	}
	if a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() {
		return s
	}
	norm := a.String()
	if tok, ok := r.lookup(TokenIPv6, norm); ok {
		return tok
	}
	b := a.As16()
	pfx := fmt.Sprintf("%x", b[:8])
	n, ok := r.v6net[pfx]
	if !ok {
		n = len(r.v6net) + 1
		r.v6net[pfx] = n
	}
	var tok string
	if a.IsLinkLocalUnicast() {
		tok = fmt.Sprintf("fe80::%x", r.next(TokenIPv6))
	} else {
		tok = fmt.Sprintf("2001:db8:0:%x::%x", n, r.next(TokenIPv6))
	}
	r.record(TokenIPv6, norm, tok)
	return tok
}

func (r *Redactor) mac(s string) string {
	norm := strings.ToLower(s)
	if norm == "00:00:00:00:00:00" || norm == "ff:ff:ff:ff:ff:ff" {
		return s
	}
	if tok, ok := r.lookup(TokenMAC, norm); ok {
		return tok
	}
	n := r.next(TokenMAC)
	tok := fmt.Sprintf("02:00:00:%02x:%02x:%02x", n>>16&0xff, n>>8&0xff, n&0xff)
	r.record(TokenMAC, norm, tok)
	return tok
}

func (r *Redactor) uuid(s string) string {
	hex := strings.ToLower(strings.NewReplacer(" ", "", "-", "").Replace(s))
	if strings.Trim(hex, "0") == "" {
		return s
	}
	if r.tokens[s] {
		return s
	}
	tokNum, ok := r.lookup(TokenUUID, hex)
	var n int
	if ok {
		v, _ := strconv.ParseInt(tokNum, 16, 64)
		n = int(v)
	} else {
		n = r.next(TokenUUID)
		r.record(TokenUUID, hex, fmt.Sprintf("%012x", n))
	}
	var tok string
	switch {
	case strings.Contains(s, " "):
		tok = fmt.Sprintf("00 00 00 00 00 00 00 00-00 00 %02x %02x %02x %02x %02x %02x",
			n>>40&0xff, n>>32&0xff, n>>24&0xff, n>>16&0xff, n>>8&0xff, n&0xff)
	case len(s) == 36 && s[13] == '-':
		tok = fmt.Sprintf("00000000-0000-0000-0000-%012x", n)
	default:
		tok = fmt.Sprintf("00000000-00000000-0000-%012x", n)
	}
	r.tokens[tok] = true
	return tok
}

// path redacts a /vmfs/volumes/... path component by component.
func (r *Redactor) path(p string) string {
	rest := strings.TrimPrefix(p, "/vmfs/volumes/")
	parts := strings.Split(rest, "/")
	for i, c := range parts {
		if c == "" || r.tokens[c] {
			continue
		}
		if i == 0 {
			if reUUIDDashed.MatchString(c) && len(reUUIDDashed.FindString(c)) == len(c) {
				parts[i] = r.uuid(c)
				continue
			}
			if tok, ok := r.lookup(TokenDatastore, c); ok {
				parts[i] = tok
				continue
			}
			tok := fmt.Sprintf("datastore-%02d", r.next(TokenDatastore))
			r.record(TokenDatastore, c, tok)
			parts[i] = tok
			continue
		}
		base, ext := c, ""
		if j := strings.LastIndexByte(c, '.'); j > 0 && len(c)-j <= 8 {
			base, ext = c[:j], c[j:]
		}
		if r.tokens[base] {
			continue
		}
		tok, ok := r.lookup(TokenPath, base)
		if !ok {
			tok = fmt.Sprintf("path-%04d", r.next(TokenPath))
			r.record(TokenPath, base, tok)
		}
		parts[i] = tok + ext
	}
	return "/vmfs/volumes/" + strings.Join(parts, "/")
}

// Results returns redacted copies of results.
func (r *Redactor) Results(in []hostio.HostResult) []hostio.HostResult {
	out := Clone(in)
	for i := range out {
		hr := &out[i]
		hr.Host = r.Text(hr.Host)
		hr.Address = r.Text(hr.Address)
		hr.Reason = r.Text(hr.Reason)
		for j := range hr.Notes {
			hr.Notes[j] = r.Text(hr.Notes[j])
		}
		for j := range hr.Captures {
			c := &hr.Captures[j]
			c.Host = r.Text(c.Host)
			c.Command = r.Text(c.Command)
			c.Stdout = r.Text(c.Stdout)
			c.Stderr = r.Text(c.Stderr)
			c.Error = r.Text(c.Error)
			c.Filter = r.Text(c.Filter)
		}
	}
	return out
}

// Clone deep-copies results (their captures and notes), so that redacting
// or editing the copy never alters the caller's results.
func Clone(in []hostio.HostResult) []hostio.HostResult {
	out := make([]hostio.HostResult, len(in))
	for i, hr := range in {
		hr.Captures = append([]hostio.Capture(nil), hr.Captures...)
		hr.Notes = append([]string(nil), hr.Notes...)
		out[i] = hr
	}
	return out
}
