package catalog

import (
	"reflect"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The flow control a plan must read before touching it: every RDMA
// uplink, and every vDS uplink whose NIC can carry RoCE though it has no
// RDMA device yet (the port a plan turns RDMA on for); not a vDS uplink
// that cannot carry RoCE, not a RoCE NIC off every vDS, never a name a
// command line cannot carry.
func TestFlowUplinks(t *testing.T) {
	f := &HostFacts{
		RDMADevices: []parse.RDMADevice{{Name: "vmrdma0", PairedUplink: "vmnic4"}, {Name: "vmrdma1", PairedUplink: "vmnic4;reboot"}},
		DVSwitches:  []parse.DVSwitch{{Name: "rdma-dvs", Uplinks: []string{"vmnic2", "vmnic3"}}},
		NICs: []parse.NIC{
			{Name: "vmnic2", Driver: "icen"},    // E810 on the vDS, RDMA not on yet: read
			{Name: "vmnic3", Driver: "i40en"},   // X710 on the vDS: cannot carry RoCE
			{Name: "vmnic6", Driver: "bnxtnet"}, // off every vDS
			{Name: "vmnic4", Driver: "nmlx5_core"},
		},
	}
	got := flowUplinks(f)
	want := [][]string{{"vmnic2"}, {"vmnic4"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flowUplinks = %q, want %q", got, want)
	}
}
