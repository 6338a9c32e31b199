package hostio

import (
	"sync"
	"unsafe"
)

// Interner keeps one copy of each distinct string it is given, so that
// what many hosts repeat is held once: the same firewall ruleset list, PCI
// list or driver list from every host of a cluster built alike, and the
// host names, kinds and statuses of a bundle's captures, which JSON gives
// each their own copy. Safe for concurrent use; the zero value is ready.
type Interner struct {
	mu sync.Mutex
	m  map[string]string
}

// String returns the held copy of s (s itself, held, the first time).
func (in *Interner) String(s string) string {
	if s == "" {
		return ""
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if c, ok := in.m[s]; ok {
		return c
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	in.m[s] = s
	return s
}

// Owned returns the held string equal to b; the first time, b itself as
// a string, without a copy: the caller gives b up and never writes it
// again (a transport's output, hostio.Result).
func (in *Interner) Owned(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if c, ok := in.m[string(b)]; ok { // no copy: a lookup
		return c
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	in.m[s] = s
	return s
}

// Copy returns the held string equal to b, copying b only the first time.
func (in *Interner) Copy(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if c, ok := in.m[string(b)]; ok {
		return c
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	s := string(b)
	in.m[s] = s
	return s
}
