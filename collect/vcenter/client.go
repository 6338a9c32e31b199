// Package vcenter is the vCenter source: it logs in to vCenter through the
// vSphere API (govmomi), discovers the ESXi hosts to scan, reads the VM and
// host configuration PVRDMA depends on (one PropertyCollector retrieval per
// object type, whatever the size of the inventory) and stores it as
// captures (`vcenter vm config`, `vcenter host config`) that package parse
// reads like any other output. It also runs esxcli commands through the
// API (Runner) for hosts whose SSH is off.
//
// Only this package (and cli) imports govmomi: parsers, facts, checks and
// reports read the captures.
package vcenter

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// Config is how to reach and log in to vCenter.
type Config struct {
	// URL is the vCenter address: a host name, host:port or https URL
	// (the SDK path /sdk is added when missing).
	URL      string
	User     string
	Password string
	// Thumbprint pins the server certificate: its SHA-256 or SHA-1
	// fingerprint (hex, colons optional), as the vSphere Client and
	// `govc about.cert` show it. A pinned certificate is accepted whoever
	// signed it; any other is refused.
	Thumbprint string
	// Insecure accepts any certificate (never the default; the report says so).
	Insecure bool
	// RootCAs are the trusted CAs (nil: the system's).
	RootCAs *x509.CertPool
	// Datacenter and Cluster limit discovery (empty: every host).
	Datacenter string
	Cluster    string
}

// Client is a logged-in vCenter session.
type Client struct {
	cfg Config
	url *url.URL
	vc  *vim25.Client
	// Thumbprint is the SHA-256 fingerprint of the certificate the server
	// presented.
	Thumbprint string
}

// CertError is a server certificate that was refused.
type CertError struct {
	Addr string
	// Thumbprint is the SHA-256 fingerprint of the certificate presented.
	Thumbprint string
	// Pinned is the --vcenter-thumbprint that did not match ("" when the
	// certificate was checked against the trusted CAs).
	Pinned string
	Err    error
}

func (e *CertError) Error() string {
	if e.Pinned != "" {
		return fmt.Sprintf("the certificate of vCenter %s does not match --vcenter-thumbprint %s: it is %s; refusing to connect (if the certificate was replaced on purpose, verify the new one and pin it)",
			e.Addr, e.Pinned, e.Thumbprint)
	}
	return fmt.Sprintf("the certificate of vCenter %s is not trusted (%v); its SHA-256 thumbprint is %s: verify it (vSphere Client, or `openssl s_client -connect %s | openssl x509 -noout -fingerprint -sha256` on a trusted network) and pass --vcenter-thumbprint %s, or --insecure to skip verification",
		e.Addr, e.Err, e.Thumbprint, e.Addr, e.Thumbprint)
}

func (e *CertError) Unwrap() error { return e.Err }

// ParseURL normalizes a vCenter address to its SDK URL.
func ParseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty vCenter address")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("vCenter address %q: %v", s, err)
	}
	if u.Scheme != "https" {
		return nil, fmt.Errorf("vCenter address %q: only https is supported", s)
	}
	if u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("vCenter address %q: expected HOST[:PORT] or https://HOST[:PORT]/sdk (credentials go in --vcenter-user and --vcenter-password-env/-file)", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/sdk"
	}
	return u, nil
}

// NormalizeThumbprint returns a thumbprint as upper-case hex pairs joined
// by colons, or an error when it is not a SHA-1 or SHA-256 fingerprint.
func NormalizeThumbprint(s string) (string, error) {
	h := strings.ToUpper(strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.TrimSpace(s)))
	if _, err := hex.DecodeString(h); err != nil || (len(h) != 40 && len(h) != 64) {
		return "", fmt.Errorf("--vcenter-thumbprint %q: expected a SHA-256 (or SHA-1) fingerprint in hex, e.g. AB:CD:...", s)
	}
	var pairs []string
	for i := 0; i < len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, ":"), nil
}

func fingerprint(raw []byte, sha256sum bool) string {
	var sum []byte
	if sha256sum {
		s := sha256.Sum256(raw)
		sum = s[:]
	} else {
		s := sha1.Sum(raw)
		sum = s[:]
	}
	out, _ := NormalizeThumbprint(hex.EncodeToString(sum))
	return out
}

// tlsDialer dials vCenter and verifies its certificate: against the pinned
// thumbprint, else the trusted CAs, unless insecure.
type tlsDialer struct {
	cfg    Config
	pinned string
	mu     sync.Mutex
	seen   string
}

func (d *tlsDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	raw, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	conf := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // verified below, with the pinned thumbprint or the CAs
		VerifyConnection:   func(cs tls.ConnectionState) error { return d.verify(addr, host, cs) },
	}
	if net.ParseIP(host) == nil {
		conf.ServerName = host
	}
	conn := tls.Client(raw, conf)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn, nil
}

func (d *tlsDialer) verify(addr, host string, cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return fmt.Errorf("vCenter %s presented no certificate", addr)
	}
	leaf := cs.PeerCertificates[0]
	fp := fingerprint(leaf.Raw, true)
	d.mu.Lock()
	d.seen = fp
	d.mu.Unlock()
	switch {
	case d.pinned != "":
		if d.pinned == fp || d.pinned == fingerprint(leaf.Raw, false) {
			return nil
		}
		return &CertError{Addr: addr, Thumbprint: fp, Pinned: d.pinned}
	case d.cfg.Insecure:
		return nil
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: d.cfg.RootCAs, Intermediates: inter, DNSName: host}); err != nil {
		return &CertError{Addr: addr, Thumbprint: fp, Err: err}
	}
	return nil
}

// Connect logs in to vCenter. Errors say what to do: an untrusted or
// mismatching certificate (with its thumbprint), refused credentials, an
// unreachable address.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	u, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	d := &tlsDialer{cfg: cfg}
	if cfg.Thumbprint != "" {
		if d.pinned, err = NormalizeThumbprint(cfg.Thumbprint); err != nil {
			return nil, err
		}
	}
	sc := soap.NewClient(u, true)
	sc.DefaultTransport().DialTLSContext = d.dial
	vc, err := vim25.NewClient(ctx, sc)
	if err != nil {
		return nil, connectError(u, err)
	}
	if err := session.NewManager(vc).Login(ctx, url.UserPassword(cfg.User, cfg.Password)); err != nil {
		if isLoginFault(err) {
			return nil, fmt.Errorf("vCenter %s refused the login of %q: incorrect user name or password", u.Host, cfg.User)
		}
		return nil, connectError(u, err)
	}
	c := &Client{cfg: cfg, url: u, vc: vc}
	d.mu.Lock()
	c.Thumbprint = d.seen
	d.mu.Unlock()
	return c, nil
}

func isLoginFault(err error) bool {
	return fault.Is(err, &types.InvalidLogin{}) || strings.Contains(err.Error(), "incorrect user name or password")
}

func connectError(u *url.URL, err error) error {
	var ce *CertError
	if errors.As(err, &ce) {
		return ce
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return fmt.Errorf("vCenter %s is unreachable: %v", u.Host, oe.Err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("vCenter %s did not answer in time: %v", u.Host, err)
	}
	return fmt.Errorf("vCenter %s: %v", u.Host, err)
}

// URL is the SDK URL logged in to.
func (c *Client) URL() string { return c.url.String() }

// Host is vCenter's host[:port].
func (c *Client) Host() string { return c.url.Host }

// Insecure reports whether certificate verification was skipped.
func (c *Client) Insecure() bool { return c.cfg.Insecure && c.cfg.Thumbprint == "" }

// Vim is the underlying vSphere API client.
func (c *Client) Vim() *vim25.Client { return c.vc }

// Logout ends the session.
func (c *Client) Logout(ctx context.Context) error {
	return session.NewManager(c.vc).Logout(ctx)
}

// TrustNote says how the server was trusted, for the report.
func (c *Client) TrustNote() string {
	switch {
	case c.cfg.Thumbprint != "":
		return fmt.Sprintf("vCenter %s: certificate pinned by --vcenter-thumbprint (%s)", c.url.Host, c.Thumbprint)
	case c.cfg.Insecure:
		return fmt.Sprintf("vCenter %s: certificate NOT verified (--insecure); it presented %s", c.url.Host, c.Thumbprint)
	}
	return fmt.Sprintf("vCenter %s: certificate verified", c.url.Host)
}
