package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostsValidationAndMerging(t *testing.T) {
	for _, bad := range []string{"127.0.0.1:99999", "esx01:0", "esx01:ssh", ":22"} {
		if _, err := parseHosts(bad); err == nil {
			t.Errorf("--hosts %q accepted", bad)
		}
	}
	if ts, err := parseHosts("esx01,esx02:2222,[::1]:22"); err != nil || len(ts) != 3 {
		t.Errorf("valid hosts rejected: %v %v", ts, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "hosts.txt")
	if err := os.WriteFile(file, []byte("esx01\nesx02 127.0.0.1:44099 # lab\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The same plain name in both places is one host.
	ts, err := scanTargets("esx01", &SSHFlags{HostsFile: file})
	if err != nil || len(ts) != 2 {
		t.Fatalf("merge: %v %v", ts, err)
	}
	// A name given with different addresses is ambiguous: say so.
	if _, err := scanTargets("esx02", &SSHFlags{HostsFile: file}); err == nil || !strings.Contains(err.Error(), "esx02") {
		t.Errorf("conflicting entries for esx02 accepted: %v", err)
	}
}
