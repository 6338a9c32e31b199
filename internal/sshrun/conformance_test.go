package sshrun_test

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/transporttest"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// The SSH transport passes the transports' conformance suite against the
// lab's real SSH servers: the hosts' outputs, a refused line never sent
// (the lab counts what reaches it), a missing command's exit status 127 as
// a result, a hanging command ended by its deadline, a refused port.
func TestSSHConformance(t *testing.T) {
	sc := loadScenario(t, "healthy")
	const hang = "esxcli network nic get -n vmnic98"
	h := sc.Hosts[0]
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{h.Name: {Hang: []string{hang}}}})
	var lines []string
	for _, c := range collect.Stage1() {
		lines = append(lines, c.Line)
	}
	transporttest.Run(t, transporttest.Transport{
		Runner: newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: password(l)}),
		Target: hostInfo(t, l, h.Name).Target(), Lines: lines,
		Stdout:  func(line string) string { return h.Respond(line).Stdout },
		Failing: "esxcli network nic get -n vmnic99", Hanging: hang,
		Sent:    func() []string { return l.Stats(h.Name).Commands },
		Unknown: hostio.Target{Name: "gone", Addr: refusedAddr(t)},
	})
}
