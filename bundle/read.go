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
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

// Input kinds.
const (
	KindArchive    = "bundle"
	KindFolder     = "unpacked bundle"
	KindSaved      = "saved outputs"
	KindTranscript = "transcript"
)

// Limits that keep a hostile archive from exhausting memory (variables so
// that the fuzz test can lower them).
var (
	maxFileSize  int64 = 64 << 20
	maxTotalSize int64 = 512 << 20
	maxEntries         = 100000
)

// Input is one offline input, loaded: the host results to analyze and
// what went wrong while reading them.
type Input struct {
	Path string
	// Kind is KindArchive, KindFolder, KindSaved or KindTranscript.
	Kind string
	// Manifest is set for bundles whose manifest could be read.
	Manifest *Manifest
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
// collect.FileName(command)), or a pasted SSH transcript. It returns an
// error when nothing can be analysed; damage that still leaves something to
// analyse is listed in Input.Problems.
func Load(p string) (*Input, error) {
	st, err := os.Stat(p)
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
		files, sums, problems, err := readDir(root)
		if err != nil {
			return nil, err
		}
		in, err := fromFiles(files, sums, filepath.Base(filepath.Clean(p)))
		capInput(in)
		if in != nil {
			in.Path = p
			in.Problems = append(problems, in.Problems...)
		}
		return in, wrapPath(p, err)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadReader(p, f)
}

// LoadReader reads a bundle archive or a transcript from r (standard
// input); name labels it in messages.
func LoadReader(p string, r io.Reader) (*Input, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	if isArchive(head) {
		files, sums, problems, err := readArchive(br)
		if err != nil {
			return nil, wrapPath(p, err)
		}
		in, err := fromFiles(files, sums, "")
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
	b, err := io.ReadAll(io.LimitReader(br, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxFileSize {
		return nil, fmt.Errorf("%s: not a bundle, and too large (over %d MiB) for a transcript", p, maxFileSize>>20)
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

func wrapPath(p string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", p, err)
}

// isArchive recognises gzip and (uncompressed) tar by their magic.
func isArchive(head []byte) bool {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return true
	}
	return len(head) >= 262 && string(head[257:262]) == "ustar"
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

// readArchive reads every regular file of a tar.gz (or tar). Damage after
// some files were read is a problem, not an error: what was read is kept.
func readArchive(r io.Reader) (map[string][]byte, map[string]string, []string, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	var src io.Reader = br
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("not a valid gzip archive: %w", err)
		}
		gz.Multistream(false)
		src = gz
	}
	tr := tar.NewReader(src)
	files := map[string][]byte{}
	sums := map[string]string{}
	var problems []string
	var total int64
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil, nil, nil, errors.New("not a bundle: the archive is empty")
			}
			break
		}
		if err != nil {
			if n == 0 {
				return nil, nil, nil, fmt.Errorf("not a bundle, or a corrupt one: %w", err)
			}
			problems = append(problems, fmt.Sprintf("the archive is truncated or corrupt after %d entries (%v): later files are missing", n, err))
			break
		}
		if n >= maxEntries {
			problems = append(problems, fmt.Sprintf("the archive has more than %d entries: the rest is ignored", maxEntries))
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
		if hdr.Size > fileLimit(name) || total+hdr.Size > maxTotalSize {
			problems = append(problems, tooLarge(name, hdr.Size))
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, fileLimit(name)+1))
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
	}
	return files, sums, problems, nil
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

// readDir reads the files of a folder (three levels deep, hidden files skipped).
func readDir(root string) (map[string][]byte, map[string]string, []string, error) {
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
			f, err := os.Open(p)
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
		if info.Size() > fileLimit(rel) || total+info.Size() > maxTotalSize {
			problems = append(problems, tooLarge(rel, info.Size()))
			return nil
		}
		b, err := readFileLimit(p, fileLimit(rel))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		total += int64(len(b))
		files[rel] = b
		return nil
	})
	return files, sums, problems, err
}

// fromFiles interprets a set of files: a bundle when manifest.json is
// there, saved outputs otherwise. label names a lone host folder.
// sums holds the checksums of the derived files, which are not kept.
func fromFiles(files map[string][]byte, sums map[string]string, label string) (*Input, error) {
	in := &Input{Kind: KindSaved}
	mb, hasManifest := files[ManifestName]
	if !hasManifest {
		prefix := ""
		if hasPrefix(files, HostsDir+"/") {
			prefix = HostsDir + "/"
		}
		in.Results, in.Ignored, in.Read = savedOutputs(files, prefix, label, collect.ErrNotSaved)
		if len(in.Results) == 0 {
			return in, errors.New("not a bundle and no saved outputs found: expected manifest.json, or one folder per host holding files named after their command (e.g. esx01/esxcli_rdma_device_list.txt)")
		}
		return in, nil
	}
	in.Kind = KindFolder
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(mb))
	if err := dec.Decode(&m); err != nil {
		in.Problems = append(in.Problems, fmt.Sprintf("manifest.json is corrupt (%v): checksums cannot be verified", err))
	} else {
		in.Manifest = &m
		if err := checkSchema(m.SchemaVersion); err != nil {
			in.Problems = append(in.Problems, err.Error())
		}
	}
	bad := map[string]bool{}
	if in.Manifest != nil {
		listed := map[string]bool{ManifestName: true}
		for _, f := range in.Manifest.Files {
			listed[f.Path] = true
			got, ok := sums[f.Path]
			if b, inFiles := files[f.Path]; inFiles {
				sum := sha256.Sum256(b)
				got, ok = hex.EncodeToString(sum[:]), true
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
	rb, ok := files[ResultsFile]
	var results []hostio.HostResult
	switch {
	case !ok:
		in.Problems = append(in.Problems, "results.json is missing: command statuses are lost, outputs are read from the host folders")
	case bad[ResultsFile]:
		in.Problems = append(in.Problems, "results.json failed its checksum: outputs are read from the host folders")
	default:
		if err := json.Unmarshal(rb, &results); err != nil {
			in.Problems = append(in.Problems, fmt.Sprintf("results.json is corrupt (%v): outputs are read from the host folders", err))
			results = nil
		}
	}
	if results == nil {
		good := map[string][]byte{}
		for p, b := range files {
			if !bad[p] {
				good[p] = b
			}
		}
		var ign []string
		in.Results, ign, _ = savedOutputs(good, HostsDir+"/", "", collect.ErrMissingFromBundle)
		in.Ignored = append(in.Ignored, ign...)
		if len(in.Results) == 0 {
			return in, errors.New("the bundle holds no readable host outputs")
		}
		return in, nil
	}
	names := make([]string, len(results))
	for i, hr := range results {
		names[i] = hr.Host
	}
	dirs := hostDirs(names)
	for i := range results {
		hr := &results[i]
		if in.Manifest != nil && i < len(in.Manifest.Hosts) && in.Manifest.Hosts[i].Host == hr.Host {
			if d, ok := cleanName(in.Manifest.Hosts[i].Dir); ok && !strings.Contains(d, "/") {
				dirs[i] = d
			}
		}
		damaged := 0
		for j, fname := range captureFiles(hr.Captures) {
			c := &hr.Captures[j]
			if c.Kind == "" {
				c.Kind = collect.KindOf(c.Command)
			}
			p := path.Join(HostsDir, dirs[i], fname)
			b, ok := files[p]
			if se, ok := files[p+".stderr"]; ok && !bad[p+".stderr"] {
				c.Stderr = string(se)
			}
			switch {
			case ok && !bad[p]:
				c.Stdout = string(b)
			case c.Status == hostio.StatusCollected:
				c.Status = hostio.StatusFailed
				c.Error = collect.ErrMissingFromBundle
				if ok {
					c.Error = collect.ErrCorruptInBundle
				}
				damaged++
				if !bad[p] {
					in.Problems = append(in.Problems, fmt.Sprintf("%s: output of `%s` is missing", hr.Host, c.Command))
				}
			}
		}
		if damaged > 0 && hr.Status != hostio.StatusNotCollected {
			hr.Reason = fmt.Sprintf("%d output(s) missing or corrupt in the bundle", damaged)
			hr.Finalize()
		}
	}
	in.Results = results
	return in, nil
}

func hasPrefix(files map[string][]byte, prefix string) bool {
	for p := range files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// savedOutputs reads one folder per host under prefix (or a lone host's
// files directly under prefix, named label), each file named after its
// command (collect.FileName), with optional <name>.stderr / <name>.exit.
// A stage-1 command without a file is recorded as a skipped capture whose
// Error is missing (collect.ErrNotSaved, or collect.ErrMissingFromBundle for
// the host folders of a bundle), so that the host is partial.
// reads says per host which file gave which command.
func savedOutputs(files map[string][]byte, prefix, label, missing string) (results []hostio.HostResult, ignored []string, reads []HostRead) {
	type hostFiles struct{ names []string }
	byHost := map[string]*hostFiles{}
	for p := range files {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		host, name, nested := strings.Cut(rel, "/")
		if !nested {
			host, name = "", rel
		}
		if strings.Contains(name, "/") {
			continue
		}
		if byHost[host] == nil {
			byHost[host] = &hostFiles{}
		}
		byHost[host].names = append(byHost[host].names, name)
	}
	var hosts []string
	for h := range byHost {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		hf := byHost[h]
		sort.Strings(hf.names)
		name := h
		dir := prefix + h + "/"
		if h == "" {
			name, dir = label, prefix
			if name == "" {
				name = "host"
			}
		}
		hr := hostio.HostResult{Host: name, Transport: "saved-output", Status: hostio.StatusCollected}
		rd := HostRead{Host: name}
		var ign []string
		for _, n := range hf.names {
			if !strings.HasSuffix(n, ".txt") {
				if !strings.HasSuffix(n, ".stderr") && !strings.HasSuffix(n, ".exit") && n != "scenario.yaml" {
					ign = append(ign, path.Join(h, n)+": not a command output (expected <command>.txt)")
				}
				continue
			}
			caps, ok := savedCaptures(name, n, files[dir+n])
			if !ok {
				ign = append(ign, path.Join(h, n)+": not named after a pvrdma-doctor command")
				continue
			}
			for _, c := range caps {
				hr.Captures = append(hr.Captures, withStatusFiles(c, files, dir, n))
			}
			rd.Commands = append(rd.Commands, savedRead(path.Join(h, n), caps))
		}
		if len(hr.Captures) == 0 {
			// A folder without any command output is not a host (docs, ...).
			if h != "" {
				ignored = append(ignored, h+"/: no command outputs")
			}
			continue
		}
		ignored = append(ignored, ign...)
		addMissingStage1(&hr, missing)
		results = append(results, hr)
		reads = append(reads, rd)
	}
	return results, ignored, reads
}

// addMissingStage1 completes a host read from an offline input (saved
// outputs, transcript): every stage-1 command it lacks becomes a skipped
// capture whose Error says why (missing), the host is finalized, and it is
// partial when something was missing, as a live scan that could not run
// those commands would be. It sorts the captures.
func addMissingStage1(hr *hostio.HostResult, missing string) {
	have := map[hostio.Kind]bool{}
	for _, c := range hr.Captures {
		have[c.Kind] = true
	}
	stage1 := collect.Stage1()
	n := 0
	for _, c := range stage1 {
		if !have[c.Kind] {
			hr.Captures = append(hr.Captures, hostio.Capture{Host: hr.Host, Command: c.Line, Kind: c.Kind,
				Status: hostio.StatusSkipped, Error: missing})
			n++
		}
	}
	sortCaptures(hr.Captures)
	hr.Finalize()
	if n == 0 || hr.Status == hostio.StatusNotCollected {
		return
	}
	hr.Status = hostio.StatusPartial
	why := fmt.Sprintf("%d of the %d stage-1 commands missing (%s)", n, len(stage1), missing)
	if hr.Reason != "" {
		why = hr.Reason + "; " + why
	}
	hr.Reason = why
}

// sortCaptures orders captures like the collector: stage 1 in catalogue
// order, then stage 2 and 3 by command line.
func sortCaptures(cs []hostio.Capture) {
	rank := map[string]int{}
	for i, c := range collect.Stage1() {
		rank[c.Line] = i + 1
	}
	stage := func(k hostio.Kind) int {
		switch k {
		case hostio.KindVmkping:
			return 3
		}
		return 2
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ri, rj := rank[cs[i].Command], rank[cs[j].Command]
		switch {
		case ri > 0 && rj > 0:
			return ri < rj
		case ri > 0 || rj > 0:
			return ri > 0
		}
		if si, sj := stage(cs[i].Kind), stage(cs[j].Kind); si != sj {
			return si < sj
		}
		return cs[i].Command < cs[j].Command
	})
}
