package bundle

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
)

// A bundle is one tar stream in three gzip members (gzip and tar read them
// as one archive: `tar xzf` and every gzip reader join members):
//
//  1. manifest.json, results.json and the host folders;
//  2. the derived files (facts.json, findings.json, report.json,
//     report.html) and the tar end blocks;
//  3. an empty trailer member whose gzip header extra field (subfield
//     "PD") records where member 2 starts, its compressed length and the
//     SHA-256 of its compressed bytes.
//
// Analysis rebuilds the derived files from the outputs, yet they are most
// of a large bundle's bytes (a 1,000-host bundle's facts.json alone is
// half of them): a reader that can read at an offset checks member 2 by
// the trailer's checksum, without inflating it (ReadArchiveAt). A bundle
// without the trailer (written before it, or damaged) is read whole.

// trailerID is the gzip extra subfield of the trailer member.
var trailerID = [2]byte{'P', 'D'}

// trailerVersion is the layout of the subfield's payload: version (1
// byte), offset and length (8 bytes each, little endian), SHA-256 (32).
const (
	trailerVersion = 1
	trailerPayload = 1 + 8 + 8 + 32
)

// derivedMember is what the trailer says of member 2.
type derivedMember struct {
	Offset, Length int64
	SHA256         [32]byte
}

// trailerExtra is the gzip extra field of the trailer.
func (d derivedMember) trailerExtra() []byte {
	b := make([]byte, 0, 4+trailerPayload)
	b = append(b, trailerID[0], trailerID[1])
	b = binary.LittleEndian.AppendUint16(b, trailerPayload)
	b = append(b, trailerVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(d.Offset))
	b = binary.LittleEndian.AppendUint64(b, uint64(d.Length))
	return append(b, d.SHA256[:]...)
}

// writeTrailer writes the trailer member: empty, its header carrying d.
func writeTrailer(w io.Writer, d derivedMember) error {
	gz := gzip.NewWriter(w)
	gz.Header = gzip.Header{Extra: d.trailerExtra(), OS: 255}
	return gz.Close()
}

// trailerSearch is how much of an archive's end is searched for the
// trailer (it is under 100 bytes).
const trailerSearch = 256

// findDerivedMember reads the trailer at the end of the size bytes of ra:
// a complete, empty gzip member ending the archive whose extra field is a
// valid "PD" subfield describing a member that ends where it starts.
func findDerivedMember(ra io.ReaderAt, size int64) (derivedMember, bool) {
	n := min(size, trailerSearch)
	tail := make([]byte, n)
	if _, err := ra.ReadAt(tail, size-n); err != nil && err != io.EOF {
		return derivedMember{}, false
	}
	for i := bytes.LastIndex(tail, []byte{0x1f, 0x8b}); i >= 0; i = bytes.LastIndex(tail[:i], []byte{0x1f, 0x8b}) {
		d, ok := parseTrailer(tail[i:])
		if ok && d.Offset > 0 && d.Length > 0 && d.Offset+d.Length == size-int64(len(tail)-i) {
			return d, true
		}
	}
	return derivedMember{}, false
}

// parseTrailer reads b as exactly one empty gzip member with a "PD"
// subfield.
func parseTrailer(b []byte) (derivedMember, bool) {
	r := bytes.NewReader(b)
	gz, err := gzip.NewReader(r)
	if err != nil {
		return derivedMember{}, false
	}
	gz.Multistream(false)
	if n, err := io.Copy(io.Discard, gz); err != nil || n != 0 || r.Len() != 0 {
		return derivedMember{}, false
	}
	x := gz.Header.Extra
	if len(x) != 4+trailerPayload || x[0] != trailerID[0] || x[1] != trailerID[1] ||
		binary.LittleEndian.Uint16(x[2:]) != trailerPayload || x[4] != trailerVersion {
		return derivedMember{}, false
	}
	var d derivedMember
	d.Offset = int64(binary.LittleEndian.Uint64(x[5:]))
	d.Length = int64(binary.LittleEndian.Uint64(x[13:]))
	copy(d.SHA256[:], x[21:])
	if d.Offset < 0 || d.Length < 0 {
		return derivedMember{}, false
	}
	return d, true
}
