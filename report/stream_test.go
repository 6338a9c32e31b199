package report

import (
	"bytes"
	"io"
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
