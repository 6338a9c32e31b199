package hostio

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// withWait shortens InputWait for a test and gives it a fresh stop.
func withWait(t *testing.T, d time.Duration) {
	t.Helper()
	old := InputWait
	InputWait = d
	inputStop, inputStopOnce = make(chan struct{}), sync.Once{}
	t.Cleanup(func() { InputWait = old; inputStop, inputStopOnce = make(chan struct{}), sync.Once{} })
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// Each kind of input: a file and a pipe with a writer are read; a pipe
// nobody writes to, or whose writer stalls, fails within InputWait; a
// device, a directory and a socket are refused at once; /dev/null is empty.
func TestReadFileCappedInputs(t *testing.T) {
	withWait(t, 300*time.Millisecond)
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	os.WriteFile(file, []byte("secret\n"), 0o600)
	if b, err := ReadFileCapped(file, 100); err != nil || string(b) != "secret\n" {
		t.Errorf("regular file: %q %v", b, err)
	}
	// A pipe with a writer (what `--password-file <(pass show esx)` gives).
	fifo := mkfifo(t)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write([]byte("from a pipe\n"))
			w.Close()
		}
	}()
	if b, err := ReadFileCapped(fifo, 100); err != nil || string(b) != "from a pipe\n" {
		t.Errorf("pipe with a writer: %q %v", b, err)
	}
	// An anonymous pipe by its /dev/fd name, its writer done before the
	// read (`<(echo pw)`: the shell's child may well have exited).
	pr, pw, _ := os.Pipe()
	pw.Write([]byte("substituted\n"))
	pw.Close()
	if b, err := ReadFileCapped(fmt.Sprintf("/dev/fd/%d", pr.Fd()), 100); err != nil || string(b) != "substituted\n" {
		t.Errorf("/dev/fd pipe: %q %v", b, err)
	}
	pr.Close()
	// Nobody writes.
	start := time.Now()
	_, err := ReadFileCapped(mkfifo(t), 100)
	if err == nil || !strings.Contains(err.Error(), "nothing wrote to within") || time.Since(start) > 10*time.Second {
		t.Errorf("pipe without a writer: %v after %s", err, time.Since(start))
	}
	// The writer opens, writes a little and stalls.
	stall := mkfifo(t)
	release := make(chan struct{})
	go func() {
		w, err := os.OpenFile(stall, os.O_WRONLY, 0)
		if err == nil {
			w.Write([]byte("half"))
			<-release
			w.Close()
		}
	}()
	_, err = ReadFileCapped(stall, 100)
	close(release)
	if err == nil || !strings.Contains(err.Error(), "nothing more came through the pipe") {
		t.Errorf("stalled pipe: %v", err)
	}
	for _, p := range []string{"/dev/zero", "/dev/urandom", dir} {
		start := time.Now()
		_, err := ReadFileCapped(p, 100)
		var nf *NotAFileError
		// Refused before any read (NotAFileError); the bound only catches a
		// read that never ends, generous for a loaded machine.
		if !errors.As(err, &nf) || time.Since(start) > 10*time.Second {
			t.Errorf("%s: %v; want refused at once", p, err)
		}
	}
	sock := filepath.Join(dir, "s")
	if ln, err := net.Listen("unix", sock); err == nil {
		defer ln.Close()
		if _, err := ReadFileCapped(sock, 100); err == nil { // open(2) refuses a socket (ENXIO)
			t.Errorf("socket: %v", err)
		}
	}
	if b, err := ReadFileCapped(os.DevNull, 100); err != nil || len(b) != 0 {
		t.Errorf("/dev/null: %q %v", b, err)
	}
}

// StopInputs (the first signal) ends a wait for a pipe's writer, a read of
// a stalled pipe and a read of standard input at once.
func TestStopInputsEndsReads(t *testing.T) {
	withWait(t, time.Hour)
	fifo := mkfifo(t)
	stall := mkfifo(t)
	go func() {
		w, err := os.OpenFile(stall, os.O_WRONLY, 0)
		if err == nil {
			defer w.Close()
			w.Write([]byte("x"))
			time.Sleep(time.Hour)
		}
	}()
	pr, pw, _ := os.Pipe()
	defer pw.Close()
	errs := make(chan error, 3)
	go func() { _, err := ReadFileCapped(fifo, 100); errs <- err }()
	go func() { _, err := ReadFileCapped(stall, 100); errs <- err }()
	go func() { _, err := StoppableReader(pr).Read(make([]byte, 10)); errs <- err }()
	time.Sleep(100 * time.Millisecond) // let them block (stopping earlier is tested too: it must also end them)
	StopInputs()
	for range 3 {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrInputStopped) {
				t.Errorf("after StopInputs: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a read survived StopInputs")
		}
	}
	if _, err := ReadFileCapped(fifo, 100); !errors.Is(err, ErrInputStopped) {
		t.Errorf("an input opened after StopInputs: %v", err)
	}
}
