package cli

import (
	"context"
	"net"
	"unicode"
	"unicode/utf8"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// localIdentifiers are the operator's own identifiers a scan may write
// into its results: the home directory (in the known_hosts, key and
// ssh_config paths of messages; shown as ~) and those files' paths.
func localIdentifiers(f *SSHFlags, getenv func(string) string) []redact.Token {
	ids := []redact.Token{{Kind: redact.TokenLocalPath, Original: homeDir(), Token: "~"}}
	for _, p := range append([]string{f.KnownHosts, f.SSHConfig, f.PasswordFile, f.HostsFile}, f.Identity...) {
		if p != "" {
			ids = append(ids, redact.Token{Kind: redact.TokenLocalPath, Original: p})
		}
	}
	if getenv != nil {
		if u := getenv("USER"); u != "" {
			ids = append(ids, redact.Token{Kind: redact.TokenUser, Original: u})
		}
	}
	return ids
}

// routeIdentifiers are the SSH users and dialled addresses of one route
// (the host and its jump hosts; ssh_config HostName and hosts-file
// addresses included).
func routeIdentifiers(rt sshrun.Route) []redact.Token {
	var ids []redact.Token
	for _, h := range append(append([]sshrun.Hop(nil), rt.Jumps...), rt.Host) {
		ids = append(ids, redact.Token{Kind: redact.TokenHost, Original: h.Name}, redact.Token{Kind: redact.TokenHost, Original: h.Addr})
		if h.HostKeyName != "" {
			ids = append(ids, redact.Token{Kind: redact.TokenHost, Original: h.HostKeyName})
		}
		if h.Config != nil {
			ids = append(ids, redact.Token{Kind: redact.TokenUser, Original: h.Config.User})
		}
	}
	return ids
}

// testDial, when set by a test, replaces the TCP dialler of scans (to
// reach the loopback lab under customer-like names and addresses).
var testDial func(ctx context.Context, network, addr string) (net.Conn, error)

// checkHostBytes refuses a host name or address holding a control
// character (NUL, escape sequences), a byte-order mark or bytes that are
// not UTF-8: none can be a host, and echoing them would garble a terminal.
func checkHostBytes(s string) error {
	if !utf8.ValidString(s) {
		return usageError("invalid host %q: it holds bytes that are not UTF-8", s)
	}
	for _, r := range s {
		switch {
		case r == '\uFEFF':
			return usageError("invalid host %q: it starts with or holds a byte-order mark (U+FEFF); save the file as UTF-8 without BOM", s)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return usageError("invalid host %q: it holds the control character %U", s, r)
		}
	}
	return nil
}
