//go:build !unix

package hostio

import (
	"io"
	"os"
	"time"
)

// waitRead reads f into b; with noWriter, end of file before anything was
// read is waited out, polling, until the read deadline (systems without
// Unix pipes' poller semantics; see input_unix.go).
func waitRead(f *os.File, b []byte, noWriter bool) (int, error) {
	until := time.Now().Add(InputWait)
	for {
		n, err := f.Read(b)
		if n > 0 || err != io.EOF || !noWriter || !time.Now().Before(until) {
			return n, err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-inputStop:
			return 0, io.EOF
		}
	}
}
