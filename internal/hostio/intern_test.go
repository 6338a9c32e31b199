package hostio

import (
	"sync"
	"testing"
	"unsafe"
)

// Equal strings come back as one copy, from any goroutine; an owned
// buffer becomes the string without a copy; Copy copies once.
func TestInterner(t *testing.T) {
	var in Interner
	a := in.String(string([]byte("firewall list")))
	b := in.String(string([]byte("firewall list")))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("String: two copies")
	}
	buf := []byte("pci list")
	o := in.Owned(buf)
	if unsafe.StringData(o) != unsafe.SliceData(buf) {
		t.Error("Owned copied the buffer")
	}
	if c := in.Copy([]byte("pci list")); unsafe.StringData(c) != unsafe.StringData(o) {
		t.Error("Copy did not return the held copy")
	}
	fresh := []byte("nic list")
	c := in.Copy(fresh)
	fresh[0] = 'X'
	if c != "nic list" {
		t.Errorf("Copy kept the caller's buffer: %q", c)
	}
	if in.String("") != "" || in.Owned(nil) != "" || in.Copy(nil) != "" {
		t.Error("empty")
	}
	var wg sync.WaitGroup
	got := make([]string, 50)
	for i := range got {
		wg.Go(func() { got[i] = in.Copy([]byte("shared output")) })
	}
	wg.Wait()
	for _, s := range got {
		if unsafe.StringData(s) != unsafe.StringData(got[0]) {
			t.Fatal("concurrent: two copies")
		}
	}
}
