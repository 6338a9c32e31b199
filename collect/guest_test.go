package collect

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func guestCap(k hostio.Kind, stdout, stderr string, exit int) hostio.Capture {
	return hostio.Capture{Kind: k, Stdout: stdout, Stderr: stderr, ExitCode: exit, Status: hostio.StatusCollected}
}

// The guest's stage 2: one sysfs read per listed device (hostile names
// refused), the conditional commands only when stage 1 calls for them.
func TestPlanGuestStage2(t *testing.T) {
	healthy := []hostio.Capture{
		guestCap(catalog.KindGuestIBClass, "vmw_pvrdma0\nvmw_pvrdma1\n", "", 0),
		guestCap(catalog.KindGuestLsmod, "Module Size Used by\nvmw_pvrdma 81920 0\n", "", 0),
		guestCap(catalog.KindGuestDevinfo, "hca_id:\tvmw_pvrdma0\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\nhca_id:\tvmw_pvrdma1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n", "", 0),
		guestCap(catalog.KindGuestDpkg, "rdma-core\t39.0-1\n", "", 0),
	}
	lines := func(cmds []Command) string {
		var out []string
		for _, c := range cmds {
			out = append(out, c.Line)
		}
		return strings.Join(out, "\n")
	}
	cmds, notes := planGuestStage2(healthy, 512)
	if got := lines(cmds); got != "grep -s -r -H . /sys/class/infiniband/vmw_pvrdma0/ports/1\ngrep -s -r -H . /sys/class/infiniband/vmw_pvrdma1/ports/1" || len(notes) != 0 {
		t.Errorf("healthy: %q %v", got, notes)
	}
	// Port down, module loaded: dmesg. No dpkg: rpm. ibv_devinfo missing a
	// device sysfs has: ibv_devices. Module not loaded: modinfo.
	trouble := append([]hostio.Capture(nil), healthy...)
	trouble[2] = guestCap(catalog.KindGuestDevinfo, "hca_id:\tvmw_pvrdma0\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n", "", 0)
	trouble[3] = guestCap(catalog.KindGuestDpkg, "", "bash: line 1: dpkg-query: command not found\n", 127)
	cmds, _ = planGuestStage2(trouble, 512)
	got := lines(cmds)
	for _, want := range []string{"ibv_devices", "dmesg", "rpm -qa"} {
		if !strings.Contains(got, want) {
			t.Errorf("trouble: %s not planned:\n%s", want, got)
		}
	}
	if strings.Contains(got, "modinfo") {
		t.Errorf("modinfo planned with the module loaded")
	}
	trouble[1] = guestCap(catalog.KindGuestLsmod, "Module Size Used by\nvmxnet3 65536 0\n", "", 0)
	cmds, _ = planGuestStage2(trouble, 512)
	if got := lines(cmds); !strings.Contains(got, "modinfo vmw_pvrdma") || strings.Contains(got, "dmesg") {
		t.Errorf("module not loaded: %s", got)
	}
	// Hostile listing: names that are not device names never reach a line.
	hostile := []hostio.Capture{guestCap(catalog.KindGuestIBClass, "vmw_pvrdma0\n../../etc\nx;reboot $(id)\n", "", 0)}
	cmds, notes = planGuestStage2(hostile, 512)
	for _, c := range cmds {
		if err := CheckGuestAllowed(c.Line); err != nil || strings.ContainsAny(c.Line, ";$()") || strings.Contains(c.Line, "..") {
			t.Errorf("planned %q (%v)", c.Line, err)
		}
	}
	if len(notes) == 0 {
		t.Error("the bad listing lines are not noted")
	}
	// The guest allowlist is not the ESXi one.
	if CheckAllowedFor(hostio.RoleGuest, "esxcli rdma device list") == nil || CheckAllowedFor("", "lsmod") == nil {
		t.Error("allowlists mixed up")
	}
}
