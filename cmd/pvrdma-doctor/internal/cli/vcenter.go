package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// VCenterFlags are scan's vCenter flags.
type VCenterFlags struct {
	URL          string
	Datacenter   string
	Cluster      string
	User         string
	PasswordEnv  string
	PasswordFile string
	AskPassword  bool
	Thumbprint   string
	Insecure     bool
	// ReadPassword reads a password without echo (tests inject it).
	ReadPassword func(prompt string) (string, error)
}

// addVCenterFlags registers the vCenter flags.
func addVCenterFlags(fl *pflag.FlagSet, f *VCenterFlags) {
	fl.StringVar(&f.URL, "vcenter", "", "also read VM and host configuration from vCenter at `URL` (HOST[:PORT] or https://HOST/sdk) and scan the ESXi hosts it manages")
	fl.StringVar(&f.Datacenter, "datacenter", "", "with --vcenter: only the hosts of datacenter `NAME`")
	fl.StringVar(&f.Cluster, "cluster", "", "with --vcenter: only the hosts of cluster `NAME`")
	fl.StringVar(&f.User, "vcenter-user", "administrator@vsphere.local", "vCenter user (read-only role is enough; see docs/guide.md \"vCenter\")")
	fl.StringVar(&f.PasswordEnv, "vcenter-password-env", "", "read the vCenter password from environment variable `VAR`")
	fl.StringVar(&f.PasswordFile, "vcenter-password-file", "", "read the vCenter password from the first line of `FILE`")
	fl.BoolVar(&f.AskPassword, "vcenter-ask-password", false, "prompt for the vCenter password on the terminal (no echo)")
	fl.StringVar(&f.Thumbprint, "vcenter-thumbprint", "", "trust vCenter's certificate if its SHA-256 (or SHA-1) fingerprint is `SHA` (hex, colons optional), whoever signed it")
	fl.BoolVar(&f.Insecure, "insecure", false, "with --vcenter: do NOT verify vCenter's TLS certificate (never the default; the report says so)")
}

// validate checks the vCenter flags without connecting.
func (f *VCenterFlags) validate() error {
	if f.URL == "" {
		for name, set := range map[string]bool{"--datacenter": f.Datacenter != "", "--cluster": f.Cluster != "",
			"--vcenter-password-env": f.PasswordEnv != "", "--vcenter-password-file": f.PasswordFile != "",
			"--vcenter-ask-password": f.AskPassword, "--vcenter-thumbprint": f.Thumbprint != "", "--insecure": f.Insecure} {
			if set {
				return usageError("%s needs --vcenter URL", name)
			}
		}
		return nil
	}
	if _, err := vcenter.ParseURL(f.URL); err != nil {
		return usageError("--vcenter: %v", err)
	}
	if f.Thumbprint != "" {
		if f.Insecure {
			return usageError("--vcenter-thumbprint and --insecure exclude each other: a pinned certificate is verified")
		}
		if _, err := vcenter.NormalizeThumbprint(f.Thumbprint); err != nil {
			return usageError("%v", err)
		}
	}
	if strings.TrimSpace(f.User) == "" {
		return usageError("--vcenter-user: empty user")
	}
	return nil
}

// vcenterData is what was read from vCenter before the scan.
type vcenterData struct {
	hosts    []vcenter.Host
	captures map[string][]hostio.Capture
	notes    []string
	host     string
	client   *vcenter.Client
}

// close ends the vCenter session.
func (d *vcenterData) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.client.Logout(ctx)
}

// runner is SSH first, esxcli through the vSphere API for the hosts
// vCenter manages whose SSH fails.
func (d *vcenterData) runner(ssh hostio.Runner) hostio.Runner {
	return &vcenter.FallbackRunner{SSH: ssh, API: vcenter.NewAPIRunner(d.client, d.hosts)}
}

// identifiers are what a redacted bundle must not show of vCenter: its
// address as given (with its port: a tunnel on 127.0.0.1:PORT is an
// identifier), the user logged in as, the cluster and datacenter its
// notes name.
func (d *vcenterData) identifiers(f *VCenterFlags) []redact.Token {
	ids := []redact.Token{{Kind: redact.TokenHost, Original: d.host}, {Kind: redact.TokenUser, Original: f.User}}
	if h, _, err := net.SplitHostPort(d.host); err == nil {
		ids = append(ids, redact.Token{Kind: redact.TokenHost, Original: h})
	}
	if f.Cluster != "" {
		ids = append(ids, redact.Token{Kind: redact.TokenCluster, Original: f.Cluster})
	}
	if f.Datacenter != "" {
		ids = append(ids, redact.Token{Kind: redact.TokenDatacenter, Original: f.Datacenter})
	}
	return ids
}

// extra gives a target its vCenter captures (collect.Options.Extra).
func (d *vcenterData) extra(t hostio.Target) []hostio.Capture {
	return append([]hostio.Capture(nil), d.captures[t.Name]...)
}

// readVCenter logs in, discovers the hosts and reads their configuration.
func (f *VCenterFlags) readVCenter(ctx context.Context, getenv func(string) string, ios *IOStreams, timeout, readTimeout time.Duration) (*vcenterData, error) {
	pw, ok, err := passwordSource{flag: "--vcenter-", env: f.PasswordEnv, file: f.PasswordFile, ask: f.AskPassword,
		prompt: "vCenter password for " + f.User + ": ", readTTY: f.ReadPassword}.password(getenv, ios)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, usageError("--vcenter needs a password: --vcenter-password-env VAR, --vcenter-password-file FILE or --vcenter-ask-password")
	}
	cfg := vcenter.Config{URL: f.URL, User: f.User, Password: pw, Thumbprint: f.Thumbprint, Insecure: f.Insecure,
		Datacenter: f.Datacenter, Cluster: f.Cluster}
	return readVCenterWith(ctx, cfg, timeout, readTimeout)
}

// readVCenterWith connects with cfg (within timeout) and reads the
// inventory (within readTimeout); the demo calls it with the simulated
// vCenter's settings. The session stays open for esxcli through the API
// until close.
func readVCenterWith(ctx context.Context, cfg vcenter.Config, timeout, readTimeout time.Duration) (*vcenterData, error) {
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	if readTimeout <= 0 {
		readTimeout = 3 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	c, err := vcenter.Connect(cctx, cfg)
	cancel()
	if err != nil {
		return nil, err
	}
	d := &vcenterData{host: c.Host(), client: c}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	start := time.Now()
	hosts, err := c.Discover(rctx)
	if err == nil && len(hosts) == 0 {
		err = fmt.Errorf("vCenter %s lists no ESXi hosts%s", c.Host(), scopeText(cfg))
	}
	var caps map[string][]hostio.Capture
	if err == nil {
		caps, err = c.Read(rctx, hosts)
	}
	if err != nil {
		d.close()
		return nil, err
	}
	d.hosts, d.captures = hosts, caps
	d.notes = append(d.notes, c.TrustNote(),
		fmt.Sprintf("vCenter %s: %d ESXi hosts%s; VM and host configuration read in %s (commands `vcenter vm config`, `vcenter host config`)",
			c.Host(), len(hosts), scopeText(cfg), time.Since(start).Round(time.Millisecond)))
	return d, nil
}

func scopeText(cfg vcenter.Config) string {
	var s []string
	if cfg.Datacenter != "" {
		s = append(s, "datacenter "+cfg.Datacenter)
	}
	if cfg.Cluster != "" {
		s = append(s, "cluster "+cfg.Cluster)
	}
	if len(s) == 0 {
		return ""
	}
	return " in " + strings.Join(s, ", ")
}

// mergeTargets adds the hosts vCenter lists to the given targets (a host
// given by --hosts keeps its address).
func mergeTargets(given []hostio.Target, hosts []vcenter.Host) []hostio.Target {
	seen := map[string]bool{}
	for _, t := range given {
		seen[t.Name] = true
	}
	out := append([]hostio.Target(nil), given...)
	for _, h := range hosts {
		if !seen[h.Name] {
			out = append(out, hostio.Target{Name: h.Name})
			seen[h.Name] = true
		}
	}
	return out
}

// vcenterDryRun says what a scan would ask vCenter, without connecting.
func vcenterDryRun(w io.Writer, f *VCenterFlags) map[string]any {
	u, _ := vcenter.ParseURL(f.URL)
	scope := scopeText(vcenter.Config{Datacenter: f.Datacenter, Cluster: f.Cluster})
	plan := map[string]any{
		"url": u.String(), "user": f.User, "scope": strings.TrimPrefix(scope, " in "),
		"reads": map[string][]string{"HostSystem": vcenter.HostProps, "VirtualMachine": vcenter.VMProps,
			"DistributedVirtualSwitch": vcenter.DVSProps, "DistributedVirtualPortgroup": vcenter.PortgroupProps,
			"ClusterComputeResource":   vcenter.ClusterProps,
			"OptionManager (per host)": {parse.PVRDMAVmknicOption}},
		"esxcli_fallback": "esxcli commands of hosts whose SSH is off or refused run through the vSphere API (vsish needs SSH)",
	}
	if w != nil {
		fmt.Fprintf(w, "vCenter %s (as %s): log in, list the ESXi hosts%s, then read in one PropertyCollector call per type:\n", u, f.User, scope)
		for _, t := range []struct {
			kind  string
			props []string
		}{{"HostSystem", vcenter.HostProps}, {"VirtualMachine", vcenter.VMProps}, {"DistributedVirtualSwitch", vcenter.DVSProps},
			{"DistributedVirtualPortgroup", vcenter.PortgroupProps}, {"ClusterComputeResource", vcenter.ClusterProps}} {
			fmt.Fprintf(w, "  %s: %s\n", t.kind, strings.Join(t.props, ", "))
		}
		fmt.Fprintf(w, "  per host, its OptionManager (configManager.advancedOption): %s\n", parse.PVRDMAVmknicOption)
		fmt.Fprintf(w, "Each host vCenter lists is then scanned over SSH as below; where SSH is off or refused,\n"+
			"its esxcli commands run through the vSphere API instead (vsish needs SSH).\n")
	}
	return plan
}

// dryRunTargets are the hosts `scan --dry-run` shows: the given ones, or
// with --vcenter alone a stand-in for the hosts vCenter would list; extra
// is the vCenter plan for the JSON output.
func dryRunTargets(opts *ScanOptions) ([]hostio.Target, map[string]any, error) {
	targets, err := allTargets(opts)
	if err != nil || opts.VCenter.URL == "" {
		return targets, nil, err
	}
	var w io.Writer = opts.IO.Out
	if opts.Report.Output == "json" {
		w = nil
	}
	extra := map[string]any{"vcenter": vcenterDryRun(w, &opts.VCenter)}
	if opts.Hosts == "" && opts.SSH.HostsFile == "" {
		targets = append([]hostio.Target{{Name: "HOST-LISTED-BY-VCENTER"}}, targets...)
	}
	if opts.Guest.FromVCenter {
		// guests_vcenter.go
		extra["guests_from_vcenter"] = map[string]any{"port": opts.Guest.Port, "known": "after the vCenter read",
			"properties": []string{"runtime.powerState", "guest.net", "guest.ipAddress"}}
		if w != nil {
			fmt.Fprint(w, dryRunVCenterGuests(opts.Guest.Port))
		}
		targets = append(targets, hostio.Target{Name: "GUEST-LISTED-BY-VCENTER", Addr: net.JoinHostPort("GUEST-LISTED-BY-VCENTER", strconv.Itoa(opts.Guest.Port)), Role: hostio.RoleGuest})
	}
	return targets, extra, nil
}

// scanVCenter reads vCenter when --vcenter is given. When it cannot be
// read, a scan of hosts given by --hosts goes on over SSH (the report
// says why vCenter's data is missing); without such hosts there is
// nothing to scan and the error is returned.
func scanVCenter(ctx context.Context, opts *ScanOptions, given []hostio.Target) (*vcenterData, []string, error) {
	if opts.VCenter.URL == "" {
		return nil, nil, nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := opts.VCenter.readVCenter(ctx, opts.Getenv, opts.IO, opts.ConnectTimeout, opts.HostTimeout)
	if err != nil {
		var ec *exitCodeError
		if errors.As(err, &ec) {
			return nil, nil, err
		}
		if len(given) == 0 {
			return nil, nil, WithExitCode(ExitError, err)
		}
		fmt.Fprintf(opts.IO.ErrOut, "Warning: %v; scanning the given hosts over SSH only\n", err)
		return nil, []string{"vCenter not read: " + err.Error()}, nil
	}
	return d, d.notes, nil
}
