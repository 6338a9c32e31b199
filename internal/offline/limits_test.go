package offline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// newlineArchive returns a .tar.gz holding, per name, size bytes of
// newlines (it compresses to almost nothing).
func newlineArchive(t *testing.T, files map[string]int) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	chunk := bytes.Repeat([]byte{'\n'}, 1<<20)
	for name, size := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(size), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		for left := size; left > 0; left -= len(chunk) {
			if _, err := tw.Write(chunk[:min(left, len(chunk))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// A small archive that unpacks to huge outputs is read within the caps:
// a 60 MB file is not read at all, a 3 MiB file of 3 million lines is
// read but reported over the line cap and never parsed (issue #18: one
// such archive used to take analyze to 2.7 GB).
func TestHostileArchiveBoundedMemory(t *testing.T) {
	vm := "hosts/esx01/" + catalog.FileName("esxcli vm process list")
	nic := "hosts/esx01/" + catalog.FileName("esxcli network nic list")
	ok := "hosts/esx02/" + catalog.FileName("esxcli network nic list")
	arc := newlineArchive(t, map[string]int{vm: 60 << 20, nic: 3 << 20, ok: 100})
	if len(arc) > 512<<10 {
		t.Fatalf("archive of %d bytes: want a small one", len(arc))
	}
	var in *Input
	var err error
	peak := lab.HeapGrowth(func() {
		in, err = LoadReader("bomb.tar.gz", bytes.NewReader(arc))
		if err == nil {
			testAnalyze(in.Results, identity)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("archive %d KB, heap +%d MiB", len(arc)>>10, peak>>20)
	if peak > 64<<20 {
		t.Errorf("heap grew by %d MiB reading and analysing a %d KB archive; bound 64 MiB", peak>>20, len(arc)>>10)
	}
	problems := strings.Join(in.Problems, "\n")
	for _, want := range []string{vm + " is too large (62914560 bytes, over the 4194304-byte cap of one command's output)",
		"`esxcli network nic list`: output over the cap: the command sent more than 500000 lines"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems do not say %q:\n%s", want, problems)
		}
	}
	for _, hr := range in.Results {
		if c, found := hr.Find("esxcli network nic list"); hr.Host == "esx01" && (!found || c.Status != hostio.StatusFailed || c.Stdout != "") {
			t.Errorf("esx01 nic list: %+v", c)
		}
	}
}

func TestTranscriptLineCap(t *testing.T) {
	text := "[root@esx01:~] esxcli network nic list\n" + strings.Repeat("\n", maxTranscriptLines+1)
	_, err := LoadReader("t.txt", strings.NewReader(text))
	if err == nil || !strings.Contains(err.Error(), "line cap") {
		t.Fatalf("err = %v", err)
	}
}

// A symlink to a folder of saved outputs reads like the folder (issue #18:
// it used to find no outputs).
func TestLoadFolderThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "saved", "esx01")
	if err := os.MkdirAll(host, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, catalog.FileName("esxcli network nic list")), []byte("Name  PCI Device\n----  ----------\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "saved"), link); err != nil {
		t.Fatal(err)
	}
	direct, err := Load(filepath.Join(dir, "saved"))
	if err != nil {
		t.Fatal(err)
	}
	via, err := Load(link)
	if err != nil {
		t.Fatalf("through the symlink: %v", err)
	}
	if len(via.Results) != len(direct.Results) || len(via.Results) == 0 || len(via.Results[0].Captures) != len(direct.Results[0].Captures) {
		t.Errorf("through the symlink: %+v; direct: %+v", via.Results, direct.Results)
	}
}
