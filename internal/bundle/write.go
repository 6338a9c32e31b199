package bundle

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/jsonstream"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// Options control how a bundle is written.
type Options struct {
	// Redact replaces identifiers by tokens (the default of the CLI).
	Redact bool
	// RedactNames also tokenises distributed switch and port group names
	// and vCenter managed-object IDs (redact.Redactor.Names).
	RedactNames bool
	// AlreadyRedacted marks results read from a redacted bundle: they are
	// written as they are (no second redaction, no token map: the original
	// map stays with whoever made the bundle) and the manifest still says
	// redacted. Redact and Tokens must be unset.
	AlreadyRedacted bool
	// Tokens seeds the redaction with an earlier token map, so that two
	// bundles of the same fleet use the same tokens (optional).
	Tokens *redact.TokenMap
	// ToolVersion is written to the manifest.
	ToolVersion string
	// Now is the creation time (default time.Now()).
	Now time.Time
	// Source is the report's source, written to the manifest (redacted).
	Source string
	// Analyze runs facts -> checks -> report on the (redacted) results.
	Analyze AnalyzeFunc
	// HTML renders report.html; when nil the bundle has no report.html.
	HTML func(io.Writer, *report.Report) error
	// Consume gives the results to the writer: their outputs are redacted
	// in place (each original released as soon as its redacted text
	// exists), so that a scan's outputs are held once, not twice. The
	// caller must not use the results afterwards. Without it the writer
	// works on a copy and the caller's results are left as they were.
	Consume bool
	// Abort, when closed, stops the writer (ErrAborted); WriteFile then
	// removes its temporary file.
	Abort <-chan struct{}
	// TempFile, when set, is told the temporary file WriteFile writes
	// (live true) and when it is gone (renamed or removed: live false), so
	// that a process that must exit at once can remove it.
	TempFile func(path string, live bool)
	// SpillDir is where the derived files are kept between the two passes
	// of the writer (a temporary file, mode 0600, removed before Write
	// returns; default: the system's temporary directory; WriteFile uses
	// the bundle's directory).
	SpillDir string
	// Identifiers are identifiers the caller added to the results (SSH
	// users, dialled addresses, local paths; Redactor.AddIdentifier), to
	// redact with the rest. Token is used for local paths ("" generates).
	Identifiers []redact.Token
}

// Written is what Write produced.
type Written struct {
	Manifest *Manifest
	Analysis Analysis
	// Tokens is the redaction's token map (nil when not redacted). It must
	// never be stored inside the bundle.
	Tokens *redact.TokenMap
}

// entry is one file of the bundle, in archive order: write produces its
// bytes, the same each time (the archive is written in two passes: one to
// measure and checksum every file for the manifest, which comes first, one
// to archive it), so no file is held whole besides the outputs themselves.
type entry struct {
	name  string
	write func(io.Writer) error
	size  int64
	sum   string
}

// ErrAborted is returned when Options.Abort closed before the bundle was
// finished (a second Ctrl-C): no bundle is written.
var ErrAborted = errors.New("bundle not written: interrupted")

// Write writes a bundle of results to w as tar.gz.
//
// Its cost follows the bytes: every output is redacted line by line
// (redact.Redactor.Text), then checksummed and archived in pieces, never
// copied whole. With Options.Consume the results are the writer's: each
// output is replaced by its redacted text, so a scan's outputs are held
// once (the originals are released as they are redacted), plus the
// analysis of the redacted results and one JSON file at a time.
func Write(w io.Writer, results []hostio.HostResult, opts Options) (*Written, error) {
	if opts.Analyze == nil {
		return nil, errors.New("bundle: Options.Analyze is required")
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.AlreadyRedacted && (opts.Redact || opts.Tokens != nil) {
		return nil, errors.New("bundle: the results are already redacted: they cannot be redacted again")
	}
	if !opts.Consume {
		results = redact.Clone(results)
	}
	redactText := identity
	var tm *redact.TokenMap
	if opts.Redact {
		var err error
		if redactText, tm, err = redactResults(results, opts); err != nil {
			return nil, err
		}
	}
	a := opts.Analyze(results, redactText)
	if aborted(opts.Abort) {
		return nil, ErrAborted
	}
	m := &Manifest{
		SchemaVersion: SchemaVersion,
		Tool:          report.Tool{Name: "pvrdma-doctor", Version: opts.ToolVersion},
		CreatedAt:     opts.Now.UTC(),
		Source:        redactText(opts.Source),
		Redacted:      opts.Redact || opts.AlreadyRedacted,
	}
	files := bundleFiles(results, a, opts, m)
	// Pass 1: the size and checksum of every file, for the manifest. The
	// derived files are encoded once: kept in a spill file for pass 2
	// (encoding a 1,000-host facts.json costs more than a second of CPU),
	// or, when no spill file can be made, encoded again.
	sp := newSpill(opts.SpillDir, opts.TempFile)
	defer sp.remove()
	if err := measureFiles(files, m, sp, opts.Abort); err != nil {
		return nil, err
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bundle: encoding manifest: %w", err)
	}
	mb = append(mb, '\n')
	files = append([]*entry{{name: ManifestName, size: int64(len(mb)), sum: sha256Hex(mb),
		write: func(w io.Writer) error { _, err := w.Write(mb); return err }}}, files...)
	if err := writeArchive(w, files, m.CreatedAt, opts.Abort); err != nil {
		return nil, err
	}
	return &Written{Manifest: m, Analysis: a, Tokens: tm}, nil
}

// redactResults redacts the results in place (Options.Redact): the
// redactor seeded with Options.Tokens, taught the results' names and
// Options.Identifiers. It returns the redactor's text function and its
// token map.
func redactResults(results []hostio.HostResult, opts Options) (func(string) string, *redact.TokenMap, error) {
	r := redact.NewRedactor()
	r.Names = opts.RedactNames
	if opts.Tokens != nil {
		if err := r.Seed(opts.Tokens); err != nil {
			return nil, nil, err
		}
	}
	r.Learn(results)
	for _, id := range opts.Identifiers {
		r.AddIdentifier(id.Kind, id.Original, id.Token)
	}
	if c := r.Collisions(); len(c) > 0 {
		return nil, nil, &redact.TokenCollisionError{Names: c}
	}
	for i := range results {
		if aborted(opts.Abort) {
			return nil, nil, ErrAborted
		}
		r.InPlace(&results[i])
	}
	tmv := r.TokenMap()
	return r.Text, &tmv, nil
}

// bundleFiles lists the files of the bundle, the outputs then the derived
// files (results.json, facts.json, findings.json, the reports), and adds
// each host and its commands to the manifest.
func bundleFiles(results []hostio.HostResult, a Analysis, opts Options, m *Manifest) []*entry {
	var files []*entry
	add := func(name string, write func(io.Writer) error) {
		files = append(files, &entry{name: name, write: write})
	}
	// The derived files are streamed, never held whole: facts.json, compact
	// (the largest file of a bundle: for machines), the others indented.
	addJSON := func(name string, v any, indent string) {
		add(name, func(w io.Writer) error {
			if err := jsonstream.Write(w, v, indent); err != nil {
				return fmt.Errorf("bundle: encoding %s: %w", name, err)
			}
			return nil
		})
	}
	// results.json: everything but stdout (it lives in the host files),
	// one host at a time.
	add(ResultsFile, func(w io.Writer) error { return writeSlimResults(w, results) })
	dirs := hostDirs(hostNames(results))
	for i, hr := range results {
		mh := ManifestHost{Host: hr.Host, Dir: dirs[i], Transport: hr.Transport, Status: hr.Status, Reason: hr.Reason,
			Commands: []ManifestCommand{}}
		for j, fname := range captureFiles(hr.Captures) {
			c := &results[i].Captures[j]
			p := path.Join(HostsDir, dirs[i], fname)
			mc := ManifestCommand{Command: c.Command, Kind: c.Kind, File: p, Status: c.Status, ExitCode: c.ExitCode,
				DurationNS: c.Duration, Error: c.Error}
			add(p, func(w io.Writer) error { return writeString(w, c.Stdout) })
			if c.Stderr != "" {
				mc.StderrFile = p + ".stderr"
				add(mc.StderrFile, func(w io.Writer) error { return writeString(w, c.Stderr) })
			}
			mh.Commands = append(mh.Commands, mc)
		}
		m.Hosts = append(m.Hosts, mh)
	}
	if a.Fleet != nil {
		addJSON(FactsFile, a.Fleet, "")
	}
	addJSON(FindingsFile, a.Checks, "  ")
	if a.Report != nil {
		addJSON(ReportJSON, a.Report, "  ")
		if opts.HTML != nil {
			add(ReportHTML, func(w io.Writer) error {
				if err := opts.HTML(w, a.Report); err != nil {
					return fmt.Errorf("bundle: rendering report.html: %w", err)
				}
				return nil
			})
		}
	}
	// The derived files go last, in a gzip member of their own that a
	// reader may check without inflating (member.go): no output may follow
	// them there.
	slices.SortStableFunc(files, func(a, b *entry) int {
		switch {
		case derived[a.name] == derived[b.name]:
			return 0
		case derived[a.name]:
			return 1
		}
		return -1
	})
	return files
}

// measureFiles is pass 1: it writes every file once to measure its size
// and checksum into the manifest, keeping the derived files in the spill
// file when it can (each then written from there in pass 2).
func measureFiles(files []*entry, m *Manifest, sp *spill, abort <-chan struct{}) error {
	for _, f := range files {
		if aborted(abort) {
			return ErrAborted
		}
		h := sha256.New()
		cw := &countWriter{w: &abortWriter{w: h, abort: abort}}
		var dst io.Writer = cw
		keep := derived[f.name] && sp.ok()
		if keep {
			dst = io.MultiWriter(cw, sp)
		}
		start := sp.n
		if err := f.write(dst); err != nil {
			if errors.Is(err, ErrAborted) {
				return ErrAborted
			}
			return err
		}
		f.size, f.sum = cw.n, hex.EncodeToString(h.Sum(nil))
		m.Files = append(m.Files, ManifestFile{Path: f.name, Size: f.size, SHA256: f.sum})
		if keep {
			f.write = sp.section(start, f.size, f.write)
		}
	}
	return nil
}

// writeArchive is pass 2: the archive, in its gzip members (member.go):
// the outputs, then the derived files, then the trailer that lets a
// reader check the derived files' member without inflating it. A file
// that does not come out the same as measured is a bug, never a silently
// wrong checksum.
func writeArchive(w io.Writer, files []*entry, created time.Time, abort <-chan struct{}) error {
	out := &countWriter{w: &abortWriter{w: w, abort: abort}}
	gz, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		return err
	}
	sw := &switchWriter{w: gz}
	tw := tar.NewWriter(sw)
	var second *derivedWriter
	for _, f := range files {
		if derived[f.name] && second == nil {
			if second, err = newDerivedWriter(tw, gz, out); err != nil {
				return writeErr("the archive", err)
			}
			gz, sw.w = second.gz, second.gz
		}
		if err := writeArchived(tw, f, created); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return writeErr("the archive", err)
	}
	if err := gz.Close(); err != nil {
		return writeErr("the archive", err)
	}
	if second != nil {
		if err := writeTrailer(out, second.member(out.n)); err != nil {
			return writeErr("the archive", err)
		}
	}
	return nil
}

// writeArchived writes one file into the archive and checks it comes out
// with the checksum measured in pass 1.
func writeArchived(tw *tar.Writer, f *entry, created time.Time) error {
	// Whole seconds: a time with nanoseconds costs every file a PAX
	// record (a 1 KiB extended header: 24 MiB for 1,000 hosts, to
	// compress, decompress and parse); the manifest keeps the exact time.
	hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: f.size, ModTime: created.Truncate(time.Second), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return writeErr(f.name, err)
	}
	h := sha256.New()
	if err := f.write(io.MultiWriter(tw, h)); err != nil {
		return writeErr(f.name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.sum {
		return fmt.Errorf("bundle: %s changed while it was written", f.name)
	}
	return nil
}

func writeErr(name string, err error) error {
	if errors.Is(err, ErrAborted) {
		return ErrAborted
	}
	return fmt.Errorf("bundle: writing %s: %w", name, err)
}

// writeSlimResults writes results as json.MarshalIndent(results, "", "  ")
// would, without the captures' stdout, encoding one host at a time.
func writeSlimResults(w io.Writer, results []hostio.HostResult) error {
	if results == nil {
		_, err := io.WriteString(w, "null\n")
		return err
	}
	if len(results) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i, hr := range results {
		hr.Captures = append([]hostio.Capture(nil), hr.Captures...)
		for j := range hr.Captures {
			hr.Captures[j].Stdout = ""
		}
		b, err := json.MarshalIndent(hr, "  ", "  ")
		if err != nil {
			return fmt.Errorf("bundle: encoding %s: %w", ResultsFile, err)
		}
		sep := ",\n"
		if i == len(results)-1 {
			sep = "\n]\n"
		}
		if _, err := w.Write(append(append([]byte("  "), b...), sep...)); err != nil {
			return err
		}
	}
	return nil
}

// writeString writes s in pieces: converting a whole output to []byte
// would copy it.
func writeString(w io.Writer, s string) error {
	const piece = 64 << 10
	buf := make([]byte, 0, min(piece, len(s)))
	for len(s) > 0 {
		n := min(piece, len(s))
		buf = append(buf[:0], s[:n]...)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// switchWriter writes to w, which changes with the gzip member.
type switchWriter struct{ w io.Writer }

func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// derivedWriter is the gzip member of the derived files: where it starts
// in the archive and the SHA-256 of its compressed bytes.
type derivedWriter struct {
	gz     *gzip.Writer
	offset int64
	sum    hash.Hash
}

// newDerivedWriter ends the current member (after the padding of the last
// entry) and starts the derived files' member at out's count.
func newDerivedWriter(tw *tar.Writer, cur *gzip.Writer, out *countWriter) (*derivedWriter, error) {
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	if err := cur.Close(); err != nil {
		return nil, err
	}
	d := &derivedWriter{offset: out.n, sum: sha256.New()}
	gz, err := gzip.NewWriterLevel(io.MultiWriter(out, d.sum), gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	d.gz = gz
	return d, nil
}

// member describes the closed member, which ended at end.
func (d *derivedWriter) member(end int64) derivedMember {
	m := derivedMember{Offset: d.offset, Length: end - d.offset}
	copy(m.SHA256[:], d.sum.Sum(nil))
	return m
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// abortWriter fails every write once abort is closed.
type abortWriter struct {
	w     io.Writer
	abort <-chan struct{}
}

func (a *abortWriter) Write(p []byte) (int, error) {
	if aborted(a.abort) {
		return 0, ErrAborted
	}
	return a.w.Write(p)
}

func aborted(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TokensPath is where the token map of the bundle at path is written.
func TokensPath(bundlePath string) string { return bundlePath + ".tokens.json" }

// WriteFile writes a bundle to path atomically (a temporary file in the
// same directory, fsync, rename): an interrupted or failed export leaves
// no file at path. When redacting, the token map is written next to it
// (TokensPath, mode 0600), never inside the bundle.
func WriteFile(path string, results []hostio.HostResult, opts Options) (*Written, error) {
	var wr *Written
	if opts.SpillDir == "" {
		opts.SpillDir = filepath.Dir(path)
	}
	err := atomicWrite(path, 0o644, opts.TempFile, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		var err error
		if wr, err = Write(bw, results, opts); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	if wr.Tokens != nil {
		tb, err := json.MarshalIndent(wr.Tokens, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := atomicWrite(TokensPath(path), 0o600, opts.TempFile, func(w io.Writer) error {
			_, err := w.Write(append(tb, '\n'))
			return err
		}); err != nil {
			// A redacted bundle without its token map is still a valid
			// bundle; the caller reports that the map is missing.
			return wr, fmt.Errorf("bundle written, but its token map could not be: %w", err)
		}
	}
	return wr, nil
}

// atomicWrite creates path with the content written by fill, or nothing.
func atomicWrite(path string, mode os.FileMode, track func(string, bool), fill func(io.Writer) error) (err error) {
	if err := CheckWritable(path); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	if track != nil {
		track(tmp.Name(), true)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
		if track != nil {
			track(tmp.Name(), false)
		}
	}()
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // make the rename durable; best effort (not all systems allow it)
		d.Close()
	}
	return nil
}
