package report

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// A streamed document is held until streamHeld bytes: a renderer that
// fails before then falls back whole; past it, the document is written
// as it is made (never held whole), and a failure ends it with an error.
func TestStreamDocument(t *testing.T) {
	r := &Report{SchemaVersion: SchemaVersion, Verdict: "PVRDMA is BROKEN"}
	fallback := func(w io.Writer, _ *Report, failed string) error {
		_, err := io.WriteString(w, "fallback: "+failed)
		return err
	}
	chunk := strings.Repeat("x", 64<<10)

	var out bytes.Buffer
	err := streamDocument(&out, "JSON report", r, func(w io.Writer) error {
		io.WriteString(w, chunk)
		panic("early")
	}, fallback)
	if err != nil || !strings.HasPrefix(out.String(), "fallback: ") || strings.Contains(out.String(), "xxx") {
		t.Errorf("a failure before streamHeld bytes: %v, %.40q", err, out.String())
	}

	out.Reset()
	seen := 0
	err = streamDocument(&out, "JSON report", r, func(w io.Writer) error {
		for out.Len() == 0 {
			io.WriteString(w, chunk)
			seen++
			if seen*len(chunk) > 4*streamHeld {
				t.Fatal("nothing written after 4 x streamHeld bytes")
			}
		}
		panic("late")
	}, fallback)
	if err == nil || !strings.Contains(err.Error(), "incomplete") || out.Len() < streamHeld || out.Len() > streamHeld+len(chunk) {
		t.Errorf("a failure after streaming began: %v, %d bytes written", err, out.Len())
	}

	out.Reset()
	err = streamDocument(&out, "JSON report", r, func(w io.Writer) error {
		for range 40 {
			io.WriteString(w, chunk)
		}
		return nil
	}, fallback)
	if err != nil || out.Len() != 40*len(chunk) {
		t.Errorf("a large document: %v, %d bytes", err, out.Len())
	}
}

// failWriter fails every write after the first n bytes it took.
type failWriter struct {
	n   int
	got bytes.Buffer
}

func (f *failWriter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, io.ErrShortWrite
	}
	return f.got.Write(p)
}

// heldWriter passes on every byte in order, nothing before streamHeld
// bytes (or flush), and the destination's errors.
func TestHeldWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	for trial := range 20 {
		var out bytes.Buffer
		var want bytes.Buffer
		h := &heldWriter{w: &out}
		total := rng.IntN(3 * streamHeld)
		for want.Len() < total {
			p := make([]byte, 1+rng.IntN(96<<10))
			for i := range p {
				p[i] = byte(rng.IntN(256))
			}
			before := want.Len()
			if n, err := h.Write(p); n != len(p) || err != nil {
				t.Fatalf("trial %d: Write = %d, %v", trial, n, err)
			}
			want.Write(p)
			if before+len(p) < streamHeld && out.Len() != 0 {
				t.Fatalf("trial %d: %d bytes out before streamHeld (%d written)", trial, out.Len(), want.Len())
			}
			if want.Len() >= streamHeld && !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Fatalf("trial %d: %d of %d bytes out past streamHeld", trial, out.Len(), want.Len())
			}
		}
		if err := h.flush(); err != nil {
			t.Fatalf("trial %d: flush: %v", trial, err)
		}
		if !bytes.Equal(out.Bytes(), want.Bytes()) {
			t.Fatalf("trial %d: %d bytes out of %d, or not in order", trial, out.Len(), want.Len())
		}
		if err := h.flush(); err != nil || out.Len() != want.Len() {
			t.Fatalf("trial %d: a second flush wrote again: %v, %d bytes", trial, err, out.Len())
		}
	}

	small := &heldWriter{w: &failWriter{n: 10}}
	if _, err := small.Write([]byte("short document")); err != nil {
		t.Fatalf("a held write failed: %v", err)
	}
	if err := small.flush(); err == nil {
		t.Error("flush hid the destination's error")
	}

	chunk := bytes.Repeat([]byte("y"), 64<<10)
	at := &heldWriter{w: &failWriter{n: 0}}
	var err error
	for i := 0; err == nil && i*len(chunk) <= streamHeld; i++ {
		_, err = at.Write(chunk)
	}
	if err == nil {
		t.Error("the write that let the held bytes out hid the destination's error")
	}

	fw := &failWriter{n: streamHeld + len(chunk)}
	past := &heldWriter{w: fw}
	err = nil
	for i := 0; err == nil && i*len(chunk) <= 4*streamHeld; i++ {
		_, err = past.Write(chunk)
	}
	if err == nil || !bytes.Equal(fw.got.Bytes(), bytes.Repeat([]byte("y"), fw.got.Len())) || fw.got.Len() < streamHeld {
		t.Errorf("a write past streamHeld: %v, %d bytes out", err, fw.got.Len())
	}
}
