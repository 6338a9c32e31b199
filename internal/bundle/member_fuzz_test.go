package bundle

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// FuzzFindDerivedMember feeds arbitrary archive ends to the trailer
// search: it never panics, and a trailer it accepts describes a member
// that ends where the trailer starts, inside the archive.
func FuzzFindDerivedMember(f *testing.F) {
	var good bytes.Buffer
	good.Write(bytes.Repeat([]byte{0x1f, 0x8b, 0x08, 0x00}, 30))
	d := derivedMember{Offset: 40, Length: 80, SHA256: sha256.Sum256([]byte("member"))}
	if err := writeTrailer(&good, d); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()-3])
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := findDerivedMember(bytes.NewReader(data), int64(len(data)))
		if !ok {
			return
		}
		if m.Offset <= 0 || m.Length <= 0 || m.Offset+m.Length >= int64(len(data)) {
			t.Fatalf("accepted a member outside the archive: %+v of %d bytes", m, len(data))
		}
		if _, ok := parseTrailer(data[m.Offset+m.Length:]); !ok {
			t.Fatalf("the bytes after the member are not the trailer")
		}
	})
}
