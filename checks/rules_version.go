package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

// The ESXi release.

var ruleESXiVersionUnsupported = &Rule{
	ID:       "ESXI_VERSION_UNSUPPORTED",
	Title:    "ESXi release is older than 6.5 and has no PVRDMA",
	Severity: Critical,
	Needs:    []collect.Kind{collect.KindSystemVersion},
	Check:    checkESXiVersionUnsupported,
	Why: "PVRDMA exists since ESXi 6.5 (and vCenter 6.5): an older host cannot give VMs a PVRDMA adapter, and " +
		"PVRDMA VMs cannot run or migrate there.",
	Fix:     "Upgrade the host to ESXi 6.5 or later (7.0 U1+ for native endpoints, 8.0 recommended) with vSphere Lifecycle Manager.",
	Docs:    []string{docRDMAOverview, docPVRDMA70},
	Applies: "all (fires on ESXi < 6.5)",
}

func checkESXiVersionUnsupported(in *Input, r *Reporter) {
	h := in.Host
	if h.Version == nil {
		r.NotEvaluated(h.Host, "`esxcli system version get` gave no version")
		return
	}
	major, minor, _, ok := esxiVersion(h.Version.Version)
	if !ok {
		r.NotEvaluated(h.Host, fmt.Sprintf("ESXi version %q could not be read", h.Version.Version))
		return
	}
	if major > 6 || (major == 6 && minor >= 5) {
		r.Pass(h.Host)
		return
	}
	r.Fail(h.Host, fmt.Sprintf("%s runs ESXi %s; PVRDMA needs ESXi 6.5 or later", h.Host, h.Version.Version),
		fmt.Sprintf("Upgrade %s from ESXi %s to 6.5 or later (8.0 recommended) with vSphere Lifecycle Manager, then reconnect the PVRDMA VMs.",
			h.Host, h.Version.Version),
		Ev(h.Host, h.Version.Ref))
}
