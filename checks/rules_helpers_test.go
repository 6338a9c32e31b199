package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestSourceForNamesTheCommand(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	for kind, want := range map[hostio.Kind]string{
		hostio.KindNICGet:    "`esxcli network nic get -n vmnic9` was not run",
		hostio.KindDCBStatus: "`esxcli network nic dcb status get -n vmnic9` was not run",
		hostio.KindRDMAStats: "`esxcli rdma device stats get -d vmnic9` was not run",
	} {
		if ok, why := sourceFor(&h, kind, "vmnic9"); ok || why != want {
			t.Errorf("%s: %v %q, want %q", kind, ok, why, want)
		}
	}
}
