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
	// vCenter's inventory names given on the command line (--cluster,
	// --datacenter), which its notes repeat.
	TokenCluster    = "cluster"
	TokenDatacenter = "datacenter"
	// With Redactor.Names (--redact-names): distributed switch and port
	// group names, vCenter managed-object IDs (vm-42, dvportgroup-67).
	TokenSwitch    = "switch"
	TokenPortgroup = "portgroup"
	TokenMoID      = "moid"
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
	trie  nameTrie          // the names, to find them in a text
	// spansLines: a name or local path holds a line break (Text).
	spansLines bool
	tokens     map[string]bool  // every token handed out
	byValue    map[valueKey]int // kind and original -> index in order
	order      []Token
	skipped    []Skipped
	counters   map[string]int

	v4net map[[2]byte][2]byte
	v6net map[string]int

	// seeded are the tokens of a seeded token map; collisions the real
	// names found equal to one of them (redact_ids.go).
	seeded     map[string]bool
	collisions []Skipped
	// localPaths are local paths to replace, longest first.
	localPaths []Token

	// MaxTokens bounds the token map (0: DefaultMaxTokens): past it, no
	// identifier is added, overflow is set, and what was being redacted
	// must not be kept (InPlace withholds it).
	MaxTokens int
	overflow  bool
	// overHosts are the hosts whose names could not all be learned.
	overHosts map[string]bool

	// Names (--redact-names) also tokenises the names of distributed
	// switches and port groups and vCenter's managed-object IDs: the
	// site's naming, which findings do not need.
	Names bool
}

// DefaultMaxTokens bounds the identifiers of one redaction (about 250
// bytes each: 125 MB). A real fleet of a thousand hosts has a few hundred
// thousand at most (hosts, VMs, their UUIDs, paths, MACs, addresses); a
// host can print millions of made-up ones within its 16 MiB.
const DefaultMaxTokens = 500_000

func (r *Redactor) maxTokens() int {
	if r.MaxTokens > 0 {
		return r.MaxTokens
	}
	return DefaultMaxTokens
}

// NewRedactor returns an empty redactor.
func NewRedactor() *Redactor {
	return &Redactor{names: map[string]string{}, tokens: map[string]bool{}, byValue: map[valueKey]int{},
		counters: map[string]int{}, v4net: map[[2]byte][2]byte{}, v6net: map[string]int{}}
}

// valueKey is an identifier of a kind in the token map.
type valueKey struct{ kind, orig string }

func (r *Redactor) record(kind, orig, tok string) {
	if len(r.order) >= r.maxTokens() {
		r.overflow = true
		return
	}
	// A copy: orig is often a piece of a whole output, which it would
	// otherwise keep in memory as long as the map.
	if _, ok := r.byValue[valueKey{kind, orig}]; ok {
		return
	}
	orig = strings.Clone(orig)
	r.byValue[valueKey{kind, orig}] = len(r.order)
	r.order = append(r.order, Token{kind, orig, tok})
	r.tokens[tok] = true
}

func (r *Redactor) lookup(kind, orig string) (string, bool) {
	if i, ok := r.byValue[valueKey{kind, orig}]; ok {
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
		case TokenHost, TokenVM, TokenUser, TokenCluster, TokenDatacenter, TokenSwitch, TokenPortgroup, TokenMoID:
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
	case TokenHost, TokenVM, TokenDatastore, TokenPath, TokenUser, TokenLocalPath, TokenFingerprint, TokenCluster, TokenDatacenter,
		TokenSwitch, TokenPortgroup, TokenMoID:
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
		r.overflow = false
		r.learnVMs(hr)
		if r.overflow {
			// Some of its names are not in the map: none of its outputs
			// can be kept (InPlace withholds them).
			if r.overHosts == nil {
				r.overHosts = map[string]bool{}
			}
			r.overHosts[hr.Host] = true
		}
	}
	r.overflow = false
}

// learnVMs learns the VM names of one host's results.
func (r *Redactor) learnVMs(hr hostio.HostResult) {
	if r.Names {
		r.learnSiteNames(hr)
	}
	for _, c := range hr.Captures {
		if c.Kind == catalog.KindVCenterHost && c.Stdout != "" {
			// The host's cluster, named by the customer (--cluster names
			// only the one scanned; a datacenter-wide scan reads them all).
			if h, _ := parse.VCenterHostConfig(c.Stdout); h.Cluster != nil {
				r.learnName(TokenCluster, h.Cluster.Name)
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
		if c.Kind == catalog.KindVMX && c.Stdout != "" {
			r.learnVMX(c.Stdout)
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

// learnSiteNames learns, for --redact-names, the names of distributed
// switches and port groups and the vCenter managed-object IDs of one
// host's results.
func (r *Redactor) learnSiteNames(hr hostio.HostResult) {
	vmknics := func(ns []parse.Vmknic) {
		for _, n := range ns {
			r.learnName(TokenSwitch, n.VDSName)
			r.learnName(TokenPortgroup, n.Portgroup)
		}
	}
	switches := func(ds []parse.DVSwitch) {
		for _, d := range ds {
			r.learnName(TokenSwitch, d.Name)
		}
	}
	for _, c := range hr.Captures {
		if c.Stdout == "" {
			continue
		}
		switch c.Kind {
		case catalog.KindDVSList:
			ds, _ := parse.DVSList(c.Stdout)
			switches(ds)
		case catalog.KindIPInterfaceList:
			ns, _ := parse.IPInterfaceList(c.Stdout)
			vmknics(ns)
		case catalog.KindVCenterHost:
			h, _ := parse.VCenterHostConfig(c.Stdout)
			switches(h.DVSwitches)
			vmknics(h.Vmknics)
			r.learnName(TokenMoID, h.Parent)
		case catalog.KindVCenterVMs:
			vms, _ := parse.VCenterVMConfig(c.Stdout)
			for _, vm := range vms {
				for _, a := range vm.Adapters {
					r.learnName(TokenSwitch, a.DVSName)
					r.learnName(TokenPortgroup, a.Network)
					r.learnName(TokenMoID, a.PortgroupKey)
				}
			}
		}
		if c.Kind == catalog.KindVCenterHost || c.Kind == catalog.KindVCenterVMs {
			for _, m := range reMoIDField.FindAllStringSubmatch(c.Stdout, -1) {
				// "ClusterComputeResource:domain-c7": the ID alone too.
				if _, id, ok := strings.Cut(m[1], ":"); ok {
					r.learnName(TokenMoID, id)
				}
				r.learnName(TokenMoID, m[1])
			}
		}
	}
}

// reMoIDField finds the managed-object IDs of vCenter's documents.
var reMoIDField = regexp.MustCompile(`"(?:moref|parent|backing\.port\.portgroupKey)"\s*:\s*"([^"\\]{1,80})"`)

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
	spellings := []string{h}
	if short, _, ok := strings.Cut(h, "."); ok && short != "" {
		if _, isIP := netip.ParseAddr(short); isIP != nil {
			spellings = append(spellings, short)
		}
	}
	// Host names are case-insensitive (DNS): a prompt, a log or vCenter
	// may spell one in capitals ("ESX-PROD-17"). Its lower and upper case
	// spellings get its token too.
	for _, n := range spellings {
		for _, v := range []string{n, strings.ToLower(n), strings.ToUpper(n)} {
			r.addNameChecked(TokenHost, v, tok)
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
	case TokenCluster, TokenDatacenter, TokenSwitch, TokenPortgroup:
		tok = fmt.Sprintf("%s-%02d", kind, r.next(kind))
	case TokenMoID:
		tok = fmt.Sprintf("moid-%04d", r.next(kind))
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
	case len(name) > MaxNameBytes:
		why = fmt.Sprintf("longer than %d bytes: not a host or VM name ESXi or vCenter allows", MaxNameBytes)
	case strings.Trim(name, "0123456789.") == "":
		why = "a number: replacing it would alter unrelated values"
	case kind != TokenMoID && (reReservedName.MatchString(name) || vocabulary[strings.ToLower(name)]):
		why = "an ESXi keyword or device name: replacing it would alter the output's meaning"
	case r.seeded[name]:
		// A real name equal to a token of the reused map: it would stay
		// in the bundle, indistinguishable from a token.
		r.collisions = append(r.collisions, Skipped{kind, name, "a real identifier equal to a token of the token map"})
		return false
	case r.tokens[name]:
		why = "already a redaction token"
	case len(r.order) >= r.maxTokens():
		r.overflow = true
		return false
	}
	if why != "" {
		r.skipped = append(r.skipped, Skipped{kind, name, why})
		return false
	}
	r.addNameToken(kind, name, tok)
	return true
}

func (r *Redactor) addNameToken(kind, name, tok string) {
	name = strings.Clone(name)
	r.names[name] = tok
	r.trie.insert(name)
	r.spansLines = r.spansLines || strings.ContainsAny(name, "\r\n")
	r.record(kind, name, tok)
}

// MaxNameBytes is the longest name redaction learns: ESXi and vCenter
// allow 80 characters for a VM name and 253 bytes for a host name, so a
// longer "name" is not one; it is listed as not redacted. The bound keeps
// the cost of finding names linear in the text (at most MaxNameBytes steps
// from one position).
const MaxNameBytes = 512

func isWordRune(c rune) bool {
	if c < utf8.RuneSelf {
		return wordByte[c]
	}
	return unicode.IsLetter(c) || unicode.IsDigit(c)
}

// wordByte marks the ASCII word characters.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()

// nameTrie finds the learned names that start at a position of a text,
// byte by byte: the cost of a lookup is the length of the longest name
// that could match there, whatever the number of names.
type nameTrie struct {
	root  [256]int32       // first byte -> node (0: none)
	edges map[uint64]int32 // node<<8 | byte -> node
	final map[int32]string // node -> the name that ends there
	nodes int32
}

func (t *nameTrie) insert(name string) {
	if name == "" {
		return
	}
	if t.edges == nil {
		t.edges, t.final = map[uint64]int32{}, map[int32]string{}
	}
	node := t.root[name[0]]
	if node == 0 {
		t.nodes++
		node = t.nodes
		t.root[name[0]] = node
	}
	for i := 1; i < len(name); i++ {
		k := uint64(node)<<8 | uint64(name[i])
		next, ok := t.edges[k]
		if !ok {
			t.nodes++
			next = t.nodes
			t.edges[k] = next
		}
		node = next
	}
	t.final[node] = name
}

// nameAt returns the longest learned name that occurs at s[i:] as whole
// words, or "". prev is the rune before i.
func (r *Redactor) nameAt(s string, i int, prev rune) string {
	node := r.trie.root[s[i]]
	if node == 0 {
		return ""
	}
	prevWord := isWordRune(prev)
	if prevWord && s[i] < utf8.RuneSelf && wordByte[s[i]] {
		return "" // inside a word: no name starts here
	}
	best := ""
	for j := i + 1; ; j++ {
		if n, ok := r.trie.final[node]; ok && r.bounded(s, i, n, prevWord) {
			best = n
		}
		if j >= len(s) || j-i >= MaxNameBytes {
			break
		}
		next, ok := r.trie.edges[uint64(node)<<8|uint64(s[j])]
		if !ok {
			break
		}
		node = next
	}
	return best
}

// bounded reports whether name, found at s[i:], stands as whole words:
// not glued to a word rune on a side where it starts or ends with one.
func (r *Redactor) bounded(s string, i int, name string, prevWord bool) bool {
	if first, _ := utf8.DecodeRuneInString(name); prevWord && isWordRune(first) {
		return false
	}
	end := i + len(name)
	if end < len(s) {
		lastR, _ := utf8.DecodeLastRuneInString(name)
		if after, _ := utf8.DecodeRuneInString(s[end:]); isWordRune(lastR) && isWordRune(after) {
			return false
		}
	}
	return true
}

// replaceNames replaces whole-word occurrences of the learned names,
// longest first, in one left-to-right pass. Its cost grows with the text,
// not with the number of names (a 1,000-host fleet has thousands): at most
// MaxNameBytes trie steps from a position, and none inside a word.
func (r *Redactor) replaceNames(s string) string {
	if len(r.names) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	prev := rune(' ')
	for i := 0; i < len(s); {
		if n := r.nameAt(s, i, prev); n != "" {
			b.WriteString(s[last:i])
			b.WriteString(r.names[n])
			i += len(n)
			last = i
			prev, _ = utf8.DecodeLastRuneInString(n)
			continue
		}
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
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
//
// Its cost is linear in the text: every identifier is on one line (no
// pattern and no learned name spans a newline; a name that does is
// replaced over the whole text first), so the text is redacted a line at a
// time, and the patterns run only on lines holding the characters they
// need (a '.' for IPv4, ':' for MACs and IPv6, '-' for UUIDs). Go's
// regular expressions are linear but slow on large inputs; on one line
// with a cheap filter, a 4 MiB output redacts in tens of milliseconds.
func (r *Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	if r.multiline() {
		s = r.doctorIDs(s)
		s = r.replaceNames(s)
	}
	return mapLines(s, r.line)
}

// mapLines applies f to each line of s (with its newline), and builds a
// new string only when a line changed.
func mapLines(s string, f func(string) string) string {
	var b strings.Builder
	copied := 0 // s[:copied] is in b
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start + 1
		}
		line := s[start:end]
		if red := f(line); red != line {
			if copied == 0 {
				b.Grow(len(s) + len(s)/8)
			}
			b.WriteString(s[copied:start])
			b.WriteString(red)
			copied = end
		}
		start = end
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// line redacts one line (with its newline, if any).
//
// The format passes run in order (paths, UUIDs, GIDs, MACs, IPv6, IPv4);
// a match that overlaps what an earlier pass matched (a token it put
// there, or a value it kept) is left alone, so that in text gluing
// identifiers together a later pass never takes half a token ("a0:42 3e
// ..." would otherwise become "a0:00 00 ...", which reads as a MAC): the
// passes find the same spans in the redacted text as in the original,
// and redacting twice is redacting once.
func (r *Redactor) line(s string) string {
	if !r.multiline() {
		s = r.doctorIDs(s)
		s = r.replaceNames(s)
	}
	var colons, dots, dashes int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			colons++
		case '.':
			dots++
		case '-':
			dashes++
		}
	}
	macField := macContext(s)
	if dashes+colons+dots == 0 && !macField {
		return s
	}
	var spans [][2]int
	all := func(string) bool { return true }
	s, spans = replaceKept(s, spans, findPath, false, r.path, all)
	if dashes > 0 {
		s, spans = replaceKept(s, spans, findUUIDSpaced, false, r.uuid, all)
		s, spans = replaceKept(s, spans, findUUIDDashed, false, r.uuid, all)
	}
	if colons >= 7 {
		s, spans = replaceKept(s, spans, findGID, false, r.gid, all)
	}
	if colons >= 5 {
		s, spans = replaceKept(s, spans, findMAC, false, r.mac, all)
	}
	// The other notations of a MAC, with one token per MAC whatever its
	// spelling (r.mac canonicalises): IEEE's dashes, Cisco's dotted
	// groups, and twelve bare hex digits in a MAC field.
	if dashes >= 5 {
		s, spans = replaceKept(s, spans, findMACDash, false, r.mac, all)
	}
	if dots >= 2 {
		s, spans = replaceKept(s, spans, findMACDot, false, r.mac, all)
	}
	if macField {
		s, spans = replaceKept(s, spans, findMACBare, false, r.mac, all)
	}
	if colons >= 2 {
		// An IPv6 match left as it is may hold an IPv4 address
		// (::ffff:192.168.50.101, or glued text): only a token is kept
		// from the IPv4 pass.
		s, spans = replaceKept(s, spans, findIPv6, true, r.ipv6, r.isIPv6Token)
	}
	if dots >= 3 {
		s, _ = replaceKept(s, spans, findIPv4, true, r.ipv4, all)
	}
	return s
}

// isIPv6Token reports whether s is an IPv6 token, in any spelling.
func (r *Redactor) isIPv6Token(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && r.tokens[a.String()]
}

// replaceKept replaces the matches of find by f(match), left to right,
// except those overlapping a span of an earlier pass and, when bounded,
// those glued to a word or a dotted number (replaceBounded). It returns
// the new text and the spans of the earlier passes and of its own
// matches (those it replaced, and those left as they are that keep says
// to protect), in the new text's positions.
func replaceKept(s string, spans [][2]int, find finder, bounded bool, f func(string) string, keep func(string) bool) (string, [][2]int) {
	var b strings.Builder
	var out [][2]int
	last, delta, k := 0, 0, 0
	flush := func(upTo int) { // earlier spans ending by upTo, shifted
		for ; k < len(spans) && spans[k][1] <= upTo; k++ {
			out = append(out, [2]int{spans[k][0] + delta, spans[k][1] + delta})
		}
	}
	for from := 0; from <= len(s); {
		i, j := find(s, from)
		if i < 0 {
			break
		}
		from = j
		if overlapsSpan(spans, i, j) || bounded && !boundedMatch(s, i, j) {
			continue
		}
		flush(i)
		rep := f(s[i:j])
		if rep == s[i:j] {
			if keep(rep) {
				out = append(out, [2]int{i + delta, j + delta})
			}
			continue
		}
		if b.Len() == 0 && last == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[last:i])
		out = append(out, [2]int{i + delta, i + delta + len(rep)})
		b.WriteString(rep)
		delta += len(rep) - (j - i)
		last = j
	}
	flush(len(s))
	if last == 0 {
		return s, out
	}
	b.WriteString(s[last:])
	return b.String(), out
}

// overlapsSpan reports whether [i,j) overlaps one of the sorted spans.
func overlapsSpan(spans [][2]int, i, j int) bool {
	n := sort.Search(len(spans), func(k int) bool { return spans[k][1] > i })
	return n < len(spans) && spans[n][0] < j
}

// multiline reports whether a learned name or local path holds a line
// break: those are replaced over the whole text before it is split.
func (r *Redactor) multiline() bool { return r.spansLines }

// replaceBounded replaces matches not glued to a word or a dotted number
// ("4.23.0.66-1vmw" is a driver version, not an address).
func replaceBounded(s string, find finder, f func(string) string) string {
	s, _ = replaceKept(s, nil, find, true, f, func(string) bool { return true })
	return s
}

// boundedMatch reports whether s[i:j] is not glued to a word or a dotted
// number.
func boundedMatch(s string, i, j int) bool {
	if i > 0 {
		if c := s[i-1]; isASCIIWord(c) || c == '.' {
			return false
		}
	}
	if j < len(s) {
		if c := s[j]; isASCIIWord(c) || (c == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
			return false
		}
	}
	return true
}

func isASCIIWord(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (r *Redactor) ipv4(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		// Leading zeros ("192.168.050.011"): the same address, one token.
		if c, ok := ipv4Canon(s); ok && c != s {
			if tok := r.ipv4(c); tok != c {
				return tok
			}
		}
		return s
	}
	if !a.Is4() {
		return s
	}
	b := a.As4()
	if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || isMask(b) || r.tokens[a.String()] {
		return s // kept, or already a token: never redacted twice
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

// ipv4Canon reads a dotted quad whose numbers may have leading zeros
// (read as decimal, as people write them) and returns it canonical.
func ipv4Canon(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return "", false
	}
	var b [4]byte
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || p == "" || len(p) > 3 || n > 255 || p[0] == '+' || p[0] == '-' {
			return "", false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b).String(), true
}

// isMask reports whether b is a netmask (contiguous ones, incl. 0.0.0.0).
func isMask(b [4]byte) bool {
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	inv := ^v
	return inv&(inv+1) == 0
}

func (r *Redactor) ipv6(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || strings.Count(s, ":") < 2 {
		return s
	}
	if v4, prefix, ok := embeddedIPv4(a); ok {
		// An IPv4-mapped (::ffff:c0a8:320b) or -compatible (::c0a8:320b)
		// address is its IPv4 address: the IPv4 token, in the same form.
		// Spelled with a dotted tail, the IPv4 pass redacts the tail.
		if k := strings.LastIndexByte(s, ':'); strings.IndexByte(s[k+1:], '.') >= 0 {
			return s
		}
		tok := r.ipv4(v4.String())
		t, err := netip.ParseAddr(tok)
		if tok == v4.String() || err != nil || !t.Is4() {
			return s
		}
		b := t.As4()
		out := fmt.Sprintf("%s%x:%x", prefix, uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3]))
		if strings.ToUpper(s) == s && strings.ToLower(s) != s {
			out = strings.ToUpper(out)
		}
		return out
	}
	// An address spelled with a dotted tail whose tail is an IPv4 token
	// is already redacted: "::0.0.0.1" (loopback, kept) has its tail
	// redacted by the IPv4 pass, "::198.18.0.1", which parses as another,
	// non-loopback address; redacting it again would not be redacting once.
	if k := strings.LastIndexByte(s, ':'); strings.IndexByte(s[k+1:], '.') >= 0 && r.tokens[s[k+1:]] {
		return s
	}
	if a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() {
		return s
	}
	// The canonical form: the short and long spellings of one address
	// (fe80::250:56ff:fe8a:1a0, fe80:0000:...:01a0) get one token, and a
	// token in any spelling is never redacted again.
	norm := a.String()
	if r.tokens[norm] {
		return s
	}
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
		// fe80::db8:N: not fe80::N, which real links use (fe80::1).
		tok = fmt.Sprintf("fe80::db8:%x", r.next(TokenIPv6))
	} else {
		tok = fmt.Sprintf("2001:db8:0:%x::%x", n, r.next(TokenIPv6))
	}
	r.record(TokenIPv6, norm, tok)
	return tok
}

// macCanon is a MAC in any notation (colons, dashes, Cisco's dotted
// groups, bare) in the canonical one: lowercase, colon-separated ("" when
// s is no MAC).
func macCanon(s string) string {
	hex := strings.ToLower(macSeparators.Replace(s))
	if len(hex) != 12 || !hexRun(hex, 0, 12) {
		return ""
	}
	return hex[0:2] + ":" + hex[2:4] + ":" + hex[4:6] + ":" + hex[6:8] + ":" + hex[8:10] + ":" + hex[10:12]
}

var macSeparators = strings.NewReplacer(":", "", "-", "", ".", "")

// macAs writes a MAC token (canonical) in the notation and case of s.
func macAs(tok, s string) string {
	hex := macSeparators.Replace(tok)
	var out string
	switch {
	case strings.IndexByte(s, ':') >= 0:
		out = tok
	case strings.IndexByte(s, '-') >= 0:
		out = strings.ReplaceAll(tok, ":", "-")
	case strings.IndexByte(s, '.') >= 0:
		out = hex[0:4] + "." + hex[4:8] + "." + hex[8:12]
	default:
		out = hex
	}
	if strings.ToUpper(s) == s && strings.ToLower(s) != s {
		out = strings.ToUpper(out)
	}
	return out
}

func (r *Redactor) mac(s string) string {
	norm := macCanon(s)
	if norm == "" || norm == "00:00:00:00:00:00" || norm == "ff:ff:ff:ff:ff:ff" || r.tokens[norm] {
		return s
	}
	if tok, ok := r.lookup(TokenMAC, norm); ok {
		return macAs(tok, s)
	}
	n := r.next(TokenMAC)
	tok := fmt.Sprintf("02:00:00:%02x:%02x:%02x", n>>16&0xff, n>>8&0xff, n&0xff)
	r.record(TokenMAC, norm, tok)
	return macAs(tok, s)
}

var uuidSeparators = strings.NewReplacer(" ", "", "-", "")

func (r *Redactor) uuid(s string) string {
	hex := strings.ToLower(uuidSeparators.Replace(s))
	if strings.Trim(hex, "0") == "" {
		return s
	}
	if r.tokens[s] || strings.Trim(hex[:len(hex)-12], "0") == "" && r.tokens[hex[len(hex)-12:]] {
		return s // a token, in any of its forms (also of a seeded map)
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
		if j := strings.IndexByte(c, '.'); j > 0 && r.tokens[c[:j]] {
			continue // a token whose extension a later pass changed
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

// embeddedIPv4 returns the IPv4 address an IPv4-mapped (::ffff:a.b.c.d)
// or IPv4-compatible (::a.b.c.d, a not 0) IPv6 address carries, and the
// prefix to write its token after.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	if a.Is4In6() {
		return a.Unmap(), "::ffff:", true
	}
	b := a.As16()
	for _, x := range b[:12] {
		if x != 0 {
			return netip.Addr{}, "", false
		}
	}
	if b[12] == 0 {
		return netip.Addr{}, "", false // ::1, ::2: not an IPv4 address
	}
	return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "::", true
}

// Results returns redacted copies of results.
func (r *Redactor) Results(in []hostio.HostResult) []hostio.HostResult {
	out := Clone(in)
	for i := range out {
		r.InPlace(&out[i])
	}
	return out
}

// InPlace redacts one host result where it is: each output is replaced by
// its redacted text, so the original can be released at once (a bundle
// of a large scan holds its outputs once). The caller must own hr (Clone
// first otherwise).
//
// An output whose identifiers do not fit in the token map (MaxTokens) is
// withheld: emptied, the capture marked failed with the reason, never
// kept half redacted. So are all of a host's outputs when its VM names
// could not all be learned.
func (r *Redactor) InPlace(hr *hostio.HostResult) {
	wholeHost := r.overHosts[hr.Host]
	r.overflow = false
	hr.Host = r.Text(hr.Host)
	hr.Address = r.Text(hr.Address)
	hr.Reason = r.Text(hr.Reason)
	for j := range hr.Notes {
		hr.Notes[j] = r.Text(hr.Notes[j])
	}
	if r.overflow {
		wholeHost = true
	}
	withheld := 0
	for j := range hr.Captures {
		c := &hr.Captures[j]
		r.overflow = false
		c.Host = r.Text(c.Host)
		c.Command = r.Text(c.Command)
		if c.Kind == catalog.KindVMX {
			c.Stdout = r.vmxText(c.Stdout)
		} else {
			c.Stdout = r.Text(c.Stdout)
		}
		c.Stderr = r.Text(c.Stderr)
		c.Error = r.Text(c.Error)
		c.Filter = r.Text(c.Filter)
		if (r.overflow || wholeHost) && (c.Stdout != "" || c.Stderr != "") {
			c.Stdout, c.Stderr = "", ""
			c.Status, c.ExitCode = hostio.StatusFailed, -1
			c.Error = fmt.Sprintf("withheld from the redacted bundle: the outputs hold more distinct identifiers than redaction maps (%d); it is not kept half redacted", r.maxTokens())
			withheld++
		}
	}
	r.overflow = false
	if withheld > 0 {
		hr.Notes = append(hr.Notes, fmt.Sprintf("%d outputs withheld from the redacted bundle: more distinct identifiers than redaction maps (%d in all)", withheld, r.maxTokens()))
		if hr.Status == hostio.StatusCollected {
			hr.Status = hostio.StatusPartial
			if hr.Reason == "" {
				hr.Reason = fmt.Sprintf("%d outputs withheld from the redacted bundle", withheld)
			}
		}
	}
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
