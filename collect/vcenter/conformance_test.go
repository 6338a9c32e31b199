package vcenter

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/transporttest"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// esxcli through the vSphere API passes the transports' conformance suite
// on what vcsim implements (a failing or hanging esxcli is an API error
// there, not an exit status: those two tests do not apply).
func TestAPIRunnerConformance(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), nil)
	transporttest.Run(t, transporttest.Transport{Runner: NewAPIRunner(c, hosts), Target: hostio.Target{Name: "esx01"},
		Lines: []string{"esxcli vm process list", "esxcli network firewall get"}, Unknown: hostio.Target{Name: "nosuchhost"}})
}
