package offline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
)

// The bundle-input part of the adversarial campaign (issue 17): archives
// built the way an attacker would, on top of a real bundle. Reading never
// extracts anything (members are read into memory, by name), so "nothing
// written outside the target" is checked by running the reader in an
// empty working directory and finding it still empty.

type member struct {
	hdr  tar.Header
	data []byte
}

// archive writes the members of bundle b, with extra members before them
// (first) or after them, and drop removing members by name.
func archive(t *testing.T, b []byte, first, after []member, drop func(string) bool) []byte {
	t.Helper()
	files := rawFiles(t, b)
	var names []string
	for n := range files {
		if drop == nil || !drop(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	tw := tar.NewWriter(gz)
	put := func(m member) {
		h := m.hdr
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(m.data))
		}
		h.Mode = 0o644
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write(m.data)
	}
	for _, m := range first {
		put(m)
	}
	for _, n := range names {
		put(member{hdr: tar.Header{Name: n}, data: files[n]})
	}
	for _, m := range after {
		put(m)
	}
	tw.Close()
	gz.Close()
	return out.Bytes()
}

// loadIn loads an archive with an empty working directory and fails if
// anything appeared in it or next to it.
func loadIn(t *testing.T, b []byte) (*Input, error) {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	t.Chdir(work)
	in, err := LoadReader("hostile.tar.gz", bytes.NewReader(b))
	var found []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, _ error) error {
		if p != root && p != work {
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Fatalf("reading the bundle wrote %v", found)
	}
	return in, err
}

func problems(in *Input) string { return strings.Join(in.Problems, "\n") }

// noCapture fails if any capture holds s.
func noCapture(t *testing.T, in *Input, s string) {
	t.Helper()
	for _, hr := range in.Results {
		for _, c := range hr.Captures {
			if strings.Contains(c.Stdout, s) || strings.Contains(c.Stderr, s) {
				t.Fatalf("%s: %s holds %q", hr.Host, c.Command, s)
			}
		}
	}
}

const target = "hosts/esx01/esxcli_rdma_device_list.txt"

func TestHostileArchivePaths(t *testing.T) {
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	names := []string{"../evil.txt", "../../evil.txt", "hosts/../../evil.txt", "hosts/esx01/../../../evil.txt", "/tmp/evil.txt",
		"//evil.txt", `..\evil.txt`, `hosts\..\..\evil.txt`, "./../evil.txt", ".."}
	for _, n := range names {
		in, err := loadIn(t, archive(t, b, []member{{hdr: tar.Header{Name: n}, data: []byte("PLANTED")}}, nil, nil))
		if err != nil {
			t.Fatalf("%q: %v", n, err)
		}
		if !strings.Contains(problems(in), "unsafe path") || len(in.Results) != 13 { // 6 hosts, 7 guests
			t.Errorf("%q: not refused: problems %v", n, in.Problems)
		}
		noCapture(t, in, "PLANTED")
	}
	// A name that cleans to a real capture's is a duplicate: the first
	// copy (the planted one, here) is the one whose checksum is checked.
	in, _ := loadIn(t, archive(t, b, []member{{hdr: tar.Header{Name: "hosts/x/../esx01/./esxcli_rdma_device_list.txt"}, data: []byte("PLANTED")}}, nil, nil))
	if !strings.Contains(problems(in), target+" appears twice") || !strings.Contains(problems(in), "checksum mismatch: "+target) {
		t.Errorf("problems: %v", in.Problems)
	}
	noCapture(t, in, "PLANTED")
	t.Logf("%d unsafe member names refused, 1 aliasing name caught as a duplicate with a checksum mismatch", len(names))
}

func TestHostileArchiveLinksAndDuplicates(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("OUTSIDE-SECRET"), 0o600)
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	isTarget := func(n string) bool { return n == target }
	for _, m := range []member{
		{hdr: tar.Header{Name: target, Typeflag: tar.TypeSymlink, Linkname: secret}},
		{hdr: tar.Header{Name: target, Typeflag: tar.TypeSymlink, Linkname: "../../../../../../etc/passwd"}},
		{hdr: tar.Header{Name: target, Typeflag: tar.TypeLink, Linkname: secret}},
		{hdr: tar.Header{Name: target, Typeflag: tar.TypeLink, Linkname: bundle.ManifestName}},
	} {
		in, err := loadIn(t, archive(t, b, []member{m}, nil, isTarget))
		if err != nil {
			t.Fatal(err)
		}
		p := problems(in)
		if !in.Partial() || !strings.Contains(p, "link \""+target) {
			t.Errorf("%v %s: problems %v", m.hdr.Typeflag, m.hdr.Linkname, in.Problems)
		}
		noCapture(t, in, "OUTSIDE-SECRET")
		noCapture(t, in, "root:x:0:0")
		c, _ := in.Results[0].Find("esxcli rdma device list")
		if c.Stdout != "" {
			t.Errorf("the link's target was read: %q", c.Stdout)
		}
	}
	// Duplicates: the first copy is used (and checked), the second reported.
	files := rawFiles(t, b)
	in, _ := loadIn(t, archive(t, b, nil, []member{{hdr: tar.Header{Name: target}, data: []byte("SECOND COPY")},
		{hdr: tar.Header{Name: bundle.ManifestName}, data: []byte(`{"schema_version":"1.0"}`)}}, nil))
	if !strings.Contains(problems(in), target+" appears twice") || !strings.Contains(problems(in), bundle.ManifestName+" appears twice") {
		t.Errorf("problems: %v", in.Problems)
	}
	noCapture(t, in, "SECOND COPY")
	if c, _ := in.Results[0].Find("esxcli rdma device list"); c.Stdout != string(files[target]) {
		t.Error("the first copy is not the one used")
	}
}

// A saved-outputs folder whose files are symbolic links out of it: not
// followed, and said so.
func TestSavedFolderSymlinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("OUTSIDE-SECRET"), 0o600)
	host := filepath.Join(dir, "saved", "esx01")
	os.MkdirAll(host, 0o755)
	src, _ := os.ReadFile(filepath.Join(mixedDir, "esx01", "esxcli_system_version_get.txt"))
	os.WriteFile(filepath.Join(host, "esxcli_system_version_get.txt"), src, 0o644)
	os.Symlink(secret, filepath.Join(host, "esxcli_rdma_device_list.txt"))
	os.Symlink("/etc", filepath.Join(dir, "saved", "esx02"))
	in, err := Load(filepath.Join(dir, "saved"))
	if err != nil {
		t.Fatal(err)
	}
	noCapture(t, in, "OUTSIDE-SECRET")
	noCapture(t, in, "root:x:0:0")
	if !strings.Contains(problems(in), "esx01/esxcli_rdma_device_list.txt is a symbolic link: not followed") {
		t.Errorf("problems: %v", in.Problems)
	}
}

// peakHeap runs f while sampling the heap, and returns the highest
// HeapInuse seen above what was in use before.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapInuse)
			mu.Unlock()
		}
	}()
	f()
	close(done)
	runtime.ReadMemStats(&ms)
	mu.Lock()
	defer mu.Unlock()
	peak = max(peak, ms.HeapInuse)
	if peak < base {
		return 0
	}
	return peak - base
}

// zeros is a reader of n zero bytes.
type zeros int64

func (z *zeros) Read(p []byte) (int, error) {
	if *z <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), int64(*z))
	clear(p[:n])
	*z -= zeros(n)
	return int(n), nil
}

// bomb is a gzip'd tar whose named member is size zero bytes (about 1,000:1).
func bomb(t *testing.T, b []byte, name string, size int64) []byte {
	t.Helper()
	files := rawFiles(t, b)
	var out bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if n == name {
			continue
		}
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		tw.Write(files[n])
	}
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
	z := zeros(size)
	if _, err := io.Copy(tw, &z); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	gz.Close()
	return out.Bytes()
}

// Gzip bombs, too many members, too much in total: refused or labelled
// partial, with memory bounded far below what the archive expands to.
func TestGzipBombMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("expands 1 GiB")
	}
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	const size = 512 << 20
	for _, name := range []string{target, bundle.ReportJSON} {
		arc := bomb(t, b, name, size)
		var in *Input
		var err error
		peak := peakHeap(func() { in, err = loadIn(t, arc) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d MiB compressed to %d KiB: peak heap +%d MiB", name, size>>20, len(arc)>>10, peak>>20)
		if peak > 96<<20 {
			t.Errorf("%s: reading a %d MiB member took %d MiB of heap", name, size>>20, peak>>20)
		}
		if name == target && !strings.Contains(problems(in), name+" is too large") {
			t.Errorf("problems: %v", in.Problems)
		}
		if name == bundle.ReportJSON && !strings.Contains(problems(in), "checksum mismatch: "+bundle.ReportJSON) {
			t.Errorf("problems: %v", in.Problems)
		}
	}
}

func TestTooManyAndTooLargeMembers(t *testing.T) {
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	defer func(l bundle.Limits) { limits = l }(limits)
	limits.Entries = 500
	var extra []member
	for i := range 600 {
		extra = append(extra, member{hdr: tar.Header{Name: fmt.Sprintf("junk/%04d", i)}, data: []byte("x")})
	}
	in, _ := loadIn(t, archive(t, b, nil, extra, nil))
	if !strings.Contains(problems(in), "more than 500 entries") {
		t.Errorf("problems: %v", in.Problems)
	}
	limits.Entries = 100000
	limits.Total = 64 << 10
	in, _ = loadIn(t, archive(t, b, nil, nil, nil))
	if !in.Partial() || !strings.Contains(problems(in), "is too large") {
		t.Errorf("total size: problems %v", in.Problems)
	}
}

// Truncated at every tenth of its length, and corrupted at each, an
// archive is refused or read as partial; never a panic, never "complete".
func TestTruncatedAndCorruptEverywhere(t *testing.T) {
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	tried := 0
	for i := 1; i < 10; i++ {
		cut := len(b) * i / 10
		for _, arc := range [][]byte{b[:cut], append(append([]byte(nil), b[:cut]...), bytes.Repeat([]byte{0xa5}, 64)...)} {
			tried++
			in, err := loadIn(t, arc)
			if err != nil {
				if !strings.Contains(err.Error(), "not a bundle") && !strings.Contains(err.Error(), "no readable host outputs") {
					t.Errorf("cut at %d: %v", cut, err)
				}
				continue
			}
			if !in.Partial() {
				t.Errorf("cut at %d: read as complete", cut)
			}
		}
	}
	// A flipped byte inside the compressed stream.
	for i := 1; i < 10; i++ {
		bad := append([]byte(nil), b...)
		bad[len(b)*i/10] ^= 0xff
		tried++
		if in, err := loadIn(t, bad); err == nil && !in.Partial() {
			t.Errorf("flip at %d: read as complete", len(b)*i/10)
		}
	}
	t.Logf("%d damaged archives: each refused or partial", tried)
}

// Wrong checksums: a derived file tampered with, a listed file missing.
func TestWrongChecksums(t *testing.T) {
	b, _ := writeBytes(t, loadMixed(t).Results, false)
	tampered := rewrite(t, b, func(n string, d []byte) ([]byte, bool) {
		if n == bundle.ReportJSON {
			return bytes.Replace(d, []byte("BROKEN"), []byte("HEALTHY"), 1), true
		}
		return d, n != "hosts/esx02/esxcli_vm_process_list.txt"
	})
	in, _ := loadIn(t, tampered)
	p := problems(in)
	if !strings.Contains(p, "checksum mismatch: "+bundle.ReportJSON) || !strings.Contains(p, "hosts/esx02/esxcli_vm_process_list.txt") {
		t.Errorf("problems: %v", in.Problems)
	}
}
