// Package collect runs the read-only commands of the catalogue on ESXi hosts
// and returns their raw results as Captures. It knows nothing about what the
// output means beyond what it needs to plan the dependent stage.
package collect

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Options controls a collection run.
type Options struct {
	Runner hostio.Runner
	// Concurrency bounds how many hosts connect and collect at once (default 128).
	Concurrency int
	// SessionsPerHost caps concurrent commands on one connection (default 8;
	// ESXi's sshd allows 10 sessions per connection).
	SessionsPerHost int
	// CommandTimeout bounds one command (default 30s).
	CommandTimeout time.Duration
	// HostTimeout bounds one host from connect to last command (default 3m).
	HostTimeout time.Duration
	// ConnectTimeout bounds connecting and authenticating (default 15s).
	ConnectTimeout time.Duration
	// Probes enables the vmkping path probes between hosts (stage 3).
	Probes bool
	// ProbeMode is ProbesRing (default) or ProbesAll (every ordered pair).
	ProbeMode string
	// ProbePeers is how many peers each host probes in ring mode (default
	// 3): the next hosts in name order, in a ring, so every host is probed
	// from and to.
	ProbePeers int
	// ProbeBudget caps the ordered pairs probed in the fleet (0: no cap);
	// the hosts say how many were left out.
	ProbeBudget int
	// ProbeTimeout bounds the probe stage of one host (default 2m), within
	// HostTimeout.
	ProbeTimeout time.Duration
	// Peers are earlier results of hosts that are not scanned in this run
	// (a rescan of a few hosts): the scanned hosts still probe their paths
	// to them, using the addresses found in those results.
	Peers []hostio.HostResult
	// Progress, if set, receives events; it must not block for long.
	Progress func(hostio.Event)
	// Logger receives one line per host state change (default: discard).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MaxStage2 caps the follow-up commands planned for one host (default
	// DefaultMaxStage2); the rest are named in a note on the host.
	MaxStage2 int
	// StopGrace is how long Collect waits, once ctx is cancelled, for
	// hosts to wind down before it returns what they have (default 5s).
	StopGrace time.Duration
	// Abort, when closed, makes Collect return at once with what has been
	// collected so far (a second Ctrl-C).
	Abort <-chan struct{}
	// Extra, if set, returns captures a host gets from another source
	// (vCenter), added to its result whatever happens over its connection:
	// a host that could not be reached keeps them and is partial.
	Extra func(hostio.Target) []hostio.Capture
	// intern holds one copy of each output the hosts repeat (a cluster
	// built alike prints the same firewall rulesets, PCI devices, drivers).
	intern *hostio.Interner
}

func (o *Options) defaults() {
	if o.intern == nil {
		o.intern = &hostio.Interner{}
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 128
	}
	if o.SessionsPerHost <= 0 {
		o.SessionsPerHost = 8
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 30 * time.Second
	}
	if o.HostTimeout <= 0 {
		o.HostTimeout = 3 * time.Minute
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 15 * time.Second
	}
	if o.ProbePeers <= 0 {
		o.ProbePeers = 3
	}
	if o.ProbeMode == "" {
		o.ProbeMode = ProbesRing
	}
	if o.ProbeMode == ProbesOff {
		o.Probes = false
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxStage2 <= 0 {
		o.MaxStage2 = DefaultMaxStage2
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Collect scans every target and returns one HostResult per target, in the
// order given. One host's failure never stops the others. Each host gets
// exactly one connection: stage 1 commands run concurrently on it (capped by
// SessionsPerHost), the ones stage 2 is planned from first; the stage 2
// commands start as soon as those are in; and, with Probes, vmkping probes
// to peers run once every host has reported its PVRDMA vmknic address.
func Collect(ctx context.Context, targets []hostio.Target, opts Options) []hostio.HostResult {
	opts.defaults()
	results := make([]hostio.HostResult, len(targets))
	board := newProbeBoard(targets, opts.Peers, opts.Probes)
	slots := make(chan struct{}, opts.Concurrency)
	st := &collectState{runs: make([]*hostRun, len(targets)), finished: make([]bool, len(targets))}
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := collectHost(ctx, t, opts, slots, board, func(h *hostRun) { st.register(i, h) })
			st.mu.Lock()
			if !st.finished[i] {
				results[i], st.finished[i] = r, true
			}
			st.mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return results
	case <-ctx.Done():
	case <-opts.Abort:
	}
	// Stopping: every host's connection is closed by now, so hosts end
	// within moments; a host that does not is reported with what it has.
	grace := time.NewTimer(opts.StopGrace)
	defer grace.Stop()
	select {
	case <-done:
		return results
	case <-grace.C:
	case <-opts.Abort:
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]hostio.HostResult, len(targets))
	for i, t := range targets {
		if st.finished[i] {
			out[i] = results[i]
			continue
		}
		st.finished[i] = true
		out[i] = st.runs[i].snapshot(t, opts)
	}
	return out
}

// collectState tracks the hosts of a Collect run so that a stopped scan
// can report hosts that have not finished.
type collectState struct {
	mu       sync.Mutex
	runs     []*hostRun
	finished []bool
}

func (s *collectState) register(i int, h *hostRun) {
	s.mu.Lock()
	s.runs[i] = h
	s.mu.Unlock()
}

// snapshot is the result of a host that had not finished when the scan
// stopped: the commands that had completed, nothing else.
func (h *hostRun) snapshot(t hostio.Target, opts Options) hostio.HostResult {
	res := hostio.HostResult{Host: t.Name, Address: t.Addr, Transport: opts.Runner.Name(), Start: opts.Now(),
		Status: hostio.StatusNotCollected, Reason: "scan stopped before this host was reached"}
	if h == nil {
		return res
	}
	h.mu.Lock()
	res.Start = h.start
	res.QueueWait = h.res.QueueWait
	res.Captures = append([]hostio.Capture(nil), h.res.Captures...)
	h.mu.Unlock()
	res.Duration = opts.Now().Sub(res.Start)
	if !h.connected.Load() {
		res.Reason = "scan stopped while connecting to this host"
		return res
	}
	res.Status = hostio.StatusPartial
	res.Reason = fmt.Sprintf("scan stopped before this host finished: %d commands collected, the ones still running are not reported", len(res.Captures))
	sort.SliceStable(res.Captures, func(i, j int) bool { return stageOf(res.Captures[i]) < stageOf(res.Captures[j]) })
	return res
}

type hostRun struct {
	opts   Options
	target hostio.Target
	conn   hostio.Conn
	sem    chan struct{}
	mu     sync.Mutex
	res    *hostio.HostResult
	total  int
	// start and connected are read by snapshot while the host runs.
	start     time.Time
	connected atomic.Bool
	// closedAtEnd: the host's deadline (or the scan's end) closed its
	// connection; a command or the connection failing after that is the
	// close's doing, not the host's.
	closedAtEnd atomic.Bool
}

func (h *hostRun) emit(p hostio.Phase, err string) {
	if h.opts.Progress == nil {
		return
	}
	h.mu.Lock()
	done := len(h.res.Captures)
	total := h.total
	h.mu.Unlock()
	ev := hostio.Event{Host: h.target.Name, Phase: p, Done: done, Total: total, Err: err, Time: h.opts.Now()}
	if p == hostio.PhaseDone || p == hostio.PhaseFailed {
		r := *h.res
		ev.Result = &r
	}
	h.opts.Progress(ev)
}

func collectHost(ctx context.Context, t hostio.Target, opts Options, slots chan struct{}, board *probeBoard, register func(*hostRun)) hostio.HostResult {
	res := &hostio.HostResult{Host: t.Name, Address: t.Addr, Transport: opts.Runner.Name(), Start: opts.Now(), Role: t.Role}
	h := &hostRun{opts: opts, target: t, res: res, sem: make(chan struct{}, opts.SessionsPerHost), start: res.Start}
	register(h)
	log := opts.Logger.With("host", t.Name)
	if n, ok := opts.Runner.(interface{ TargetNotes(hostio.Target) []string }); ok {
		res.Notes = append(res.Notes, n.TargetNotes(t)...)
	}
	h.emit(hostio.PhaseQueued, "")

	finish := func(p hostio.Phase) hostio.HostResult {
		res.Duration = opts.Now().Sub(res.Start)
		h.mu.Lock()
		sort.SliceStable(res.Captures, func(i, j int) bool { return stageOf(res.Captures[i]) < stageOf(res.Captures[j]) })
		h.mu.Unlock()
		unreached := res.Status == hostio.StatusNotCollected
		var extra []hostio.Capture
		if opts.Extra != nil {
			extra = opts.Extra(t)
		}
		if unreached && len(extra) > 0 {
			// Say, for every command the host did not answer, why.
			for _, c := range Stage1() {
				res.Captures = append(res.Captures, hostio.Capture{Host: t.Name, Command: c.Line, Kind: c.Kind, Status: hostio.StatusSkipped,
					Start: res.Start, Error: hostio.CauseHostUnreached.Error(res.Reason), Cause: hostio.CauseHostUnreached})
			}
			res.Status = ""
		}
		res.Captures = append(res.Captures, extra...)
		res.Finalize()
		if unreached && len(extra) > 0 {
			res.Status, res.Reason = hostio.StatusPartial, res.Reason+"; only the data read from vCenter is used"
		}
		board.done(t.Name)
		if h.conn != nil {
			res.Notes = append(res.Notes, h.conn.Notes()...)
			h.conn.Close()
		}
		if res.Status == hostio.StatusNotCollected {
			log.Warn("host not collected", "reason", res.Reason)
		}
		h.emit(p, res.Reason)
		log.Info("host finished", "status", res.Status, "captures", len(res.Captures), "duration", res.Duration.Round(time.Millisecond), "reason", res.Reason)
		return *res
	}

	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		res.Status = hostio.StatusNotCollected
		res.Reason = "scan cancelled before this host was reached"
		res.QueueWait = opts.Now().Sub(res.Start)
		res.Start = res.Start.Add(res.QueueWait)
		return finish(hostio.PhaseFailed)
	}
	// The host's own time starts now: the wait for a slot is the scan's.
	if now := opts.Now(); now.After(res.Start) {
		h.mu.Lock()
		res.QueueWait, res.Start, h.start = now.Sub(res.Start), now, now
		h.mu.Unlock()
	}
	released := false
	release := func() {
		if !released {
			released = true
			<-slots
		}
	}
	defer release()

	hctx, cancel := context.WithTimeout(ctx, opts.HostTimeout)
	defer cancel()

	h.emit(hostio.PhaseConnecting, "")
	if t.Addr != "" {
		log.Info("connecting", "addr", t.Addr)
	} else {
		log.Info("connecting") // the host's name is its address (a host found through vCenter)
	}
	cctx, ccancel := context.WithTimeout(hctx, opts.ConnectTimeout)
	conn, err := opts.Runner.Open(cctx, t)
	ccancel()
	if err != nil {
		res.Status = hostio.StatusNotCollected
		res.Reason = describeConnectError(err, cctx)
		return finish(hostio.PhaseFailed)
	}
	h.conn = conn
	h.connected.Store(true)
	if tc, ok := conn.(interface{ Transport() string }); ok {
		res.Transport = tc.Transport()
	}
	// The host's deadline (or the end of the scan) closes its connection:
	// whatever still waits on the host then returns at once.
	stopClose := context.AfterFunc(hctx, func() {
		h.closedAtEnd.Store(true)
		conn.Close()
	})
	defer stopClose()

	if IsGuest(t) {
		h.runGuest(hctx)
		h.endReason(ctx, hctx, conn)
		return finish(hostio.PhaseDone)
	}

	// Stage 1, the commands stage 2 is planned from first. Stage 2
	// depends on this host's stage 1 only, and on those outputs alone: it
	// starts as soon as they are in, while the rest of stage 1 runs (one
	// round of sessions less on the scan's critical path).
	s1 := Stage1()
	h.total = len(s1)
	h.emit(hostio.PhaseCollecting, "")
	inputs, rest := splitStage1(s1)
	first := h.launch(hctx, inputs)
	<-first.holding
	others := h.launch(hctx, rest)
	first.wait()
	h.mu.Lock()
	caps := slices.Clone(res.Captures)
	h.mu.Unlock()
	s2, planNotes := planStage2(hctx, caps, opts.MaxStage2)
	h.mu.Lock()
	res.Notes = append(res.Notes, planNotes...)
	h.total += len(s2)
	h.mu.Unlock()
	second := h.launch(hctx, s2)
	others.wait()
	if board.enabled {
		// Publish this host's PVRDMA vmknic; probes wait for every host's.
		// Stage 2 is still appending its captures.
		h.mu.Lock()
		caps := slices.Clone(res.Captures)
		h.mu.Unlock()
		src := probeSourceOf(caps)
		if note := unprobeable(src); note != "" {
			res.Notes = append(res.Notes, note)
			src = probeSource{}
		}
		board.publish(t.Name, src)
	}
	if board.enabled {
		// Waiting for peers must not hold a concurrency slot, or hosts not
		// yet started could never publish.
		release()
		h.emit(hostio.PhaseWaiting, "")
		if err := board.wait(hctx); err == nil {
			pairs, notes := board.planFor(t.Name, opts)
			res.Notes = append(res.Notes, notes...)
			h.mu.Lock()
			h.total += len(pairs)
			h.mu.Unlock()
			h.emit(hostio.PhaseProbing, "")
			pctx, pcancel := context.WithTimeout(hctx, opts.ProbeTimeout)
			h.runProbes(pctx, pairs)
			if pctx.Err() != nil && hctx.Err() == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("probe time limit (%s) reached: the remaining path probes of this host were abandoned", opts.ProbeTimeout))
			}
			pcancel()
		}
	}
	second.wait()
	h.endReason(ctx, hctx, conn)
	return finish(hostio.PhaseDone)
}

// endReason says why a host's collection ended early, if it did: the
// connection was lost, or the host timeout was reached.
func (h *hostRun) endReason(ctx, hctx context.Context, conn hostio.Conn) {
	res := h.res
	if h.closedAtEnd.Load() && hctx.Err() != nil && ctx.Err() == nil && res.Reason == "" {
		// The deadline closed the connection: it was not lost.
		res.Reason = fmt.Sprintf("host timeout (%s) reached; remaining commands abandoned", h.opts.HostTimeout)
	}
	if l, ok := conn.(interface{ LostAfter() (int, bool) }); ok && res.Reason == "" {
		if n, lost := l.LostAfter(); lost {
			res.Reason = fmt.Sprintf("connection lost after %d commands; %d commands not collected", n, h.notCollected())
		}
	}
	if hctx.Err() != nil && ctx.Err() == nil && res.Reason == "" {
		res.Reason = fmt.Sprintf("host timeout (%s) reached; remaining commands abandoned", h.opts.HostTimeout)
	}
}

func (h *hostRun) notCollected() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.res.Captures {
		if c.Status != hostio.StatusCollected {
			n++
		}
	}
	return n
}

func describeConnectError(err error, ctx context.Context) string {
	// Transports say what timed out (TCP connect, or an SSH handshake with
	// a port that accepted TCP but did not speak SSH); keep their words.
	if msg := err.Error(); strings.Contains(msg, "timed out") {
		return msg
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return "connection timed out: no SSH answer within the connect timeout (check the address and port, and that SSH is enabled on the host)"
	}
	return err.Error()
}

// runAll runs commands concurrently on the host's connection, capped by the
// per-connection session limit, and appends their captures in command order.
func (h *hostRun) runAll(ctx context.Context, cmds []Command) {
	h.launch(ctx, cmds).wait()
}

// batch is a set of commands started on the host's session slots.
type batch struct {
	// holding is closed once every command of the batch holds a slot
	// (or ctx ended): a batch started after that waits behind it.
	holding chan struct{}
	done    chan struct{}
}

func (b *batch) wait() { <-b.done }

// launch runs cmds on the host's connection, each in its own session once
// it gets one of the host's session slots, taken in command order. Their
// captures are appended as they finish, then re-appended in command order.
func (h *hostRun) launch(ctx context.Context, cmds []Command) *batch {
	b := &batch{holding: make(chan struct{}), done: make(chan struct{})}
	caps := make([]hostio.Capture, len(cmds))
	go func() {
		defer close(b.done)
		var wg sync.WaitGroup
		for i, c := range cmds {
			select {
			case h.sem <- struct{}{}:
			case <-ctx.Done():
				caps[i] = hostio.Capture{Host: h.target.Name, Command: c.Line, Kind: c.Kind, Status: hostio.StatusSkipped,
					Start: h.opts.Now(), Error: "not run: " + ctxReason(ctx)}
				continue
			}
			wg.Go(func() {
				defer func() { <-h.sem }()
				caps[i] = h.run(ctx, c)
				h.mu.Lock()
				h.res.Captures = append(h.res.Captures, caps[i])
				h.mu.Unlock()
				h.emit(hostio.PhaseCollecting, "")
			})
		}
		close(b.holding)
		wg.Wait()
		// Re-append in deterministic (command) order.
		h.mu.Lock()
		defer h.mu.Unlock()
		kept := h.res.Captures[:0]
		inBatch := make(map[string]bool, len(cmds))
		for _, c := range cmds {
			inBatch[c.Line] = true
		}
		for _, c := range h.res.Captures {
			if !inBatch[c.Command] {
				kept = append(kept, c)
			}
		}
		h.res.Captures = append(kept, caps...)
	}()
	return b
}

func ctxReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "host timeout reached"
	}
	return "scan cancelled"
}

func (h *hostRun) run(ctx context.Context, c Command) hostio.Capture {
	capt := hostio.Capture{Host: h.target.Name, Command: c.Line, Kind: c.Kind, Start: h.opts.Now()}
	if err := CheckAllowedFor(h.target.Role, c.Line); err != nil {
		capt.Status = hostio.StatusSkipped
		capt.Error = err.Error()
		return capt
	}
	cctx, cancel := context.WithTimeout(ctx, h.opts.CommandTimeout)
	defer cancel()
	r := h.conn.Run(cctx, c.Line)
	capt.Duration = h.opts.Now().Sub(capt.Start)
	capt.Stdout = h.opts.intern.Owned(r.Stdout)
	capt.Stderr = h.opts.intern.Copy(r.Stderr)
	capt.ExitCode = r.ExitCode
	var stall *hostio.StallError
	switch {
	case hostio.IsOutputCap(r.Err):
		// A flood is not a timeout: say what happened.
		capt.Status = hostio.StatusFailed
		capt.Error = r.Err.Error()
	case r.Err != nil && errors.As(r.Err, &stall) && ctx.Err() == nil:
		capt.Status = hostio.StatusTimedOut
		capt.Error = fmt.Sprintf("no answer within %s to %s; command abandoned", h.opts.CommandTimeout, stall.What)
	case r.Err != nil && cctx.Err() != nil && ctx.Err() == nil && isCtxErr(r.Err):
		capt.Status = hostio.StatusTimedOut
		capt.Error = fmt.Sprintf("no answer within %s; command abandoned", h.opts.CommandTimeout)
		if msg := r.Err.Error(); msg != cctx.Err().Error() {
			capt.Error += " (" + msg + ")"
		}
	case r.Err != nil && ctx.Err() != nil && (isCtxErr(r.Err) || h.closedAtEnd.Load()):
		// The command's own context ended, or the host's end closed the
		// connection under it (the transport may see the close first).
		capt.Status = hostio.StatusTimedOut
		capt.Error = "abandoned: " + ctxReason(ctx)
	case r.Err != nil:
		capt.Cause = hostio.CauseOf(r.Err)
		capt.Status = hostio.StatusFailed
		capt.Error = r.Err.Error()
	default:
		ApplyExit(&capt)
	}
	return capt
}

// ApplyExit sets the status of a capture that ran to its end from its
// exit status (ExitCode, Stdout and Stderr set), as the collector records
// it: a non-zero exit is a failure, except where it is the command's
// answer: a probe that got no (or not all) replies (ping exits non-zero
// on loss, and its output is the evidence of the broken path), a guest
// tool's answer, a host without the command's subject (catalog.Spec.Absent).
// The offline readers of saved outputs with their exit status use it too,
// so that a folder of saved outputs gives the facts its scan gave.
func ApplyExit(capt *hostio.Capture) {
	capt.Status, capt.Error = hostio.StatusCollected, ""
	switch {
	case capt.ExitCode == 0:
	case capt.Kind == catalog.KindVmkping && strings.Contains(capt.Stdout, "PING "):
	case catalog.GuestKind(capt.Kind):
		// A guest tool that exits non-zero still answered (a tool not
		// installed, a module not found, no RDMA device, a kernel log not
		// readable): collected with its exit status and stderr, for the
		// facts to read.
	case absent(*capt):
	default:
		capt.Status = hostio.StatusFailed
		capt.Error = fmt.Sprintf("exit status %d", capt.ExitCode)
		if msg := strings.TrimSpace(firstLine(capt.Stderr)); msg != "" {
			capt.Error += ": " + msg
		} else if msg := strings.TrimSpace(firstLine(capt.Stdout)); msg != "" {
			capt.Error += ": " + msg
		}
	}
}

// isCtxErr reports whether a transport error is the command's context
// ending (a timeout or the scan's end), not a failure of its own.
func isCtxErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// probeBoard lets hosts publish their PVRDMA vmknic address and wait until
// every host has either published or failed, so that probes can target peers.
type probeBoard struct {
	enabled bool
	mu      sync.Mutex
	pending map[string]bool
	sources map[string]probeSource
	names   []string
	ready   chan struct{}
	// ends are the hosts with a vmknic address, sorted: the ring of the
	// pairs, made once every host has published.
	ends []string
}

type probeSource struct {
	Vmknic   string
	Netstack string
	IP       string
	// MTU is the MTU the path from this vmknic is configured for: the
	// larger of the vmknic's and its distributed switch's (0: unknown).
	MTU int
	// Net is the vmknic's subnet (its netmask; invalid: unknown).
	Net netip.Prefix
}

func newProbeBoard(targets []hostio.Target, peers []hostio.HostResult, enabled bool) *probeBoard {
	b := &probeBoard{pending: map[string]bool{}, sources: map[string]probeSource{}, ready: make(chan struct{})}
	for _, t := range targets {
		if IsGuest(t) {
			continue // guests do not probe
		}
		b.pending[t.Name] = true
		b.names = append(b.names, t.Name)
	}
	for _, p := range peers {
		if b.pending[p.Host] {
			continue // scanned again now: its new result counts
		}
		b.names = append(b.names, p.Host)
		if src := probeSourceOf(p.Captures); src.IP != "" && unprobeable(src) == "" {
			b.sources[p.Host] = src
		}
	}
	b.enabled = enabled && len(targets) > 0 && len(b.names) > 1
	sort.Strings(b.names)
	if !b.enabled {
		close(b.ready)
	}
	return b
}

func (b *probeBoard) publish(host string, src probeSource) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if src.IP != "" {
		b.sources[host] = src
	}
	b.markLocked(host)
}

func (b *probeBoard) done(host string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.markLocked(host)
}

func (b *probeBoard) markLocked(host string) {
	if !b.pending[host] {
		return
	}
	delete(b.pending, host)
	if len(b.pending) == 0 && b.enabled {
		close(b.ready)
	}
}

func (b *probeBoard) wait(ctx context.Context) error {
	select {
	case <-b.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// absent reports whether a capture answers that the host has no subject
// for its command (catalog.Spec.Absent).
func absent(c hostio.Capture) bool {
	s, ok := catalog.Lookup(c.Kind)
	return ok && s.IsAbsent(c)
}
