package collect

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// CommandForFile returns the catalogue command line whose output is stored
// under name (a base name as made by FileName, with or without ".txt"), so
// that saved outputs, scenario folders and bundles can be read back.
// FileName is not reversible in general ('/' and ' ' both become '_'), but
// it is for the catalogue: every argument is validated to a shape that
// survives FileName unchanged. The line is built by the same constructors
// as live commands; ok is false for names that are not a catalogue command.
func CommandForFile(name string) (line string, ok bool) {
	base := strings.TrimSuffix(name, ".txt")
	for _, s := range catalog.Specs() {
		args, match := s.FileArgs(base)
		if !match {
			continue
		}
		c, err := s.Command(args...)
		if err != nil || CheckAllowed(c.Line) != nil || catalog.FileName(c.Line) != base+".txt" {
			return "", false
		}
		return c.Line, true
	}
	for _, s := range catalog.APISpecs() {
		if catalog.FileName(s.Line) == base+".txt" {
			return s.Line, true
		}
	}
	return "", false
}
