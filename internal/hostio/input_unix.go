//go:build unix

package hostio

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// pipeReads counts the read calls on pipes (its test checks that waiting
// for a writer is no loop of reads).
var pipeReads atomic.Int64

// waitRead reads f (a pipe opened without blocking, in Go's poller) into
// b. With noWriter, a read of 0 bytes (a pipe no writer has opened yet)
// is no end of file: the poller waits for the pipe to become readable (a
// writer's first bytes, or its hang-up) or for the read deadline, without
// reading again meanwhile.
func waitRead(f *os.File, b []byte, noWriter bool) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return f.Read(b)
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for {
			pipeReads.Add(1)
			n, rerr = syscall.Read(int(fd), b)
			if rerr != syscall.EINTR {
				break
			}
		}
		switch {
		case rerr == syscall.EAGAIN:
			return false // empty, a writer open: wait
		case rerr == nil && n == 0 && noWriter:
			return false // no writer yet: wait for one
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
