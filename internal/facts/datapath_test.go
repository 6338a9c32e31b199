package facts

import (
	"reflect"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The RoCE MTU an Ethernet MTU carries after 96 bytes of RoCE v2 headers.
func TestRDMAMTUFor(t *testing.T) {
	for eth, want := range map[int]int{1500: 1024, 2200: 2048, 4191: 2048, 4192: 4096, 9000: 4096, 1100: 512} {
		if got := RDMAMTUFor(eth); got != want {
			t.Errorf("RDMAMTUFor(%d) = %d, want %d", eth, got, want)
		}
	}
}

// Build derives the model once: every copy of the built fleet value reads
// the same one, a fleet with other hosts gets its own, and each host's path
// is the one derived from that host alone.
func TestBuildKeepsOneDataPath(t *testing.T) {
	results := []hostio.HostResult{{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		capture(catalog.KindRDMADeviceList, "esxcli rdma device list", rdmaList),
	}}}
	built := Build(results)
	model := built.DataPath()
	if model != built.DataPath() {
		t.Fatal("DataPath derived twice on a built fleet")
	}
	cp := built
	if cp.DataPath() != model {
		t.Error("a copy of the built fleet value does not share its model")
	}
	other := Fleet{Hosts: append([]Host(nil), built.Hosts...)}
	if other.DataPath() == model {
		t.Error("a fleet with other hosts reads the built fleet's model")
	}
	if got, want := *model.For(&built.Hosts[0]), PathOf(&built.Hosts[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("model path %+v, host alone %+v", got, want)
	}
	if len(model.Host(0).Active) != 1 || model.Host(0).Active[0].Name != "vmrdma0" {
		t.Errorf("Active = %+v, want vmrdma0", model.Host(0).Active)
	}
	var none *Fleet
	if p := none.DataPath(); p == nil {
		t.Error("a nil fleet has no model")
	}
}
