package hostio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// Local inputs (a password file, a key, a hosts file, a config file, an
// analyze input...) are opened so that none can hold the process: a named
// pipe nobody writes to, a terminal or a slow device would otherwise block
// the open or the read forever, and a blocked read does not see signals.
//
//   - A regular file is read as usual (its size is bounded by each caller's
//     cap).
//   - A pipe (a named pipe, or `<(command)` in a shell: /dev/fd/N) is
//     accepted, as a way to pass a secret without a file: waiting for its
//     writer and every read are bounded by InputWait, and StopInputs (the
//     first Ctrl-C or SIGTERM) ends them at once.
//   - Anything else (a directory, a character or block device such as a
//     terminal or /dev/zero, a socket) is refused: it is not the file
//     expected. /dev/null reads as an empty file.
//
// Standard input ("-", where a command accepts it) is read through
// StoppableReader: no deadline (a user may be typing), but StopInputs ends
// it too.

// InputWait bounds the wait for a pipe's writer and for each read from a
// pipe. A variable so that tests can shorten it.
var InputWait = 30 * time.Second

// ErrInputStopped is returned by input reads ended by StopInputs.
var ErrInputStopped = errors.New("interrupted")

var (
	inputStop     = make(chan struct{})
	inputStopOnce sync.Once
)

// StopInputs ends every input read in progress or to come (the first
// signal: nothing read yet is worth waiting for).
func StopInputs() { inputStopOnce.Do(func() { close(inputStop) }) }

// InputsStopped is closed by StopInputs (a reader of its own, such as a
// password prompt, selects on it).
func InputsStopped() <-chan struct{} { return inputStop }

func inputStopped() bool {
	select {
	case <-inputStop:
		return true
	default:
		return false
	}
}

// NotAFileError refuses an input that is not a regular file or a pipe.
type NotAFileError struct {
	Path string
	Kind string
}

func (e *NotAFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a file: give a regular file (or a pipe)", e.Path, e.Kind)
}

// FileKind names a file mode for messages ("a named pipe").
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// OpenInput opens a local input for reading (see above): a regular file,
// a pipe read under InputWait and StopInputs, or /dev/null; anything else
// is a *NotAFileError.
func OpenInput(path string) (io.ReadCloser, error) {
	if inputStopped() {
		return nil, fmt.Errorf("%s: %w", path, ErrInputStopped)
	}
	// O_NONBLOCK: opening a pipe without a writer returns at once (and
	// a pipe is then read through Go's poller, under deadlines).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	m := st.Mode()
	switch {
	case m.IsRegular():
		return f, nil
	case m&fs.ModeNamedPipe != 0:
		return &pipeReader{f: f, path: path}, nil
	case m&fs.ModeCharDevice != 0 && isDevNull(st):
		return f, nil
	}
	f.Close()
	return nil, &NotAFileError{Path: path, Kind: FileKind(m)}
}

// isDevNull reports whether st is /dev/null's.
func isDevNull(st fs.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// pipeReader reads a pipe opened without blocking (Go polls it, so a
// deadline ends a read): each read, and the wait for a writer, within
// InputWait, and until StopInputs. Before anything was read, "end of
// file" means no writer has come yet (a pipe opened without blocking reads
// so until one does): it is waited for in the poller (waitRead), not by
// reading again and again. A read that failed (no writer, a stalled one,
// stopped) fails again at once: a caller that peeks then reads (bufio)
// would otherwise wait InputWait twice.
type pipeReader struct {
	f    *os.File
	path string
	seen bool  // something was read: end of file is the end
	err  error // the error that ended reading, returned from then on
	once sync.Once
}

func (p *pipeReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.read(b)
	if err != nil && err != io.EOF {
		p.err = err
	}
	return n, err
}

func (p *pipeReader) read(b []byte) (int, error) {
	// The wait's deadline is set before the watcher starts: a StopInputs
	// between the two would otherwise have its "now" overwritten by the
	// full wait (a SIGTERM held the process until InputWait).
	p.f.SetReadDeadline(time.Now().Add(InputWait))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-inputStop:
			p.f.SetReadDeadline(time.Now()) // ends the read now
		case <-stop:
		}
	}()
	if inputStopped() {
		return 0, fmt.Errorf("%s: %w", p.path, ErrInputStopped)
	}
	n, err := waitRead(p.f, b, !p.seen)
	switch {
	case n > 0:
		p.seen = true
		return n, nil
	case inputStopped() && (err == nil || err == io.EOF || errors.Is(err, os.ErrDeadlineExceeded)):
		return 0, fmt.Errorf("%s: %w", p.path, ErrInputStopped)
	case (err == io.EOF || errors.Is(err, os.ErrDeadlineExceeded)) && !p.seen:
		return 0, fmt.Errorf("%s is a pipe nothing wrote to within %s", p.path, InputWait)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, fmt.Errorf("%s: nothing more came through the pipe within %s", p.path, InputWait)
	}
	return n, err
}

func (p *pipeReader) Close() error {
	var err error
	p.once.Do(func() { err = p.f.Close() })
	return err
}

// StoppableReader reads r (standard input) until StopInputs: a read that
// does not return by then is abandoned (the process is ending).
func StoppableReader(r io.Reader) io.Reader { return &stoppable{r: r} }

type stoppable struct {
	r       io.Reader
	pending chan readResult
}

type readResult struct {
	b   []byte
	err error
}

func (s *stoppable) Read(b []byte) (int, error) {
	if inputStopped() {
		return 0, ErrInputStopped
	}
	if s.pending == nil {
		ch := make(chan readResult, 1)
		buf := make([]byte, len(b))
		go func() {
			n, err := s.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		s.pending = ch
	}
	select {
	case res := <-s.pending:
		s.pending = nil
		n := copy(b, res.b)
		if n < len(res.b) {
			// b shrank between calls: keep the rest for the next read.
			rest := res.b[n:]
			ch := make(chan readResult, 1)
			ch <- readResult{rest, res.err}
			s.pending = ch
			return n, nil
		}
		return n, res.err
	case <-inputStop:
		return 0, ErrInputStopped
	}
}
