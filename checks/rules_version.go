package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesVersion are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesVersion = []*Rule{
	{ID: "ESXI_VERSION_UNSUPPORTED", Plan: planESXiVersion, Severity: Critical, Check: checkESXiVersionUnsupported,
		Needs: []hostio.Kind{catalog.KindSystemVersion}},
}

// The checks of this area (prose: catalogue.yaml): the ESXi release.

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
