package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// Options control how a bundle is written.
type Options struct {
	// Redact replaces identifiers by tokens (the default of the CLI).
	Redact bool
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

// entry is one file of the bundle, in archive order.
type entry struct {
	name string
	data []byte
}

// Write writes a bundle of results to w as tar.gz.
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
	results = redact.Clone(results)
	redactText := identity
	var tm *redact.TokenMap
	if opts.Redact {
		r := redact.NewRedactor()
		if opts.Tokens != nil {
			if err := r.Seed(opts.Tokens); err != nil {
				return nil, err
			}
		}
		r.Learn(results)
		for _, id := range opts.Identifiers {
			r.AddIdentifier(id.Kind, id.Original, id.Token)
		}
		if c := r.Collisions(); len(c) > 0 {
			return nil, &redact.TokenCollisionError{Names: c}
		}
		results = r.Results(results)
		redactText = r.Text
		tmv := r.TokenMap()
		tm = &tmv
	}
	a := opts.Analyze(results, redactText)
	m := &Manifest{
		SchemaVersion: SchemaVersion,
		Tool:          report.Tool{Name: "pvrdma-doctor", Version: opts.ToolVersion},
		CreatedAt:     opts.Now.UTC(),
		Source:        redactText(opts.Source),
		Redacted:      opts.Redact || opts.AlreadyRedacted,
	}
	var files []entry
	add := func(name string, data []byte) {
		files = append(files, entry{name, data})
	}
	addJSON := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("bundle: encoding %s: %w", name, err)
		}
		add(name, append(b, '\n'))
		return nil
	}
	// results.json: everything but stdout (it lives in the host files).
	slim := redact.Clone(results)
	for i := range slim {
		for j := range slim[i].Captures {
			slim[i].Captures[j].Stdout = ""
		}
	}
	if err := addJSON(ResultsFile, slim); err != nil {
		return nil, err
	}
	dirs := hostDirs(hostNames(results))
	for i, hr := range results {
		mh := ManifestHost{Host: hr.Host, Dir: dirs[i], Transport: hr.Transport, Status: hr.Status, Reason: hr.Reason,
			Commands: []ManifestCommand{}}
		for j, fname := range captureFiles(hr.Captures) {
			c := hr.Captures[j]
			p := path.Join(HostsDir, dirs[i], fname)
			mc := ManifestCommand{Command: c.Command, Kind: c.Kind, File: p, Status: c.Status, ExitCode: c.ExitCode,
				DurationNS: c.Duration, Error: c.Error}
			add(p, []byte(c.Stdout))
			if c.Stderr != "" {
				mc.StderrFile = p + ".stderr"
				add(mc.StderrFile, []byte(c.Stderr))
			}
			mh.Commands = append(mh.Commands, mc)
		}
		m.Hosts = append(m.Hosts, mh)
	}
	if a.Fleet != nil {
		if err := addJSON(FactsFile, a.Fleet); err != nil {
			return nil, err
		}
	}
	if err := addJSON(FindingsFile, a.Checks); err != nil {
		return nil, err
	}
	if a.Report != nil {
		if err := addJSON(ReportJSON, a.Report); err != nil {
			return nil, err
		}
		if opts.HTML != nil {
			var b bytes.Buffer
			if err := opts.HTML(&b, a.Report); err != nil {
				return nil, fmt.Errorf("bundle: rendering report.html: %w", err)
			}
			add(ReportHTML, b.Bytes())
		}
	}
	for _, f := range files {
		m.Files = append(m.Files, ManifestFile{Path: f.name, Size: int64(len(f.data)), SHA256: sha256Hex(f.data)})
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bundle: encoding manifest: %w", err)
	}
	files = append([]entry{{ManifestName, append(mb, '\n')}}, files...)

	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: m.CreatedAt, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("bundle: writing %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("bundle: writing %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("bundle: finishing the archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("bundle: finishing the archive: %w", err)
	}
	return &Written{Manifest: m, Analysis: a, Tokens: tm}, nil
}

// TokensPath is where the token map of the bundle at path is written.
func TokensPath(bundlePath string) string { return bundlePath + ".tokens.json" }

// WriteFile writes a bundle to path atomically (a temporary file in the
// same directory, fsync, rename): an interrupted or failed export leaves
// no file at path. When redacting, the token map is written next to it
// (TokensPath, mode 0600), never inside the bundle.
func WriteFile(path string, results []hostio.HostResult, opts Options) (*Written, error) {
	var wr *Written
	err := atomicWrite(path, 0o644, func(w io.Writer) error {
		var err error
		wr, err = Write(w, results, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	if wr.Tokens != nil {
		tb, err := json.MarshalIndent(wr.Tokens, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := atomicWrite(TokensPath(path), 0o600, func(w io.Writer) error {
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
func atomicWrite(path string, mode os.FileMode, fill func(io.Writer) error) (err error) {
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
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
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
