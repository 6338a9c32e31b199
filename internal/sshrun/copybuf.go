package sshrun

import (
	"io"
	"sync"
)

// copyBufs are the buffers limitedWriter.ReadFrom reads into. Without
// ReadFrom, x/crypto's session copies stdout and stderr with io.Copy, which
// allocates a fresh 32 KiB buffer per stream: 64 KiB per command, 1.5 GiB
// of garbage for a 1,000-host scan (pprof, BenchmarkCollect1000Hosts).
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ReadFrom implements io.ReaderFrom (used by io.Copy) with a pooled buffer;
// it stops at the first write error (the output limit) like io.Copy.
func (l *limitedWriter) ReadFrom(r io.Reader) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var n int64
	for {
		nr, er := r.Read(buf)
		if nr > 0 {
			nw, ew := l.Write(buf[:nr])
			n += int64(nw)
			if ew != nil {
				return n, ew
			}
		}
		if er == io.EOF {
			return n, nil
		}
		if er != nil {
			return n, er
		}
	}
}
