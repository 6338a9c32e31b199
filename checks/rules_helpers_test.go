package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

func TestSourceForNamesTheCommand(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	for kind, want := range map[collect.Kind]string{
		collect.KindNICGet:    "`esxcli network nic get -n vmnic9` was not run",
		collect.KindDCBStatus: "`esxcli network nic dcb status get -n vmnic9` was not run",
		collect.KindRDMAStats: "`esxcli rdma device stats get -d vmnic9` was not run",
	} {
		if ok, why := sourceFor(&h, kind, "vmnic9"); ok || why != want {
			t.Errorf("%s: %v %q, want %q", kind, ok, why, want)
		}
	}
}
