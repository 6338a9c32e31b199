package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

func init() {
	register("scan", func(f *Factory) *cobra.Command { return newCmdScan(f, nil) })
}

// ScanOptions are the flags and dependencies of `scan`.
type ScanOptions struct {
	IO     *IOStreams
	Getenv func(string) string

	Hosts string
	// Guest holds --guests and the guest credentials (guests.go).
	Guest GuestFlags
	// SSH holds the connection, credential, host key and logging flags.
	SSH SSHFlags
	// VCenter holds --vcenter and its credential and trust flags.
	VCenter        VCenterFlags
	Report         ReportOptions
	Concurrency    int
	CommandTimeout time.Duration
	HostTimeout    time.Duration
	ConnectTimeout time.Duration
	NoProbes       bool
	// Probes is --probes (ring, all, off); ProbeBudget caps the pairs.
	Probes      string
	ProbeBudget int

	// Bundle holds --bundle and the redaction flags.
	Bundle BundleFlags

	// Runner overrides the SSH transport (tests).
	Runner hostio.Runner
	// ProgressTTY forces the terminal progress display (tests).
	ProgressTTY bool
	// closeRunner releases the SSH transport (agent, jump hosts).
	closeRunner func()
}

// newCmdScan builds the command; runF, when set, runs instead of runScan with
// the options the flags built (tests).
func newCmdScan(f *Factory, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "scan --hosts HOST[,HOST...] | --vcenter URL",
		Short: "Scan ESXi hosts over SSH and report PVRDMA problems",
		Long: `Scan connects to each ESXi host over SSH (one connection per host, hosts in
parallel), runs a fixed list of read-only commands (esxcli rdma/network/vm,
vsish PVRDMA properties, vmkping path probes), and reports every PVRDMA problem
found with its evidence and the command that fixes it.

Only allowlisted read-only commands are ever sent: 'pvrdma-doctor scan --dry-run'
lists them per host without connecting; docs/guide.md ("What gets run on your hosts").

Logs in with ssh-agent keys, -i key files, ~/.ssh/config IdentityFile entries
and/or a password (--password-env, --password-file, --ask-password; sent through
keyboard-interactive, as ESXi expects). Host keys are checked against
known_hosts; unknown hosts are refused unless --accept-new-host-keys.

With --vcenter URL, the ESXi hosts vCenter manages (--datacenter, --cluster)
are scanned too, and the VM and host configuration PVRDMA depends on is read
through the vSphere API (one PropertyCollector call per object type; read-only).
Hosts whose SSH is off or refused get their esxcli commands through the API;
vsish needs SSH (reported as not evaluated, with how to enable it). vCenter's
certificate is verified (--vcenter-thumbprint pins it, --insecure skips it and
the report says so); docs/guide.md ("vCenter").

Every host is checked against the documented PVRDMA host setup (RDMA NIC, vDS uplink,
vmknic tag, pvrdma ruleset, MTU, lossless), whether or not it runs PVRDMA VMs:
the report's readiness table. 'scan --vcenter URL --cluster NAME' before the
first PVRDMA VM answers "is this cluster ready for PVRDMA?"; a host that is not
ready is a warning where the cluster's DRS or HA can place PVRDMA VMs on it;
docs/guide.md ("Is this cluster ready for PVRDMA?").

Path probes (last, the only commands that send packets): from each host's
PVRDMA vmknic to its peers' (--probes ring: the next 3 hosts by name, the
default; all: every ordered pair; off: none; --probe-budget N caps the
pairs), 3 don't-fragment packets of the configured size (MTU - 28, 0.2 s
apart, 1 s wait); when lost, a binary search of one-packet tries (at most 14)
for the path MTU; docs/guide.md ("Path probes"); 'pvrdma-doctor paths' prints the
matrix alone.

A host that hangs or floods costs at most --host-timeout: its connection is
then closed, and output is capped (4 MiB and 500,000 lines a command, 16 MiB
a host, 512 follow-up commands a host); docs/security.md ("Timeouts and memory
bounds"). Ctrl-C or SIGTERM reports what was collected; a second one at once
(the report comes before a --bundle, and a second one stops its write).

--guests (or --guests-file) also scans Linux VMs with PVRDMA adapters, with
a read-only guest command list of its own (uname, lsmod, ibv_devinfo, rdma
link, ip, sysfs, package lists; docs/guide.md "Guests"), credentials of their own
(--guest-user, --guest-identity, --guest-password-*) and the same host key
checks; each guest adapter is reported beside its host side (same MAC).
With --vcenter, --guests-from-vcenter finds the guests itself: every
powered-on PVRDMA VM at the address VMware Tools reports for a NIC that is
not its PVRDMA adapter (IPv4 first; else guest.ipAddress), on --guest-port;
VMs without a known address are listed in the report as not scanned.`,
		Example: `  export PVRDMA_DOCTOR_PASSWORD='...'
  pvrdma-doctor scan --hosts esx01,esx02:2222 --user root --password-env PVRDMA_DOCTOR_PASSWORD
  pvrdma-doctor scan --hosts esx01,esx02 --output json > report.json
  pvrdma-doctor scan --hosts-file hosts.txt -i ~/.ssh/esxi_ed25519 --accept-new-host-keys
  pvrdma-doctor scan --hosts-file hosts.txt --dry-run
  pvrdma-doctor scan --hosts esx01,esx02 --password-env PVRDMA_DOCTOR_PASSWORD --bundle support.tar.gz
  pvrdma-doctor scan --vcenter vc01 --cluster gpu --vcenter-password-env VC_PW --password-env PVRDMA_DOCTOR_PASSWORD
  pvrdma-doctor scan --vcenter vc01 --vcenter-thumbprint AB:CD:... --vcenter-password-file ~/.vcpw --dry-run

  pvrdma-doctor scan --hosts esx01 --guests hpc-node01,hpc-node02 --guest-user ubuntu --guest-identity ~/.ssh/hpc_ed25519
  pvrdma-doctor scan --vcenter vc01 --vcenter-password-env VC_PW --guests-from-vcenter --guest-user ubuntu --guest-identity ~/.ssh/hpc_ed25519`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runScan(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addScanFlags(fl, opts)
	addReportFlags(fl, &opts.Report)
	fl.StringVar(&opts.Bundle.Path, "bundle", "", "also write a support bundle of this scan to `FILE.tar.gz` (redacted unless --no-redact; see docs/bundles.md)")
	addRedactFlags(fl, &opts.Bundle)
	return cmd
}

// addScanFlags registers the connection and collection flags shared by
// scan and bundle.
func addScanFlags(fl *pflag.FlagSet, opts *ScanOptions) {
	fl.StringVar(&opts.Hosts, "hosts", "", "comma-separated ESXi hosts: NAME, NAME:PORT, IP or [IPv6]:PORT (or ssh_config Host aliases)")
	addSSHFlags(fl, &opts.SSH)
	addGuestFlags(fl, &opts.Guest)
	fl.IntVar(&opts.Concurrency, "concurrency", 128, "hosts scanned in parallel, one SSH connection each")
	fl.DurationVar(&opts.CommandTimeout, "command-timeout", 30*time.Second, "time limit for one command: session open, exec reply, output and exit status")
	fl.DurationVar(&opts.HostTimeout, "host-timeout", 3*time.Minute, "time limit for one host, connect to last command; at the limit its connection is closed")
	fl.DurationVar(&opts.ConnectTimeout, "connect-timeout", 15*time.Second, "time limit for TCP connect, SSH handshake and login")
	fl.StringVar(&opts.Probes, "probes", "", "vmkping path probes between the hosts' PVRDMA vmknics: `ring` (each host to the next 3 by name; the default), all (every ordered pair), off")
	fl.IntVar(&opts.ProbeBudget, "probe-budget", 0, "probe at most `N` ordered host pairs (0: no cap); the report names what was not probed")
	// --no-probes is kept for scripts (deprecated, not announced on
	// stdout: that would corrupt -o json).
	fl.BoolVar(&opts.NoProbes, "no-probes", false, "deprecated: same as --probes off")
	addVCenterFlags(fl, &opts.VCenter)
}

// probeMode is the effective --probes value (--no-probes is off).
func (o *ScanOptions) probeMode() (string, error) {
	if o.NoProbes {
		if o.Probes != "" && o.Probes != collect.ProbesOff {
			// Two flags that say opposite things: refuse, as for host keys.
			return "", usageError("--no-probes and --probes %s contradict each other: keep one (--no-probes is --probes off)", o.Probes)
		}
		return collect.ProbesOff, nil
	}
	if o.Probes == "" {
		return collect.ProbesRing, nil
	}
	if err := collect.ValidProbeMode(o.Probes); err != nil {
		return "", usageError("%v", err)
	}
	if o.ProbeBudget < 0 {
		return "", usageError("--probe-budget must be 0 (no cap) or more")
	}
	return o.Probes, nil
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	if err := opts.Report.validate(); err != nil {
		return err
	}
	if err := checkBundleFlags(opts.Bundle); err != nil {
		return err
	}
	if err := opts.VCenter.validate(); err != nil {
		return err
	}
	if err := checkGuestDiscovery(opts); err != nil {
		return err
	}
	mode, err := opts.probeMode()
	if err != nil {
		return err
	}
	if opts.SSH.DryRun {
		targets, extra, err := dryRunTargets(opts)
		if err != nil {
			return err
		}
		_, guests := splitRoles(targets)
		pairs, err := parseBWPairs(opts.Guest.Bandwidth, guests)
		if err != nil {
			return err
		}
		if err := runDryRun(opts.IO.Out, opts.Report.Output, targets, &opts.SSH, opts.Getenv, opts.IO, probePlan{mode: mode, budget: opts.ProbeBudget}, extra, opts.Guest.User); err != nil {
			return err
		}
		dryRunBandwidth(opts.IO.Out, opts.Report.Output, pairs)
		return nil
	}
	p, err := scanPipeline(ctx, opts)
	if err != nil {
		return err
	}
	if opts.closeRunner != nil {
		defer opts.closeRunner()
	}
	p.attachBundle(opts.Bundle)
	return p.Run(ctx)
}

// scanPipeline builds the live pipeline from the connection flags.
func scanPipeline(ctx context.Context, opts *ScanOptions) (*Pipeline, error) {
	if opts.SSH.DryRun {
		return nil, usageError("--dry-run is only supported by scan")
	}
	if err := opts.VCenter.validate(); err != nil {
		return nil, err
	}
	if err := checkGuestDiscovery(opts); err != nil {
		return nil, err
	}
	targets, err := allTargets(opts)
	if err != nil {
		return nil, err
	}
	given, _ := splitRoles(targets)
	vc, vcNotes, err := scanVCenter(ctx, opts, given)
	if err != nil {
		return nil, err
	}
	if vc != nil {
		targets = mergeTargets(targets, vc.hosts)
	}
	targets, vcNotes = withVCenterGuests(opts, vc, targets, vcNotes)
	mode, err := opts.probeMode()
	if err != nil {
		return nil, err
	}
	hosts, guests := splitRoles(targets)
	setScanMemoryLimit(len(targets), opts.Getenv)
	runner := opts.Runner
	if runner == nil {
		r, err := scanRunner(opts, hosts, guests)
		if err != nil {
			if vc != nil {
				vc.close()
			}
			return nil, err
		}
		runner = r
	}
	if vc != nil {
		opts.Bundle.Identifiers = append(opts.Bundle.Identifiers, vc.identifiers(&opts.VCenter)...)
		runner = vc.runner(runner)
		closeSSH := opts.closeRunner
		opts.closeRunner = func() {
			if closeSSH != nil {
				closeSSH()
			}
			vc.close()
		}
	}
	p := &Pipeline{
		IO: opts.IO, Getenv: opts.Getenv, Report: &opts.Report, Targets: targets,
		Collect: collect.Options{
			Runner: runner, Concurrency: opts.Concurrency, SessionsPerHost: opts.SSH.Sessions, CommandTimeout: opts.CommandTimeout,
			HostTimeout: opts.HostTimeout, ConnectTimeout: opts.ConnectTimeout, Probes: mode != collect.ProbesOff,
			ProbeMode: mode, ProbeBudget: opts.ProbeBudget,
		},
		Meta: report.Meta{Source: scanSource(len(hosts)), Notes: vcNotes},
	}
	if vc != nil {
		p.Collect.Extra = vc.extra
	}
	if len(guests) > 0 {
		p.Meta.Source = guestSource(len(hosts), len(guests))
	}
	pairs, err := parseBWPairs(opts.Guest.Bandwidth, guests)
	if err != nil {
		return nil, err
	}
	if len(pairs) > 0 {
		if p.useTUI() {
			return nil, usageError("--bandwidth-test needs a report output (-o text, json, ...), not the interactive view")
		}
		p.AfterCollect = collect.BandwidthTest(runner, targets, pairs)
	}
	// Progress on a terminal (unless the TUI shows it), log lines otherwise.
	var logOut io.Writer = opts.IO.ErrOut
	minLevel := slog.LevelDebug
	if (opts.ProgressTTY || stderrTTY(opts.IO)) && (!p.useTUI() || p.SaveBundle != nil) {
		view := newProgressView(opts.IO.ErrOut, targets, stderrWidth(opts.IO))
		p.Collect.Progress = view.Event
		logOut, minLevel = view, slog.LevelWarn
	}
	logger, err := opts.SSH.scanLogger(logOut, minLevel)
	if err != nil {
		if opts.closeRunner != nil {
			opts.closeRunner()
		}
		return nil, err
	}
	p.Collect.Logger = logger
	return p, nil
}

// scanSource names a live scan in reports.
func scanSource(n int) string {
	if n == 1 {
		return "scan of 1 host"
	}
	return fmt.Sprintf("scan of %d hosts", n)
}
