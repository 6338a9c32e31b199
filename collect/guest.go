package collect

import (
	"context"
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Guests: Linux VMs scanned with the guest catalogue (internal/catalog/specs_guest.go)
// over the same transport, with the same timeouts and caps as hosts; a
// target's Role picks the catalogue and the allowlist.

// guestStage1 are the fixed commands of the guest catalogue, in run order.
var guestStage1 = stage1Of(catalog.GuestSpecs())

// GuestStage1 returns the fixed commands every guest runs first.
func GuestStage1() []Command { return append([]Command(nil), guestStage1...) }

// CheckGuestAllowed returns an error unless line is exactly an instance of
// a guest catalogue command (the guest allowlist).
func CheckGuestAllowed(line string) error {
	if strings.ContainsAny(line, "\n\r\x00;|&$`<>\\'\"(){}*?!#~") || !catalog.GuestAllowed(line) {
		return &ErrNotAllowed{line}
	}
	return nil
}

// CheckAllowedFor checks a line against the allowlist of a target's role:
// the guest allowlist for guests, the ESXi one for hosts.
func CheckAllowedFor(role, line string) error {
	switch role {
	case hostio.RoleGuest:
		return CheckGuestAllowed(line)
	case hostio.RoleGuestBandwidth:
		// The opt-in bandwidth test's connections: the guest allowlist and
		// the two ib_send_bw shapes (internal/catalog/specs_bandwidth.go).
		if strings.ContainsAny(line, "\n\r\x00;|&$`<>\\'\"(){}*?!#~") {
			return &ErrNotAllowed{line}
		}
		if catalog.BandwidthAllowed(line) {
			return nil
		}
		return CheckGuestAllowed(line)
	}
	return CheckAllowed(line)
}

// IsGuest reports whether a target is a guest.
func IsGuest(t hostio.Target) bool { return t.Role == hostio.RoleGuest }

// planGuestStage2 derives a guest's follow-up commands from its stage 1:
// the sysfs port files of every device of `ls /sys/class/infiniband` (each
// name validated by the command's constructor), and the commands only
// worth running when stage 1 shows a need (guestNeeds).
func planGuestStage2(caps []hostio.Capture, max int) ([]Command, []string) {
	p := stage2Plan{max: max, seen: map[string]bool{}, over: map[hostio.Kind]int{}}
	var devs []parse.VerbsDevice
	if c, ok := collected(caps, catalog.KindGuestIBClass); ok && c.ExitCode == 0 {
		var err error
		devs, err = parse.SysfsListing(c.Stdout)
		if err != nil {
			p.note(fmt.Errorf("cannot list the RDMA devices: %w", err))
		}
	}
	needs := guestNeeds(caps, len(devs))
	for _, s := range catalog.GuestSpecs() {
		switch {
		case s.Stage != 2:
		case s.From == catalog.FromGuestRDMADevices:
			for _, d := range devs {
				p.add(s.Command(d.Name))
			}
		case needs[s.From]:
			p.add(s.Command())
		}
	}
	if n := p.skipped(); n > 0 {
		p.notes = append(p.notes, fmt.Sprintf("%s more follow-up commands not collected (cap of %d per guest)", thousands(n), max))
	}
	return p.cmds, p.notes
}

// guestNeeds says which conditional guest commands stage 1 calls for:
// modinfo when vmw_pvrdma is not loaded, dmesg when it is loaded but a
// PVRDMA port is not ACTIVE or there is no PVRDMA device, rpm when there
// is no dpkg, ibv_devices when ibv_devinfo lists fewer devices than sysfs.
// An output that cannot be read counts as "needed".
func guestNeeds(caps []hostio.Capture, sysfsDevs int) map[catalog.Source]bool {
	need := map[catalog.Source]bool{}
	loaded := false
	if c, ok := collected(caps, catalog.KindGuestLsmod); ok && c.ExitCode == 0 {
		mods, _ := parse.Lsmod(c.Stdout)
		for _, m := range mods {
			loaded = loaded || m.Name == "vmw_pvrdma"
		}
	}
	need[catalog.FromGuestModuleNotLoaded] = !loaded
	verbs, pvrdma, down := -1, 0, false
	if c, ok := collected(caps, catalog.KindGuestDevinfo); ok && !parse.ToolMissing(c.ExitCode, c.Stderr, "ibv_devinfo") {
		devs, err := parse.IBVDevinfo(c.Stdout)
		if _, partial := parse.Skipped(err); err == nil || partial {
			verbs = len(devs)
			for _, d := range devs {
				if strings.HasPrefix(d.Name, "vmw_pvrdma") || strings.EqualFold(d.VendorID, "0x15ad") {
					pvrdma++
					for _, p := range d.Ports {
						down = down || p.StateNum != 4
					}
				}
			}
		}
	}
	need[catalog.FromGuestPVRDMATrouble] = loaded && (verbs < 0 || pvrdma == 0 || down)
	need[catalog.FromGuestVerbsMissing] = verbs < sysfsDevs
	if c, ok := collected(caps, catalog.KindGuestDpkg); !ok || parse.ToolMissing(c.ExitCode, c.Stderr, "dpkg-query") || c.ExitCode != 0 {
		need[catalog.FromGuestNoDpkg] = true
	}
	return need
}

// runGuest collects one guest: its stage 1, then the per-device reads.
func (h *hostRun) runGuest(ctx context.Context) {
	s1 := GuestStage1()
	h.total = len(s1)
	h.emit(hostio.PhaseCollecting, "")
	h.runAll(ctx, s1)
	s2, notes := planGuestStage2(h.res.Captures, h.opts.MaxStage2)
	h.mu.Lock()
	h.res.Notes = append(h.res.Notes, notes...)
	h.total += len(s2)
	h.mu.Unlock()
	h.runAll(ctx, s2)
}

// GuestTemplates returns the guest catalogue's per-device command patterns.
func GuestTemplates() []Template { return templatesOf(catalog.GuestSpecs()) }
