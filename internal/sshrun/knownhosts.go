package sshrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"golang.org/x/crypto/ssh/knownhosts"
)

// maxBadKnownHostsLines bounds how many malformed lines are skipped before
// the file is refused as not a known_hosts file at all.
const maxBadKnownHostsLines = 100

var reKnownHostsLine = regexp.MustCompile(`^knownhosts: .*:(\d+): `)

// load reads the known_hosts file. A malformed line is skipped with a
// warning, as OpenSSH does, instead of making the whole file unusable:
// knownhosts stops at the first bad line, so such a file is parsed from a
// private copy in which the bad lines are blanked (line numbers kept), and
// the file names knownhosts reports are mapped back (verify).
func (db *HostKeyDB) load() error {
	if st, err := os.Stat(db.path); err == nil && st.Mode().IsRegular() && st.Size() > hostio.MaxKnownHostsFile {
		return fmt.Errorf("%s is larger than %s: not a known_hosts file", db.path, hostio.ByteSize(hostio.MaxKnownHostsFile))
	}
	cb, err := knownhosts.New(db.path)
	if err == nil {
		db.check = cb
		return nil
	}
	if !reKnownHostsLine.MatchString(err.Error()) {
		return err
	}
	data, err := hostio.ReadFileCapped(db.path, hostio.MaxKnownHostsFile)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte{'\n'})
	dir, err := os.MkdirTemp("", "pvrdma-doctor-known-hosts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db.copy = filepath.Join(dir, "known_hosts")
	for bad := 0; ; bad++ {
		if err := os.WriteFile(db.copy, bytes.Join(lines, nil), 0o600); err != nil {
			return err
		}
		cb, err := knownhosts.New(db.copy)
		if err == nil {
			db.check = cb
			return nil
		}
		msg := strings.ReplaceAll(err.Error(), db.copy, db.path)
		var n int
		if m := reKnownHostsLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		if n < 1 || n > len(lines) || bad >= maxBadKnownHostsLines {
			return errors.New(msg)
		}
		db.warnings = append(db.warnings, strings.TrimPrefix(msg, "knownhosts: ")+" (line skipped, as ssh does)")
		lines[n-1] = []byte{'\n'}
	}
}

// Warnings are the malformed known_hosts lines that were skipped.
func (db *HostKeyDB) Warnings() []string { return append([]string(nil), db.warnings...) }
