package sshrun

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// HostKeyPolicy says what to do with a host key that known_hosts does not
// know. A key that differs from the recorded one is refused under every
// policy except Insecure.
type HostKeyPolicy int

const (
	// HostKeyStrict refuses unknown host keys (the default).
	HostKeyStrict HostKeyPolicy = iota
	// HostKeyAcceptNew records unknown host keys in the known_hosts file
	// (OpenSSH's StrictHostKeyChecking=accept-new) and refuses changed ones.
	HostKeyAcceptNew
	// HostKeyInsecure accepts any key without checking. Never the default;
	// every host's report carries InsecureHostKeyNote.
	HostKeyInsecure
)

// InsecureHostKeyNote is the remark every host's report carries when host
// keys are not verified.
const InsecureHostKeyNote = "host key NOT verified (--insecure-ignore-host-key): the connection could have been intercepted"

// HostKeyDB verifies host keys against one known_hosts file and, under
// HostKeyAcceptNew, appends the keys of hosts it has never seen. It is safe
// for concurrent use by many connections.
type HostKeyDB struct {
	path   string
	policy HostKeyPolicy
	check  ssh.HostKeyCallback
	// missing is true when the file did not exist when loaded.
	missing bool

	// warnings are the malformed lines skipped, as OpenSSH skips them;
	// copy is the sanitized copy's path that knownhosts names in its
	// errors instead of path (see load).
	warnings []string
	copy     string

	mu sync.Mutex
	// accepted holds keys recorded during this run, by normalized address,
	// so that a second connection to the same host verifies against them.
	accepted map[string][]ssh.PublicKey
}

// LoadHostKeyDB reads a known_hosts file. A file that does not exist is
// an empty database (every host is unknown), not an error; a file that
// exists but cannot be read or parsed is an error.
func LoadHostKeyDB(path string, policy HostKeyPolicy) (*HostKeyDB, error) {
	db := &HostKeyDB{path: path, policy: policy, accepted: map[string][]ssh.PublicKey{}}
	if policy == HostKeyInsecure {
		return db, nil
	}
	if st, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		db.missing = true
		cb, err := knownhosts.New()
		db.check = cb
		return db, err
	} else if err != nil {
		return nil, fmt.Errorf("cannot read known_hosts file %s: %w", path, err)
	} else if !st.Mode().IsRegular() && path != os.DevNull {
		// It is also appended to (--accept-new-host-keys): a pipe or a
		// device would hold the scan, or lose the keys.
		return nil, fmt.Errorf("known_hosts file %s is %s, not a file", path, hostio.FileKind(st.Mode()))
	}
	if err := db.load(); err != nil {
		return nil, fmt.Errorf("cannot read known_hosts file %s: %w", path, err)
	}
	return db, nil
}

// Path is the known_hosts file.
func (db *HostKeyDB) Path() string { return db.path }

// Policy is the policy for unknown keys.
func (db *HostKeyDB) Policy() HostKeyPolicy { return db.policy }

// Notes are the report remarks for every host checked with this database.
func (db *HostKeyDB) Notes() []string {
	if db.policy == HostKeyInsecure {
		return []string{InsecureHostKeyNote}
	}
	return nil
}

// UnknownHostKeyError is returned for a host whose key is not recorded.
type UnknownHostKeyError struct {
	Host       string // the address checked, host:port
	Key        ssh.PublicKey
	KnownHosts string
}

func (e *UnknownHostKeyError) Error() string {
	host, port := splitHostPortDefault(e.Host)
	scan := "ssh-keyscan -t " + keyscanType(e.Key.Type())
	if port != "22" {
		scan += " -p " + port
	}
	scan += " " + host + " >> " + e.KnownHosts
	return fmt.Sprintf("unknown host key for %s: %s %s is not in %s. Check that fingerprint on the host "+
		"(ESXi Shell: for f in /etc/ssh/ssh_host_*_key.pub; do ssh-keygen -lf $f; done), then accept it with "+
		"--accept-new-host-keys or add it yourself: %s",
		e.Host, e.Key.Type(), ssh.FingerprintSHA256(e.Key), e.KnownHosts, scan)
}

// HostKeyChangedError is returned for a host whose key differs from the
// one recorded: possibly a man-in-the-middle. It is never accepted.
type HostKeyChangedError struct {
	Host string
	Key  ssh.PublicKey
	// Want are the recorded keys, with their file and line.
	Want []knownhosts.KnownKey
}

func (e *HostKeyChangedError) Error() string {
	var where []string
	for _, w := range e.Want {
		where = append(where, fmt.Sprintf("%s:%d (%s %s)", w.Filename, w.Line, w.Key.Type(), ssh.FingerprintSHA256(w.Key)))
	}
	file := ""
	if len(e.Want) > 0 {
		file = e.Want[0].Filename
	}
	return fmt.Sprintf("HOST KEY MISMATCH for %s: it presented %s %s but known_hosts records %s. "+
		"Someone may be intercepting the connection, or the host was reinstalled. Not connecting. "+
		"If the change is expected, remove the old entry (ssh-keygen -R '%s' -f %s) and scan again with --accept-new-host-keys",
		e.Host, e.Key.Type(), ssh.FingerprintSHA256(e.Key), strings.Join(where, ", "),
		knownhosts.Normalize(e.Host), file)
}

// RevokedHostKeyError is returned for a key marked @revoked in known_hosts.
type RevokedHostKeyError struct {
	Host string
	Err  *knownhosts.RevokedError
}

func (e *RevokedHostKeyError) Error() string {
	return fmt.Sprintf("host key of %s is marked @revoked in %s:%d; not connecting",
		e.Host, e.Err.Revoked.Filename, e.Err.Revoked.Line)
}

// Callback returns the host key callback for one connection. hostname is
// the address the key is recorded under (host:port); remote is ignored in
// favour of it, as OpenSSH does with CheckHostIP=no.
func (db *HostKeyDB) Callback() ssh.HostKeyCallback {
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		return db.verify(hostname, key)
	}
}

// zeroAddr stands in for the remote address: known_hosts lookups use the
// host name only.
var zeroAddr = &net.TCPAddr{IP: net.IPv4zero}

func (db *HostKeyDB) verify(hostname string, key ssh.PublicKey) error {
	if db.policy == HostKeyInsecure {
		return nil
	}
	err := db.check(hostname, zeroAddr, key)
	if err == nil {
		return nil
	}
	var revoked *knownhosts.RevokedError
	if errors.As(err, &revoked) {
		if db.copy != "" && revoked.Revoked.Filename == db.copy {
			revoked.Revoked.Filename = db.path
		}
		return &RevokedHostKeyError{Host: hostname, Err: revoked}
	}
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		return err
	}
	if len(ke.Want) > 0 {
		for i := range ke.Want {
			if db.copy != "" && ke.Want[i].Filename == db.copy {
				ke.Want[i].Filename = db.path
			}
		}
		return &HostKeyChangedError{Host: hostname, Key: key, Want: ke.Want}
	}
	// Unknown to the file: maybe accepted earlier in this run.
	norm := knownhosts.Normalize(hostname)
	db.mu.Lock()
	defer db.mu.Unlock()
	if prev := db.accepted[norm]; len(prev) > 0 {
		for _, k := range prev {
			if bytes.Equal(k.Marshal(), key.Marshal()) {
				return nil
			}
		}
		var want []knownhosts.KnownKey
		for _, k := range prev {
			want = append(want, knownhosts.KnownKey{Key: k, Filename: db.path + " (recorded earlier in this scan)"})
		}
		return &HostKeyChangedError{Host: hostname, Key: key, Want: want}
	}
	if db.policy != HostKeyAcceptNew {
		return &UnknownHostKeyError{Host: hostname, Key: key, KnownHosts: db.path}
	}
	if err := db.appendLocked(knownhosts.Line([]string{norm}, key)); err != nil {
		return fmt.Errorf("cannot record the new host key of %s in %s: %w", hostname, db.path, err)
	}
	db.accepted[norm] = append(db.accepted[norm], key)
	return nil
}

// appendLocked appends one line to the known_hosts file with a single
// O_APPEND write (creating the file 0600 and its directory 0700 if
// needed), so concurrent writers never interleave within a line.
func (db *HostKeyDB) appendLocked(line string) error {
	if err := os.MkdirAll(filepath.Dir(db.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(db.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	buf := []byte(line + "\n")
	// Start on a line of our own if the file does not end with a newline.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		if last, err := lastByte(db.path, st.Size()); err == nil && last != '\n' {
			buf = append([]byte{'\n'}, buf...)
		}
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func lastByte(path string, size int64) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, size-1); err != nil {
		return 0, err
	}
	return b[0], nil
}

// KnownKeyTypes returns the key types recorded for hostname (host:port),
// in the file or accepted during this run.
func (db *HostKeyDB) KnownKeyTypes(hostname string) []string {
	if db.policy == HostKeyInsecure {
		return nil
	}
	var types []string
	add := func(t string) {
		for _, have := range types {
			if have == t {
				return
			}
		}
		types = append(types, t)
	}
	// A key no file can hold makes knownhosts list every recorded key of
	// the host in KeyError.Want.
	var ke *knownhosts.KeyError
	if err := db.check(hostname, zeroAddr, probeKey{}); errors.As(err, &ke) {
		for _, w := range ke.Want {
			add(w.Key.Type())
		}
	}
	db.mu.Lock()
	for _, k := range db.accepted[knownhosts.Normalize(hostname)] {
		add(k.Type())
	}
	db.mu.Unlock()
	return types
}

// HostKeyAlgorithmsFor returns the host key algorithms to offer to
// hostname: those of the key types recorded for it, so that a server
// holding several keys presents the one we can verify (x/crypto does not
// consult known_hosts when negotiating, golang/go#49631). For a host with
// no recorded key, OpenSSH's order (ed25519, ECDSA, RSA).
func (db *HostKeyDB) HostKeyAlgorithmsFor(hostname string) []string {
	types := db.KnownKeyTypes(hostname)
	if len(types) == 0 {
		// Unknown host: ask for the key OpenSSH would record (ed25519
		// first), so the fingerprint we show is the one users compare.
		types = defaultKeyOrder
	}
	var algos []string
	for _, t := range preferredKeyTypes(types) {
		algos = append(algos, HostKeyAlgorithms(t)...)
	}
	return algos
}

// defaultKeyOrder is OpenSSH's host key preference, by key type.
var defaultKeyOrder = []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521, ssh.KeyAlgoRSA}

// preferredKeyTypes orders key types like OpenSSH's default preference.
func preferredKeyTypes(types []string) []string {
	order := defaultKeyOrder
	var out []string
	for _, o := range order {
		for _, t := range types {
			if t == o {
				out = append(out, t)
			}
		}
	}
	for _, t := range types {
		known := false
		for _, o := range order {
			known = known || o == t
		}
		if !known {
			out = append(out, t)
		}
	}
	return out
}

// probeKey is a public key that matches nothing.
type probeKey struct{}

func (probeKey) Type() string                        { return "pvrdma-doctor-probe" }
func (probeKey) Marshal() []byte                     { return []byte("\x00pvrdma-doctor-probe-key\x00") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe key") }
func (probeKey) String() string                      { return "probe" }
func keyscanType(t string) string {
	return strings.TrimPrefix(strings.SplitN(t, "-sha2", 2)[0], "ssh-")
}
func splitHostPortDefault(hp string) (host, port string) { return splitHostPort(hp, "22") }

func splitHostPort(hp, defPort string) (string, string) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return h, p
	}
	return strings.Trim(hp, "[]"), defPort
}

// Recorded lists, like OpenSSH's "Permanently added" warnings, the keys this
// run appended to the known_hosts file (--accept-new-host-keys), sorted.
func (db *HostKeyDB) Recorded() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	var out []string
	for host, keys := range db.accepted {
		for _, k := range keys {
			out = append(out, fmt.Sprintf("Permanently added %s (%s %s) to %s", host, k.Type(), ssh.FingerprintSHA256(k), db.path))
		}
	}
	sort.Strings(out)
	return out
}
