package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// PlantSymlink writes content to dir/target and plants a symlink to it at
// dir/link, as an attacker would where a file is about to be written. It
// returns both paths.
func PlantSymlink(t testing.TB, dir, target, content, link string) (targetPath, linkPath string) {
	t.Helper()
	targetPath, linkPath = filepath.Join(dir, target), filepath.Join(dir, link)
	if err := os.WriteFile(targetPath, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(targetPath, linkPath); err != nil {
		t.Fatal(err)
	}
	return targetPath, linkPath
}
