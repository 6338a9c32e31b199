package sshrun

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Credentials are what the scanner may log in with: private keys (files
// and ssh-agent) and a password. One Credentials serves every connection
// of a scan; it is safe for concurrent use.
//
// Methods are offered in this order, each at most once per connection:
// publickey (identity files, then agent keys), keyboard-interactive, then
// password. The password is sent at most once per connection: ESXi's sshd
// accepts passwords only through keyboard-interactive, and a server that
// advertises both methods would otherwise count one wrong password twice
// towards MaxAuthTries and account lockout. So the "password" method is
// used only when keyboard-interactive did not already send the password
// (the server does not offer it, or asked no password question).
type Credentials struct {
	// Password, if HasPassword, is sent on keyboard-interactive password
	// prompts and through the password method.
	Password    string
	HasPassword bool
	// Agent, if set, provides keys (ssh-agent, SSH_AUTH_SOCK).
	Agent agent.Agent
	// IdentityFiles are private key files offered to every host (-i),
	// before any that a host's ssh_config entry names.
	IdentityFiles []string

	mu      sync.Mutex
	keys    map[string]keyEntry
	agentKS []ssh.Signer
	agentOK bool
}

type keyEntry struct {
	signer ssh.Signer
	pub    ssh.PublicKey // from FILE.pub when the key itself is encrypted
	err    error
}

// ErrEncryptedKey is wrapped in the error for a passphrase-protected key
// that ssh-agent does not hold.
var ErrEncryptedKey = errors.New("key is passphrase-protected")

// LoadKey reads and parses a private key file once (cached). A
// passphrase-protected key yields ErrEncryptedKey; its public half is kept
// (from FILE.pub) so that the agent's copy can be used.
func (c *Credentials) LoadKey(path string) (ssh.Signer, error) {
	e := c.loadKey(path)
	return e.signer, e.err
}

func (c *Credentials) loadKey(path string) keyEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = map[string]keyEntry{}
	}
	if e, ok := c.keys[path]; ok {
		return e
	}
	var e keyEntry
	b, err := hostio.ReadFileCapped(path, hostio.MaxConfigFile)
	if err != nil {
		e.err = fmt.Errorf("cannot read key %s: %w", path, err)
	} else if s, err := ssh.ParsePrivateKey(b); err == nil {
		e.signer = s
	} else {
		var pm *ssh.PassphraseMissingError
		if errors.As(err, &pm) {
			e.pub = pm.PublicKey
			if e.pub == nil {
				if pb, err := hostio.ReadFileCapped(path+".pub", hostio.MaxConfigFile); err == nil {
					e.pub, _, _, _, _ = ssh.ParseAuthorizedKey(pb)
				}
			}
			e.err = fmt.Errorf("%s: %w; load it into ssh-agent (ssh-add %s)", path, ErrEncryptedKey, path)
		} else {
			e.err = fmt.Errorf("cannot parse key %s: %w", path, err)
		}
	}
	c.keys[path] = e
	return e
}

func (c *Credentials) agentSigners() []ssh.Signer {
	if c.Agent == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.agentOK {
		c.agentOK = true
		if s, err := c.Agent.Signers(); err == nil {
			c.agentKS = s
		}
	}
	return c.agentKS
}

// Signers returns the keys to offer, in order: the identity files (-i,
// then extra, e.g. a host's IdentityFile entries; unreadable or encrypted
// ones skipped), then the agent's keys not already listed. With
// identitiesOnly (ssh_config IdentitiesOnly yes) agent keys are offered only
// when they match one of the identity files.
func (c *Credentials) Signers(extra []string, identitiesOnly bool) []ssh.Signer {
	var out []ssh.Signer
	var pubs []ssh.PublicKey
	seen := func(k ssh.PublicKey) bool {
		for _, s := range out {
			if bytes.Equal(s.PublicKey().Marshal(), k.Marshal()) {
				return true
			}
		}
		return false
	}
	files := append(append([]string(nil), c.IdentityFiles...), extra...)
	for _, f := range files {
		e := c.loadKey(f)
		if e.signer != nil && !seen(e.signer.PublicKey()) {
			out = append(out, e.signer)
		}
		if e.signer != nil {
			pubs = append(pubs, e.signer.PublicKey())
		} else if e.pub != nil {
			pubs = append(pubs, e.pub)
		}
	}
	for _, s := range c.agentSigners() {
		if seen(s.PublicKey()) {
			continue
		}
		if identitiesOnly {
			match := false
			for _, p := range pubs {
				match = match || bytes.Equal(p.Marshal(), s.PublicKey().Marshal())
			}
			if !match {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// AuthLog records, for one connection, what the server allowed and what
// was tried, to explain a failed login.
type AuthLog struct {
	mu      sync.Mutex
	allowed []string
	tried   []string
	pwSent  bool
	// pwMethod is the method the password went through, as the server
	// saw it: "keyboard-interactive" or "password".
	pwMethod string
	keys     int
}

// Allowed are the methods the server last said may continue.
func (l *AuthLog) Allowed() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.allowed...)
}

func (l *AuthLog) callback(ctx *ssh.ClientAuthContext) (ssh.AuthMethod, error) {
	l.mu.Lock()
	l.allowed = ctx.AllowedMethods
	l.tried = ctx.TriedMethods
	l.mu.Unlock()
	return nil, nil // pick from ClientConfig.Auth, in order
}

// markPassword reports whether the password may be sent now, and records
// that it was, through method.
func (l *AuthLog) markPassword(method string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pwSent {
		return false
	}
	l.pwSent, l.pwMethod = true, method
	return true
}

// PasswordMethod is the method the password was sent through ("" if it
// was not sent).
func (l *AuthLog) PasswordMethod() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pwMethod
}

// rePasswordPrompt is a prompt for the account's password ("Password: ",
// "Password for root@esx01: ", "root@esx01's password: ").
var rePasswordPrompt = regexp.MustCompile(`(?i)\bpassword\b`)

// reNotThePassword is a prompt that names a password but asks for
// something else: a one-time code, a new password, a confirmation.
var reNotThePassword = regexp.MustCompile(`(?i)\b(one[- ]?time|otp|token|code|passcode|pin|verification|verify|2fa|mfa|new|again|retype|re-enter|confirm|old|current|expired)\b`)

// isPasswordPrompt reports whether a keyboard-interactive question asks
// for the account's password and nothing else.
func isPasswordPrompt(q string) bool {
	return rePasswordPrompt.MatchString(q) && !reNotThePassword.MatchString(q)
}

// errPasswordSpent makes the password method give way without sending
// anything: keyboard-interactive already sent the password.
var errPasswordSpent = errors.New("password already sent through keyboard-interactive; not sending it twice")

// errKbdDeclined wraps the reasons the keyboard-interactive callback gives
// up (a non-password question, a second password prompt).
var errKbdDeclined = errors.New("keyboard-interactive declined")

// isAuthGiveUp reports whether err ends authentication on our side.
func isAuthGiveUp(err error) bool {
	return errors.Is(err, errPasswordSpent) || errors.Is(err, errKbdDeclined)
}

// passwordMethods returns keyboard-interactive and password methods that
// together send the password at most once per connection.
func passwordMethods(password string, log *AuthLog) []ssh.AuthMethod {
	return []ssh.AuthMethod{
		ssh.KeyboardInteractive(func(name, instruction string, questions []string, echos []bool) ([]string, error) {
			// ESXi starts with a round without questions: answer it empty.
			if len(questions) == 0 {
				return nil, nil
			}
			// Only a round asking for the password alone is answered, and
			// only with it: never an OTP or other question, never the
			// password to several questions at once.
			if len(questions) > 1 {
				return nil, fmt.Errorf("%w: keyboard-interactive asked %d questions at once (%s): only a single password prompt is answered",
					errKbdDeclined, len(questions), quoteList(questions))
			}
			q := questions[0]
			if len(echos) > 0 && echos[0] || !isPasswordPrompt(q) {
				return nil, fmt.Errorf("%w: keyboard-interactive asked %q, which is not a password prompt: not answered", errKbdDeclined, q)
			}
			if !log.markPassword("keyboard-interactive") {
				return nil, fmt.Errorf("%w: keyboard-interactive asked for the password again (%q); not retrying, to avoid account lockout", errKbdDeclined, q)
			}
			return []string{password}, nil
		}),
		ssh.PasswordCallback(func() (string, error) {
			if !log.markPassword("password") {
				return "", errPasswordSpent
			}
			return password, nil
		}),
	}
}

// PasswordAuth returns the methods that log in with a password:
// keyboard-interactive (ESXi's only password method; rounds with zero
// questions are answered empty, password prompts with the password), then
// the password method, which is used only if keyboard-interactive did not
// already send the password. Call it once per connection.
func PasswordAuth(password string) []ssh.AuthMethod {
	return passwordMethods(password, &AuthLog{})
}

// ClientAuth returns the auth methods and the AuthLog for one connection.
// extraKeys are a host's own identity files; withPassword false keeps the
// password from this server (jump hosts).
func (c *Credentials) ClientAuth(extraKeys []string, identitiesOnly, withPassword bool) ([]ssh.AuthMethod, *AuthLog, ssh.ClientAuthCallback) {
	log := &AuthLog{}
	var methods []ssh.AuthMethod
	signers := c.Signers(extraKeys, identitiesOnly)
	log.keys = len(signers)
	if len(signers) > 0 {
		methods = append(methods, ssh.PublicKeys(signers...))
	}
	if withPassword && c.HasPassword {
		methods = append(methods, passwordMethods(c.Password, log)...)
	}
	return methods, log, log.callback
}

// DialAgent connects to the ssh-agent at socket (SSH_AUTH_SOCK).
func DialAgent(socket string) (agent.ExtendedAgent, net.Conn, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach ssh-agent at %s: %w", socket, err)
	}
	return agent.NewClient(conn), conn, nil
}

var reAttempted = regexp.MustCompile(`attempted methods \[([^\]]*)\]`)

// describeAuthError explains a failed login in one line.
func describeAuthError(user, addr string, err error, log *AuthLog) error {
	var tried []string
	if m := reAttempted.FindStringSubmatch(err.Error()); m != nil {
		for _, t := range strings.Fields(m[1]) {
			if t != "none" {
				tried = append(tried, t)
			}
		}
	} else if log != nil {
		log.mu.Lock()
		for _, t := range log.tried {
			if t != "none" && !containsStr(tried, t) {
				tried = append(tried, t)
			}
		}
		log.mu.Unlock()
	}
	msg := fmt.Sprintf("authentication failed for %s@%s: wrong password or key not accepted", user, addr)
	if len(tried) > 0 {
		msg += " (tried " + strings.Join(tried, ", ")
	} else {
		msg += " (no method could be tried"
	}
	if log != nil {
		if allowed := log.Allowed(); len(allowed) > 0 {
			msg += "; the server accepts " + strings.Join(allowed, ", ")
		}
		if log.keys == 0 && !containsStr(tried, "keyboard-interactive") && !containsStr(tried, "password") {
			msg += "; no key and no password available: use -i FILE, ssh-agent, --password-env, --password-file or --ask-password"
		}
	}
	if log != nil {
		if m := log.PasswordMethod(); m != "" {
			msg += "; the password was sent once, by " + m
		}
	}
	msg += ")"
	if errors.Is(err, errKbdDeclined) {
		msg += ": " + strings.TrimPrefix(err.Error(), "ssh: handshake failed: ")
	}
	return errors.New(msg)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// quoteList quotes each question, for an error message.
func quoteList(qs []string) string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = strconv.Quote(q)
	}
	return strings.Join(out, ", ")
}
