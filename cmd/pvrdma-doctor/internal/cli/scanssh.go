package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// SSHFlags are scan's connection, credential, trust and logging flags.
type SSHFlags struct {
	HostsFile string
	User      string
	// Identity are -i key files (repeatable).
	Identity     []string
	PasswordEnv  string
	PasswordFile string
	AskPassword  bool
	KnownHosts   string
	AcceptNew    bool
	Insecure     bool
	SSHConfig    string
	Sessions     int
	DryRun       bool
	LogLevel     string
	Verbose      bool
	LogFormat    string

	// userSet, logLevelSet and sshConfigSet record explicit flags.
	fl *pflag.FlagSet
	// ReadPassword reads a password without echo (default: the terminal on
	// stdin). Tests inject it.
	ReadPassword func(prompt string) (string, error)
}

func (f *SSHFlags) changed(name string) bool { return f.fl != nil && f.fl.Changed(name) }

// addSSHFlags registers the connection flags.
func addSSHFlags(fl *pflag.FlagSet, f *SSHFlags) {
	f.fl = fl
	home := homeDir()
	fl.StringVar(&f.HostsFile, "hosts-file", "", "read hosts from `FILE`: one per line, NAME, NAME:PORT or NAME ADDRESS[:PORT]; # comments")
	fl.StringVarP(&f.User, "user", "u", "root", "SSH user (overrides User in ssh_config)")
	fl.StringArrayVarP(&f.Identity, "identity", "i", nil, "private key `FILE` to log in with (repeatable; ssh-agent keys are used too)")
	fl.StringVar(&f.PasswordEnv, "password-env", "", "read the SSH password from environment variable `VAR`")
	fl.StringVar(&f.PasswordFile, "password-file", "", "read the SSH password from the first line of `FILE`")
	fl.BoolVar(&f.AskPassword, "ask-password", false, "prompt for the SSH password on the terminal (no echo)")
	fl.StringVar(&f.KnownHosts, "known-hosts", filepath.Join(home, ".ssh", "known_hosts"), "known_hosts `FILE` used to verify host keys (missing: every host is unknown)")
	fl.BoolVar(&f.AcceptNew, "accept-new-host-keys", false, "record the keys of hosts not yet in known_hosts (like ssh -o StrictHostKeyChecking=accept-new); changed keys are still refused")
	fl.BoolVar(&f.Insecure, "insecure-ignore-host-key", false, "do NOT verify host keys (never the default; every host's report says so)")
	fl.StringVar(&f.SSHConfig, "ssh-config", filepath.Join(home, ".ssh", "config"), "OpenSSH client config `FILE` (Host aliases, HostName, User, Port, IdentityFile, ProxyJump)")
	fl.IntVar(&f.Sessions, "sessions-per-host", 8, "commands run at once on one host's connection (ESXi allows 10 sessions)")
	fl.BoolVar(&f.DryRun, "dry-run", false, "print, per host, the commands a scan would run, without connecting")
	fl.StringVar(&f.LogLevel, "log-level", "warn", "log level on stderr: debug, info, warn or error (-v: info)")
	fl.BoolVarP(&f.Verbose, "verbose", "v", false, "log each host's connection and result on stderr (--log-level info); by default only warnings and errors, so a pipe stays quiet")
	fl.StringVar(&f.LogFormat, "log-format", "text", "log format on stderr: text or json")
}

// scanTargets combines --hosts and --hosts-file (duplicates dropped, first
// wins).
func scanTargets(hosts string, f *SSHFlags) ([]hostio.Target, error) {
	targets, err := parseHosts(hosts)
	if err != nil {
		return nil, err
	}
	if f.HostsFile != "" {
		more, err := parseHostsFile(f.HostsFile)
		if err != nil {
			return nil, err
		}
		given := map[string]hostio.Target{}
		for _, t := range targets {
			given[t.Name] = t
		}
		for _, t := range more {
			prev, dup := given[t.Name]
			switch {
			case !dup:
				given[t.Name] = t
				targets = append(targets, t)
			case prev != t:
				return nil, usageError("host %s is given differently by --hosts (%s) and --hosts-file (%s): keep one",
					t.Name, prev.DialAddr(), t.DialAddr())
			}
		}
	}
	if len(targets) == 0 {
		if f.HostsFile != "" {
			return nil, usageError("no hosts given: %s lists none (one per line: NAME, NAME:PORT or NAME ADDRESS[:PORT]; # comments)", f.HostsFile)
		}
		return nil, usageError("no hosts given: use --hosts esx01,esx02 or --hosts-file FILE")
	}
	return targets, nil
}

// parseHostsFile reads one host per line: NAME, NAME:PORT, or NAME followed
// by the ADDRESS[:PORT] to dial (the name is what reports show). Blank lines
// and # comments are ignored.
func parseHostsFile(path string) ([]hostio.Target, error) {
	b, err := hostio.ReadFileCapped(path, hostio.MaxConfigFile)
	if err != nil {
		return nil, usageError("--hosts-file: %v", err)
	}
	var out []hostio.Target
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 2 {
			return nil, usageError("%s:%d: expected NAME, NAME:PORT or NAME ADDRESS[:PORT], got %q", path, n, strings.TrimSpace(line))
		}
		t, err := parseTarget(fields[0])
		if err != nil {
			return nil, usageError("%s:%d: %v", path, n, errors.Unwrap(err))
		}
		if len(fields) == 2 {
			addr := fields[1]
			if err := checkHostBytes(addr); err != nil {
				return nil, usageError("%s:%d: %v", path, n, errors.Unwrap(err))
			}
			if strings.ContainsAny(addr, "/\\@ '\"`$;|&") {
				return nil, usageError("%s:%d: invalid address %q", path, n, addr)
			}
			if _, _, err := net.SplitHostPort(addr); err != nil && strings.Count(addr, ":") == 1 {
				return nil, usageError("%s:%d: invalid address %q: %v", path, n, addr, err)
			}
			t.Addr = addr
		}
		if prev, dup := seen[t.Name]; dup {
			return nil, usageError("%s:%d: host %s already listed on line %d", path, n, t.Name, prev)
		}
		seen[t.Name] = n
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, usageError("--hosts-file: %v", err)
	}
	return out, nil
}

// readPassword returns the password from --password-env, --password-file
// or --ask-password (at most one), and whether one was given.
func (f *SSHFlags) readPassword(getenv func(string) string, io *IOStreams) (string, bool, error) {
	return passwordSource{flag: "--", env: f.PasswordEnv, file: f.PasswordFile, ask: f.AskPassword,
		prompt: "SSH password: ", readTTY: f.ReadPassword}.password(getenv, io)
}

// passwordSource is one set of password flags: FLAGpassword-env,
// FLAGpassword-file, FLAGask-password (flag is "--" or "--vcenter-").
type passwordSource struct {
	flag      string
	env, file string
	ask       bool
	prompt    string
	readTTY   func(prompt string) (string, error)
}

// password returns the password from the env variable, the file's first line
// or the terminal (at most one), and whether one was given.
func (p passwordSource) password(getenv func(string) string, io *IOStreams) (string, bool, error) {
	n := 0
	for _, set := range []bool{p.env != "", p.file != "", p.ask} {
		if set {
			n++
		}
	}
	if n > 1 {
		return "", false, usageError("use only one of %[1]spassword-env, %[1]spassword-file and %[1]sask-password", p.flag)
	}
	switch {
	case p.env != "":
		pw := ""
		if getenv != nil {
			pw = getenv(p.env)
		}
		if pw == "" {
			return "", false, usageError("%spassword-env %s: the variable is not set or empty", p.flag, p.env)
		}
		return pw, true, nil
	case p.file != "":
		b, err := hostio.ReadFileCapped(p.file, hostio.MaxPasswordFile)
		if err != nil {
			return "", false, usageError("%spassword-file: %v", p.flag, err)
		}
		pw, _, _ := strings.Cut(string(b), "\n")
		pw = strings.TrimSuffix(pw, "\r")
		if pw == "" {
			return "", false, usageError("%spassword-file %s: the first line is empty", p.flag, p.file)
		}
		return pw, true, nil
	case p.ask:
		read := p.readTTY
		if read == nil {
			file, ok := io.In.(*os.File)
			if !io.StdinTTY || !ok {
				return "", false, usageError("%[1]sask-password needs a terminal on stdin; use %[1]spassword-env or %[1]spassword-file", p.flag)
			}
			read = func(prompt string) (string, error) {
				fmt.Fprint(io.ErrOut, prompt)
				b, err := readSecret(int(file.Fd()))
				fmt.Fprintln(io.ErrOut)
				return string(b), err
			}
		}
		pw, err := read(p.prompt)
		if err != nil {
			return "", false, fmt.Errorf("reading the password: %w", err)
		}
		if pw == "" {
			return "", false, usageError("empty password")
		}
		return pw, true, nil
	}
	return "", false, nil
}

// sshSetup loads known_hosts, ssh_config and credentials from the flags.
// With dryRun, no credential is read and no agent contacted.
func (f *SSHFlags) sshSetup(getenv func(string) string, io *IOStreams, dryRun bool) (*sshrun.SSHSetup, func(), error) {
	if f.AcceptNew && f.Insecure {
		return nil, nil, usageError("--accept-new-host-keys and --insecure-ignore-host-key exclude each other")
	}
	policy := sshrun.HostKeyStrict
	switch {
	case f.Insecure:
		policy = sshrun.HostKeyInsecure
	case f.AcceptNew:
		policy = sshrun.HostKeyAcceptNew
	}
	db, err := sshrun.LoadHostKeyDB(f.KnownHosts, policy)
	if err != nil {
		return nil, nil, WithExitCode(ExitError, fmt.Errorf("%w (use --known-hosts FILE)", err))
	}
	for _, w := range db.Warnings() {
		fmt.Fprintf(io.ErrOut, "Warning: %s\n", w)
	}
	cfg, err := sshrun.LoadSSHConfig(f.SSHConfig)
	if err != nil {
		if f.changed("ssh-config") {
			return nil, nil, usageError("--ssh-config: %v", err)
		}
		// The default file may use what we cannot read (Match exec):
		// go on without it, but say so.
		fmt.Fprintf(io.ErrOut, "Warning: ignoring %v\n", err)
		cfg = nil
	}
	creds := &sshrun.Credentials{}
	cleanup := func() {}
	for _, p := range f.Identity {
		if _, err := os.Stat(p); err != nil {
			return nil, nil, usageError("-i %s: %v", p, err)
		}
		creds.IdentityFiles = append(creds.IdentityFiles, p)
	}
	if !dryRun {
		pw, ok, err := f.readPassword(getenv, io)
		if err != nil {
			return nil, nil, err
		}
		creds.Password, creds.HasPassword = pw, ok
		for _, p := range f.Identity {
			if _, err := creds.LoadKey(p); err != nil && !errors.Is(err, sshrun.ErrEncryptedKey) {
				return nil, nil, usageError("-i: %v", err)
			}
		}
		if sock := getenv("SSH_AUTH_SOCK"); sock != "" {
			ag, conn, err := sshrun.DialAgent(sock)
			if err != nil {
				fmt.Fprintf(io.ErrOut, "Warning: %v; going on without it\n", err)
			} else {
				creds.Agent = ag
				cleanup = func() { conn.Close() }
			}
		}
	}
	s := &sshrun.SSHSetup{Credentials: creds, HostKeys: db, Config: cfg, Home: homeDir()}
	if f.changed("user") || cfg == nil {
		s.User = f.User
	}
	s.DefaultUser = f.User
	return s, cleanup, nil
}

// sshRunnerWith builds an SSH transport from the flags f (the hosts', or
// the guests' credentials), adjust changing the setup before use.
func sshRunnerWith(opts *ScanOptions, f *SSHFlags, targets []hostio.Target, adjust func(*sshrun.SSHSetup)) (*sshrun.SSHRunner, func(), error) {
	s, cleanup, err := f.sshSetup(opts.Getenv, opts.IO, false)
	if err != nil {
		return nil, nil, err
	}
	own := s.HostKeys
	if adjust != nil {
		adjust(s)
	}
	// Resolve every target now: ProxyJump errors are usage errors, and a
	// scan with nothing to log in with stops here.
	usable := false
	ids := localIdentifiers(&opts.SSH, opts.Getenv)
	for _, t := range targets {
		rt, err := s.Resolve(t)
		if err != nil {
			cleanup()
			return nil, nil, usageError("%v", err)
		}
		usable = usable || s.Credentials.HasPassword || len(rt.Host.Config.Auth) > 0
		ids = append(ids, routeIdentifiers(rt)...)
	}
	opts.Bundle.Identifiers = append(opts.Bundle.Identifiers, ids...)
	if !usable && opts.VCenter.URL == "" {
		// (With --vcenter, hosts SSH cannot log into are read through the API.)
		cleanup()
		return nil, nil, usageError("no credentials: give a key (-i FILE, ssh-agent, IdentityFile in %s) or a password (--password-env VAR, --password-file FILE, --ask-password)", opts.SSH.SSHConfig)
	}
	r := sshrun.NewSSHRunner(*s)
	r.Dial = testDial
	return r, func() {
		r.Close()
		cleanup()
		// Say which host keys were trusted on first use, as OpenSSH does
		// (once: a database shared with another transport is its to report).
		if s.HostKeys != own {
			return
		}
		for _, line := range s.HostKeys.Recorded() {
			fmt.Fprintln(opts.IO.ErrOut, line)
		}
	}, nil
}

// scanLogger returns the slog logger for a scan, writing to w.
func (f *SSHFlags) scanLogger(w io.Writer, minLevel slog.Level) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.LogLevel)); err != nil {
		return nil, usageError("--log-level %q: use debug, info, warn or error", f.LogLevel)
	}
	if f.Verbose && !f.changed("log-level") {
		level = slog.LevelInfo
	}
	if !f.changed("log-level") && minLevel > level {
		level = minLevel
	}
	ho := &slog.HandlerOptions{Level: level}
	switch f.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, ho)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	}
	return nil, usageError("--log-format %q: use text or json", f.LogFormat)
}

// stderrTTY reports whether stderr is an interactive terminal.
func stderrTTY(s *IOStreams) bool {
	f, ok := s.ErrOut.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// dryRunHost is one host of `scan --dry-run -o json`.
type dryRunHost struct {
	Host      string             `json:"host"`
	Role      string             `json:"role,omitempty"`
	User      string             `json:"user"`
	Address   string             `json:"address"`
	Via       []string           `json:"via,omitempty"`
	Stage1    []collect.Command  `json:"stage1"`
	Templates []collect.Template `json:"templates"`
	// Probes are the peers this host would probe (stage 3).
	Probes []string `json:"probes,omitempty"`
	// ProbeSearch bounds the path MTU search of a pair whose configured
	// size is lost.
	ProbeSearch *dryRunSearch `json:"probe_search,omitempty"`
}

// dryRunSearch is the bound of one pair's path MTU search.
type dryRunSearch struct {
	// Rounds is the most rounds; AtOnce how many one-packet tries a round
	// sends together (the pair's share of --sessions-per-host); Tries the
	// most tries in all; WaitS the most a round waits for a lost reply.
	Rounds int `json:"max_rounds"`
	AtOnce int `json:"tries_at_once"`
	Tries  int `json:"max_tries"`
	WaitS  int `json:"round_wait_s"`
}

// probePlan is --probes and --probe-budget for a dry run.
type probePlan struct {
	mode   string
	budget int
}

// runDryRun prints what a scan would run on every host, without
// connecting or reading credentials.
func runDryRun(w io.Writer, format string, targets []hostio.Target, f *SSHFlags, getenv func(string) string, ios *IOStreams, pp probePlan, extra map[string]any, guestUser string) error {
	probes := pp.mode != collect.ProbesOff
	s, _, err := f.sshSetup(getenv, ios, true)
	if err != nil {
		return err
	}
	esxHosts, _ := splitRoles(targets) // guests are not probed
	var tpls []collect.Template
	for _, tp := range collect.Templates() {
		if tp.Stage == 3 && (!probes || len(esxHosts) < 2) {
			continue
		}
		tpls = append(tpls, tp)
	}
	peersOf := map[string][]string{}
	dropped := 0
	if probes && len(esxHosts) > 1 {
		var names []string
		for _, t := range esxHosts {
			names = append(names, t.Name)
		}
		var pairs [][2]string
		pairs, dropped = collect.DryRunProbes(names, pp.mode, 3, pp.budget)
		for _, p := range pairs {
			peersOf[p[0]] = append(peersOf[p[0]], p[1])
		}
	}
	var hosts []dryRunHost
	for _, t := range targets {
		rt, err := s.Resolve(t)
		if err != nil {
			return usageError("%v", err)
		}
		h := dryRunHost{Host: t.Name, User: rt.Host.Config.User, Address: rt.Host.Addr, Stage1: collect.Stage1(), Templates: tpls, Probes: peersOf[t.Name]}
		if len(h.Probes) > 0 {
			h.ProbeSearch = &dryRunSearch{Rounds: collect.MaxSearchRounds, AtOnce: collect.SearchWidth(f.Sessions, len(h.Probes)),
				Tries: collect.MaxRoundTries, WaitS: collect.ProbeWait}
		}
		if t.Role == hostio.RoleGuest {
			h.Role = hostio.RoleGuest
			h.Stage1, h.Templates = dryRunGuestCommands()
			if guestUser != "" {
				h.User = guestUser
			}
		}
		for _, j := range rt.Jumps {
			h.Via = append(h.Via, j.Config.User+"@"+j.Addr)
		}
		hosts = append(hosts, h)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		out := map[string]any{"dry_run": true, "hosts": hosts}
		for k, v := range extra {
			out[k] = v
		}
		return enc.Encode(out)
	}
	fmt.Fprintf(w, "Dry run: nothing is sent. Per host, the commands a scan would run: the fixed ones verbatim,\n"+
		"then the per-device commands and probes as templates filled from their output (every value validated).\n")
	for _, h := range hosts {
		via := ""
		if len(h.Via) > 0 {
			via = " via " + strings.Join(h.Via, " -> ")
		}
		role := ""
		if h.Role == hostio.RoleGuest {
			role = "guest "
		}
		fmt.Fprintf(w, "\n%s%s (%s@%s%s)\n", role, h.Host, h.User, h.Address, via)
		for _, c := range h.Stage1 {
			fmt.Fprintf(w, "  1  %s\n", c.Line)
		}
		for _, tp := range h.Templates {
			fmt.Fprintf(w, "  %d  %s\n       %s\n", tp.Stage, tp.Line, tp.When)
		}
		if ps := h.ProbeSearch; ps != nil {
			fmt.Fprintf(w, "  3  probes to %s (%d pairs: %d packets each at the configured size, 0.2 s apart; "+
				"if lost, a search of at most %d rounds of one-packet tries, %d sent at once, smallest first, "+
				"each round waiting at most %d s for a lost reply: at most %d more tries per pair)\n",
				strings.Join(h.Probes, ", "), len(h.Probes), collect.RTTPackets, ps.Rounds, ps.AtOnce, ps.WaitS, ps.Tries)
		}
	}
	if dropped > 0 {
		fmt.Fprintf(w, "\n--probe-budget %d: %d more ordered pairs would not be probed\n", pp.budget, dropped)
	}
	return nil
}

// readSecret reads a password from the terminal fd without echo. A signal
// (hostio.StopInputs) ends it at once, the terminal's echo restored: the
// read itself cannot be interrupted, and the process is about to end.
func readSecret(fd int) ([]byte, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return nil, err
	}
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		ch <- read{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-hostio.InputsStopped():
		term.Restore(fd, state)
		return nil, fmt.Errorf("password prompt: %w", hostio.ErrInputStopped)
	}
}
