package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// Guests: `scan --guests` scans Linux VMs with PVRDMA adapters over the
// same SSH transport, collector, timeouts and output caps as the hosts,
// with the guest catalogue and its allowlist (internal/catalog/specs_guest.go).
// Guests have credentials of their own (--guest-user, --guest-identity,
// --guest-password-*; by default the hosts'); their host keys are checked
// against the same known_hosts, with the same policy.
//
// A guest's address is not in anything the ESXi host scan reads (vsish,
// esxcli, .vmx): guests are given with --guests / --guests-file, or found
// through vCenter (VMware Tools' guest.net) with --guests-from-vcenter
// (guests_vcenter.go).

// GuestFlags are the guest flags of scan (and bundle).
type GuestFlags struct {
	Guests       string
	GuestsFile   string
	User         string
	Identity     []string
	PasswordEnv  string
	PasswordFile string
	AskPassword  bool
	// Bandwidth is --bandwidth-test: SERVER:CLIENT pairs (bandwidth.go).
	Bandwidth string
	// FromVCenter is --guests-from-vcenter, Port --guest-port
	// (guests_vcenter.go).
	FromVCenter bool
	Port        int
}

func addGuestFlags(fl *pflag.FlagSet, g *GuestFlags) {
	fl.StringVar(&g.Guests, "guests", "", "comma-separated Linux guests (VMs with a PVRDMA adapter) to scan inside: NAME, NAME:PORT, IP or [IPv6]:PORT")
	fl.StringVar(&g.GuestsFile, "guests-file", "", "read guests from `FILE`: one per line, NAME, NAME:PORT or NAME ADDRESS[:PORT]; # comments")
	fl.StringVar(&g.User, "guest-user", "", "SSH user on the guests (default: --user, or User in ssh_config)")
	fl.StringArrayVar(&g.Identity, "guest-identity", nil, "private key `FILE` for the guests (repeatable; default: the -i keys; ssh-agent keys are used too)")
	fl.StringVar(&g.PasswordEnv, "guest-password-env", "", "read the guests' SSH password from environment variable `VAR` (default: the hosts' password)")
	fl.StringVar(&g.PasswordFile, "guest-password-file", "", "read the guests' SSH password from the first line of `FILE`")
	fl.BoolVar(&g.AskPassword, "guest-ask-password", false, "prompt for the guests' SSH password on the terminal (no echo)")
	fl.BoolVar(&g.FromVCenter, "guests-from-vcenter", false, "with --vcenter: also scan every powered-on PVRDMA VM at the address VMware Tools reports (its management NIC, IPv4 first)")
	fl.IntVar(&g.Port, "guest-port", vcenter.DefaultGuestPort, "SSH `PORT` of the guests found by --guests-from-vcenter")
	fl.StringVar(&g.Bandwidth, "bandwidth-test", "", fmt.Sprintf("after the scan, run ib_send_bw (%ds, bounded by timeout %ds) between guests: `SERVER:CLIENT[,...]`; the one test that is not read-only", catalog.BandwidthSeconds, catalog.BandwidthTimeout))
}

// given reports whether any guest was asked for.
func (g *GuestFlags) given() bool { return g.Guests != "" || g.GuestsFile != "" }

// guestTargets parses --guests and --guests-file as targets with the
// guest role; a name that is also a host is refused.
func guestTargets(g *GuestFlags, hosts []hostio.Target) ([]hostio.Target, error) {
	if !g.given() {
		return nil, nil
	}
	f := &SSHFlags{HostsFile: g.GuestsFile}
	targets, err := parseHosts(g.Guests)
	if err != nil {
		return nil, err
	}
	if f.HostsFile != "" {
		more, err := parseHostsFile(f.HostsFile)
		if err != nil {
			return nil, usageError("--guests-file: %v", strings.TrimPrefix(err.Error(), "--hosts-file: "))
		}
		seen := map[string]bool{}
		for _, t := range targets {
			seen[t.Name] = true
		}
		for _, t := range more {
			if !seen[t.Name] {
				seen[t.Name] = true
				targets = append(targets, t)
			}
		}
	}
	isHost := map[string]bool{}
	for _, h := range hosts {
		isHost[h.Name] = true
	}
	for i := range targets {
		if isHost[targets[i].Name] {
			return nil, usageError("%s is given both as a host and as a guest", targets[i].Name)
		}
		targets[i].Role = hostio.RoleGuest
	}
	return targets, nil
}

// guestSSHFlags are the host SSH flags with the guest credentials.
func guestSSHFlags(opts *ScanOptions) *SSHFlags {
	f := opts.SSH // a copy: the hosts' flags are untouched
	g := &opts.Guest
	if len(g.Identity) > 0 {
		f.Identity = g.Identity
	}
	if g.PasswordEnv != "" || g.PasswordFile != "" || g.AskPassword {
		f.PasswordEnv, f.PasswordFile, f.AskPassword = g.PasswordEnv, g.PasswordFile, g.AskPassword
	}
	return &f
}

// guestRunner is the SSH transport of the guests: the guests'
// credentials, the hosts' host key database.
func guestRunner(opts *ScanOptions, guests []hostio.Target, hostKeys *sshrun.HostKeyDB) (*sshrun.SSHRunner, func(), error) {
	return sshRunnerWith(opts, guestSSHFlags(opts), guests, func(s *sshrun.SSHSetup) {
		if opts.Guest.User != "" {
			s.User, s.DefaultUser = opts.Guest.User, opts.Guest.User
		}
		if hostKeys != nil {
			s.HostKeys = hostKeys
		}
	})
}

// dryRunGuests is the guest part of `scan --dry-run`: the guest catalogue.
func dryRunGuestCommands() ([]collect.Command, []collect.Template) {
	return collect.GuestStage1(), collect.GuestTemplates()
}

// guestSource names a live scan with guests in reports.
func guestSource(hosts, guests int) string {
	return fmt.Sprintf("%s and %s", scanSource(hosts), plural(guests, "guest", "guests"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// allTargets are the hosts (--hosts, --hosts-file) then the guests; a
// scan of guests alone needs no host.
func allTargets(opts *ScanOptions) ([]hostio.Target, error) {
	var hosts []hostio.Target
	// Without --hosts, the hosts are vCenter's (--vcenter) or there are
	// only guests (--guests).
	if opts.Hosts != "" || opts.SSH.HostsFile != "" || (!opts.Guest.given() && opts.VCenter.URL == "") {
		h, err := scanTargets(opts.Hosts, &opts.SSH)
		if err != nil {
			return nil, err
		}
		hosts = h
	}
	guests, err := guestTargets(&opts.Guest, hosts)
	if err != nil {
		return nil, err
	}
	return append(hosts, guests...), nil
}

func splitRoles(targets []hostio.Target) (hosts, guests []hostio.Target) {
	for _, t := range targets {
		if t.Role == hostio.RoleGuest {
			guests = append(guests, t)
		} else {
			hosts = append(hosts, t)
		}
	}
	return hosts, guests
}

// scanRunner builds the SSH transports: the hosts', and with guests the
// guests' (their credentials, the same host key database).
func scanRunner(opts *ScanOptions, hosts, guests []hostio.Target) (hostio.Runner, error) {
	var hr, gr *sshrun.SSHRunner
	var closers []func()
	var keys *sshrun.HostKeyDB
	if len(hosts) > 0 {
		r, c, err := sshRunnerWith(opts, &opts.SSH, hosts, func(s *sshrun.SSHSetup) { keys = s.HostKeys })
		if err != nil {
			return nil, err
		}
		hr, closers = r, append(closers, c)
	}
	if len(guests) > 0 {
		r, c, err := guestRunner(opts, guests, keys)
		if err != nil {
			for _, c := range closers {
				c()
			}
			return nil, err
		}
		gr, closers = r, append(closers, c)
	}
	opts.closeRunner = func() {
		for _, c := range closers {
			c()
		}
	}
	switch {
	case gr == nil:
		return hr, nil
	case hr == nil:
		return gr, nil
	}
	return hostio.ByRole{Hosts: hr, Guests: gr}, nil
}

// The flags and wiring of --guests-from-vcenter; the discovery itself is
// vcenter.DiscoverGuests and vcenter.GuestTargets.

// checkGuestDiscovery checks --guests-from-vcenter and --guest-port.
func checkGuestDiscovery(opts *ScanOptions) error {
	g := &opts.Guest
	if g.FromVCenter && opts.VCenter.URL == "" {
		return usageError("--guests-from-vcenter needs --vcenter URL (the guest addresses are VMware Tools', read through vCenter)")
	}
	if g.Port != vcenter.DefaultGuestPort && !g.FromVCenter {
		return usageError("--guest-port is the port of guests discovered by --guests-from-vcenter (give other guests as NAME:PORT)")
	}
	if g.Port < 1 || g.Port > 65535 {
		return usageError("--guest-port %d: the port must be 1 to 65535", g.Port)
	}
	return nil
}

// withVCenterGuests adds the guests vCenter names (--guests-from-vcenter)
// to the targets, and its notes to notes.
func withVCenterGuests(opts *ScanOptions, vc *vcenterData, targets []hostio.Target, notes []string) ([]hostio.Target, []string) {
	if !opts.Guest.FromVCenter {
		return targets, notes
	}
	if vc == nil {
		return targets, append(notes, "guests from vCenter: none, vCenter was not read")
	}
	found, more := vcenter.GuestTargets(vcenter.DiscoverGuests(vc.captures), opts.Guest.Port, targets)
	return append(targets, found...), append(notes, more...)
}

// dryRunVCenterGuests says what --guests-from-vcenter would scan.
func dryRunVCenterGuests(port int) string {
	return fmt.Sprintf("Guests from vCenter: every powered-on PVRDMA VM whose guest address VMware Tools reports\n"+
		"(guest.net: a NIC that is not the PVRDMA adapter first, IPv4 first; else guest.ipAddress), over SSH\n"+
		"on port %d. Which VMs and addresses is known only after the vCenter read; VMs without an\n"+
		"address are listed in the report as not scanned.\n", port)
}
