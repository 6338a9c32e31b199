package plan

import (
	"strings"
	"testing"
)

var _ = example(GuestSetMTU{MTU: 9000, MAC: "00:50:56:aa:bb:cc", Netdev: "ens224"})
var _ = example(GuestReloadDriver{Device: "vmw_pvrdma0", MTU: 4096, Port: true})
var _ = example(GuestLoadDriver{Device: "vmw_pvrdma0"})
var _ = example(GuestPersistOrder{})
var _ = example(GuestInstallRDMA{Value: "apt"})
var _ = example(GuestReplaceMOFED{Value: "jammy"})
var _ = example(GuestInstallModule{Version: "5.15.0-91-generic"})
var _ = example(GuestUpgradeKernel{Version: "4.14"})
var _ = example(GuestSetIPv4{Netdev: "ens224"})
var _ = example(GuestLinkUp{Netdev: "ens224"})

// No removal runs unattended: a package manager's removal asks, listing
// what it removes with the packages that depend on them.
func TestNoRemovalWithoutAsking(t *testing.T) {
	w := GuestReplaceMOFED{Value: "jammy"}.Words("esx01")
	for _, bad := range []string{"purge -y", "remove -y", "erase -y", "autoremove -y"} {
		if strings.Contains(w.Command, bad) {
			t.Errorf("%q in %q", bad, w.Command)
		}
	}
	if !strings.Contains(w.Command, "apt-get purge ibverbs-providers") || len(w.Warnings) == 0 || !strings.Contains(w.Warnings[0], "asks before it removes") {
		t.Errorf("command %q warnings %q", w.Command, w.Warnings)
	}
}
