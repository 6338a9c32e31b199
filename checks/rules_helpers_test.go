package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestSourceForNamesTheCommand(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	for kind, want := range map[hostio.Kind]string{
		catalog.KindNICGet:    "`esxcli network nic get -n vmnic9` was not run",
		catalog.KindDCBStatus: "`esxcli network nic dcb status get -n vmnic9` was not run",
		catalog.KindRDMAStats: "`esxcli rdma device stats get -d vmnic9` was not run",
	} {
		if ok, why := sourceFor(&h, kind, "vmnic9"); ok || why != want {
			t.Errorf("%s: %v %q, want %q", kind, ok, why, want)
		}
	}
}
