package sshrun

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// budget is a byte allowance shared by everything below it: a command's
// budget has its host's as parent, a host's the scan's.
type budget struct {
	left   atomic.Int64
	limit  int64
	scope  string
	parent *budget
}

// newBudget returns a budget of limit bytes under parent; limit <= 0 means
// no limit of its own (nil when there is no parent either).
func newBudget(scope string, limit int64, parent *budget) *budget {
	if limit <= 0 {
		return parent
	}
	b := &budget{limit: limit, scope: scope, parent: parent}
	b.left.Store(limit)
	return b
}

// take reserves n bytes in b and every parent; when one of them has not
// enough left, nothing is reserved and its cap is returned.
func (b *budget) take(n int64) error {
	for x := b; x != nil; x = x.parent {
		if x.left.Add(-n) < 0 {
			for y := b; ; y = y.parent {
				y.left.Add(n)
				if y == x {
					break
				}
			}
			return &hostio.OutputCapError{Scope: x.scope, Limit: x.limit}
		}
	}
	return nil
}

// give returns n bytes to b and every parent.
func (b *budget) give(n int64) {
	for x := b; x != nil; x = x.parent {
		x.left.Add(n)
	}
}

// cmdOutput collects one command's stdout and stderr within its budget.
type cmdOutput struct {
	mu             sync.Mutex
	stdout, stderr outBuf
	budget         *budget
	// over is set once the output is closed to further writes: a cap was
	// reached (the output is then discarded) or the command was abandoned.
	over   error
	capped chan struct{} // closed when a cap is reached
	lines  int
}

var errAbandoned = errors.New("command abandoned")

func newCmdOutput(limit int64, host *budget) *cmdOutput {
	return &cmdOutput{budget: newBudget("command", limit, host), capped: make(chan struct{})}
}

// limitedWriter is the stdout or stderr side of a cmdOutput.
type limitedWriter struct {
	out    *cmdOutput
	stderr bool
}

func (o *cmdOutput) writers() (stdout, stderr *limitedWriter) {
	return &limitedWriter{out: o}, &limitedWriter{out: o, stderr: true}
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	o := l.out
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.over != nil {
		return 0, o.over
	}
	o.lines += bytes.Count(p, []byte{'\n'})
	var err error
	if o.lines > hostio.MaxCommandLines {
		err = &hostio.OutputCapError{Scope: "lines", Limit: hostio.MaxCommandLines}
	} else {
		err = o.budget.take(int64(len(p)))
	}
	if err != nil {
		o.over = err
		o.releaseLocked()
		close(o.capped)
		return 0, err
	}
	if l.stderr {
		return o.stderr.Write(p)
	}
	return o.stdout.Write(p)
}

// releaseLocked discards what was kept and returns it to the budgets.
func (o *cmdOutput) releaseLocked() {
	o.budget.give(int64(o.stdout.n + o.stderr.n))
	o.stdout, o.stderr = outBuf{}, outBuf{}
}

// capErr returns the cap reached, if any.
func (o *cmdOutput) capErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if hostio.IsOutputCap(o.over) {
		return o.over
	}
	return nil
}

// take returns the output and closes it to further writes (an abandoned
// session may still deliver data until the server processes the close).
// The bytes stay counted against the host's budget: the scan keeps them.
func (o *cmdOutput) take() (stdout, stderr []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.over == nil {
		o.over = errAbandoned
	}
	stdout, stderr = o.stdout.bytes(), o.stderr.bytes()
	o.stdout, o.stderr = outBuf{}, outBuf{}
	return stdout, stderr
}

// outBuf holds an output in pieces (4 KiB, doubling up to 256 KiB): a
// bytes.Buffer grows by doubling, copying and clearing what it holds at
// each step and leaving up to twice the output allocated; 30 hosts
// sending 3.5 MiB per command spent a second of CPU in that alone.
type outBuf struct {
	chunks [][]byte
	n      int
}

func (b *outBuf) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(b.chunks) - 1
		if last < 0 || len(b.chunks[last]) == cap(b.chunks[last]) {
			size := 4 << 10
			if last >= 0 {
				size = min(2*cap(b.chunks[last]), 256<<10)
			}
			b.chunks = append(b.chunks, make([]byte, 0, size))
			last++
		}
		c := b.chunks[last]
		k := min(len(p), cap(c)-len(c))
		b.chunks[last] = append(c, p[:k]...)
		p = p[k:]
	}
	b.n += n
	return n, nil
}

// bytes returns the output in one slice of its exact length and
// capacity (the collector keeps it as it is: a small output must not hold
// a larger chunk).
func (b *outBuf) bytes() []byte {
	switch {
	case len(b.chunks) == 0:
		return nil
	case len(b.chunks) == 1 && len(b.chunks[0]) == cap(b.chunks[0]):
		return b.chunks[0]
	}
	out := make([]byte, 0, b.n)
	for _, c := range b.chunks {
		out = append(out, c...)
	}
	return out
}

func capOrDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

func (r *SSHRunner) maxCommandOutput() int64 {
	return capOrDefault(r.MaxCommandOutput, hostio.DefaultMaxCommandOutput)
}

func (r *SSHRunner) maxHostOutput() int64 {
	return capOrDefault(r.MaxHostOutput, hostio.DefaultMaxHostOutput)
}

// scanBudget is the budget every host of this runner shares.
func (r *SSHRunner) scanBudget() *budget {
	r.scanOnce.Do(func() { r.scan = newBudget("scan", capOrDefault(r.MaxScanOutput, hostio.DefaultMaxScanOutput), nil) })
	return r.scan
}
