package collect

import (
	"context"
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// planVMX plans `cat '<Config File>'` of every VM that has a PVRDMA adapter
// (its World ID in the vsish listing), in the order of `esxcli vm process
// list`, after every other stage 2 command: under the per-host cap they
// are the first to be left out (and counted in the note). A Config File
// the catalogue refuses (not under /vmfs/volumes/, a single quote, a
// control character, "..") is not read; the note names the VM and why.
func planVMX(ctx context.Context, caps []hostio.Capture, p *stage2Plan) {
	ls, okLs := collected(caps, catalog.KindPVRDMADeviceLs)
	vmc, okVM := collected(caps, catalog.KindVMProcessList)
	if !okLs || !okVM {
		return
	}
	head, rest := headLines(ls.Stdout, 2*p.max)
	if rest > 0 {
		// The listing beyond what planning reads: its VMs' .vmx reads are
		// over the cap too, counted (entries of one VM are listed
		// together) without holding them.
		p.over[catalog.KindVMX] += worldsIn(ls.Stdout[len(head):])
	}
	entries, _ := parse.VsishLs(head) // its errors are noted by the backend planning
	worlds := make(map[string]bool, len(entries))
	for _, e := range entries {
		if wid, _, ok := e.DeviceID(); ok {
			worlds[wid] = true
		}
	}
	if len(worlds) == 0 {
		return
	}
	vms, err := parse.VMProcessList(vmc.Stdout)
	if _, partial := parse.Skipped(err); err != nil && !partial {
		p.note(fmt.Errorf("cannot read the VM list for the .vmx files: %w", err))
		return
	}
	for i, vm := range vms {
		if i%1024 == 0 && ctx.Err() != nil {
			return
		}
		if !worlds[vm.WorldID] {
			continue
		}
		if vm.ConfigFile == "" {
			p.note(fmt.Errorf("VM %q (world %s) has no Config File: its .vmx is not read", vm.DisplayName, vm.WorldID))
			continue
		}
		// The path exactly as the host wrote it, or refused: never the
		// parser's reading of it, in which a no-break space is a space
		// (another folder).
		c, err := catalog.VMXCommand(vm.ConfigFileAsWritten(vmc.Stdout))
		if err != nil {
			err = fmt.Errorf("VM %q (world %s): %w", vm.DisplayName, vm.WorldID, err)
		}
		p.add(c, err)
	}
}

// worldsIn counts the VMs of a vsish listing's lines ("<worldID>_<index>/"):
// the lines whose world ID differs from the line before.
func worldsIn(text string) int {
	n, prev := 0, ""
	for line := range strings.Lines(text) {
		wid, _, ok := strings.Cut(strings.TrimSpace(line), "_")
		if !ok || wid == prev {
			continue
		}
		n, prev = n+1, wid
	}
	return n
}
