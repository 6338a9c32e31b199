package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Files are the regular files of an archive or a folder, read within
// Limits: the input of Open (a bundle) or of a saved-output loader.
type Files struct {
	// Data holds every file read, by slash path relative to the root.
	Data map[string][]byte
	// Sums holds the SHA-256 (hex) of the derived files (facts.json,
	// findings.json, report.json, report.html): they are checksummed
	// only, never held.
	Sums map[string]string
	// Problems is the damage found while reading (truncation, links,
	// unsafe paths, files over a limit): what was read is kept.
	Problems []string
	// DerivedVerified is set when the gzip member of the derived files
	// matched the checksum of its compressed bytes that the bundle's
	// trailer records (ReadArchiveAt): it is as it was written, so every
	// derived file the manifest lists is there and intact, unread.
	DerivedVerified bool

	// early holds manifest.json and results.json decoded while the rest
	// of the archive was read (readArchive); Open decodes them otherwise.
	early *decoding
}

// decoding is manifest.json and results.json decoded.
type decoding struct {
	wg          sync.WaitGroup
	manifest    *Manifest
	manifestErr error
	results     []hostio.HostResult
	resultsErr  error
}

// start decodes b, the first copy of manifest.json or results.json, on
// its own goroutine.
func (d *decoding) start(name string, b []byte) {
	switch name {
	case ManifestName:
		d.wg.Go(func() { d.manifest, d.manifestErr = decodeManifest(b) })
	case ResultsFile:
		d.wg.Go(func() { d.results, d.resultsErr = decodeResults(b) })
	}
}

// decoded waits for the early decoding, or decodes now. The early values
// are given once (Open changes them): a second Open decodes again.
func (f *Files) decoded() *decoding {
	if d := f.early; d != nil {
		f.early = nil
		d.wg.Wait()
		return d
	}
	d := &decoding{}
	d.manifest, d.manifestErr = decodeManifest(f.Data[ManifestName])
	if b, ok := f.Data[ResultsFile]; ok {
		d.results, d.resultsErr = decodeResults(b)
	}
	return d
}

// decodeManifest decodes manifest.json (its first JSON value).
func decodeManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// decodeResults decodes results.json.
func decodeResults(b []byte) ([]hostio.HostResult, error) {
	var results []hostio.HostResult
	if err := json.Unmarshal(b, &results); err != nil {
		return nil, err
	}
	return results, nil
}

// IsBundle reports whether the files hold a manifest.json.
func (f *Files) IsBundle() bool {
	_, ok := f.Data[ManifestName]
	return ok
}

// IsArchive recognises gzip and (uncompressed) tar by their magic.
func IsArchive(head []byte) bool {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return true
	}
	return len(head) >= 262 && string(head[257:262]) == "ustar"
}

// ReadArchive reads every regular file of a tar.gz (or tar) within lim.
// Damage after some files were read is a problem, not an error: what was
// read is kept. The derived files are inflated to verify their checksums;
// ReadArchiveAt spares that where the input can be read at an offset.
func ReadArchive(r io.Reader, lim Limits) (*Files, error) {
	return readArchive(r, nil, lim)
}

// ReadArchiveAt reads the archive of size bytes at ra as ReadArchive does,
// but checks the gzip member of a bundle's derived files (Write puts them
// in a member of their own, located and checksummed by the trailer member
// after it) by the SHA-256 of its compressed bytes instead of inflating
// it: they are most of a large bundle's bytes, and analysis rebuilds them.
// When the trailer is missing or the member does not match it, the member
// is inflated and each derived file checked, as ReadArchive does, so that
// the damage is named file by file.
func ReadArchiveAt(ra io.ReaderAt, size int64, lim Limits) (*Files, error) {
	sk := &skipper{ra: ra, size: size}
	sk.member, sk.ok = findDerivedMember(ra, size)
	return readArchive(io.NewSectionReader(ra, 0, size), sk, lim)
}

// skipper checks a bundle's derived member without inflating it.
type skipper struct {
	ra     io.ReaderAt
	size   int64
	member derivedMember
	ok     bool // the trailer was found
}

// verify reports whether the compressed bytes from off are the derived
// member the trailer describes.
func (s *skipper) verify(off int64) bool {
	if s == nil || !s.ok || off != s.member.Offset {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(s.ra, off, s.member.Length)); err != nil {
		return false
	}
	return string(h.Sum(nil)) == string(s.member.SHA256[:])
}

func readArchive(r io.Reader, sk *skipper, lim Limits) (*Files, error) {
	in := &countReader{r: r}
	br := bufio.NewReader(in)
	var src io.Reader = br
	var gz *gzip.Reader
	var member *eofReader
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		var err error
		gz, err = gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("not a valid gzip archive: %w", err)
		}
		// One member at a time: a bundle's derived files come in a member
		// of their own, which may be checked without inflating it.
		gz.Multistream(false)
		member = &eofReader{r: gz}
		src = member
	}
	tr := tar.NewReader(src)
	files := map[string][]byte{}
	sums := map[string]string{}
	var problems []string
	var total int64
	verified := false
	early := &decoding{}
	var entryEnd int64 // where the last entry's data ends in the inflated member
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) && member != nil && member.eof && member.n == entryEnd && n > 0 {
			// The gzip member ended between two entries, before the tar
			// end blocks: the derived files' member follows (Write).
			// Check it whole, or read on.
			off := in.n - int64(br.Buffered())
			if _, perr := br.Peek(1); perr != nil {
				break // nothing follows: the archive ends here
			}
			if sk.verify(off) {
				verified = true
				// What follows the derived member: the trailer, and
				// nothing after it.
				end := off + sk.member.Length
				tail := bufio.NewReader(io.NewSectionReader(sk.ra, end, sk.size-end))
				if p := trailingData(tail, end, nil); p != "" {
					problems = append(problems, p)
				}
				break
			}
			if err := gz.Reset(br); err != nil {
				problems = append(problems, fmt.Sprintf("the archive is truncated or corrupt after %d entries (%v): later files are missing", n, err))
				break
			}
			gz.Multistream(false)
			member.eof = false
			tr = tar.NewReader(member)
			n--
			continue
		}
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil, errors.New("not a bundle: the archive is empty")
			}
			if gz != nil {
				// The tar stream ended: the rest of its gzip member, then
				// gzip members only (the trailer), then nothing.
				if p := trailingRest(gz, br, in); p != "" {
					problems = append(problems, p)
				}
			}
			break
		}
		if err != nil {
			if n == 0 {
				return nil, fmt.Errorf("not a bundle, or a corrupt one: %w", err)
			}
			problems = append(problems, fmt.Sprintf("the archive is truncated or corrupt after %d entries (%v): later files are missing", n, err))
			break
		}
		// The tar reader reads exactly: its entry ends here.
		entryEnd = member.pos() + (hdr.Size+511)&^511
		if n >= lim.Entries {
			problems = append(problems, fmt.Sprintf("the archive has more than %d entries: the rest is ignored", lim.Entries))
			break
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA {
			if hdr.Typeflag == tar.TypeSymlink || hdr.Typeflag == tar.TypeLink {
				problems = append(problems, fmt.Sprintf("link %q -> %q in the archive ignored (bundles hold regular files only)", hdr.Name, hdr.Linkname))
			}
			continue
		}
		name, ok := cleanName(hdr.Name)
		if !ok {
			problems = append(problems, fmt.Sprintf("unsafe path %q in the archive ignored", hdr.Name))
			continue
		}
		if derived[name] {
			if _, dup := sums[name]; dup {
				problems = append(problems, fmt.Sprintf("%s appears twice in the archive: the first copy is used", name))
				continue
			}
			sum, _, err := hashStream(tr)
			if err != nil {
				problems = append(problems, fmt.Sprintf("the archive is truncated or corrupt in %s (%v): it and later files are missing", name, err))
				break
			}
			sums[name] = sum
			continue
		}
		if hdr.Size > lim.fileLimit(name) || total+hdr.Size > lim.Total {
			problems = append(problems, lim.tooLarge(name, hdr.Size))
			continue
		}
		// The header says the size (checked above): one buffer of it, not
		// ReadAll's doubling. The tar reader ends the entry there.
		b := make([]byte, hdr.Size)
		_, err = io.ReadFull(tr, b)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the archive is truncated or corrupt in %s (%v): it and later files are missing", name, err))
			break
		}
		total += int64(len(b))
		if _, dup := files[name]; dup {
			problems = append(problems, fmt.Sprintf("%s appears twice in the archive: the first copy is used", name))
			continue
		}
		files[name] = b
		// The manifest and results.json come first: decoded on another
		// core while the outputs are inflated.
		early.start(name, b)
	}
	return &Files{Data: files, Sums: sums, Problems: problems, DerivedVerified: verified, early: early}, nil
}

// maxTrailingInflate bounds what is inflated of the rest of the gzip
// member holding the end of a bundle's tar stream (its end blocks and
// padding: a few KiB) and of each member after it.
const maxTrailingInflate = 1 << 20

// trailingRest reads what follows the end of the tar stream of a gzip
// archive: the rest of the current member (the tar end blocks and
// padding), then trailingData.
func trailingRest(gz *gzip.Reader, br *bufio.Reader, in *countReader) string {
	if _, err := io.Copy(io.Discard, io.LimitReader(gz, maxTrailingInflate)); err != nil {
		return "" // a damaged end is the tar reader's and checksums' to report
	}
	return trailingData(br, in.n-int64(br.Buffered()), gz)
}

// trailingData checks that br, at offset off of the archive, holds only
// complete empty gzip members (a bundle's trailer) up to its end. Bytes after
// the gzip stream are not part of the archive (gzip readers stop or fail
// there, tar never sees them): a problem naming their offset and size, so
// that a bundle with something appended is never accepted silently. gz,
// when not nil, is reused to read the members.
func trailingData(br *bufio.Reader, off int64, gz *gzip.Reader) string {
	cr := &byteCounter{r: br}
	for {
		if _, err := br.Peek(1); err != nil {
			return "" // the end: nothing follows
		}
		head, _ := br.Peek(2)
		start := off + cr.n
		var err error
		if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
			err = errors.New("not a gzip member")
		} else if gz == nil {
			gz, err = gzip.NewReader(cr)
		} else {
			err = gz.Reset(cr)
		}
		if err == nil {
			gz.Multistream(false)
			var m int64
			m, err = io.Copy(io.Discard, io.LimitReader(gz, maxTrailingInflate))
			if err == nil && m > 0 {
				err = errors.New("a gzip member holding data after the end of the tar archive")
			}
		}
		if err != nil {
			io.Copy(io.Discard, cr)
			return fmt.Sprintf("%d bytes of trailing data after the archive's gzip stream, at offset %d (%v): ignored; they are no part of a bundle as pvrdma-doctor writes it: the file was altered or damaged after it was written",
				off+cr.n-start, start, err)
		}
	}
}

// byteCounter counts the bytes read through a bufio.Reader; it is an
// io.ByteReader, so that a gzip reader reads exactly its member from it.
type byteCounter struct {
	r *bufio.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *byteCounter) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// eofReader counts what is read of r and remembers that r ended (the end
// of a gzip member).
type eofReader struct {
	r   io.Reader
	n   int64
	eof bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += int64(n)
	if errors.Is(err, io.EOF) {
		e.eof = true
	}
	return n, err
}

// pos is the count read (0 without a gzip member: a plain tar).
func (e *eofReader) pos() int64 {
	if e == nil {
		return 0
	}
	return e.n
}

// derived are the files a bundle carries for people and other tools but
// that analysis rebuilds from the captures: they are only checksummed,
// streamed through SHA-256 without being held in memory (a 1,000-host
// bundle's facts.json is far larger than any capture), so the per-file
// size limit does not apply to them.
var derived = map[string]bool{FactsFile: true, FindingsFile: true, ReportJSON: true, ReportHTML: true}

// hashStream returns the hex SHA-256 of r.
func hashStream(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// cleanName returns a safe relative slash path, or false.
func cleanName(n string) (string, bool) {
	n = strings.TrimPrefix(strings.ReplaceAll(n, `\`, "/"), "./")
	if n == "" || strings.HasPrefix(n, "/") || strings.ContainsRune(n, 0) {
		return "", false
	}
	c := path.Clean(n)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// ReadDir reads the files of a folder within lim (three levels deep,
// hidden files skipped, symbolic links not followed).
func ReadDir(root string, lim Limits) (*Files, error) {
	files := map[string][]byte{}
	sums := map[string]string{}
	var problems []string
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			problems = append(problems, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, "/") >= 2 {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink != 0 {
				problems = append(problems, fmt.Sprintf("%s is a symbolic link: not followed", rel))
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		if derived[rel] {
			f, err := hostio.OpenInput(p)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
				return nil
			}
			defer f.Close()
			if sums[rel], _, err = hashStream(f); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
			}
			return nil
		}
		if info.Size() > lim.fileLimit(rel) || total+info.Size() > lim.Total {
			problems = append(problems, lim.tooLarge(rel, info.Size()))
			return nil
		}
		b, err := readFileLimit(p, lim.fileLimit(rel))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		total += int64(len(b))
		files[rel] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Files{Data: files, Sums: sums, Problems: problems}, nil
}

// Contents is a bundle read from its files (Open).
type Contents struct {
	// Manifest is nil when manifest.json could not be decoded.
	Manifest *Manifest
	// Results are the host results of results.json with their outputs;
	// a command whose output is missing or corrupt counts as failed.
	Results []hostio.HostResult
	// ResultsLost is set when results.json is missing, corrupt or failed
	// its checksum: Results is then empty and the host folders are to be
	// read as saved outputs from Good.
	ResultsLost bool
	// Good are the files that passed their checksums (set with
	// ResultsLost).
	Good map[string][]byte
	// Problems is the damage found (checksums, missing files, schema).
	Problems []string
	// Ignored lists the files not listed in the manifest.
	Ignored []string
}

// Open interprets the files of a bundle (Files.IsBundle): it verifies
// every checksum of the manifest, and returns the host results of
// results.json with each command's output from its host folder. A file
// that is missing or fails its checksum is not used.
func Open(f *Files) *Contents {
	files := f.Data
	in := &Contents{}
	pre := f.decoded()
	if err := pre.manifestErr; err != nil {
		in.Problems = append(in.Problems, fmt.Sprintf("manifest.json is corrupt (%v): checksums cannot be verified", err))
	} else {
		m := pre.manifest
		in.Manifest = m
		if err := checkSchema(m.SchemaVersion); err != nil {
			in.Problems = append(in.Problems, err.Error())
		}
	}
	bad := map[string]bool{}
	if in.Manifest != nil {
		in.verifyFiles(f, bad)
	}
	// One copy of what the hosts repeat: equal outputs (a cluster built
	// alike prints the same firewall rulesets, PCI devices, drivers), the
	// stage-1 command lines, names, kinds and statuses.
	var intern hostio.Interner
	results := in.readResults(pre, files, bad, &intern)
	if results == nil {
		in.ResultsLost = true
		in.Good = map[string][]byte{}
		for p, b := range files {
			if !bad[p] {
				in.Good[p] = b
			}
		}
		return in
	}
	in.attachOutputs(results, files, bad, &intern)
	in.Results = results
	return in
}

// verifyFiles checks every file the manifest lists against its checksum
// (a derived file verified with its member, unread, passes) and lists the
// files it does not list as ignored; bad gets the files missing, failing
// their checksum or not listed.
func (in *Contents) verifyFiles(f *Files, bad map[string]bool) {
	files, sums, derivedOK := f.Data, f.Sums, f.DerivedVerified
	listed := map[string]bool{ManifestName: true}
	for _, f := range in.Manifest.Files {
		listed[f.Path] = true
		got, ok := sums[f.Path]
		if b, inFiles := files[f.Path]; inFiles {
			got, ok = sha256Hex(b), true
		} else if !ok && derived[f.Path] && derivedOK {
			continue // verified with its member, unread (ReadArchiveAt)
		}
		if !ok {
			bad[f.Path] = true
			in.Problems = append(in.Problems, fmt.Sprintf("%s is listed in the manifest but missing from the bundle", f.Path))
			continue
		}
		if got != strings.ToLower(f.SHA256) {
			bad[f.Path] = true
			in.Problems = append(in.Problems, fmt.Sprintf("checksum mismatch: %s was changed or is corrupt (sha256 differs from the manifest)", f.Path))
		}
	}
	var extra []string
	for p := range files {
		if !listed[p] {
			bad[p] = true
			extra = append(extra, p)
		}
	}
	for p := range sums {
		if !listed[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	for _, p := range extra {
		in.Ignored = append(in.Ignored, p+": not listed in the manifest")
	}
}

// readResults returns the host results of results.json, their strings
// interned (nil, with the problem, when results.json is missing, failed
// its checksum or is corrupt).
func (in *Contents) readResults(pre *decoding, files map[string][]byte, bad map[string]bool, intern *hostio.Interner) []hostio.HostResult {
	_, ok := files[ResultsFile]
	switch {
	case !ok:
		in.Problems = append(in.Problems, "results.json is missing: command statuses are lost, outputs are read from the host folders")
		return nil
	case bad[ResultsFile]:
		in.Problems = append(in.Problems, "results.json failed its checksum: outputs are read from the host folders")
		return nil
	}
	results := pre.results
	if err := pre.resultsErr; err != nil {
		in.Problems = append(in.Problems, fmt.Sprintf("results.json is corrupt (%v): outputs are read from the host folders", err))
		results = nil
	}
	for i := range results {
		internResult(&results[i], intern)
	}
	return results
}

// internResult keeps one copy of each string a host result shares with
// others: JSON gives every string its own copy (the host's name, kind and
// status of each capture, the stage-1 command lines every host shares).
// Its captures go in a slice of their size; a capture written before
// captures had a cause gets the one its error records.
func internResult(hr *hostio.HostResult, intern *hostio.Interner) {
	hr.Captures = slices.Clone(hr.Captures)
	hr.Host, hr.Transport = intern.String(hr.Host), intern.String(hr.Transport)
	for j := range hr.Captures {
		c := &hr.Captures[j]
		if c.Cause == "" {
			c.Cause = hostio.RecordedCause(c.Error) // written before captures had a cause
		}
		c.Host, c.Command, c.Transport = intern.String(c.Host), intern.String(c.Command), intern.String(c.Transport)
		c.Kind, c.Status = hostio.Kind(intern.String(string(c.Kind))), hostio.Status(intern.String(string(c.Status)))
		c.Cause = hostio.Cause(intern.String(string(c.Cause)))
	}
}

// attachOutputs gives each capture its output and standard error from
// its host folder (the manifest's folder when it names the same host);
// a collected command whose output is missing or bad fails, and its host
// says how many of its outputs were.
func (in *Contents) attachOutputs(results []hostio.HostResult, files map[string][]byte, bad map[string]bool, intern *hostio.Interner) {
	dirs := hostDirs(hostNames(results))
	for i := range results {
		hr := &results[i]
		if in.Manifest != nil && i < len(in.Manifest.Hosts) && in.Manifest.Hosts[i].Host == hr.Host {
			if d, ok := cleanName(in.Manifest.Hosts[i].Dir); ok && !strings.Contains(d, "/") {
				dirs[i] = d
			}
		}
		damaged := 0
		for j, fname := range captureFiles(hr.Captures) {
			if in.attachOutput(hr, &hr.Captures[j], path.Join(HostsDir, dirs[i], fname), files, bad, intern) {
				damaged++
			}
		}
		if damaged > 0 && hr.Status != hostio.StatusNotCollected {
			hr.Reason = fmt.Sprintf("%d output(s) missing or corrupt in the bundle", damaged)
			hr.Finalize()
		}
	}
}

// attachOutput gives a capture its output and standard error from the
// file p (and p.stderr); it reports whether a collected command's output
// was missing or bad, the capture then failed with that cause.
func (in *Contents) attachOutput(hr *hostio.HostResult, c *hostio.Capture, p string, files map[string][]byte, bad map[string]bool, intern *hostio.Interner) bool {
	if c.Kind == "" {
		c.Kind = catalog.KindOf(c.Command)
	}
	b, ok := files[p]
	if se, ok := files[p+".stderr"]; ok && !bad[p+".stderr"] {
		c.Stderr = intern.Copy(se)
	}
	switch {
	case ok && !bad[p]:
		c.Stdout = intern.Copy(b)
	case c.Status == hostio.StatusCollected:
		c.Status, c.Cause = hostio.StatusFailed, hostio.CauseMissingFromBundle
		if ok {
			c.Cause = hostio.CauseCorruptInBundle
		}
		c.Error = c.Cause.Error("")
		if !bad[p] {
			in.Problems = append(in.Problems, fmt.Sprintf("%s: output of `%s` is missing", hr.Host, c.Command))
		}
		return true
	}
	return false
}
