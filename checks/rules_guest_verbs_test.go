package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

const abiWarning = "libibverbs: Warning: Driver vmw_pvrdma does not support the kernel ABI of 3 (supports 1 to 2) for device /sys/class/infiniband/vmw_pvrdma0\n"

func TestRuleGuestVerbsABIMismatch(t *testing.T) {
	run := func(mod func(out map[hostio.Kind]guestOut)) []Finding {
		out := healthyGuestOutputs()
		mod(out)
		g := guestFacts("vm1", out)
		res := runGuestRules(t, []string{"GUEST_VERBS_ABI_MISMATCH"}, []facts.Host{guestHost("esx01", 1)}, g)
		return append(res.Findings, res.Passed...)
	}
	// The PVRDMA provider against the kernel's driver: the adapter is lost
	// to every application. A pasted session shows the warning among the
	// output; a scan on stderr: both are read, and said once.
	for name, mod := range map[string]func(map[hostio.Kind]guestOut){
		"on stderr": func(out map[hostio.Kind]guestOut) {
			out[catalog.KindGuestDevinfo] = guestOut{stdout: "No IB devices found\n", stderr: abiWarning, exit: 255}
		},
		"in a pasted output": func(out map[hostio.Kind]guestOut) {
			out[catalog.KindGuestDevinfo] = guestOut{stdout: abiWarning + "No IB devices found\n"}
			out[catalog.KindGuestDevices] = guestOut{stdout: abiWarning + "    device          \t   node GUID\n    ------          \t----------------\n"}
		},
	} {
		fs := run(mod)
		if len(fs) != 1 || fs[0].Status != StatusFail || fs[0].Severity != Critical || fs[0].Subject != "vmw_pvrdma provider (vmw_pvrdma0)" ||
			!strings.Contains(fs[0].Message, "kernel ABI 3, while it supports 1 to 2") || len(fs[0].Evidence) != 1 ||
			!strings.Contains(fs[0].Evidence[0].Text, "does not support the kernel ABI of 3") {
			t.Errorf("%s: %+v", name, fs)
		}
	}
	// Another device's provider: PVRDMA does not use it, info at most.
	fs := run(func(out map[hostio.Kind]guestOut) {
		o := out[catalog.KindGuestDevinfo]
		o.stderr = "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\n"
		out[catalog.KindGuestDevinfo] = o
	})
	if len(fs) != 1 || fs[0].Severity != Info || fs[0].Status != StatusFail || !strings.Contains(fs[0].Message, "not a PVRDMA adapter") {
		t.Errorf("another device's provider: %+v", fs)
	}
	// Another warning (a provider that cannot load) is not an ABI mismatch.
	fs = run(func(out map[hostio.Kind]guestOut) {
		o := out[catalog.KindGuestDevinfo]
		o.stderr = "libibverbs: Warning: couldn't load driver 'rxe': librxe-rdmav2.so: cannot open shared object file: No such file or directory\n"
		out[catalog.KindGuestDevinfo] = o
	})
	if len(fs) != 1 || fs[0].Status != StatusPass {
		t.Errorf("no ABI warning: %+v", fs)
	}
	// Neither verbs tool read: not evaluated.
	fs = run(func(out map[hostio.Kind]guestOut) {
		delete(out, catalog.KindGuestDevinfo)
		delete(out, catalog.KindGuestDevices)
	})
	if len(fs) != 1 || fs[0].Status != StatusNotEvaluated {
		t.Errorf("no verbs tool: %+v", fs)
	}
}
