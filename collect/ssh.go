package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHRunner runs commands over one SSH connection per host.
type SSHRunner struct {
	// ClientConfig returns the SSH client configuration for a target (user,
	// auth methods, host key callback). It is called once per host.
	ClientConfig func(t Target) (*ssh.ClientConfig, error)
	// Dial opens the TCP connection (default: net.Dialer). A ProxyJump
	// implementation replaces it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// HostNotes returns remarks for a host's report (e.g. host key checking
	// disabled). Optional.
	HostNotes func(t Target) []string
}

// Name implements Runner.
func (r *SSHRunner) Name() string { return "ssh" }

// Addr returns the address to dial for a target (port 22 by default).
func (t Target) DialAddr() string {
	if t.Addr != "" {
		if _, _, err := net.SplitHostPort(t.Addr); err == nil {
			return t.Addr
		}
		return net.JoinHostPort(t.Addr, "22")
	}
	if _, _, err := net.SplitHostPort(t.Name); err == nil {
		return t.Name
	}
	return net.JoinHostPort(t.Name, "22")
}

// Open implements Runner: TCP connect, SSH handshake, authentication.
func (r *SSHRunner) Open(ctx context.Context, t Target) (Conn, error) {
	cfg, err := r.ClientConfig(t)
	if err != nil {
		return nil, err
	}
	addr := t.DialAddr()
	dial := r.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, describeDialError(addr, err)
	}
	// The handshake has no context: bound it with a deadline and close the
	// socket if ctx ends first.
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	stopped := stop()
	if err != nil {
		nc.Close()
		var ne net.Error
		if !stopped || ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return nil, fmt.Errorf("ssh handshake with %s timed out: the host accepted TCP but did not complete SSH", addr)
		}
		return nil, describeHandshakeError(addr, cfg.User, err)
	}
	nc.SetDeadline(time.Time{})
	client := ssh.NewClient(c, chans, reqs)
	conn := &sshConn{client: client}
	if r.HostNotes != nil {
		conn.notes = r.HostNotes(t)
	}
	return conn, nil
}

func describeDialError(addr string, err error) error {
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot connect to %s: timed out (host down, filtered, or SSH disabled)", addr)
	case errors.As(err, &op) && strings.Contains(err.Error(), "refused"):
		return fmt.Errorf("cannot connect to %s: connection refused (is SSH enabled on the host? Host > Configure > Services > SSH)", addr)
	}
	return fmt.Errorf("cannot connect to %s: %v", addr, err)
}

func describeHandshakeError(addr, user string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unable to authenticate"):
		return fmt.Errorf("authentication failed for %s@%s: wrong password or key not accepted (%v)", user, addr, err)
	}
	return fmt.Errorf("ssh handshake with %s failed: %w", addr, err)
}

type sshConn struct {
	client *ssh.Client
	notes  []string
	once   sync.Once
}

func (c *sshConn) Notes() []string { return c.notes }

func (c *sshConn) Close() error {
	var err error
	c.once.Do(func() { err = c.client.Close() })
	return err
}

// Run implements Conn: one session per command; a command still running
// when ctx ends is abandoned and its session closed.
func (c *sshConn) Run(ctx context.Context, line string) Result {
	if err := CheckAllowed(line); err != nil {
		return Result{Err: err, ExitCode: -1}
	}
	sess, err := c.newSession(ctx)
	if err != nil {
		return Result{Err: fmt.Errorf("cannot open SSH session: %w", err), ExitCode: -1}
	}
	defer sess.Close()
	var stdout, stderr bytes.Buffer
	sess.Stdout = &limitedWriter{w: &stdout, n: maxOutput}
	sess.Stderr = &limitedWriter{w: &stderr, n: maxOutput}
	if err := sess.Start(line); err != nil {
		return Result{Err: fmt.Errorf("cannot start command: %w", err), ExitCode: -1}
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sess.Signal(ssh.SIGKILL)
		sess.Close()
		return Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: -1, Err: ctx.Err()}
	}
	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exitErr *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitStatus()
	case errors.As(err, &missing):
		res.ExitCode = -1
		res.Err = errors.New("connection closed before the command reported its exit status")
	default:
		res.ExitCode = -1
		res.Err = err
	}
	return res
}

// newSession opens a session, retrying while the server refuses with
// "resource shortage": sshd counts a session until it has processed the
// close, so a session opened right after another closed can be refused
// even below MaxSessions. Other errors are returned at once.
func (c *sshConn) newSession(ctx context.Context) (*ssh.Session, error) {
	backoff := 5 * time.Millisecond
	for {
		sess, err := c.client.NewSession()
		var oce *ssh.OpenChannelError
		if err == nil || !errors.As(err, &oce) || oce.Reason != ssh.ResourceShortage {
			return sess, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (still refused when the command timed out)", err)
		case <-time.After(backoff):
		}
		if backoff < 200*time.Millisecond {
			backoff *= 2
		}
	}
}

// maxOutput bounds what one command may return (64 MiB), so a misbehaving
// host cannot exhaust memory.
const maxOutput = 64 << 20

type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.w.Len()+len(p) > l.n {
		return 0, fmt.Errorf("output exceeds %d bytes", l.n)
	}
	return l.w.Write(p)
}

// PasswordAuth returns auth methods that send password both through the
// "password" method and through keyboard-interactive, which ESXi's sshd
// uses. Keyboard-interactive rounds with zero questions are answered empty;
// every question is answered with the password.
func PasswordAuth(password string) []ssh.AuthMethod {
	return []ssh.AuthMethod{
		ssh.KeyboardInteractive(func(name, instruction string, questions []string, echos []bool) ([]string, error) {
			answers := make([]string, len(questions))
			for i := range questions {
				answers[i] = password
			}
			return answers, nil
		}),
		ssh.Password(password),
	}
}

// HostKeyAlgorithms returns the host key algorithms to offer for a known key
// type, so that the server presents the key type we can verify (x/crypto
// does not consult known_hosts when choosing, golang/go#49631).
func HostKeyAlgorithms(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}
