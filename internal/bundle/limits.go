package bundle

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Limits bound what is read of an archive or a folder, so that a hostile
// one cannot exhaust memory: a small archive that unpacks to a huge output
// costs what a hostile host could cost, not gigabytes.
type Limits struct {
	// File is the most read of one file (JSON files: manifest, results,
	// which may be as large as a fleet needs).
	File int64
	// Output is the most read of one command output file.
	Output int64
	// Total is the most held of all files together.
	Total int64
	// Entries is the most archive entries read.
	Entries int
}

// DefaultLimits are the limits of analyze and redact: 64 MiB per file,
// a command output's cap of a live scan (hostio.DefaultMaxCommandOutput),
// 512 MiB in total, 100,000 entries.
func DefaultLimits() Limits {
	return Limits{File: 64 << 20, Output: hostio.DefaultMaxCommandOutput, Total: 512 << 20, Entries: 100000}
}

// fileLimit is the most that is read of one input file: JSON files
// (manifest, results) may be as large as a fleet needs; command outputs
// get the per-command cap.
func (l Limits) fileLimit(name string) int64 {
	if strings.HasSuffix(name, ".json") {
		return l.File
	}
	return min(l.Output, l.File)
}

// tooLarge is the problem reported for a file over its limit.
func (l Limits) tooLarge(name string, size int64) string {
	if lim := l.fileLimit(name); size > lim && lim < l.File {
		return fmt.Sprintf("%s is too large (%d bytes, over the %d-byte cap of one command's output): ignored", name, size, lim)
	}
	return fmt.Sprintf("%s is too large (%d bytes): ignored", name, size)
}

// readFileLimit reads a file that may have grown since it was measured
// (or is not what its size says): at most limit+1 bytes, an error past
// limit.
func readFileLimit(p string, limit int64) ([]byte, error) {
	f, err := hostio.OpenInput(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("over the %d-byte cap", limit)
	}
	return b, err
}

// CheckWritable refuses to replace anything but a regular file: a device
// node, a FIFO, a socket, a directory or a symlink at path is left alone.
func CheckWritable(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // new file (or an error the create reports)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file (%s): not replacing it; choose another path", path, hostio.FileKind(st.Mode()))
	}
	return nil
}
