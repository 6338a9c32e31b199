package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

func init() { register("scan", newCmdScan) }

// ScanOptions are the flags and dependencies of `scan`.
type ScanOptions struct {
	IO     *IOStreams
	Getenv func(string) string

	Hosts           string
	User            string
	PasswordEnv     string
	KnownHosts      string
	InsecureHostKey bool
	Report          ReportOptions
	Concurrency     int
	CommandTimeout  time.Duration
	HostTimeout     time.Duration
	ConnectTimeout  time.Duration
	NoProbes        bool

	// Bundle holds --bundle and the redaction flags.
	Bundle BundleFlags

	// Runner overrides the SSH transport (tests).
	Runner collect.Runner
}

func newCmdScan(f *Factory) *cobra.Command {
	opts := &ScanOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "scan --hosts HOST[,HOST...]",
		Short: "Scan ESXi hosts over SSH and report PVRDMA problems",
		Long: `Scan connects to each ESXi host over SSH (one connection per host, hosts in
parallel), runs a fixed list of read-only commands (esxcli rdma/network/vm,
vsish PVRDMA properties, vmkping path probes), and reports every PVRDMA problem
found with its evidence and the command that fixes it.

Only allowlisted read-only commands are ever sent; see 'pvrdma-doctor scan --help'
and README.md ("What gets run on your hosts").`,
		Example: `  export PVRDMA_DOCTOR_PASSWORD='...'
  pvrdma-doctor scan --hosts esx01,esx02:2222 --user root --password-env PVRDMA_DOCTOR_PASSWORD
  pvrdma-doctor scan --hosts esx01,esx02 --output json > report.json
  pvrdma-doctor scan --hosts esx01,esx02 --password-env PVRDMA_DOCTOR_PASSWORD --bundle support.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	fl.StringVar(&opts.Hosts, "hosts", "", "comma-separated ESXi hosts: NAME, NAME:PORT, IP or [IPv6]:PORT")
	fl.StringVarP(&opts.User, "user", "u", "root", "SSH user")
	fl.StringVar(&opts.PasswordEnv, "password-env", "", "read the SSH password from this environment variable")
	fl.StringVar(&opts.KnownHosts, "known-hosts", filepath.Join(homeDir(), ".ssh", "known_hosts"), "known_hosts file used to verify host keys")
	fl.BoolVar(&opts.InsecureHostKey, "insecure-ignore-host-key", false, "do NOT verify host keys (never the default; the report says so)")
	fl.IntVar(&opts.Concurrency, "concurrency", 32, "hosts scanned in parallel")
	fl.DurationVar(&opts.CommandTimeout, "command-timeout", 30*time.Second, "time limit for one command")
	fl.DurationVar(&opts.HostTimeout, "host-timeout", 3*time.Minute, "time limit for one host")
	fl.DurationVar(&opts.ConnectTimeout, "connect-timeout", 15*time.Second, "time limit to connect and log in")
	fl.BoolVar(&opts.NoProbes, "no-probes", false, "skip the vmkping path probes between hosts")
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	if err := opts.Report.validate(); err != nil {
		return err
	}
	p, err := scanPipeline(opts)
	if err != nil {
		return err
	}
	if opts.Bundle.Path != "" {
		p.Export = func(a *Analysis) error {
			return writeBundle(opts.Bundle.Path, a.Results, p.Meta, opts.Bundle, opts.IO.ErrOut)
		}
	}
	p.Bundle = bundleExporter(p.Meta, opts.Bundle)
	return p.Run(ctx)
}

// scanPipeline builds the live pipeline from the connection flags.
func scanPipeline(opts *ScanOptions) (*Pipeline, error) {
	targets, err := parseHosts(opts.Hosts)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, usageError("no hosts given: use --hosts esx01,esx02")
	}
	runner := opts.Runner
	if runner == nil {
		r, err := sshRunnerFromFlags(opts)
		if err != nil {
			return nil, err
		}
		runner = r
	}
	logger := slog.New(slog.NewTextHandler(opts.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	p := &Pipeline{
		IO: opts.IO, Getenv: opts.Getenv, Report: &opts.Report, Targets: targets,
		Collect: collect.Options{
			Runner: runner, Concurrency: opts.Concurrency, CommandTimeout: opts.CommandTimeout,
			HostTimeout: opts.HostTimeout, ConnectTimeout: opts.ConnectTimeout, Probes: !opts.NoProbes, Logger: logger,
		},
		Meta: report.Meta{Source: fmt.Sprintf("scan of %d host(s)", len(targets))},
	}
	return p, nil
}

// sshRunnerFromFlags builds the SSH transport from scan's flags.
func sshRunnerFromFlags(opts *ScanOptions) (*collect.SSHRunner, error) {
	var auth []ssh.AuthMethod
	if opts.PasswordEnv != "" {
		pw, ok := os.LookupEnv(opts.PasswordEnv)
		if opts.Getenv != nil {
			pw = opts.Getenv(opts.PasswordEnv)
			ok = pw != ""
		}
		if !ok || pw == "" {
			return nil, usageError("--password-env %s: the variable is not set or empty", opts.PasswordEnv)
		}
		auth = append(auth, collect.PasswordAuth(pw)...)
	}
	if len(auth) == 0 {
		return nil, usageError("no credentials: use --password-env VAR")
	}
	var hostKey ssh.HostKeyCallback
	var notes []string
	if opts.InsecureHostKey {
		hostKey = ssh.InsecureIgnoreHostKey()
		notes = append(notes, "host key NOT verified (--insecure-ignore-host-key): the connection could have been intercepted")
	} else {
		cb, err := knownhosts.New(opts.KnownHosts)
		if err != nil {
			return nil, fmt.Errorf("cannot read known_hosts %s: %w (use --known-hosts FILE)", opts.KnownHosts, err)
		}
		hostKey = cb
	}
	user := opts.User
	return &collect.SSHRunner{
		ClientConfig: func(t collect.Target) (*ssh.ClientConfig, error) {
			return &ssh.ClientConfig{User: user, Auth: auth, HostKeyCallback: hostKey}, nil
		},
		HostNotes: func(collect.Target) []string { return notes },
	}, nil
}
