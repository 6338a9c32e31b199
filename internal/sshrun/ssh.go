package sshrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"golang.org/x/crypto/ssh"
)

// SSHRunner runs commands over one SSH connection per host.
//
// Either ClientConfig (one server reached directly, e.g. the simulated lab)
// or Route (ssh_config resolution, jump hosts; see NewSSHRunner) says how
// to reach a target.
type SSHRunner struct {
	// ClientConfig returns the SSH client configuration for a target (user,
	// auth methods, host key callback). It is called once per host and
	// used when Route is nil.
	ClientConfig func(t hostio.Target) (*ssh.ClientConfig, error)
	// Route returns how to reach a target: the jump hosts to go through
	// (outermost first) and the host itself. It takes precedence over
	// ClientConfig.
	Route func(t hostio.Target) (Route, error)
	// Dial opens the TCP connection to the first hop (default: net.Dialer).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// HostNotes returns remarks for a host's report (e.g. host key checking
	// disabled), whether or not the host could be reached. Optional.
	HostNotes func(t hostio.Target) []string
	// MaxCommandOutput, MaxHostOutput and MaxScanOutput cap the output
	// one command, one host and the whole scan may return (bytes; 0 means
	// the Default* value, negative no cap). See outputcap.go.
	MaxCommandOutput, MaxHostOutput, MaxScanOutput int64

	jumps    jumpPool
	scanOnce sync.Once
	scan     *budget
}

// Hop is one SSH server to log in to: a jump host or the target itself.
type Hop struct {
	// Name is how the hop is named in messages (the alias the user typed).
	Name string
	// Addr is the host:port to dial (from the previous hop, if any).
	Addr string
	// HostKeyName is the name the host key is checked under in
	// known_hosts (host:port); default Addr.
	HostKeyName string
	Config      *ssh.ClientConfig
	// Auth, if set, explains authentication failures.
	Auth *AuthLog
}

// Route is how to reach one target.
type Route struct {
	Jumps []Hop
	Host  Hop
}

// Name implements Runner.
func (r *SSHRunner) Name() string { return "ssh" }

// TargetNotes implements the optional notes interface Collect consults for
// every host, reached or not.
func (r *SSHRunner) TargetNotes(t hostio.Target) []string {
	if r.HostNotes == nil {
		return nil
	}
	return r.HostNotes(t)
}

// Close closes the jump host connections kept for reuse. Call it when the
// scan is over.
func (r *SSHRunner) Close() error { return r.jumps.close() }

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (r *SSHRunner) route(t hostio.Target) (Route, error) {
	if r.Route != nil {
		return r.Route(t)
	}
	if r.ClientConfig == nil {
		return Route{}, errors.New("ssh transport has no client configuration")
	}
	cfg, err := r.ClientConfig(t)
	if err != nil {
		return Route{}, err
	}
	return Route{Host: Hop{Name: t.Name, Addr: t.DialAddr(), Config: cfg}}, nil
}

func (r *SSHRunner) baseDial() dialFunc {
	if r.Dial != nil {
		return r.Dial
	}
	var d net.Dialer
	return d.DialContext
}

// Open implements Runner: TCP connect (through the jump hosts, if any),
// SSH handshake, host key check, authentication.
func (r *SSHRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	rt, err := r.route(t)
	if err != nil {
		return nil, err
	}
	dial := r.baseDial()
	via := ""
	if len(rt.Jumps) > 0 {
		jc, err := r.jumps.get(ctx, rt.Jumps, dial)
		if err != nil {
			return nil, err
		}
		dial = jc.DialContext
		last := rt.Jumps[len(rt.Jumps)-1]
		via = fmt.Sprintf(" via jump host %s (%s)", last.Name, last.Addr)
	}
	client, err := connectHop(ctx, dial, rt.Host, via)
	if err != nil {
		return nil, err
	}
	conn := &sshConn{role: t.Role, client: client, lost: make(chan struct{}), budget: newBudget("host", r.maxHostOutput(), r.scanBudget()), maxCmd: r.maxCommandOutput()}
	go func() {
		client.Wait()
		close(conn.lost)
	}()
	return conn, nil
}

// connectHop dials one hop and logs in.
func connectHop(ctx context.Context, dial dialFunc, hop Hop, via string) (*ssh.Client, error) {
	addr := hop.Addr
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, describeDialError(addr+via, err)
	}
	// The handshake has no context: bound it with a deadline and close the
	// socket if ctx ends first.
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	name := hop.HostKeyName
	if name == "" {
		name = addr
	}
	c, chans, reqs, err := ssh.NewClientConn(nc, name, hop.Config)
	stopped := stop()
	if err != nil {
		nc.Close()
		return nil, describeHandshakeError(hop, via, err, !stopped || ctx.Err() != nil)
	}
	nc.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

func describeDialError(addr string, err error) error {
	var op *net.OpError
	var dns *net.DNSError
	msg := err.Error()
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("cannot connect to %s: cannot resolve host name %q (%s; check the name, or set HostName in ~/.ssh/config)", addr, dns.Name, dns.Err)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("cannot connect to %s: connection timed out (host down, filtered, or SSH disabled)", addr)
	case errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && strings.Contains(msg, "refused")) ||
		strings.Contains(msg, "Connection refused"):
		return hostio.RefusedError(addr)
	}
	return fmt.Errorf("cannot connect to %s: %v", addr, err)
}

func describeHandshakeError(hop Hop, via string, err error, ctxEnded bool) error {
	var unknown *UnknownHostKeyError
	var changed *HostKeyChangedError
	var revoked *RevokedHostKeyError
	switch {
	case errors.As(err, &changed):
		return changed
	case errors.As(err, &unknown):
		return unknown
	case errors.As(err, &revoked):
		return revoked
	}
	var ne net.Error
	if ctxEnded || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("ssh handshake with %s%s timed out: the host accepted TCP but did not complete SSH", hop.Addr, via)
	}
	if isAuthGiveUp(err) || strings.Contains(err.Error(), "unable to authenticate") || strings.Contains(err.Error(), "too many authentication") {
		user := ""
		if hop.Config != nil {
			user = hop.Config.User
		}
		return describeAuthError(user, hop.Addr+via, err, hop.Auth)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("ssh handshake with %s%s failed: the server closed the connection (sshd refused us: MaxStartups, or TCP wrappers?)", hop.Addr, via)
	}
	return fmt.Errorf("ssh handshake with %s%s failed: %w", hop.Addr, via, err)
}

type sshConn struct {
	client *ssh.Client
	once   sync.Once
	// role is the target's (hostio.RoleGuest: the guest allowlist).
	role string
	// lost is closed when the connection ends (closed by us or dropped).
	lost   chan struct{}
	closed atomic.Bool
	// completed counts commands that reported an exit status.
	completed atomic.Int64
	// budget is the host's output allowance; maxCmd caps one command.
	budget *budget
	maxCmd int64
	// wedged is set once the server let a session open go unanswered for
	// a whole command timeout: later commands fail at once instead of
	// each waiting for its own timeout.
	wedged atomic.Pointer[hostio.StallError]
	// lostSeen is set when a command found the connection gone (before
	// the watcher may have closed lost).
	lostSeen atomic.Bool
}

func (c *sshConn) Notes() []string { return nil }

// Close closes the connection, which ends every call still waiting on it
// (session opens, exec requests, reads, keepalives). It does not block.
func (c *sshConn) Close() error {
	var err error
	c.once.Do(func() {
		c.closed.Store(true)
		err = c.client.Close()
	})
	return err
}

// LostAfter reports whether the connection was lost (not closed by us) and
// how many commands had completed on it by then.
func (c *sshConn) LostAfter() (int, bool) {
	if c.closed.Load() {
		return 0, false
	}
	if c.lostSeen.Load() {
		return int(c.completed.Load()), true
	}
	select {
	case <-c.lost:
		return int(c.completed.Load()), true
	default:
		return 0, false
	}
}

// keepaliveWait bounds how long alive waits for the server's reply.
const keepaliveWait = 2 * time.Second

// alive asks the server for a reply on the connection: it fails at once
// when the connection is gone (the mux closes its reply channel), which
// tells a dropped connection from a failure of one command. A server that
// ignores the request is given keepaliveWait (or until ctx ends) and then
// counted as alive: it cannot be told apart, and the caller's error stands.
func (c *sshConn) alive(ctx context.Context) bool {
	select {
	case <-c.lost:
		return false
	default:
	}
	reply := make(chan error, 1)
	go func() {
		_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
		reply <- err
	}()
	t := time.NewTimer(keepaliveWait)
	defer t.Stop()
	select {
	case err := <-reply:
		return err == nil
	case <-c.lost:
		return false
	case <-t.C:
	case <-ctx.Done():
	}
	return true
}

// lostErr wraps err when the connection is gone.
func (c *sshConn) lostErr(ctx context.Context, err error) error {
	if c.alive(ctx) {
		return err
	}
	c.lostSeen.Store(true)
	return fmt.Errorf("connection lost after %d commands: %w", c.completed.Load(), err)
}

// Run implements Conn: one session per command; a command still running
// when ctx ends is abandoned and its session closed. Every step that waits
// for the server (session open, exec reply, output, exit status) is bounded
// by ctx; the calls left waiting end when the connection is closed. A line
// outside the allowlist is refused before any session is opened.
func (c *sshConn) Run(ctx context.Context, line string) (res hostio.Result) {
	defer func() {
		// The host's deadline (or the scan's end) closed the connection
		// under the command: report that, not the broken connection.
		if res.Err != nil && ctx.Err() != nil && c.closed.Load() && !errors.Is(res.Err, ctx.Err()) {
			res.Err = fmt.Errorf("%w (%v)", ctx.Err(), res.Err)
		}
	}()
	if err := collect.CheckAllowedFor(c.role, line); err != nil {
		return hostio.Result{Err: err, ExitCode: -1}
	}
	if w := c.wedged.Load(); w != nil {
		return hostio.Result{Err: w, ExitCode: -1}
	}
	sess, err := c.newSession(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return hostio.Result{Err: err, ExitCode: -1}
		}
		return hostio.Result{Err: c.lostErr(ctx, fmt.Errorf("cannot open SSH session: %w", err)), ExitCode: -1}
	}
	// Closing sends a message the server may never read: never wait on it.
	defer closeAsync(sess, false)
	out := newCmdOutput(c.maxCmd, c.budget)
	sess.Stdout, sess.Stderr = out.writers()
	started := make(chan error, 1)
	go func() { started <- sess.Start(line) }()
	select {
	case err = <-started:
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return hostio.Result{Err: &hostio.StallError{What: "the exec request", Err: ctx.Err()}, ExitCode: -1}
		}
		// A whole command timeout without a reply: the server is wedged;
		// later commands fail at once.
		c.wedged.CompareAndSwap(nil, &hostio.StallError{What: "an exec request (the host opened the session, then stopped answering: sshd wedged?)", Err: ctx.Err()})
		return hostio.Result{Err: c.wedged.Load(), ExitCode: -1}
	}
	if err != nil {
		return hostio.Result{Err: c.lostErr(ctx, fmt.Errorf("cannot start command: %w", err)), ExitCode: -1}
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err = <-done:
	case <-out.capped:
		closeAsync(sess, true)
		return hostio.Result{Err: out.capErr(), ExitCode: -1}
	case <-ctx.Done():
		// Abandon it: the output so far is kept.
		closeAsync(sess, true)
		stdout, stderr := out.take()
		return hostio.Result{Stdout: stdout, Stderr: stderr, ExitCode: -1, Err: ctx.Err()}
	}
	if cerr := out.capErr(); cerr != nil {
		return hostio.Result{Err: cerr, ExitCode: -1}
	}
	stdout, stderr := out.take()
	res = hostio.Result{Stdout: stdout, Stderr: stderr}
	var exitErr *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		c.completed.Add(1)
	case errors.As(err, &exitErr):
		c.completed.Add(1)
		res.ExitCode = exitErr.ExitStatus()
	case errors.As(err, &missing):
		res.ExitCode = -1
		res.Err = c.lostErr(ctx, errors.New("the command ended without reporting its exit status"))
	default:
		res.ExitCode = -1
		res.Err = c.lostErr(ctx, err)
	}
	return res
}

// closeAsync closes a session (after asking the command to stop) without
// waiting: a server that does not read would block the write.
func closeAsync(sess *ssh.Session, kill bool) {
	go func() {
		if kill {
			sess.Signal(ssh.SIGKILL)
		}
		sess.Close()
	}()
}

// newSession opens a session, retrying while the server refuses it for
// lack of sessions: sshd counts a session until it has processed the
// close, so a session opened right after another closed can be refused
// even below MaxSessions. OpenSSH (and so ESXi) refuses with "connect
// failed" and the message "open failed"; other servers with "resource
// shortage". Other errors are returned at once. A server that never
// answers the open is given until ctx ends; the connection is then marked
// wedged.
func (c *sshConn) newSession(ctx context.Context) (*ssh.Session, error) {
	backoff := 5 * time.Millisecond
	var refused error
	for {
		sess, err := c.openSession(ctx, refused == nil)
		if err != nil && refused != nil && ctx.Err() != nil {
			err = refused // it answers, and kept refusing
		}
		if err == nil || !sessionRefused(err) {
			return sess, err
		}
		refused = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cannot open SSH session: %w (still refused when the command timed out: %w)", err, ctx.Err())
		case <-time.After(backoff):
		}
		if backoff < 200*time.Millisecond {
			backoff *= 2
		}
	}
}

// openSession opens one session within ctx. Only a first attempt left
// unanswered for the whole of ctx marks the connection wedged: a server
// that has answered (refusing) is alive.
func (c *sshConn) openSession(ctx context.Context, first bool) (*ssh.Session, error) {
	type opened struct {
		s   *ssh.Session
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		s, err := c.client.NewSession()
		ch <- opened{s, err}
	}()
	select {
	case o := <-ch:
		return o.s, o.err
	case <-ctx.Done():
		// A session that opens later is closed at once; the call ends
		// with the connection at the latest.
		go func() {
			if o := <-ch; o.s != nil {
				o.s.Close()
			}
		}()
		if !first || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &hostio.StallError{What: "the session open", Err: ctx.Err()}
		}
		c.wedged.CompareAndSwap(nil, &hostio.StallError{What: "a session open (the host accepted the login, then stopped answering: sshd wedged?)", Err: ctx.Err()})
		return nil, c.wedged.Load()
	}
}

// sessionRefused reports whether a session open was refused for lack of
// sessions on the connection (worth retrying once one closes).
func sessionRefused(err error) bool {
	var oce *ssh.OpenChannelError
	if !errors.As(err, &oce) {
		return false
	}
	return oce.Reason == ssh.ResourceShortage ||
		(oce.Reason == ssh.ConnectionFailed && oce.Message == "open failed")
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
