package bundle

import (
	"bufio"
	"io"
	"os"
)

// spill keeps the derived files between the writer's two passes: pass 1
// encodes each once into it (and into its checksum), pass 2 copies it
// from there. A spill that cannot be made or written is dropped: the
// writer then encodes the files again, as it would without one.
type spill struct {
	f     *os.File
	w     *bufio.Writer
	n     int64
	err   error
	track func(string, bool)
}

func newSpill(dir string, track func(string, bool)) *spill {
	f, err := os.CreateTemp(dir, ".pvrdma-doctor-bundle-spill-*")
	if err != nil {
		return &spill{err: err}
	}
	if track != nil {
		track(f.Name(), true)
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 256<<10), track: track}
}

func (s *spill) ok() bool { return s.err == nil }

// Write never fails its caller: a failed spill is dropped (ok turns
// false) and the files written so far keep their own encoders.
func (s *spill) Write(p []byte) (int, error) {
	if s.err == nil {
		var n int
		n, s.err = s.w.Write(p)
		s.n += int64(n)
	}
	return len(p), nil
}

// section returns a writer of the size bytes at off, or encode when the
// spill failed (before or after this file was written).
func (s *spill) section(off, size int64, encode func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		if s.err == nil {
			s.err = s.w.Flush()
		}
		if s.err != nil {
			return encode(w)
		}
		_, err := io.Copy(w, io.NewSectionReader(s.f, off, size))
		return err
	}
}

// remove deletes the spill file.
func (s *spill) remove() {
	if s.f == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	if s.track != nil {
		s.track(s.f.Name(), false)
	}
	s.f = nil
}
