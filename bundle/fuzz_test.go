package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

// FuzzReadArchive feeds arbitrary bytes to the bundle reader: it must
// never panic, and whatever it accepts must be analysable.
func FuzzReadArchive(f *testing.F) {
	in, err := Load(mixedDir)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, in.Results[:2], Options{Now: time.Unix(0, 0), Analyze: testAnalyze}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("[root@esx01:~] esxcli rdma device list\nName\n"))
	// Small limits keep each run fast; the limit paths are exercised too.
	maxFileSize, maxTotalSize = 1<<20, 4<<20
	f.Fuzz(func(t *testing.T, data []byte) {
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
				if c.Kind == "" || collect.KindOf(c.Command) != c.Kind {
					t.Fatalf("capture without kind: %+v", c)
				}
			}
		}
		testAnalyze(in.Results, identity)
	})
}

// FuzzRedact checks that redaction never panics and is stable: redacting
// the same text twice with one redactor gives the same result.
func FuzzRedact(f *testing.F) {
	f.Add("vmk1 192.168.50.11 b8:ce:f6:1c:01:10 /vmfs/volumes/ds1/vm/vm.vmx 42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96 fe80::1")
	f.Fuzz(func(t *testing.T, text string) {
		r := NewRedactor()
		r.Learn([]hostio.HostResult{{Host: "esx01", Captures: []hostio.Capture{{Kind: hostio.KindVMProcessList, Stdout: text}}}})
		a := r.Text(text)
		if b := r.Text(text); a != b {
			t.Fatalf("unstable: %q then %q", a, b)
		}
	})
}
