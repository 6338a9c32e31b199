package redact

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Identifiers the doctor itself adds to what it records, beside what the
// hosts print: the addresses it dialled (a hosts file's NAME ADDRESS:PORT,
// an ssh_config HostName, jump hosts), the SSH user in its messages, local
// paths (known_hosts, key and config files: they hold the operator's home
// directory) and host key fingerprints. The caller names the ones it knows
// (AddIdentifier); the rest are found by their format in the doctor's own
// text (reasons, notes, errors), so `redact` catches them in bundles made
// with --no-redact too.

var (
	reFingerprint = regexp.MustCompile(`\b(?:SHA256:[A-Za-z0-9+/]{16,}={0,2}|MD5:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){15})`)
	// reUserAt finds USER@HOST in the doctor's messages.
	reUserAt = regexp.MustCompile(`(?:^|[\s('"=,])([A-Za-z_][A-Za-z0-9._-]{0,31})@[A-Za-z0-9\[]`)
	// reHomeDir finds the user name in a home directory path.
	reHomeDir = regexp.MustCompile(`(?:/home/|/Users/|/usr/home/)([^/\s'"():,]+)`)
	// reJumpHost finds the jump host in "via jump host NAME (ADDR)".
	reJumpHost = regexp.MustCompile(`jump host (\S+) \(([^)\s]+)\)`)
)

// AddIdentifier registers an identifier the caller knows is in the
// results: TokenUser (an SSH user), TokenHost (a host name or an address,
// with or without port), TokenLocalPath (a local file or directory). tok is
// the token to use for a local path ("" for a generated one).
func (r *Redactor) AddIdentifier(kind, value, tok string) {
	value = strings.TrimSpace(value)
	if value == "" {
		return
	}
	switch kind {
	case TokenUser:
		r.learnUser(value)
	case TokenHost:
		r.learnAddress(value)
	case TokenCluster, TokenDatacenter:
		r.learnName(kind, value)
	case TokenLocalPath:
		if tok == "" {
			if t, ok := r.lookup(TokenLocalPath, filepath.Clean(value)); ok {
				tok = t
			} else {
				tok = fmt.Sprintf("local-path-%02d", r.next(TokenLocalPath))
			}
		}
		r.addLocalPath(value, tok)
	}
}

func (r *Redactor) addLocalPath(p, tok string) {
	p = filepath.Clean(p)
	if p == "/" || p == "." || p == "~" {
		return
	}
	if _, ok := r.lookup(TokenLocalPath, p); ok {
		return
	}
	r.record(TokenLocalPath, p, tok)
	r.localPaths = append(r.localPaths, Token{TokenLocalPath, p, tok})
	r.spansLines = r.spansLines || strings.ContainsAny(p, "\r\n")
	sort.SliceStable(r.localPaths, func(i, j int) bool { return len(r.localPaths[i].Original) > len(r.localPaths[j].Original) })
}

// learnDoctorText learns the identifiers in what the doctor wrote about
// each host: its address, users and home directories in its messages, jump
// hosts.
func (r *Redactor) learnDoctorText(results []hostio.HostResult) {
	for _, hr := range results {
		if hr.Address != "" {
			r.learnAddress(hr.Address)
		}
		r.learnFromMessage(hr.Reason)
		for _, n := range hr.Notes {
			r.learnFromMessage(n)
		}
		for _, c := range hr.Captures {
			r.learnFromMessage(c.Error)
		}
	}
}

// learnAddress learns a dialled address: a name like a host name; an IP
// the format rules keep (loopback: a tunnel) together with its port, in
// both the host:port and the known_hosts [host]:port spellings.
func (r *Redactor) learnAddress(addr string) {
	host, port, err := splitHostPort(addr)
	if err != nil {
		r.learnHost(addr)
		return
	}
	bare := strings.Trim(host, "[]")
	if a, err := netip.ParseAddr(bare); err == nil {
		if r.ipv4(bare) == bare && r.ipv6(bare) == bare && a.IsLoopback() {
			if tok := r.learnName(TokenHost, addr); tok != "" {
				r.addNameChecked(TokenHost, "["+bare+"]:"+port, tok)
			}
		}
		return
	}
	r.learnHost(addr)
}

func (r *Redactor) learnFromMessage(s string) {
	if s == "" {
		return
	}
	for _, m := range reUserAt.FindAllStringSubmatch(s, -1) {
		r.learnUser(m[1])
	}
	for _, m := range reHomeDir.FindAllStringSubmatch(s, -1) {
		r.learnUser(m[1])
	}
	for _, m := range reJumpHost.FindAllStringSubmatch(s, -1) {
		r.learnHost(m[1])
		r.learnHost(m[2])
	}
}

func (r *Redactor) learnUser(u string) {
	if u == "root" || u == "" {
		return
	}
	if _, known := r.names[u]; known {
		return
	}
	r.learnName(TokenUser, u)
}

// doctorIDs replaces local paths and host key fingerprints.
func (r *Redactor) doctorIDs(s string) string {
	for _, p := range r.localPaths {
		s = replacePathPrefix(s, p.Original, p.Token)
	}
	if !strings.Contains(s, "SHA256:") && !strings.Contains(s, "MD5:") {
		return s
	}
	return reFingerprint.ReplaceAllStringFunc(s, r.fingerprint)
}

// replacePathPrefix replaces p where it is a whole path or a path's prefix
// (followed by '/' or a character that cannot continue a file name).
func replacePathPrefix(s, p, tok string) string {
	if !strings.Contains(s, p) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, p)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(p)
		end := j == len(s) || strings.ContainsRune("/ \t\n:;,)'\"", rune(s[j]))
		start := i == 0 || !isPathByte(s[i-1])
		b.WriteString(s[:i])
		if end && start {
			b.WriteString(tok)
		} else {
			b.WriteString(p)
		}
		s = s[j:]
	}
}

func isPathByte(c byte) bool { return isASCIIWord(c) || c == '.' || c == '/' || c == '~' }

func (r *Redactor) fingerprint(s string) string {
	if tok, ok := r.lookup(TokenFingerprint, s); ok {
		return tok
	}
	algo, _, _ := strings.Cut(s, ":")
	tok := fmt.Sprintf("%s:fingerprint-%04d", algo, r.next(TokenFingerprint))
	r.record(TokenFingerprint, s, tok)
	return tok
}

// Collisions returns the real identifiers that equal a token of the seeded
// token map: a bundle written with that map would keep them as they are,
// indistinguishable from tokens.
func (r *Redactor) Collisions() []Skipped { return append([]Skipped(nil), r.collisions...) }

func (r *Redactor) markSeeded(tok string) {
	if r.seeded == nil {
		r.seeded = map[string]bool{}
	}
	r.seeded[tok] = true
}

// TokenCollisionError refuses a token map whose tokens are real
// identifiers of the results being redacted.
type TokenCollisionError struct{ Names []Skipped }

func (e *TokenCollisionError) Error() string {
	var list []string
	for _, n := range e.Names {
		list = append(list, fmt.Sprintf("%s %q", n.Kind, n.Value))
	}
	return fmt.Sprintf("the token map cannot be used: its tokens include real identifiers of these results (%s), which would be left unredacted; use another token map or none", strings.Join(list, ", "))
}
