package offline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// FuzzReadArchive feeds arbitrary bytes to the bundle reader: it must
// never panic, and whatever it accepts must be analysable.
func FuzzReadArchive(f *testing.F) {
	b := mixedBundle(f, 2)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("[root@esx01:~] esxcli rdma device list\nName\n"))
	// Small limits keep each run fast; the limit paths are exercised too.
	limits.File, limits.Total = 1<<20, 4<<20
	f.Fuzz(func(t *testing.T, data []byte) {
		// The offset reader reads what the stream reader reads, less what
		// a derived member its trailer vouches for holds.
		st, serr := bundle.ReadArchive(bytes.NewReader(data), limits)
		at, aerr := bundle.ReadArchiveAt(bytes.NewReader(data), int64(len(data)), limits)
		if (serr == nil) != (aerr == nil) {
			t.Fatalf("stream reader: %v, offset reader: %v", serr, aerr)
		}
		if serr == nil {
			for name, b := range at.Data {
				if !bytes.Equal(st.Data[name], b) {
					t.Fatalf("%s differs between the readers", name)
				}
			}
			if !at.DerivedVerified && len(at.Data) != len(st.Data) {
				t.Fatalf("offset reader read %d files, stream reader %d", len(at.Data), len(st.Data))
			}
		}
		got, err := LoadReader("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		if got == nil || len(got.Results) == 0 {
			t.Fatalf("accepted input without results: %+v", got)
		}
		testAnalyze(got.Results, identity)
	})
}

// FuzzTranscript feeds arbitrary text to the transcript import.
func FuzzTranscript(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join(mixedDir, "esx01", "esxcli_rdma_device_list.txt"))
	f.Add("[root@esx01:~] esxcli rdma device list\n" + string(b) + "[root@esx01:~] exit\n")
	f.Add("~ # esxcli vm process list\nvm1\n   World ID: 12\n~ # vmkping -I vmk1 -c 3 -d -s 8972 10.0.0.2\n")
	f.Add("no prompt")
	f.Fuzz(func(t *testing.T, text string) {
		in, err := FromTranscript(text)
		if err != nil {
			return
		}
		for _, hr := range in.Results {
			for _, c := range hr.Captures {
				if c.Kind == "" || catalog.KindOf(c.Command) != c.Kind {
					t.Fatalf("capture without kind: %+v", c)
				}
			}
		}
		testAnalyze(in.Results, identity)
	})
}
