package collect

import (
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// CommandForFile returns the catalogue command line whose output is stored
// under name (a base name as made by FileName, with or without ".txt"), so
// that saved outputs, scenario folders and bundles can be read back.
// FileName is not reversible in general ('/' and ' ' both become '_'), but
// it is for the catalogue: every argument is validated to a shape that
// survives FileName unchanged. The line is built by the same constructors
// as live commands; ok is false for names that are not a catalogue command.
// reBWFile is the file name of a bandwidth test's server (device) or
// client (device, server address) output.
var reBWFile = regexp.MustCompile(`^timeout_[0-9]+_ib_send_bw_--report_gbits_-F_-D_[0-9]+_-d_([A-Za-z][A-Za-z0-9_]{0,63}?)(?:_([0-9]{1,3}(?:\.[0-9]{1,3}){3}))?$`)

func CommandForFile(name string) (line string, ok bool) {
	base := strings.TrimSuffix(name, ".txt")
	for _, s := range catalog.Specs() {
		args, match := s.FileArgs(base)
		if !match {
			continue
		}
		c, err := s.Command(args...)
		if err != nil || CheckAllowed(c.Line) != nil || catalog.FileName(c.Line) != base+".txt" {
			continue // another spec's name may look alike (cat_etc_os-release: the guest's, not a .vmx)
		}
		return c.Line, true
	}
	// A guest's command (and the bandwidth test's), checked against the
	// guest allowlists.
	if m := reBWFile.FindStringSubmatch(base); m != nil {
		c, err := catalog.BandwidthServer(m[1])
		if m[2] != "" {
			c, err = catalog.BandwidthClient(m[1], m[2])
		}
		if err == nil && catalog.FileName(c.Line) == base+".txt" {
			return c.Line, true
		}
	}
	for _, s := range catalog.GuestSpecs() {
		args, match := s.FileArgs(base)
		if !match {
			continue
		}
		c, err := s.Command(args...)
		if err != nil || catalog.FileName(c.Line) != base+".txt" ||
			CheckAllowedFor(hostio.RoleGuest, c.Line) != nil && CheckAllowedFor(hostio.RoleGuestBandwidth, c.Line) != nil {
			continue
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
