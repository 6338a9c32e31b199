package redact

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// FuzzRedact checks that redaction never panics and is stable: redacting
// the same text twice with one redactor gives the same result.
func FuzzRedact(f *testing.F) {
	f.Add("vmk1 192.168.50.11 b8:ce:f6:1c:01:10 /vmfs/volumes/ds1/vm/vm.vmx 42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96 fe80::1")
	f.Fuzz(func(t *testing.T, text string) {
		r := NewRedactor()
		r.Learn([]hostio.HostResult{{Host: "esx01", Captures: []hostio.Capture{{Kind: catalog.KindVMProcessList, Stdout: text}}}})
		a := r.Text(text)
		if b := r.Text(text); a != b {
			t.Fatalf("unstable: %q then %q", a, b)
		}
	})
}
