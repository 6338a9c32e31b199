package facts_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func buildScenario(t *testing.T, name string) facts.Fleet {
	t.Helper()
	sc := fixtures.MustLoad(t, name)
	var targets []hostio.Target
	for _, h := range sc.Hosts {
		if h.Fault == "" && h.Role != hostio.RoleGuest {
			targets = append(targets, hostio.Target{Name: h.Name})
		}
	}
	return facts.Build(collect.Collect(context.Background(), targets, collect.Options{Runner: sc.Runner(), Probes: true}))
}

// Each pair says which network its probes crossed: only vmknics on a
// PVRDMA vDS whose every uplink is an RDMA uplink, at both ends, probe the
// RDMA fabric; a host's fabric path MTU is measured only by such pairs.
func TestProbeNetAndMeasuredFabric(t *testing.T) {
	// Seed 002's setup: vmk0 on vSwitch0 is tagged; nothing crosses the
	// fabric, whose path MTU is then not measured.
	ref := buildScenario(t, "reference")
	dp := ref.DataPath()
	for i := range ref.Hosts {
		hp := dp.Host(i)
		if hp.MTU.Measured || len(hp.Pairs) == 0 {
			t.Errorf("reference %s: measured %v, %d pairs", ref.Hosts[i].Host, hp.MTU.Measured, len(hp.Pairs))
		}
		for _, pp := range hp.Pairs {
			if pp.Net.Fabric() || pp.Net.DataPath || !strings.HasPrefix(pp.Net.String(), "vmk0 on vSwitch0 (uplinks ") {
				t.Errorf("reference %s: %+v (%s)", pp.From, pp.Net, pp.Net.String())
			}
		}
	}
	// mixed: vmk1 on rdma-dvs with vmnic4 as its only uplink crosses the
	// fabric; esx02 (no RDMA device) and esx04 (rdma-dvs teams vmnic2, no
	// RDMA device, with vmnic4) do not.
	mixed := buildScenario(t, "mixed")
	dp = mixed.DataPath()
	fabric := map[string]bool{}
	for _, pp := range dp.Pairs() {
		if pp.To == "esx03" || pp.To == "esx01" {
			fabric[pp.From+"->"+pp.To] = pp.Net.Fabric()
		}
	}
	for pair, want := range map[string]bool{"esx01->esx03": true, "esx03->esx01": true, "esx02->esx01": false, "esx04->esx01": false} {
		if fabric[pair] != want {
			t.Errorf("mixed %s: fabric %v, want %v", pair, fabric[pair], want)
		}
	}
	for i, h := range mixed.Hosts {
		if h.Host == "esx03" && !dp.Host(i).MTU.Measured {
			t.Error("esx03's fabric was measured by esx01's probes to it at 9000")
		}
	}
}
