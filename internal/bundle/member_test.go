package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// mixedBundle is the mixed scenario as a bundle with every derived file.
func mixedBundle(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := bundle.Write(&buf, mixed(t), bundle.Options{Redact: true, Now: time.Unix(1700000000, 0), Analyze: testAnalyze,
		HTML: func(w io.Writer, r *report.Report) error {
			_, err := io.WriteString(w, "<html>report</html>")
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var derivedNames = []string{bundle.FactsFile, bundle.FindingsFile, bundle.ReportHTML, bundle.ReportJSON}

// readBoth reads b as a stream and at offsets.
func readBoth(t *testing.T, b []byte) (stream, at *bundle.Files) {
	t.Helper()
	lim := bundle.DefaultLimits()
	stream, err := bundle.ReadArchive(bytes.NewReader(b), lim)
	if err != nil {
		t.Fatal(err)
	}
	at, err = bundle.ReadArchiveAt(bytes.NewReader(b), int64(len(b)), lim)
	if err != nil {
		t.Fatal(err)
	}
	return stream, at
}

func TestDerivedMemberCheckedWithoutInflating(t *testing.T) {
	b := mixedBundle(t)
	stream, at := readBoth(t, b)
	if stream.DerivedVerified || !at.DerivedVerified {
		t.Fatalf("derived verified: stream %v, at offsets %v", stream.DerivedVerified, at.DerivedVerified)
	}
	if got := mapsKeys(stream.Sums); !slices.Equal(got, derivedNames) {
		t.Errorf("the stream reader checksummed %v, want the derived files %v", got, derivedNames)
	}
	if len(at.Sums) != 0 {
		t.Errorf("the offset reader inflated %v", mapsKeys(at.Sums))
	}
	if !reflect.DeepEqual(stream.Data, at.Data) {
		t.Error("the two readers read different outputs")
	}
	cs, ca := bundle.Open(stream), bundle.Open(at)
	if len(cs.Problems)+len(ca.Problems)+len(cs.Ignored)+len(ca.Ignored) > 0 {
		t.Fatalf("problems: stream %v %v, at offsets %v %v", cs.Problems, cs.Ignored, ca.Problems, ca.Ignored)
	}
	if !reflect.DeepEqual(cs.Results, ca.Results) {
		t.Error("the two readers give different results")
	}

	// The trailer's checksum is what vouches for the member: a member of
	// invalid deflate data whose trailer matches it passes the offset
	// reader unread, while inflating it fails.
	d, ok := bundle.FindDerivedMember(bytes.NewReader(b), int64(len(b)))
	if !ok {
		t.Fatal("no trailer found")
	}
	// The member holds the derived files and nothing else: an output there
	// would go unread.
	gz, err := gzip.NewReader(bytes.NewReader(b[d.Offset : d.Offset+d.Length]))
	if err != nil {
		t.Fatal(err)
	}
	var inMember []string
	for tr := tar.NewReader(gz); ; {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		inMember = append(inMember, hdr.Name)
	}
	sort.Strings(inMember)
	if !slices.Equal(inMember, derivedNames) {
		t.Errorf("the derived member holds %v, want %v", inMember, derivedNames)
	}
	forged := slices.Clone(b[d.Offset : d.Offset+d.Length])
	for i := 20; i < len(forged)-20; i++ {
		forged[i] = 0xff
	}
	d.SHA256 = sha256.Sum256(forged)
	var out bytes.Buffer
	out.Write(b[:d.Offset])
	out.Write(forged)
	if err := bundle.WriteTrailer(&out, d); err != nil {
		t.Fatal(err)
	}
	stream, at = readBoth(t, out.Bytes())
	if !at.DerivedVerified || len(at.Problems) > 0 {
		t.Errorf("offset reader: verified %v, problems %v", at.DerivedVerified, at.Problems)
	}
	if len(stream.Problems) == 0 {
		t.Errorf("the stream reader inflated the forged member without a problem: %v", stream.Problems)
	}
}

// Damage is named the same way by both readers: the offset reader falls
// back to inflating whatever its trailer does not vouch for.
func TestDerivedMemberDamageNamedAsByTheStreamReader(t *testing.T) {
	b := mixedBundle(t)
	d, ok := bundle.FindDerivedMember(bytes.NewReader(b), int64(len(b)))
	if !ok {
		t.Fatal("no trailer found")
	}
	type damage struct {
		name string
		data []byte
		// intact: every file is whole (only the trailer, which spares
		// inflating, is damaged, missing or followed by junk): nothing to
		// report but bytes after the gzip stream (at trailing), and the
		// derived files are inflated.
		intact bool
		// trailing is where bytes after the gzip stream start (0: none).
		trailing int64
	}
	flip := func(off int64) []byte {
		c := slices.Clone(b)
		c[off] ^= 0x55
		return c
	}
	cases := []damage{
		{"a byte of the derived member", flip(d.Offset + d.Length/2), false, 0},
		{"a byte of the trailer", flip(int64(len(b)) - 12), true, d.Offset + d.Length},
		{"a byte of the outputs' member", flip(d.Offset / 2), false, 0},
		{"cut in the outputs' member", b[:d.Offset/2], false, 0},
		{"cut at the end of the outputs' member", b[:d.Offset], false, 0},
		{"cut in the derived member", b[:d.Offset+d.Length/2], false, 0},
		{"cut before the trailer", b[:d.Offset+d.Length], true, 0},
		{"cut in the trailer", b[:len(b)-5], true, d.Offset + d.Length},
		{"bytes after the trailer", append(slices.Clone(b), "junk"...), true, int64(len(b))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := bundle.DefaultLimits()
			stream, serr := bundle.ReadArchive(bytes.NewReader(c.data), lim)
			at, aerr := bundle.ReadArchiveAt(bytes.NewReader(c.data), int64(len(c.data)), lim)
			if fmt.Sprint(serr) != fmt.Sprint(aerr) {
				t.Fatalf("errors differ: stream %v, at offsets %v", serr, aerr)
			}
			if serr != nil {
				return
			}
			if at.DerivedVerified {
				t.Fatal("a damaged bundle's derived member was taken as verified")
			}
			if !slices.Equal(stream.Problems, at.Problems) {
				t.Errorf("reading problems differ:\nstream     %v\nat offsets %v", stream.Problems, at.Problems)
			}
			ps, pa := bundle.Open(stream).Problems, bundle.Open(at).Problems
			if !slices.Equal(ps, pa) {
				t.Errorf("bundle problems differ:\nstream     %v\nat offsets %v", ps, pa)
			}
			if c.trailing > 0 {
				// Only the warning naming where the bytes after the gzip
				// stream start (issue 38.5).
				want := fmt.Sprintf("bytes of trailing data after the archive's gzip stream, at offset %d ", c.trailing)
				if len(stream.Problems) != 1 || !strings.Contains(stream.Problems[0], want) || len(ps) != 0 {
					t.Errorf("problems %v %v, want only one with %q", stream.Problems, ps, want)
				}
				return
			}
			if reported := len(stream.Problems)+len(ps) > 0; reported == c.intact {
				t.Errorf("problems reported %v, want %v: %v %v", reported, !c.intact, stream.Problems, ps)
			}
		})
	}
}

// The members are one tar.gz to every other tool: Go's gzip reader and
// GNU tar read every file.
func TestBundleMembersReadAsOneArchive(t *testing.T) {
	b := mixedBundle(t)
	files := testutil.TarGzFiles(t, b)
	for _, name := range derivedNames {
		if _, ok := files[name]; !ok {
			t.Errorf("gzip+tar lacks %s", name)
		}
	}
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar on this machine")
	}
	cmd := exec.Command(tarBin, "-tzf", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tar -tzf: %v\n%s", err, out)
	}
	listed := strings.Fields(string(out))
	want := mapsKeys(files)
	sort.Strings(listed)
	sort.Strings(want)
	if !slices.Equal(listed, want) {
		t.Errorf("tar lists %d files, Go's reader %d", len(listed), len(want))
	}
}

func mapsKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// A bundle written before the derived files had a member of their own (one
// gzip member, no trailer) reads as it always did, at offsets too.
func TestSingleMemberBundleStillRead(t *testing.T) {
	b := mixedBundle(t)
	var one bytes.Buffer
	gz := gzip.NewWriter(&one)
	if _, err := io.Copy(gz, mustGunzip(t, b)); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := bundle.FindDerivedMember(bytes.NewReader(one.Bytes()), int64(one.Len())); ok {
		t.Fatal("a trailer found in a single-member bundle")
	}
	stream, at := readBoth(t, one.Bytes())
	if at.DerivedVerified || !reflect.DeepEqual(stream.Sums, at.Sums) || !reflect.DeepEqual(stream.Data, at.Data) {
		t.Fatal("the readers differ on a single-member bundle")
	}
	if len(at.Sums) != len(derivedNames) {
		t.Errorf("derived files checked: %v", mapsKeys(at.Sums))
	}
	if c := bundle.Open(at); len(c.Problems)+len(c.Ignored) > 0 {
		t.Errorf("problems %v, ignored %v", c.Problems, c.Ignored)
	}
}

func mustGunzip(t *testing.T, b []byte) io.Reader {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b)) // every member, as gzip -d does
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(out)
}

// Bytes after a bundle's gzip stream (appended by a transfer, a tool, or
// someone hiding data in the bundle) are not silently accepted: both
// readers name their offset and size in a problem (issue 38.5). A bundle
// as written, and a single-member archive (tar czf), have none.
func TestTrailingBytesAfterTheGzipStreamNamed(t *testing.T) {
	b := mixedBundle(t)
	for name, data := range map[string][]byte{
		"garbage":          []byte("appended: not part of the bundle\n"),
		"a gzip member":    gzipOf(t, []byte("hidden data")),
		"a truncated gzip": gzipOf(t, []byte("hidden data"))[:12],
	} {
		t.Run(name, func(t *testing.T) {
			tampered := append(slices.Clone(b), data...)
			stream, at := readBoth(t, tampered)
			for reader, f := range map[string]*bundle.Files{"stream": stream, "at offsets": at} {
				want := fmt.Sprintf("%d bytes of trailing data after the archive's gzip stream, at offset %d", len(data), len(b))
				if !strings.Contains(strings.Join(f.Problems, "\n"), want) {
					t.Errorf("%s reader: problems %q, want %q", reader, f.Problems, want)
				}
			}
		})
	}
	stream, at := readBoth(t, b)
	if len(stream.Problems)+len(at.Problems) > 0 {
		t.Errorf("a bundle as written: problems %q %q", stream.Problems, at.Problems)
	}
	var single bytes.Buffer
	gz := gzip.NewWriter(&single)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "esx01/x.txt", Mode: 0o600, Size: 2, Typeflag: tar.TypeReg})
	tw.Write([]byte("x\n"))
	tw.Close()
	gz.Close()
	stream, at = readBoth(t, single.Bytes())
	if len(stream.Problems)+len(at.Problems) > 0 {
		t.Errorf("a single-member archive: problems %q %q", stream.Problems, at.Problems)
	}
}

func gzipOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	gz.Write(b)
	gz.Close()
	return out.Bytes()
}
