package collect_test

import (
	"context"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// Collector tests that cross real SSH connections: the simulated lab
// (fixtures/lab) through the production transport (sshrun, whose own tests
// are internal/sshrun/ssh_lab_test.go).

var loadScenario = fixtures.MustLoad

// labRunner logs in to the lab with its password, host keys not checked.
func labRunner(t *testing.T, l *lab.Lab) *sshrun.SSHRunner {
	t.Helper()
	db, err := sshrun.LoadHostKeyDB("", sshrun.HostKeyInsecure)
	if err != nil {
		t.Fatal(err)
	}
	r := sshrun.NewSSHRunner(sshrun.SSHSetup{Credentials: &sshrun.Credentials{Password: l.Hosts()[0].Password, HasPassword: true},
		HostKeys: db, Home: t.TempDir()})
	t.Cleanup(func() { r.Close() })
	return r
}

// scan collects targets through r, by host name.
func scan(t *testing.T, r hostio.Runner, targets []hostio.Target, o collect.Options) map[string]hostio.HostResult {
	t.Helper()
	o.Runner = r
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	out := map[string]hostio.HostResult{}
	for _, res := range collect.Collect(context.Background(), targets, o) {
		out[res.Host] = res
	}
	return out
}
