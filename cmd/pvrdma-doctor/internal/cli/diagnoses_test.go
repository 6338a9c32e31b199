package cli

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// What the diagnoses say, over real SSH, on the scenarios that hold each
// firing case and its near miss (scenario.yaml lists which findings fire;
// this checks the words an admin acts on).
func TestDiagnosesOverSSH(t *testing.T) {
	scan := func(t *testing.T, name string) *Analysis {
		t.Helper()
		_, a := scanLab(t, loadScenario(t, name), lab.Options{}, collect.Options{})
		return a
	}
	find := func(t *testing.T, a *Analysis, rule, host, subject string) checks.Finding {
		t.Helper()
		for _, f := range a.Checks.Findings {
			if f.Status == checks.StatusFail && f.RuleID == rule && f.Host == host && (subject == "" || f.Subject == subject) {
				return f
			}
		}
		t.Fatalf("no %s on %s %s", rule, host, subject)
		return checks.Finding{}
	}
	has := func(t *testing.T, what, s string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if !strings.Contains(s, p) {
				t.Errorf("%s does not say %q:\n%s", what, p, s)
			}
		}
	}

	t.Run("reference: the probes ran on the management network, the fabric is not measured", func(t *testing.T) {
		a := scan(t, "reference")
		f := find(t, a, "LOW_MTU", "esx01", "rhel80_1 (PVRDMA adapter 0)")
		has(t, "LOW_MTU", f.Message, "configured for 9000-byte frames", "the RDMA fabric's path MTU is not measured: the probes ran from vmk0 on vSwitch0")
		if !strings.HasPrefix(f.Fix, "Only if a jumbo test across the RDMA fabric passes") {
			t.Errorf("unconditional MTU advice: %s", f.Fix)
		}
		if p := a.Report.Paths; p == nil || !strings.HasPrefix(p.NotFabric, "No probe crossed the RDMA fabric") || p.Pairs[0].Fabric || p.Pairs[0].RDMAMTU != 0 {
			t.Errorf("paths: %+v", p)
		}
	})
	t.Run("mixed: the fabric is measured; causes are only what the facts show", func(t *testing.T) {
		a := scan(t, "mixed")
		f := find(t, a, "LOW_MTU", "esx03", "hpc-node06 (PVRDMA adapter 0)")
		has(t, "LOW_MTU", f.Message, "carries 9000-byte frames", "the cause is unknown: hpc-node06's interface ens224 is at MTU 9000")
		if f.CausedBy != nil || strings.HasPrefix(f.Fix, "Only if") {
			t.Errorf("LOW_MTU caused by %+v, fix %q", f.CausedBy, f.Fix)
		}
		g := find(t, a, "GUEST_PORT_DOWN", "hpc-node02", "")
		has(t, "GUEST_PORT_DOWN", g.Message, "has no physical HCA, but that does not take a port down")
		for _, x := range a.Report.Guests {
			if x.Host == "hpc-node06" && !strings.Contains(x.Verdict, "runs at RDMA MTU 1024 (esx03: LOW_MTU) on the host side") {
				t.Errorf("hpc-node06 verdict %q", x.Verdict)
			}
		}
	})
	t.Run("edges: a supported old kernel passes, an unsupported one is the root; latency is an upper bound", func(t *testing.T) {
		a := scan(t, "edges")
		for _, f := range a.Checks.Findings {
			if f.Host == "cfd-01" && f.Status == checks.StatusFail {
				t.Errorf("CentOS 7.6 (seed 002's test bed) flagged: %s %s", f.RuleID, f.Message)
			}
		}
		k := find(t, a, "GUEST_KERNEL_TOO_OLD", "cfd-02", "cfd-02")
		has(t, "GUEST_KERNEL_TOO_OLD", k.Message, "Linux 3.10.0-229.el7.x86_64 (CentOS Linux 7 (Core), 7.1 by its kernel 3.10.0-229.el7.x86_64)")
		l := find(t, a, "HIGH_LATENCY", "esx01", "vmk1 -> esx02")
		has(t, "HIGH_LATENCY", l.Message, "This is an upper bound, not the RDMA latency", "across the RDMA fabric")
		if l.Severity != checks.Info {
			t.Errorf("HIGH_LATENCY %s", l.Severity)
		}
	})
	t.Run("nojumbo: jumbo frames not configured, and what that caps", func(t *testing.T) {
		a := scan(t, "nojumbo")
		f := find(t, a, "JUMBO_FRAMES_NOT_CONFIGURED", "esx01", "rdma-dvs")
		has(t, "JUMBO_FRAMES_NOT_CONFIGURED", f.Message, "rdma-dvs at MTU 1500", "RoCE is capped at RDMA MTU 1024")
	})
	t.Run("vmconfig: native endpoints, each prerequisite", func(t *testing.T) {
		a := scan(t, "vmconfig")
		has(t, "native-nons", find(t, a, "NATIVE_ENDPOINTS_UNAVAILABLE", "esx01", "native-nons").Message, "`Native endpoints supported:0`", "`Namespace allocated:0`")
		has(t, "native-idx", find(t, a, "NATIVE_ENDPOINTS_UNAVAILABLE", "esx01", "native-idx").Message, "vrdma3.nativeEndpointSupport in the .vmx names adapter index 3")
		has(t, "native-17", find(t, a, "NATIVE_ENDPOINTS_UNAVAILABLE", "esx01", "native-17").Message, "virtual hardware version 17")
		has(t, "native-70ga", find(t, a, "NATIVE_ENDPOINTS_UNAVAILABLE", "esx03", "native-70ga").Message, "esx03 runs ESXi 7.0.0")
	})
	t.Run("jumbodrop: one switch fault, one root cause", func(t *testing.T) {
		a := scan(t, "jumbodrop")
		roots := 0
		for _, f := range checks.RootCauses(a.Checks.Findings) {
			if f.Severity == checks.Critical {
				roots++
			}
		}
		if roots != 1 {
			t.Errorf("%d critical root causes, want 1", roots)
		}
	})
}
