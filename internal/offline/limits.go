package offline

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Offline input is held to the caps of a live scan, so that a small
// archive that unpacks to a huge output (a 61 KB .tar.gz holding 60 MB of
// newlines) costs what a hostile host could cost, not gigabytes: archives
// and folders are read within bundle.DefaultLimits (a command output file
// only up to hostio.DefaultMaxCommandOutput), a capture over
// hostio.MaxCommandLines lines or a host over hostio.DefaultMaxHostOutput
// is reported as over the cap and not parsed, and a transcript is refused
// past maxTranscriptLines. Variables, so that tests can lower them.
var (
	limits                   = bundle.DefaultLimits()
	maxHostOutput      int64 = hostio.DefaultMaxHostOutput
	maxTranscriptLines       = 2 * hostio.MaxCommandLines
)

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
