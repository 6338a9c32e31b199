package sshrun

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"golang.org/x/crypto/ssh"
)

// SSHSetup is everything the production SSH transport needs: credentials,
// the known_hosts database and the user's ssh_config.
type SSHSetup struct {
	Credentials *Credentials
	HostKeys    *HostKeyDB
	// Config is the ssh_config file (nil: none).
	Config *SSHConfig
	// User, if set (--user), overrides ssh_config's User for targets.
	User string
	// DefaultUser is used when neither User nor ssh_config names one
	// (default "root", as on ESXi).
	DefaultUser string
	// Home is the user's home directory, for ~ and default keys.
	Home string
}

// NewSSHRunner returns the SSH transport for real hosts: ssh_config
// aliases (HostName, User, Port, IdentityFile, IdentitiesOnly, ProxyJump,
// HostKeyAlias), keys and passwords from Credentials, host keys checked
// against HostKeys. Close it when the scan is over (jump hosts).
func NewSSHRunner(s SSHSetup) *SSHRunner {
	if s.DefaultUser == "" {
		s.DefaultUser = "root"
	}
	if s.Credentials == nil {
		s.Credentials = &Credentials{}
	}
	r := &SSHRunner{}
	r.Route = func(t hostio.Target) (Route, error) { return s.Resolve(t) }
	r.HostNotes = func(hostio.Target) []string {
		if s.HostKeys == nil {
			return nil
		}
		return s.HostKeys.Notes()
	}
	return r
}

// maxJumpDepth bounds ProxyJump chains (and loops through them).
const maxJumpDepth = 8

// Resolve returns how to reach t: its address, user, keys and jump hosts,
// from the target as typed (name, name:port or an explicit address) and
// ssh_config. Explicit values win over ssh_config.
func (s *SSHSetup) Resolve(t hostio.Target) (Route, error) {
	if s.HostKeys == nil {
		return Route{}, errors.New("no known_hosts database configured")
	}
	alias, port := splitHostPort(t.Name, "")
	spec := s.Config.Lookup(alias)
	host := alias
	if spec.HostName != "" {
		host = spec.HostName
	}
	if port == "" {
		port = spec.Port
	}
	if port == "" {
		port = "22"
	}
	addr := net.JoinHostPort(host, port)
	if t.Addr != "" {
		h, p := splitHostPort(t.Addr, port)
		addr = net.JoinHostPort(h, p)
	}
	usr := s.User
	if usr == "" {
		usr = spec.User
	}
	if usr == "" {
		usr = s.DefaultUser
	}
	hop := s.hop(t.Name, addr, usr, spec, true)
	jumps, err := s.jumpsFor(spec, 0)
	if err != nil {
		return Route{}, fmt.Errorf("%s: %w", t.Name, err)
	}
	return Route{Jumps: jumps, Host: hop}, nil
}

func (s *SSHSetup) hop(name, addr, usr string, spec HostSpec, withPassword bool) Hop {
	keyName := addr
	if spec.HostKeyAlias != "" {
		keyName = net.JoinHostPort(spec.HostKeyAlias, "22")
	}
	var files []string
	for _, f := range spec.IdentityFiles {
		files = append(files, ExpandPath(f, s.Home, hostOnly(addr), usr))
	}
	if len(files) == 0 && len(s.Credentials.IdentityFiles) == 0 && s.Home != "" {
		for _, f := range DefaultIdentityFiles {
			p := filepath.Join(s.Home, ".ssh", f)
			if _, err := os.Stat(p); err == nil {
				files = append(files, p)
			}
		}
	}
	methods, log, cb := s.Credentials.ClientAuth(files, spec.IdentitiesOnly, withPassword)
	cfg := &ssh.ClientConfig{
		User:              usr,
		Auth:              methods,
		AuthCallback:      cb,
		HostKeyCallback:   s.HostKeys.Callback(),
		HostKeyAlgorithms: s.HostKeys.HostKeyAlgorithmsFor(keyName),
	}
	return Hop{Name: name, Addr: addr, HostKeyName: keyName, Config: cfg, Auth: log}
}

// jumpsFor resolves a ProxyJump chain; every jump host is itself looked up
// in ssh_config (its own HostName, User, keys and ProxyJump). Jump hosts
// log in with keys only: the ESXi password is never sent to them.
func (s *SSHSetup) jumpsFor(spec HostSpec, depth int) ([]Hop, error) {
	hops, err := ParseProxyJump(spec.ProxyJump)
	if err != nil || len(hops) == 0 {
		return nil, err
	}
	if depth >= maxJumpDepth {
		return nil, fmt.Errorf("ProxyJump chain deeper than %d (a loop?)", maxJumpDepth)
	}
	var out []Hop
	for i, j := range hops {
		js := s.Config.Lookup(j.Host)
		if i == 0 {
			// Only the first hop's own ProxyJump applies (as in OpenSSH).
			inner, err := s.jumpsFor(js, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
		host := j.Host
		if js.HostName != "" {
			host = js.HostName
		}
		port := j.Port
		if port == "" {
			port = js.Port
		}
		if port == "" {
			port = "22"
		}
		usr := j.User
		if usr == "" {
			usr = js.User
		}
		if usr == "" {
			usr = localUser()
		}
		out = append(out, s.hop(j.Host, net.JoinHostPort(host, port), usr, js, false))
	}
	return out, nil
}

func hostOnly(addr string) string {
	h, _ := splitHostPort(addr, "")
	return h
}

func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
