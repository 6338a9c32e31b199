package sshrun

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	sshconfig "github.com/kevinburke/ssh_config"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// SSHConfig is a parsed OpenSSH client configuration file (~/.ssh/config).
// Only what a scan needs is read: Host blocks (and Match host/all), Include,
// HostName, User, Port, IdentityFile, IdentitiesOnly, ProxyJump and
// HostKeyAlias. A nil *SSHConfig is an empty configuration.
type SSHConfig struct {
	path string
	cfg  *sshconfig.Config
	home string
}

// LoadSSHConfig reads an ssh_config file. A file that does not exist is
// an empty configuration.
func LoadSSHConfig(path string) (*SSHConfig, error) {
	home, _ := os.UserHomeDir()
	c := &SSHConfig{path: path, home: home}
	b, err := hostio.ReadFileCapped(path, hostio.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read ssh config %s: %w", path, err)
	}
	cfg, err := sshconfig.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("cannot parse ssh config %s: %w", path, err)
	}
	c.cfg = cfg
	return c, nil
}

// Path is the file read.
func (c *SSHConfig) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// HostSpec is what ssh_config says about one host alias. Empty fields are
// not set in the file.
type HostSpec struct {
	Alias          string
	HostName       string
	Port           string
	User           string
	IdentityFiles  []string
	IdentitiesOnly bool
	// ProxyJump is the raw value ("" or "none" for none).
	ProxyJump    string
	HostKeyAlias string
}

// Lookup returns the settings for alias (first value wins, as in OpenSSH).
func (c *SSHConfig) Lookup(alias string) HostSpec {
	s := HostSpec{Alias: alias}
	if c == nil || c.cfg == nil {
		return s
	}
	get := func(key string) string {
		v, _ := c.cfg.Get(alias, key)
		return strings.TrimSpace(v)
	}
	s.HostName = strings.ReplaceAll(get("HostName"), "%h", alias)
	s.Port = get("Port")
	s.User = get("User")
	s.IdentitiesOnly = strings.EqualFold(get("IdentitiesOnly"), "yes")
	s.ProxyJump = get("ProxyJump")
	if strings.EqualFold(s.ProxyJump, "none") {
		s.ProxyJump = ""
	}
	s.HostKeyAlias = get("HostKeyAlias")
	files, _ := c.cfg.GetAll(alias, "IdentityFile")
	for _, f := range files {
		f = strings.Trim(strings.TrimSpace(f), `"`)
		if f == "" || strings.EqualFold(f, "none") {
			continue
		}
		s.IdentityFiles = append(s.IdentityFiles, f)
	}
	return s
}

// ExpandPath expands ~ and the tokens %d (home), %u (local user),
// %h (remote host name), %r (remote user) and %% in an IdentityFile path.
func ExpandPath(p, home, host, remoteUser string) string {
	if p == "~" {
		p = home
	} else if strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[2:])
	}
	if !strings.Contains(p, "%") {
		return p
	}
	local := ""
	if u, err := user.Current(); err == nil {
		local = u.Username
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+1 == len(p) {
			b.WriteByte(p[i])
			continue
		}
		i++
		switch p[i] {
		case 'd':
			b.WriteString(home)
		case 'u':
			b.WriteString(local)
		case 'h':
			b.WriteString(host)
		case 'r':
			b.WriteString(remoteUser)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// DefaultIdentityFiles are the keys OpenSSH tries when no IdentityFile is
// configured, relative to ~/.ssh.
var DefaultIdentityFiles = []string{"id_rsa", "id_ecdsa", "id_ed25519"}

// JumpHost is one hop of a ProxyJump value.
type JumpHost struct {
	User string
	Host string // an ssh_config alias or a host name
	Port string // "" if not given
}

// ParseProxyJump splits a ProxyJump value: comma-separated
// [user@]host[:port] or ssh://[user@]host[:port] hops, outermost first.
func ParseProxyJump(v string) ([]JumpHost, error) {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "none") {
		return nil, nil
	}
	var hops []JumpHost
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "ssh://")
		if part == "" {
			return nil, fmt.Errorf("invalid ProxyJump %q: empty hop", v)
		}
		var j JumpHost
		if at := strings.LastIndex(part, "@"); at >= 0 {
			j.User, part = part[:at], part[at+1:]
		}
		if h, p, err := net.SplitHostPort(part); err == nil {
			j.Host, j.Port = h, p
		} else {
			j.Host = strings.Trim(part, "[]")
		}
		if j.Host == "" || strings.ContainsAny(j.Host, " /\\'\"`$;|&") {
			return nil, fmt.Errorf("invalid ProxyJump %q: bad host %q", v, j.Host)
		}
		hops = append(hops, j)
	}
	return hops, nil
}
