package catalog_test

import (
	"fmt"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// StageFacts reads one stage's collected outputs into a host's facts
// (what plans the commands of source FromFacts), leaving out failed
// captures and the other stages.
func TestStageFacts(t *testing.T) {
	sc := fixtures.MustLoad(t, "healthy")
	h := sc.Host("esx01")
	var caps []hostio.Capture
	for _, c := range collect.Stage1() {
		caps = append(caps, hostio.Capture{Command: c.Line, Kind: c.Kind, Stdout: h.Respond(c.Line).Stdout, Status: hostio.StatusCollected})
	}
	f := catalog.StageFacts(caps, 1)
	if len(f.RDMADevices) == 0 || len(f.NICs) == 0 || f.Version == nil {
		t.Fatalf("stage 1 facts not read: %d RDMA devices, %d NICs, version %v", len(f.RDMADevices), len(f.NICs), f.Version)
	}
	for i := range caps {
		if caps[i].Kind == catalog.KindNICList {
			caps[i].Status, caps[i].ExitCode = hostio.StatusFailed, 1
		}
	}
	if f := catalog.StageFacts(caps, 1); len(f.NICs) != 0 {
		t.Errorf("a failed capture gave %d NICs", len(f.NICs))
	}
	if f := catalog.StageFacts(caps, 2); len(f.RDMADevices) != 0 {
		t.Error("stage 2 facts read from stage 1 outputs")
	}
}

// Absent: the answer of a host without the command's subject is a fact,
// only with a non-zero exit the spec recognizes.
func TestIsAbsent(t *testing.T) {
	s := &catalog.Spec{Absent: func(exit int, stdout, stderr string) bool { return stdout == "Unable to find module nmlx5_core\n" }}
	for _, c := range []struct {
		capt hostio.Capture
		want bool
	}{
		{hostio.Capture{ExitCode: 1, Stdout: "Unable to find module nmlx5_core\n"}, true},
		{hostio.Capture{ExitCode: 0, Stdout: "Unable to find module nmlx5_core\n"}, false},
		{hostio.Capture{ExitCode: 1, Stdout: "Connection reset\n"}, false},
	} {
		if got := s.IsAbsent(c.capt); got != c.want {
			t.Errorf("%+v: %v", c.capt, got)
		}
	}
	if (&catalog.Spec{}).IsAbsent(hostio.Capture{ExitCode: 1}) {
		t.Error("a spec without Absent")
	}
}

// A spec of source FromFacts plans from the kinds it says it reads
// (InstancesRead) the same instances as from every stage-1 output, on
// every host of every scenario: a kind it reads and does not name would
// lose instances.
func TestInstancesReadSuffices(t *testing.T) {
	for _, name := range fixtures.Names() {
		sc := fixtures.MustLoad(t, name)
		for _, h := range sc.Hosts {
			if h.Role == hostio.RoleGuest {
				continue
			}
			var caps []hostio.Capture
			for _, c := range collect.Stage1() {
				r := h.Respond(c.Line)
				caps = append(caps, hostio.Capture{Command: c.Line, Kind: c.Kind, Stdout: r.Stdout, ExitCode: r.Exit, Status: hostio.StatusCollected})
			}
			all := catalog.StageFacts(caps, 1)
			for _, s := range catalog.Specs() {
				if s.From != catalog.FromFacts || s.Instances == nil {
					continue
				}
				if len(s.InstancesRead) == 0 {
					t.Errorf("%s: Instances without InstancesRead", s.Kind)
					continue
				}
				some := catalog.StageFacts(caps, 1, s.InstancesRead...)
				if got, want := fmt.Sprint(s.Instances(&some)), fmt.Sprint(s.Instances(&all)); got != want {
					t.Errorf("%s on %s/%s: %s from its kinds, %s from every output", s.Kind, name, h.Name, got, want)
				}
			}
		}
	}
}
