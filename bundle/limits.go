package bundle

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

// Offline input is held to the caps of a live scan, so that a small
// archive that unpacks to a huge output (a 61 KB .tar.gz holding 60 MB of
// newlines) costs what a hostile host could cost, not gigabytes: a command
// output file is read only up to hostio.DefaultMaxCommandOutput, a
// capture over hostio.MaxCommandLines lines or a host over
// hostio.DefaultMaxHostOutput is reported as over the cap and not parsed,
// and a transcript is refused past maxTranscriptLines.
var (
	maxOutputFile      int64 = hostio.DefaultMaxCommandOutput
	maxHostOutput      int64 = hostio.DefaultMaxHostOutput
	maxTranscriptLines       = 2 * hostio.MaxCommandLines
)

// fileLimit is the most that is read of one input file: JSON files
// (manifest, results) may be as large as a fleet needs; command outputs
// get the per-command cap.
func fileLimit(name string) int64 {
	if strings.HasSuffix(name, ".json") {
		return maxFileSize
	}
	return min(maxOutputFile, maxFileSize)
}

// tooLarge is the problem reported for a file over its limit.
func tooLarge(name string, size int64) string {
	if lim := fileLimit(name); size > lim && lim < maxFileSize {
		return fmt.Sprintf("%s is too large (%d bytes, over the %d-byte cap of one command's output): ignored", name, size, lim)
	}
	return fmt.Sprintf("%s is too large (%d bytes): ignored", name, size)
}

// checkTranscript refuses a transcript with more lines than can be parsed
// within the bound.
func checkTranscript(b []byte) error {
	if n := bytes.Count(b, []byte{'\n'}); n > maxTranscriptLines {
		return fmt.Errorf("not a bundle, and a transcript of %d lines is over the %d-line cap", n, maxTranscriptLines)
	}
	return nil
}

// capInput marks the captures over the line cap or past the host cap as
// failed ("output over the cap"), dropping their output before any parser
// sees it.
func capInput(in *Input) {
	if in == nil {
		return
	}
	for i := range in.Results {
		hr := &in.Results[i]
		var held int64
		for j := range hr.Captures {
			c := &hr.Captures[j]
			size := int64(len(c.Stdout) + len(c.Stderr))
			var over *hostio.OutputCapError
			switch {
			case size == 0:
				continue
			case strings.Count(c.Stdout, "\n")+strings.Count(c.Stderr, "\n") > hostio.MaxCommandLines:
				over = &hostio.OutputCapError{Scope: "lines", Limit: hostio.MaxCommandLines}
			case held+size > maxHostOutput:
				over = &hostio.OutputCapError{Scope: "host", Limit: maxHostOutput}
			default:
				held += size
				continue
			}
			c.Stdout, c.Stderr, c.ExitCode = "", "", -1
			c.Status, c.Error = hostio.StatusFailed, over.Error()
			in.Problems = append(in.Problems, fmt.Sprintf("%s: `%s`: %s", hr.Host, c.Command, over.Error()))
			if hr.Status == hostio.StatusCollected {
				hr.Status = hostio.StatusPartial
			}
		}
	}
}

// readFileLimit reads a file that may have grown since it was measured
// (or is not what its size says): at most limit+1 bytes, an error past
// limit.
func readFileLimit(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
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
		return fmt.Errorf("%s exists and is not a regular file (%s): not replacing it; choose another path", path, fileKind(st.Mode()))
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
