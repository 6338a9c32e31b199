package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Real VM names hold spaces, quotes and shell syntax: such a path is read,
// single-quoted, and the shell sees it literally. What a single-quoted
// argument cannot hold safely is refused, with the reason, before any
// line exists; the allowlist refuses the same lines typed by hand.
func TestVMXPathsQuotedOrRefused(t *testing.T) {
	const ds = "/vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/"
	read := []string{
		ds + "hpc-node01/hpc-node01.vmx",
		ds + "hpc node 01/hpc node 01.vmx",
		ds + `gpu "lab" $(reboot) ; rm -rf / #/gpu "lab" $(reboot) ; rm -rf / #.vmx`,
		ds + "nœud-ü `id` & | > < * ? ! ~ {x}/nœud.vmx",
		ds + "a/b/c/d/vm.vmx",
		ds + "..hidden/x..vmx",
		"/vmfs/volumes/datastore1/vm1/vm1.vmx",
	}
	for _, p := range read {
		c, err := catalog.VMXCommand(p)
		if err != nil {
			t.Errorf("%q refused: %v", p, err)
			continue
		}
		if c.Line != "cat '"+p+"'" || c.Kind != catalog.KindVMX || c.Stage != 2 {
			t.Errorf("%q: %+v", p, c)
		}
		if err := CheckAllowed(c.Line); err != nil {
			t.Errorf("%q: built line not allowlisted: %v", p, err)
		}
		if back, ok := CommandForFile(catalog.FileName(c.Line)); !ok || back != c.Line {
			t.Errorf("%q: file %s maps back to %q, %v", p, catalog.FileName(c.Line), back, ok)
		}
		if rc, ok := Recognize("cat \"" + p + "\""); !strings.ContainsAny(p, `"|`) && (!ok || rc.Line != c.Line) {
			t.Errorf("typed cat %q: %+v %v", p, rc, ok)
		}
	}
	refused := map[string]string{
		"single quote":      ds + "o'brien/o'brien.vmx",
		"quote breakout":    ds + "x'; reboot; '/x.vmx",
		"newline":           ds + "a\nreboot/a.vmx",
		"carriage return":   ds + "a\rb/a.vmx",
		"NUL":               ds + "a\x00b/a.vmx",
		"tab":               ds + "a\tb/a.vmx",
		"backslash":         ds + `a\'b/a.vmx`,
		"bidi override":     ds + "a\u202eb/a.vmx",
		"C1 control":        ds + "a\u0085b/a.vmx",
		"dot-dot":           ds + "../../etc/shadow.vmx",
		"dot-dot inside":    ds + "vm/../../../etc/x.vmx",
		"dot segment":       "/vmfs/volumes/./x/y.vmx",
		"relative":          "vmfs/volumes/ds/vm/vm.vmx",
		"datastore form":    "[datastore1] vm1/vm1.vmx",
		"outside vmfs":      "/etc/shadow",
		"outside, .vmx":     "/etc/passwd.vmx",
		"not a vmx":         ds + "vm/vm.vmdk",
		"vmx then more":     ds + "vm/vm.vmx/x",
		"no datastore":      "/vmfs/volumes/vm.vmx",
		"empty segment":     "/vmfs/volumes//vm/vm.vmx",
		"too long":          ds + strings.Repeat("a", 1100) + "/x.vmx",
		"too deep":          "/vmfs/volumes/" + strings.Repeat("a/", 20) + "x.vmx",
		"empty":             "",
		"backtick newline":  ds + "`reboot`\n/x.vmx",
		"command substitut": ds + "x$(printf '\\047')/x.vmx",
	}
	for what, p := range refused {
		c, err := catalog.VMXCommand(p)
		if err == nil {
			t.Errorf("%s: %q accepted as %q", what, p, c.Line)
			continue
		}
		if !strings.HasPrefix(err.Error(), "refusing .vmx path") {
			t.Errorf("%s: unclear refusal %v", what, err)
		}
		for _, line := range []string{"cat '" + p + "'", "cat " + p, `cat "` + p + `"`} {
			if CheckAllowed(line) == nil {
				t.Errorf("%s: allowlist accepts %q", what, line)
			}
		}
	}
	// Other commands are not smuggled in behind a quoted path.
	assertRefused(t,
		"cat '"+ds+"a/a.vmx' '/etc/shadow'",
		"cat '"+ds+"a/a.vmx'; reboot",
		"cat '"+ds+"a/a.vmx' && reboot '"+ds+"b/b.vmx'",
		"cat  '"+ds+"a/a.vmx'",
		"cat -A '"+ds+"a/a.vmx'",
		"cat "+ds+"a/a.vmx",
		"head '"+ds+"a/a.vmx'",
	)
}

// Stage 2 reads the .vmx of the VMs with a PVRDMA adapter only, notes a
// VM whose path is refused (the others are still read), and the .vmx reads
// count against the per-host cap like every other follow-up command.
func TestPlanVMX(t *testing.T) {
	vm := func(name string, wid int, cfg string) string {
		return fmt.Sprintf("%s\n   World ID: %d\n   Process ID: 0\n   VMX Cartel ID: %d\n   UUID: 42 00\n   Display Name: %s\n   Config File: %s\n\n", name, wid, wid-1, name, cfg)
	}
	ds := "/vmfs/volumes/66aa-bb/"
	list := vm("pv 1", 1001, ds+"pv 1/pv 1.vmx") + vm("plain", 1002, ds+"plain/plain.vmx") +
		vm("o'hara", 1003, ds+"o'hara/o'hara.vmx") + vm("pv2", 1004, ds+"pv2/pv2.vmx")
	caps := []hostio.Capture{
		{Command: "esxcli vm process list", Kind: catalog.KindVMProcessList, Stdout: list, Status: hostio.StatusCollected},
		{Command: "vsish -e ls " + PVRDMADevicesDir, Kind: catalog.KindPVRDMADeviceLs, Stdout: "1001_0/\n1003_0/\n1004_0/\n1004_1/\n", Status: hostio.StatusCollected},
	}
	cmds, notes := planStage2(context.Background(), caps, DefaultMaxStage2)
	var vmx []string
	for _, c := range cmds {
		if c.Kind == catalog.KindVMX {
			vmx = append(vmx, c.Line)
		}
	}
	want := []string{"cat '" + ds + "pv 1/pv 1.vmx'", "cat '" + ds + "pv2/pv2.vmx'"}
	if fmt.Sprint(vmx) != fmt.Sprint(want) {
		t.Errorf(".vmx reads %q, want %q", vmx, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `VM "o'hara" (world 1003): refusing .vmx path`) {
		t.Errorf("notes %q", notes)
	}
	// Under the cap: the 4 vsish reads come first, one .vmx fits.
	cmds, notes = planStage2(context.Background(), caps, 5)
	n := 0
	for _, c := range cmds {
		if c.Kind == catalog.KindVMX {
			n++
		}
	}
	if len(cmds) != 5 || n != 1 || !strings.Contains(strings.Join(notes, "\n"), "1 more follow-up commands not collected (cap of 5 per host): 1 .vmx files of PVRDMA VMs") {
		t.Errorf("capped: %d commands, %d .vmx, notes %q", len(cmds), n, notes)
	}
}

// A Config File is sent byte for byte as the host wrote it, or refused:
// never as the parser reads it. The parser reads a no-break space as a
// space (pastes from wikis and mail), so "a<U+00A0>b" would otherwise be
// sent as 'a b', another folder (issue 38.2). Every Unicode space but
// U+0020, inside a name or around it, is refused, and a path of ASCII
// spaces is read as written.
func TestPlanVMXSendsThePathAsWritten(t *testing.T) {
	const ds = "/vmfs/volumes/ds1/"
	// (At most 10 notes are kept: 8 spaces and the trailing case.)
	spaces := []rune{'\u00a0', '\u1680', '\u2000', '\u2007', '\u2009', '\u202f', '\u205f', '\u3000'}
	var list, ls strings.Builder
	var paths []string
	add := func(dir string) {
		wid := 3000 + len(paths)
		p := ds + dir + "/a.vmx"
		paths = append(paths, p)
		fmt.Fprintf(&list, "vm%d\n   World ID: %d\n   Process ID: 0\n   VMX Cartel ID: %d\n   Display Name: vm%d\n   Config File: %s\n\n", wid, wid, wid-1, wid, p)
		fmt.Fprintf(&ls, "%d_0/\n", wid)
	}
	add("a b")
	for _, r := range spaces {
		add("a" + string(r) + "b")
	}
	// Around the value: a trailing no-break space is part of the name.
	add("c d\u00a0")
	caps := []hostio.Capture{
		{Command: "esxcli vm process list", Kind: catalog.KindVMProcessList, Stdout: list.String(), Status: hostio.StatusCollected},
		{Command: "vsish -e ls " + PVRDMADevicesDir, Kind: catalog.KindPVRDMADeviceLs, Stdout: ls.String(), Status: hostio.StatusCollected},
	}
	cmds, notes := planStage2(context.Background(), caps, DefaultMaxStage2)
	var vmx []string
	for _, c := range cmds {
		if c.Kind == catalog.KindVMX {
			vmx = append(vmx, c.Line)
		}
	}
	if want := []string{"cat '" + paths[0] + "'"}; fmt.Sprint(vmx) != fmt.Sprint(want) {
		t.Errorf(".vmx reads %q, want %q only", vmx, want)
	}
	refusals := 0
	for _, n := range notes {
		if strings.Contains(n, "refusing .vmx path") {
			refusals++
			if strings.Contains(n, "a b/") {
				t.Errorf("a refusal names the normalised path: %s", n)
			}
		}
	}
	if refusals != len(paths)-1 {
		t.Errorf("%d refusals, want %d: %q", refusals, len(paths)-1, notes)
	}
}
