package checks

import (
	"fmt"
	"path"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// The checks of this area (rule values: catalogue.go; prose: catalogue.yaml): the guest's verbs user space against its kernel (libibverbs warnings of ibv_devinfo / ibv_devices).

// checkGuestVerbsABIMismatch reads libibverbs' "Driver X does not support
// the kernel ABI of N (supports A to B)": the provider in user space and
// the kernel driver were built for different ABIs, and libibverbs skips
// the device. For the PVRDMA provider (or a PVRDMA adapter's device) that
// is the adapter lost to every application; for another device's provider
// it is at most information (PVRDMA does not use it).

// rulesGuestVerbs are this area's rules in the catalogue (catalogueList).
var rulesGuestVerbs = []*Rule{
	{ID: "GUEST_VERBS_ABI_MISMATCH", Severity: Critical, Scope: GuestScope, Check: checkGuestVerbsABIMismatch},
}

func checkGuestVerbsABIMismatch(in *Input, r *Reporter) {
	g := in.Guest
	if len(g.Sources[catalog.KindGuestDevinfo])+len(g.Sources[catalog.KindGuestDevices]) == 0 {
		_, why := g.Available(catalog.KindGuestDevinfo)
		r.NotEvaluated(g.Guest, why)
		return
	}
	pvrdma := map[string]bool{}
	for _, a := range g.Adapters {
		pvrdma[a.Device] = true
	}
	seen := map[string]bool{}
	for _, w := range g.ProviderWarnings {
		if !w.ABIMismatch() {
			continue
		}
		dev := path.Base(w.Device)
		subject := w.Driver + " provider"
		if dev != "" && dev != "." {
			subject += " (" + dev + ")"
		}
		if seen[subject] {
			continue // ibv_devinfo and ibv_devices print the same warning
		}
		seen[subject] = true
		abi := "the kernel driver's ABI"
		if w.KernelABI > 0 {
			abi = fmt.Sprintf("kernel ABI %d, while it supports %d to %d", w.KernelABI, w.ProviderABIMin, w.ProviderABIMax)
		}
		if w.Driver != "vmw_pvrdma" && !pvrdma[dev] {
			r.FailSeverity(Info, g.Guest, subject, fmt.Sprintf("libibverbs on %s skips %s: its user-space %s provider does not match %s. "+
				"That device is not a PVRDMA adapter, so PVRDMA is not affected; libibverbs warns about it on every run", g.Guest,
				orPlaceholder(dev, "a device"), w.Driver, abi),
				"Nothing to do for PVRDMA. To use that device too, install the rdma-core that matches the running kernel.", Ev(g.Guest, w.Ref))
			continue
		}
		target := orPlaceholder(dev, "the PVRDMA device")
		r.Fail(subject, fmt.Sprintf("libibverbs on %s cannot open %s: the user-space vmw_pvrdma provider and the kernel's vmw_pvrdma driver "+
			"do not match (%s), so libibverbs skips the device and no RDMA application can use the PVRDMA adapter",
			g.Guest, target, abi),
			fmt.Sprintf("In %s, install the verbs libraries built for the running kernel: the distribution's rdma-core (Ubuntu/Debian: "+
				"`sudo apt-get install --reinstall rdma-core ibverbs-providers libibverbs1`; RHEL: `sudo dnf reinstall rdma-core libibverbs`), "+
				"and remove any other copy that shadows it (MOFED, a container image's or LD_LIBRARY_PATH's libibverbs); or boot the kernel "+
				"that rdma-core was built for. Then `ibv_devinfo` must list %s without the warning.", g.Guest, target),
			Ev(g.Guest, w.Ref))
	}
	if len(seen) == 0 {
		r.Pass(g.Guest)
	}
}
