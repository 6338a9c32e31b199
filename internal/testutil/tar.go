package testutil

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// TarGzFiles reads every entry of a .tar.gz independently of the bundle
// reader and returns the contents by name.
func TarGzFiles(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = data
	}
}
