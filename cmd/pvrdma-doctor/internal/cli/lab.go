package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/vclab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

func init() { register("lab", newCmdLab) }

// LabServeOptions are the flags and dependencies of `lab serve`.
type LabServeOptions struct {
	IO *IOStreams

	Scenario    string
	ScenarioDir string
	Hosts       int
	RTT         time.Duration
	CmdLatency  time.Duration
	ProbeWaits  bool
	// BadPorts are --bad-port HOST=MTU: the fleet (--hosts) runs on a
	// modelled network whose switch ports carry 9216 except these.
	BadPorts                []string
	User                    string
	Password                string
	KeyboardInteractiveOnly bool
	OutDir                  string
	// NoVCenter leaves the simulated vCenter out.
	NoVCenter bool

	// Stop ends serving when it is closed (tests); SIGINT, SIGTERM and the
	// command's context always do.
	Stop <-chan struct{}
}

func newCmdLab(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Run simulated ESXi hosts to try pvrdma-doctor without ESXi",
		Long: `The lab runs simulated ESXi 8 hosts on this machine: real SSH servers on
127.0.0.1 that answer the read-only commands pvrdma-doctor sends with the
outputs of a built-in scenario (or a scenario directory), faults included.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCmdLabServe(f, nil))
	return cmd
}

func newCmdLabServe(f *Factory, runF func(context.Context, *LabServeOptions) error) *cobra.Command {
	opts := &LabServeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a scenario's hosts over SSH until interrupted",
		Long: `Serve starts one SSH server per host of a scenario on 127.0.0.1 (random ports),
prints each host's address, credentials and host key fingerprint, writes
hosts.txt and known_hosts into --out-dir, and prints the scan command to run
against them. A simulated vCenter (govmomi's vcsim, TLS on 127.0.0.1) manages
the same hosts and their PVRDMA VMs; its URL, credentials and certificate
thumbprint are printed with the scan --vcenter command (--no-vcenter leaves it
out). It serves until interrupted (Ctrl-C).

Built-in scenarios: ` + strings.Join(fixtures.Names(), ", ") + `.`,
		Example: `  pvrdma-doctor lab serve
  pvrdma-doctor lab serve --scenario healthy --keyboard-interactive-only
  pvrdma-doctor lab serve --hosts 200 --rtt 20ms --cmd-latency 150ms --out-dir ./lab`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("scenario") && opts.ScenarioDir != "" {
				return usageError("--scenario and --scenario-dir are mutually exclusive")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLabServe(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Scenario, "scenario", "mixed", "built-in scenario to serve ("+strings.Join(fixtures.Names(), ", ")+")")
	fl.StringVar(&opts.ScenarioDir, "scenario-dir", "", "serve a scenario from a directory (<host>/<command file> layout)")
	fl.IntVar(&opts.Hosts, "hosts", 0, "serve a generated fleet of N hosts cycling the scenario's reachable hosts")
	fl.DurationVar(&opts.RTT, "rtt", 0, "simulated network round-trip time per connection")
	fl.DurationVar(&opts.CmdLatency, "cmd-latency", 0, "time every command takes to answer")
	fl.StringArrayVar(&opts.BadPorts, "bad-port", nil, "with --hosts N: the fleet is healthy on a modelled network whose switch ports carry 9216-byte frames, except HOST's (`esx0005=1500`; repeatable): try `pvrdma-doctor paths` on it")
	fl.BoolVar(&opts.ProbeWaits, "probe-waits", false, "vmkping takes as long as on a real host (its -c packets -i apart, the round trip, the -W wait of a lost probe)")
	fl.StringVar(&opts.User, "user", "root", "SSH user the hosts accept")
	fl.StringVar(&opts.Password, "password", "", "SSH password the hosts accept (default: random)")
	fl.BoolVar(&opts.KeyboardInteractiveOnly, "keyboard-interactive-only", false, "offer only keyboard-interactive authentication, like ESXi")
	fl.BoolVar(&opts.NoVCenter, "no-vcenter", false, "do not serve the simulated vCenter beside the hosts")
	fl.StringVar(&opts.OutDir, "out-dir", "", "directory for hosts.txt and known_hosts (default: a new temporary directory)")
	return cmd
}

func runLabServe(ctx context.Context, opts *LabServeOptions) error {
	// Serving makes no report: Ctrl-C stops the lab.
	setInterruptMessage("interrupted: stopping the lab")
	defer setInterruptMessage("")
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Hosts < 0 {
		return usageError("--hosts must be positive, got %d", opts.Hosts)
	}
	var sc *fixtures.Scenario
	var err error
	if opts.ScenarioDir != "" {
		sc, err = fixtures.LoadDir(opts.ScenarioDir)
	} else {
		sc, err = fixtures.Load(opts.Scenario)
		if err != nil {
			return usageError("--scenario: %v", err)
		}
	}
	if err != nil {
		return err
	}
	if len(opts.BadPorts) > 0 {
		ports, err := parseBadPorts(opts.BadPorts, opts.Hosts)
		if err != nil {
			return err
		}
		if sc, _, err = fixtures.PathLab(opts.Hosts, ports); err != nil {
			return err
		}
	} else if opts.Hosts > 0 {
		sc = fixtures.Fleet(sc, opts.Hosts)
		if len(sc.Hosts) == 0 {
			return fmt.Errorf("scenario has no reachable host to build a fleet from")
		}
	}
	outDir := opts.OutDir
	if outDir == "" {
		if outDir, err = os.MkdirTemp("", "pvrdma-doctor-lab-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	if abs, err := filepath.Abs(outDir); err == nil {
		outDir = abs
	}
	l, err := lab.Start(sc, lab.Options{
		User: opts.User, Password: opts.Password, KeyboardInteractiveOnly: opts.KeyboardInteractiveOnly,
		RTT: opts.RTT, CmdLatency: opts.CmdLatency, ProbeWaits: opts.ProbeWaits,
	})
	if err != nil {
		return err
	}
	defer l.Close()
	hostsFile := filepath.Join(outDir, "hosts.txt")
	knownHosts := filepath.Join(outDir, "known_hosts")
	if err := l.WriteHostsFile(hostsFile); err != nil {
		return err
	}
	if err := l.WriteKnownHosts(knownHosts); err != nil {
		return err
	}
	if err := appendGuestKnownHosts(l, knownHosts); err != nil {
		return err
	}

	out := opts.IO.Out
	hosts := l.Hosts()
	fmt.Fprintf(out, "Serving scenario %q: %d simulated ESXi hosts\n", sc.Name, len(hosts))
	if sc.Description != "" {
		fmt.Fprintf(out, "%s\n", sc.Description)
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tADDRESS\tUSER\tPASSWORD\tHOST KEY\tFAULT")
	for _, h := range hosts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", h.Name, h.Addr, h.User, h.Password, ssh.FingerprintSHA256(h.HostKey), labFaultText(h.Fault))
	}
	tw.Flush()
	fmt.Fprintf(out, "\nWrote %s and %s\n\nScan it from another terminal:\n\n", hostsFile, knownHosts)
	password := opts.Password
	if password == "" && len(hosts) > 0 {
		password = hosts[0].Password
	}
	fmt.Fprintf(out, "  export PVRDMA_DOCTOR_PASSWORD=%s\n", textsafe.ShellQuote(password))
	fmt.Fprintf(out, "  pvrdma-doctor scan --hosts-file %s --known-hosts %s --user %s --password-env PVRDMA_DOCTOR_PASSWORD\n\n",
		textsafe.ShellQuote(hostsFile), textsafe.ShellQuote(knownHosts), textsafe.ShellQuote(opts.User))
	if !opts.NoVCenter {
		vc, err := vclab.Start(sc, l.Guests(), "", "")
		if err != nil {
			return fmt.Errorf("starting the simulated vCenter: %w", err)
		}
		defer vc.Close()
		fmt.Fprintf(out, "Simulated vCenter: %s  user %s  password %s\n  certificate SHA-256 %s\n\nWith vCenter (VM configuration, hosts without SSH):\n\n",
			vc.URL, vc.User, vc.Password, vc.Thumbprint)
		fmt.Fprintf(out, "  export VC_PASSWORD=%s\n", textsafe.ShellQuote(vc.Password))
		scope := ""
		if vc.Cluster != "" {
			scope = " --cluster " + textsafe.ShellQuote(vc.Cluster)
		}
		fmt.Fprintf(out, "  pvrdma-doctor scan --hosts-file %s --known-hosts %s --user %s --password-env PVRDMA_DOCTOR_PASSWORD \\\n"+
			"      --vcenter %s --vcenter-user %s --vcenter-password-env VC_PASSWORD --vcenter-thumbprint %s%s\n\n",
			textsafe.ShellQuote(hostsFile), textsafe.ShellQuote(knownHosts), textsafe.ShellQuote(opts.User),
			vc.URL.Host, textsafe.ShellQuote(vc.User), vc.Thumbprint, scope)
		if port := l.GuestPort(); port > 0 {
			fmt.Fprintf(out, "With the Linux guests vCenter reports (VMware Tools addresses; same password):\n\n"+
				"  pvrdma-doctor scan --hosts-file %s --known-hosts %s --user %s --password-env PVRDMA_DOCTOR_PASSWORD \\\n"+
				"      --vcenter %s --vcenter-user %s --vcenter-password-env VC_PASSWORD --vcenter-thumbprint %s%s \\\n"+
				"      --guests-from-vcenter --guest-port %d\n\n",
				textsafe.ShellQuote(hostsFile), textsafe.ShellQuote(knownHosts), textsafe.ShellQuote(opts.User),
				vc.URL.Host, textsafe.ShellQuote(vc.User), vc.Thumbprint, scope, port)
		}
	}
	fmt.Fprintln(out, "Press Ctrl-C to stop.")

	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-sigCtx.Done():
	case <-opts.Stop:
	}
	if err := l.Close(); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "lab stopped")
	return nil
}

func labFaultText(f lab.Fault) string {
	var parts []string
	if f.Refuse {
		parts = append(parts, "refuses connections")
	}
	if f.Silent {
		parts = append(parts, "never answers")
	}
	if f.RejectAuth {
		parts = append(parts, "rejects logins")
	}
	if len(f.Hang) > 0 {
		parts = append(parts, "hangs on "+strings.Join(f.Hang, ", "))
	}
	if f.Delay > 0 {
		parts = append(parts, "slow ("+f.Delay.String()+" per command)")
	}
	if f.DropAfter > 0 {
		parts = append(parts, fmt.Sprintf("drops the connection after %d commands", f.DropAfter))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// parseBadPorts reads --bad-port esxNNNN=MTU values for a fleet of n hosts
// (host index from 0 -> port MTU).
func parseBadPorts(vals []string, n int) (map[int]int, error) {
	if n < 2 {
		return nil, usageError("--bad-port needs --hosts N (2 or more): the modelled network is a generated fleet")
	}
	ports := map[int]int{}
	for _, v := range vals {
		host, mtu, ok := strings.Cut(v, "=")
		var k int
		if _, err := fmt.Sscanf(host, "esx%04d", &k); err != nil || !ok || k < 1 || k > n || fmt.Sprintf("esx%04d", k) != host {
			return nil, usageError("--bad-port %q: expected esxNNNN=MTU with a host of the fleet (esx0001..esx%04d)", v, n)
		}
		m, err := strconv.Atoi(mtu)
		if err != nil || m < 68 || m > 9216 {
			return nil, usageError("--bad-port %q: the MTU must be 68..9216", v)
		}
		ports[k-1] = m
	}
	return ports, nil
}

// appendGuestKnownHosts adds the lab guests' host keys to a known_hosts
// file (lab serve: the guests a scan finds through vCenter are checked).
func appendGuestKnownHosts(l *lab.Lab, path string) error {
	var b strings.Builder
	for _, g := range l.Guests() {
		b.WriteString(g.KnownHostsLine + "\n")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
