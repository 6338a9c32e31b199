package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

func init() {
	register("demo", func(f *Factory) *cobra.Command { return newCmdDemo(f, nil) })
}

// DemoOptions are the flags and dependencies of `demo`.
type DemoOptions struct {
	IO       *IOStreams
	Getenv   func(string) string
	Scenario string
	Report   ReportOptions
	Bundle   BundleFlags
	// NoVCenter leaves the simulated vCenter out.
	NoVCenter bool
}

// newCmdDemo builds the command; runF, when set, runs instead of runDemo with
// the options the flags built (tests).
func newCmdDemo(f *Factory, runF func(context.Context, *DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Scan a simulated ESXi lab (no ESXi needed)",
		Long: fmt.Sprintf(`Demo starts a simulated lab of ESXi hosts inside this process: a real SSH
server per host on 127.0.0.1, answering the scanner's commands with realistic
ESXi output from a scenario. It then scans the lab exactly as 'scan' scans real
hosts (SSH, host key verification, the same commands, parsers and rules).
A simulated vCenter (govmomi's vcsim, over TLS on 127.0.0.1) manages the same
hosts and their PVRDMA VMs; it is read as 'scan --vcenter' reads a real one
(--no-vcenter leaves it out).

Scenarios: %s (default mixed: several hosts, several different faults).`, strings.Join(fixtures.Names(), ", ")),
		Example: `  pvrdma-doctor demo
  pvrdma-doctor demo --scenario healthy --output json
  pvrdma-doctor demo --output text --bundle demo.tar.gz; pvrdma-doctor analyze demo.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDemo(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Scenario, "scenario", "mixed", "scenario to simulate")
	cmd.Flags().BoolVar(&opts.NoVCenter, "no-vcenter", false, "leave out the simulated vCenter (VM configuration read through the vSphere API)")
	addReportFlags(cmd.Flags(), &opts.Report)
	cmd.Flags().StringVar(&opts.Bundle.Path, "bundle", "", "also write a support bundle of the demo scan to `FILE.tar.gz` (try: pvrdma-doctor analyze FILE.tar.gz)")
	addRedactFlags(cmd.Flags(), &opts.Bundle)
	return cmd
}

func runDemo(ctx context.Context, opts *DemoOptions) error {
	if err := opts.Report.validate(); err != nil {
		return err
	}
	if err := checkBundleFlags(opts.Bundle); err != nil {
		return err
	}
	sc, err := fixtures.Load(opts.Scenario)
	if err != nil {
		return usageError("%v", err)
	}
	l, err := lab.Start(sc, lab.Options{})
	if err != nil {
		return fmt.Errorf("starting the simulated lab: %w", err)
	}
	defer l.Close()
	targets, runner := labTargets(l)
	p := &Pipeline{
		IO: opts.IO, Getenv: opts.Getenv, Report: &opts.Report, Targets: targets,
		Collect: collect.Options{Runner: runner, Probes: true, Logger: slog.New(slog.DiscardHandler)},
		Meta:    report.Meta{Source: fmt.Sprintf("demo: simulated lab, scenario %q (%s)", sc.Name, sc.Description)},
	}
	if !opts.NoVCenter {
		// A simulated vCenter beside the hosts, read as scan --vcenter reads one.
		vc, closeVC, err := demoVCenter(ctx, sc, l.Guests())
		if err != nil {
			return fmt.Errorf("starting the simulated vCenter: %w", err)
		}
		defer closeVC()
		p.Collect.Extra = vc.extra
		p.Meta.Notes = append(p.Meta.Notes, vc.notes...)
		if port := l.GuestPort(); port > 0 {
			// The guests are those vCenter names, at the addresses VMware
			// Tools reports (scan --guests-from-vcenter).
			hosts, _ := splitRoles(targets)
			found, notes := vcenter.GuestTargets(vcenter.DiscoverGuests(vc.captures), port, hosts)
			p.Targets = append(hosts, found...)
			p.Meta.Notes = append(p.Meta.Notes, notes...)
		}
	}
	p.attachBundle(opts.Bundle)
	return p.Run(ctx)
}

// labTargets returns the lab's hosts as scan targets and an SSH runner that
// logs in with the lab's credentials and verifies each host's key.
func labTargets(l *lab.Lab) ([]hostio.Target, *sshrun.SSHRunner) {
	hosts := l.Hosts()
	targets := make([]hostio.Target, len(hosts))
	byName := map[string]lab.HostInfo{}
	for i, h := range hosts {
		targets[i] = hostio.Target{Name: h.Name, Addr: h.Addr}
		byName[h.Name] = h
	}
	// The lab's Linux guests are scanned too (scan --guests).
	for _, g := range l.Guests() {
		targets = append(targets, hostio.Target{Name: g.Name, Addr: g.Addr, Role: hostio.RoleGuest})
		byName[g.Name] = g
	}
	runner := &sshrun.SSHRunner{
		ClientConfig: func(t hostio.Target) (*ssh.ClientConfig, error) {
			h := byName[t.Name]
			want := h.HostKey
			return &ssh.ClientConfig{
				User: h.User,
				Auth: sshrun.PasswordAuth(h.Password),
				HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
					if want == nil || string(key.Marshal()) != string(want.Marshal()) {
						return fmt.Errorf("host key of %s does not match the lab's key", t.Name)
					}
					return nil
				},
				HostKeyAlgorithms: sshrun.HostKeyAlgorithms(want.Type()),
			}, nil
		},
	}
	return targets, runner
}
