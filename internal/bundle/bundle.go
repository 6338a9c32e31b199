// Package bundle is the pvrdma-doctor support-bundle archive (one tar.gz
// holding every raw capture of a scan plus its facts, findings and
// report): writing it atomically (redacted through package redact),
// reading an archive or folder within limits and verifying it against its
// manifest. It also compares two analyses (diff.go). Package offline turns
// a bundle, a folder of saved outputs or a transcript into host results.
//
// Layout of a bundle (docs/bundles.md):
//
//	manifest.json                   Manifest: versions, hosts, per-command status, sha256 of every file
//	results.json                    []hostio.HostResult without stdout
//	hosts/<host>/<catalog.FileName(command)>   stdout of each command
//	hosts/<host>/<...>.stderr       stderr, when non-empty
//	facts.json, findings.json, report.json, report.html
package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// SchemaVersion of the bundle layout and manifest. Readers accept every
// minor of their major; a newer major is reported as such.
const SchemaVersion = "1.0"

// Names of the fixed files of a bundle.
const (
	ManifestName = "manifest.json"
	ResultsFile  = "results.json"
	FactsFile    = "facts.json"
	FindingsFile = "findings.json"
	ReportJSON   = "report.json"
	ReportHTML   = "report.html"
	HostsDir     = "hosts"
)

// Manifest describes a bundle; it is the first file of the archive.
type Manifest struct {
	SchemaVersion string      `json:"schema_version"`
	Tool          report.Tool `json:"tool"`
	CreatedAt     time.Time   `json:"created_at"`
	// Source is the report's source ("scan of 3 host(s)", ...).
	Source string `json:"source,omitempty"`
	// Redacted is true when identifiers were replaced by tokens.
	Redacted bool           `json:"redacted"`
	Hosts    []ManifestHost `json:"hosts"`
	// Files lists every other file of the bundle with its checksum.
	Files []ManifestFile `json:"files"`
}

// ManifestHost is one host of a bundle.
type ManifestHost struct {
	Host      string            `json:"host"`
	Dir       string            `json:"dir"`
	Transport string            `json:"transport,omitempty"`
	Status    hostio.Status     `json:"status"`
	Reason    string            `json:"reason,omitempty"`
	Commands  []ManifestCommand `json:"commands"`
}

// ManifestCommand is one capture of a host.
type ManifestCommand struct {
	Command    string        `json:"command"`
	Kind       hostio.Kind   `json:"kind,omitempty"`
	File       string        `json:"file"`
	StderrFile string        `json:"stderr_file,omitempty"`
	Status     hostio.Status `json:"status"`
	ExitCode   int           `json:"exit_code"`
	DurationNS time.Duration `json:"duration_ns"`
	Error      string        `json:"error,omitempty"`
}

// ManifestFile is one file with its size and SHA-256 (hex).
type ManifestFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Analysis is what the bundle stores besides the captures: the one
// pipeline's result (package analysis). The bundle package does not run the
// pipeline itself: callers pass an AnalyzeFunc (analysis.Run).
type Analysis = analysis.Analysis

// AnalyzeFunc analyzes host results. redact must be applied to any
// free text the caller adds (report source and notes), so that a redacted
// bundle holds no identifier; it is the identity when not redacting.
type AnalyzeFunc func(results []hostio.HostResult, redact func(string) string) Analysis

var reDirUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// hostDirs returns the folder of each host under hosts/: the host name
// made safe for a path ("esx01", "10.0.0.1_2222"), unique within the bundle.
func hostDirs(hosts []string) []string {
	out := make([]string, len(hosts))
	used := map[string]bool{}
	for i, h := range hosts {
		d := strings.Trim(reDirUnsafe.ReplaceAllString(h, "_"), "_.")
		if d == "" {
			d = "host"
		}
		base := d
		for n := 2; used[strings.ToLower(d)]; n++ {
			d = base + "-" + strconv.Itoa(n)
		}
		used[strings.ToLower(d)] = true
		out[i] = d
	}
	return out
}

// hostNames returns the name of each host.
func hostNames(results []hostio.HostResult) []string {
	names := make([]string, len(results))
	for i, hr := range results {
		names[i] = hr.Host
	}
	return names
}

// sha256Hex is the SHA-256 of b in hex, as the manifest lists it.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// captureFiles returns the file of each capture of a host: its
// catalog.FileName, with ".2", ".3"... before ".txt" when a command repeats.
func captureFiles(caps []hostio.Capture) []string {
	out := make([]string, len(caps))
	used := map[string]bool{}
	for i, c := range caps {
		f := catalog.FileName(c.Command)
		base := strings.TrimSuffix(f, ".txt")
		for n := 2; used[f]; n++ {
			f = base + "." + strconv.Itoa(n) + ".txt"
		}
		used[f] = true
		out[i] = f
	}
	return out
}

// checkSchema compares a manifest's schema version with ours.
func checkSchema(v string) error {
	major, _, _ := strings.Cut(v, ".")
	ours, _, _ := strings.Cut(SchemaVersion, ".")
	n, err := strconv.Atoi(major)
	if err != nil || v == "" {
		return fmt.Errorf("manifest has an invalid schema_version %q", v)
	}
	o, _ := strconv.Atoi(ours)
	if n > o {
		return fmt.Errorf("bundle schema %s is newer than this pvrdma-doctor understands (%s.x): upgrade pvrdma-doctor to read it fully", v, ours)
	}
	if n < o {
		return fmt.Errorf("bundle schema %s is older than this pvrdma-doctor reads (%s.x)", v, ours)
	}
	return nil
}

func identity(s string) string { return s }
