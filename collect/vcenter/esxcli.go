package vcenter

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/cli/esx"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// APIRunner runs the esxcli commands of the collection through the vSphere
// API (govmomi's esxcli executor, through vCenter): the transport of hosts
// whose SSH is off or refused. Every line is checked against the allowlist
// before it runs, as over SSH; commands that are not esxcli (vsish,
// vmkping) need SSH and fail with needsSSH's explanation.
type APIRunner struct {
	c     *Client
	hosts map[string]types.ManagedObjectReference
}

// NewAPIRunner returns the runner for the given hosts of the inventory.
func NewAPIRunner(c *Client, hosts []Host) *APIRunner {
	r := &APIRunner{c: c, hosts: map[string]types.ManagedObjectReference{}}
	for _, h := range hosts {
		r.hosts[h.Name] = h.Ref
	}
	return r
}

// Name implements hostio.Runner.
func (r *APIRunner) Name() string { return hostio.TransportVSphereAPI }

// Has reports whether vCenter manages the host.
func (r *APIRunner) Has(name string) bool { _, ok := r.hosts[name]; return ok }

// Open implements hostio.Runner: it prepares the esxcli executor of one host.
func (r *APIRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	ref, ok := r.hosts[t.Name]
	if !ok {
		return nil, fmt.Errorf("vCenter %s does not manage %s", r.c.Host(), t.Name)
	}
	e, err := esx.NewExecutor(ctx, r.c.vc, object.NewHostSystem(r.c.vc, ref))
	if err != nil {
		return nil, fmt.Errorf("esxcli through vCenter %s on %s: %v", r.c.Host(), t.Name, err)
	}
	return &apiConn{e: e, host: t.Name, vc: r.c.Host()}, nil
}

type apiConn struct {
	e    *esx.Executor
	host string
	vc   string // vCenter's address, for messages
	// sshErr is why SSH failed (FallbackRunner), for needsSSH.
	sshErr string
	mu     sync.Mutex
	notes  []string
	reqMu  sync.Mutex
}

func (c *apiConn) Transport() string { return hostio.TransportVSphereAPI }
func (c *apiConn) Close() error      { return nil }
func (c *apiConn) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

// Run runs one allowlisted esxcli line through the API and renders its
// result in esxcli's keyvalue form, which the parsers read.
func (c *apiConn) Run(ctx context.Context, line string) hostio.Result {
	if err := collect.CheckAllowed(line); err != nil {
		return hostio.Result{Err: err}
	}
	args := strings.Fields(line)
	if len(args) < 2 || args[0] != "esxcli" {
		return hostio.Result{Err: needsSSH(args[0], c.host, c.sshErr)}
	}
	// The executor caches each namespace's command info in a map: fetch
	// it one command at a time, run the commands concurrently.
	c.reqMu.Lock()
	req, info, err := c.e.NewRequest(ctx, args[1:])
	c.reqMu.Unlock()
	res := &esx.Response{Info: info}
	if err == nil {
		err = c.e.Execute(ctx, req, res)
	}
	if err != nil {
		var f *esx.Fault
		if errors.As(err, &f) && hostio.FaultType(f.Detail) == "NotFound" {
			return hostio.Result{Err: &hostio.CauseError{Cause: hostio.CauseNotServedByAPI, Detail: "vCenter " + c.vc + " does not serve `" + line +
				"` for " + c.host + " (vSphere fault NotFound: that esxcli namespace is not registered in the host's API); the checks that read it are not evaluated. Enable SSH for the scan to read it directly"}}
		}
		return hostio.Result{Err: fmt.Errorf("not collected through the vSphere API: %v", apiError(err))}
	}
	return hostio.Result{Stdout: []byte(RenderKeyValue(res))}
}

// apiError says an executor's fault in words (its detail is SOAP XML,
// which no report shows).
func apiError(err error) string {
	var f *esx.Fault
	if errors.As(err, &f) {
		return hostio.FaultWords(f.Detail, f.Message)
	}
	return hostio.PlainFaults(err.Error())
}

// RenderKeyValue renders an esxcli API response as `esxcli
// --formatter=keyvalue` prints it: structure[i].Type.Field.type=value, one
// field a line, fields in alphabetical order; a single structure without
// the structure[i]. prefix.
func RenderKeyValue(res *esx.Response) string {
	var b strings.Builder
	if len(res.Values) == 0 {
		if res.String != "" {
			b.WriteString(oneLine(res.String) + "\n")
		}
		return b.String()
	}
	list := len(res.Values) > 1 || res.Info != nil && res.Info.Hints.Formatter() == "table"
	for i, v := range res.Values {
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		prefix := "Item."
		if list {
			prefix = "structure[" + strconv.Itoa(i) + "].Item."
		}
		for _, k := range keys {
			vals := v[k]
			if len(vals) == 1 {
				fmt.Fprintf(&b, "%s%s.string=%s\n", prefix, k, oneLine(vals[0]))
				continue
			}
			for j, val := range vals {
				fmt.Fprintf(&b, "%s%s.string[%d]=%s\n", prefix, k, j, oneLine(val))
			}
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// apiOpenTimeout bounds preparing a host's esxcli executor after its SSH
// connection failed (perhaps at the connect timeout).
const apiOpenTimeout = 30 * time.Second

// FallbackRunner is SSH first, then, for a host vCenter manages whose SSH
// connection fails (SSH off, refused, wrong credentials), esxcli through
// the vSphere API.
type FallbackRunner struct {
	SSH hostio.Runner
	API *APIRunner
}

// Name implements hostio.Runner (connections say which one they use).
func (r *FallbackRunner) Name() string { return r.SSH.Name() }

// TargetNotes passes the SSH runner's notes on.
func (r *FallbackRunner) TargetNotes(t hostio.Target) []string {
	if n, ok := r.SSH.(interface{ TargetNotes(hostio.Target) []string }); ok {
		return n.TargetNotes(t)
	}
	return nil
}

// Open implements hostio.Runner.
func (r *FallbackRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	conn, err := r.SSH.Open(ctx, t)
	if err == nil || !r.API.Has(t.Name) || ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return conn, err
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apiOpenTimeout)
	defer cancel()
	api, aerr := r.API.Open(actx, t)
	if aerr != nil {
		return nil, fmt.Errorf("%w; %v", err, aerr)
	}
	ac := api.(*apiConn)
	ac.sshErr = err.Error()
	ac.notes = append(ac.notes, fmt.Sprintf("SSH failed (%v): the esxcli commands ran through the vSphere API via vCenter %s; vsish and vmkping need SSH", err, r.API.c.Host()))
	return ac, nil
}

// needsSSH is the error of a command tool cannot run on host without SSH
// (sshErr: why SSH failed, if known): why, and the one-line ways to enable
// SSH for the time of a scan (hostio.CauseNeedsSSH).
func needsSSH(tool, host, sshErr string) error {
	why := "SSH is off or refused on " + host
	if sshErr != "" {
		why = "SSH failed on " + host + " (" + sshErr + ")"
	}
	return &hostio.CauseError{Cause: hostio.CauseNeedsSSH, Detail: tool + " is not an esxcli command, so the vSphere API cannot run it, and " + why +
		"; the checks that read it are not evaluated. Enable SSH for the scan: vSphere Client > " + host +
		" > Configure > System > Services > SSH > Start, or `govc host.service -host " + host +
		" start TSM-SSH`, or `vim-cmd hostsvc/enable_ssh` in the ESXi Shell; stop it afterwards"}
}
