package cli

import (
	"context"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/vclab"
)

// demoVCenter starts the scenario's simulated vCenter and reads it as
// `scan --vcenter` reads a real one: over TLS with the certificate
// pinned, one PropertyCollector pass per type.
func demoVCenter(ctx context.Context, sc *fixtures.Scenario, guests []lab.HostInfo) (*vcenterData, func(), error) {
	s, err := vclab.Start(sc, guests, "", "")
	if err != nil {
		return nil, nil, err
	}
	d, err := readVCenterWith(ctx, vcenter.Config{URL: s.URL.String(), User: s.User, Password: s.Password,
		Thumbprint: s.Thumbprint, Cluster: s.Cluster}, 15*time.Second, time.Minute)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return d, func() { d.close(); s.Close() }, nil
}
