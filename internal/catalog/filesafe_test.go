package catalog

import (
	"testing"
	"testing/quick"
)

// fileSafe is the regexp it replaces, on any text (multi-byte and invalid
// UTF-8 included).
func TestFileSafeIsTheRegexp(t *testing.T) {
	f := func(s string) bool {
		return fileSafe(s) == reFileUnsafe.ReplaceAllString(s, "_")
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 5000}); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"", "esxcli rdma device list", "vmkping -I vmk1 -c 1 -W 1 -d -s 56 10.0.0.1", "a\xffb\xfe", "é é", "__a--b..", "cat '/vmfs/volumes/x y/vm.vmx'"} {
		if !f(s) {
			t.Errorf("%q: %q, regexp %q", s, fileSafe(s), reFileUnsafe.ReplaceAllString(s, "_"))
		}
	}
}
