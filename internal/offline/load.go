// Package offline loads what `analyze`, `redact` and `diff` read instead
// of a live scan, as host results (captures): a support bundle (through
// bundle, the archive), a folder of saved outputs (one folder per host, one
// file per command) and a pasted SSH transcript, each held to the caps of
// a live scan. What could not be read is listed, never fatal while
// something is left to analyse.
package offline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Input kinds.
const (
	KindArchive    = "bundle"
	KindFolder     = "unpacked bundle"
	KindSaved      = "saved outputs"
	KindTranscript = "transcript"
)

// Input is one offline input, loaded: the host results to analyze and
// what went wrong while reading them.
type Input struct {
	Path string
	// Kind is KindArchive, KindFolder, KindSaved or KindTranscript.
	Kind string
	// Manifest is set for bundles whose manifest could be read.
	Manifest *bundle.Manifest
	Results  []hostio.HostResult
	// Problems make the input partial: damage found while reading
	// (truncated archive, checksum mismatch, missing outputs, ...).
	Problems []string
	// Ignored lists inputs that are not pvrdma-doctor command outputs
	// (unknown files).
	Ignored []string
	// Read says, per host of a transcript or folder of saved outputs, which
	// commands were read and which were passed over.
	Read []HostRead
	// Other lists transcript commands that are not pvrdma-doctor's and
	// belong to no host read: passed over quietly.
	Other []string
}

// DropListings releases what only reading the input needed: its
// manifest's host and file lists (the report and a bundle exported again
// use the manifest's header alone). A 1,000-host bundle's lists hold 11
// MB, live through the whole analysis otherwise.
func (in *Input) DropListings() {
	if in.Manifest != nil {
		m := *in.Manifest
		m.Hosts, m.Files = nil, nil
		in.Manifest = &m
	}
}

// Partial reports whether something could not be read.
func (in *Input) Partial() bool { return len(in.Problems) > 0 }

// Source describes the input for the report ("bundle x.tar.gz").
func (in *Input) Source() string {
	s := in.Kind + " " + in.Path
	if in.Manifest != nil && in.Manifest.Source != "" {
		s += " (" + in.Manifest.Source + ")"
	}
	return s
}

// Redacted reports whether the input is a redacted bundle.
func (in *Input) Redacted() bool { return in.Manifest != nil && in.Manifest.Redacted }

// Load reads an analyze input: a bundle (tar.gz, or unpacked folder), a
// folder of saved outputs (one folder per host, one file per command named
// catalog.FileName(command)), or a pasted SSH transcript. It returns an
// error when nothing can be analysed; damage that still leaves something to
// analyse is listed in Input.Problems.
func Load(p string) (*Input, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: give a support bundle (pvrdma-doctor bundle --out FILE.tar.gz), "+
			"a folder of saved command outputs or a saved SSH session (- reads standard input)", p)
	}
	if errors.Is(err, fs.ErrPermission) {
		return nil, fmt.Errorf("%s cannot be read (permission denied): run as a user who can read it, or copy it somewhere readable", p)
	}
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		// A symlink to a folder is walked at its target (WalkDir does not
		// follow a symlinked root).
		root := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			root = r
		}
		if !mayHoldOutputs(root) {
			// Refused in one line, before reading anything: a folder such
			// as the system's temporary one holds build caches, not
			// command outputs.
			return nil, fmt.Errorf("%s holds no command outputs: expected a bundle folder (manifest.json) or one folder per host holding files named after their command (e.g. esx01/esxcli_rdma_device_list.txt)", p)
		}
		files, err := bundle.ReadDir(root, limits)
		if err != nil {
			return nil, err
		}
		in, err := fromFiles(files, filepath.Base(filepath.Clean(p)))
		capInput(in)
		if in != nil {
			in.Path = p
			in.Problems = append(files.Problems, in.Problems...)
		}
		return in, wrapPath(p, err)
	}
	f, err := hostio.OpenInput(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadReader(p, f)
}

// LoadReader reads a bundle archive or a transcript from r (standard
// input); name labels it in messages.
func LoadReader(p string, r io.Reader) (*Input, error) {
	// A regular file is read at offsets: a bundle's derived files are then
	// checked without being inflated (bundle.ReadArchiveAt).
	at, size := readerAt(r)
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	if bundle.IsArchive(head) {
		var files *bundle.Files
		var err error
		if at != nil {
			files, err = bundle.ReadArchiveAt(at, size, limits)
		} else {
			files, err = bundle.ReadArchive(br, limits)
		}
		if err != nil {
			return nil, wrapPath(p, err)
		}
		problems := files.Problems
		in, err := fromFiles(files, "")
		capInput(in)
		if in != nil {
			in.Path = p
			in.Problems = append(problems, in.Problems...)
			if in.Kind == KindSaved {
				in.Problems = append(in.Problems, "the archive has no manifest.json: read as saved outputs")
			}
			in.Kind = KindArchive
		}
		if err != nil && len(problems) > 0 {
			err = fmt.Errorf("%w (%s)", err, strings.Join(problems, "; "))
		}
		return in, wrapPath(p, err)
	}
	b, err := io.ReadAll(io.LimitReader(br, limits.File+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limits.File {
		return nil, fmt.Errorf("%s: not a bundle, and too large (over %d MiB) for a transcript", p, limits.File>>20)
	}
	if !looksLikeText(b) {
		return nil, fmt.Errorf("%s: not a bundle: it is neither a .tar.gz support bundle, a folder of saved outputs, nor a text transcript", p)
	}
	if err := checkTranscript(b); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	in, err := FromTranscript(string(b))
	capInput(in)
	if in != nil {
		in.Path = p
	}
	return in, wrapPath(p, err)
}

// readerAt returns r as an io.ReaderAt of the bytes from its current
// offset, when r is a regular file (not a pipe, FIFO or terminal).
func readerAt(r io.Reader) (io.ReaderAt, int64) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil || pos > st.Size() {
		return nil, 0
	}
	return io.NewSectionReader(f, pos, st.Size()-pos), st.Size() - pos
}

func wrapPath(p string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", p, err)
}

func looksLikeText(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	n := len(b)
	if n > 8192 {
		n = 8192
	}
	s := b[:n]
	for len(s) > 0 && !utf8.Valid(s) && len(b) > n {
		s = s[:len(s)-1] // a rune cut at the window's end
	}
	return utf8.Valid(s) && !bytes.ContainsRune(s, 0)
}

// fromFiles interprets the files of an archive or folder: a bundle when
// manifest.json is there (bundle.Open; its host folders are read as saved
// outputs when results.json is lost), saved outputs otherwise. label names
// a lone host folder.
func fromFiles(files *bundle.Files, label string) (*Input, error) {
	if !files.IsBundle() {
		in := &Input{Kind: KindSaved}
		prefix := ""
		if hasPrefix(files.Data, bundle.HostsDir+"/") {
			prefix = bundle.HostsDir + "/"
		}
		in.Results, in.Ignored, in.Read = savedOutputs(files.Data, prefix, label, hostio.CauseNotSaved)
		if len(in.Results) == 0 {
			return in, errors.New("not a bundle and no saved outputs found: expected manifest.json, or one folder per host holding files named after their command (e.g. esx01/esxcli_rdma_device_list.txt)")
		}
		return in, nil
	}
	c := bundle.Open(files)
	in := &Input{Kind: KindFolder, Manifest: c.Manifest, Results: c.Results, Problems: c.Problems, Ignored: c.Ignored}
	if c.ResultsLost {
		var ign []string
		in.Results, ign, _ = savedOutputs(c.Good, bundle.HostsDir+"/", "", hostio.CauseMissingFromBundle)
		in.Ignored = append(in.Ignored, ign...)
		if len(in.Results) == 0 {
			return in, errors.New("the bundle holds no readable host outputs")
		}
	}
	return in, nil
}

// mayHoldOutputs looks at a folder's names only (two levels, as
// bundle.ReadDir reads them): a bundle's manifest, its hosts/ folder, or a
// file named after a command (collect.FileName, or a command typed as a
// file name) directly in it or in one of its folders.
func mayHoldOutputs(root string) bool {
	named := func(dir string) bool {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return false
		}
		for _, e := range ents {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if _, ok := collect.CommandForFile(e.Name()); ok {
				return true
			}
			if _, _, ok := recognizeSaved(e.Name(), nil); ok {
				return true
			}
		}
		return false
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return true // let the reader say what is wrong
	}
	if named(root) {
		return true
	}
	for _, e := range ents {
		switch {
		case e.Name() == "manifest.json" || e.Name() == bundle.HostsDir:
			return true
		case e.IsDir() && !strings.HasPrefix(e.Name(), ".") && named(filepath.Join(root, e.Name())):
			return true
		}
	}
	return false
}
