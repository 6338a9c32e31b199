package sshrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/ssh"
)

// jumpPool keeps one connection per jump host chain (ProxyJump) for the
// whole scan: many hosts behind one bastion share a single login to it.
// A failed login is remembered and reported to every host behind it (no
// retry storm that could lock the bastion account); a connection that
// drops is re-established by the next host that needs it.
type jumpPool struct {
	mu      sync.Mutex
	entries map[string]*jumpEntry
	closed  bool
}

type jumpEntry struct {
	ready   chan struct{}
	clients []*ssh.Client // outermost first; the last one dials targets
	err     error
	dead    atomic.Bool
}

func jumpKey(hops []Hop) string {
	var parts []string
	for _, h := range hops {
		user := ""
		if h.Config != nil {
			user = h.Config.User
		}
		parts = append(parts, user+"@"+h.Addr)
	}
	return strings.Join(parts, ",")
}

// get returns the client of the last hop of the chain, connecting it if
// needed.
func (p *jumpPool) get(ctx context.Context, hops []Hop, dial dialFunc) (*ssh.Client, error) {
	key := jumpKey(hops)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("ssh transport closed")
	}
	if p.entries == nil {
		p.entries = map[string]*jumpEntry{}
	}
	e := p.entries[key]
	if e != nil && e.dead.Load() {
		e = nil
	}
	if e != nil {
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("cannot connect via jump host %s: connection timed out", hops[len(hops)-1].Name)
		}
		if e.err != nil {
			return nil, e.err
		}
		return e.clients[len(e.clients)-1], nil
	}
	e = &jumpEntry{ready: make(chan struct{})}
	p.entries[key] = e
	p.mu.Unlock()

	// Connect with this host's deadline, but not its cancellation: other
	// hosts are waiting for the same jump host.
	cctx := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		cctx, cancel = context.WithDeadline(cctx, dl)
		defer cancel()
	}
	e.clients, e.err = connectChain(cctx, hops, dial)
	if e.err == nil {
		last := e.clients[len(e.clients)-1]
		go func() {
			last.Wait()
			e.dead.Store(true)
		}()
	}
	p.mu.Lock()
	if p.closed && e.err == nil {
		closeAll(e.clients)
		e.err = errors.New("ssh transport closed")
	}
	p.mu.Unlock()
	close(e.ready)
	if e.err != nil {
		return nil, e.err
	}
	return e.clients[len(e.clients)-1], nil
}

func connectChain(ctx context.Context, hops []Hop, dial dialFunc) ([]*ssh.Client, error) {
	var clients []*ssh.Client
	for i, h := range hops {
		via := ""
		if i > 0 {
			prev := hops[i-1]
			via = fmt.Sprintf(" via jump host %s (%s)", prev.Name, prev.Addr)
		}
		c, err := connectHop(ctx, dial, h, via)
		if err != nil {
			closeAll(clients)
			return nil, fmt.Errorf("jump host %s: %w", h.Name, err)
		}
		clients = append(clients, c)
		dial = c.DialContext
	}
	return clients, nil
}

func closeAll(clients []*ssh.Client) {
	for i := len(clients) - 1; i >= 0; i-- {
		clients[i].Close()
	}
}

func (p *jumpPool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, e := range p.entries {
		select {
		case <-e.ready:
			if e.err == nil {
				closeAll(e.clients)
			}
		default: // still connecting: get closes it when done
		}
	}
	return nil
}
