package vcenter

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// refusing is an SSH transport whose every host refuses the connection.
type refusing struct{}

func (refusing) Name() string { return hostio.TransportSSH }
func (refusing) Open(context.Context, hostio.Target) (hostio.Conn, error) {
	return nil, errors.New("cannot connect to esx01:22: connection refused")
}

// esxcli through the vSphere API on what vcsim implements: outputs the
// parsers read, unsupported namespaces a clear error per command, vsish the
// SSH explanation, and the allowlist enforced before anything runs.
func TestAPIRunnerCommands(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), nil)
	ctx := context.Background()
	conn, err := NewAPIRunner(c, hosts).Open(ctx, hostio.Target{Name: "esx01"})
	if err != nil {
		t.Fatal(err)
	}
	res := conn.Run(ctx, "esxcli vm process list")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	vms, err := parse.VMProcessList(string(res.Stdout))
	names := map[string]bool{}
	for _, v := range vms {
		names[v.DisplayName] = v.WorldID != "" && v.ConfigFile != ""
	}
	if err != nil || len(vms) != 4 || !names["rdma-vm-a"] || !names["gpu-vm"] {
		t.Errorf("vm process list: %v %+v\n%s", err, vms, res.Stdout)
	}
	res = conn.Run(ctx, "esxcli network firewall get")
	fw, err := parse.FirewallGet(string(res.Stdout))
	if res.Err != nil || err != nil || !fw.Loaded || fw.DefaultAction != "DROP" {
		t.Errorf("firewall get: %v %v %+v\n%s", res.Err, err, fw, res.Stdout)
	}
	if res := conn.Run(ctx, "esxcli rdma device list"); res.Err == nil || hostio.CauseOf(res.Err) != hostio.CauseNotServedByAPI || strings.Contains(res.Err.Error(), "<") {
		t.Errorf("rdma device list on vcsim: %v", res.Err)
	}
	if res := conn.Run(ctx, "esxcli system settings advanced list -o /Net/PVRDMAVmknic"); res.Err == nil || !strings.Contains(res.Err.Error(), "Unable to find option") {
		t.Errorf("unknown option: %v %s", res.Err, res.Stdout)
	}
	res = conn.Run(ctx, "vsish -e ls "+catalog.PVRDMADevicesDir)
	if res.Err == nil || hostio.CauseOf(res.Err) != hostio.CauseNeedsSSH || !strings.Contains(res.Err.Error(), "vim-cmd hostsvc/enable_ssh") ||
		!strings.Contains(res.Err.Error(), "govc host.service -host esx01 start TSM-SSH") {
		t.Errorf("vsish: %v", res.Err)
	}
	for _, bad := range []string{"esxcli system shutdown reboot", "esxcli vm process kill -w 1", "esxcli vm process list; reboot"} {
		var na *collect.ErrNotAllowed
		if res := conn.Run(ctx, bad); !errors.As(res.Err, &na) {
			t.Errorf("%q: %v", bad, res.Err)
		}
	}
}

// A host whose SSH is refused is collected through the API: its esxcli
// captures are stored like SSH captures (transport vsphere-api), the
// vsish-based checks are not evaluated with the reason, and its vCenter
// facts are kept.
func TestFallbackCollection(t *testing.T) {
	_, c, hosts := simSession(t, pvrdmaInventory(), nil)
	ctx := context.Background()
	caps, err := c.Read(ctx, hosts)
	if err != nil {
		t.Fatal(err)
	}
	runner := &FallbackRunner{SSH: refusing{}, API: NewAPIRunner(c, hosts)}
	results := collect.Collect(ctx, []hostio.Target{{Name: "esx01"}}, collect.Options{Runner: runner, CommandTimeout: 20 * time.Second,
		Extra: func(t hostio.Target) []hostio.Capture { return caps[t.Name] }})
	hr := results[0]
	if hr.Transport != hostio.TransportVSphereAPI || hr.Status != hostio.StatusPartial {
		t.Fatalf("host %s %s %q", hr.Transport, hr.Status, hr.Reason)
	}
	if !strings.Contains(strings.Join(hr.Notes, " "), "connection refused") {
		t.Errorf("notes %q", hr.Notes)
	}
	byCmd := map[string]hostio.Capture{}
	for _, cp := range hr.Captures {
		byCmd[cp.Command] = cp
	}
	if cp := byCmd["esxcli vm process list"]; cp.Status != hostio.StatusCollected {
		t.Errorf("vm process list: %+v", cp)
	}
	if cp := byCmd["esxcli rdma device list"]; cp.Status != hostio.StatusFailed || !strings.Contains(cp.Error, "vSphere API") {
		t.Errorf("rdma device list: %+v", cp)
	}
	h := facts.BuildHost(hr)
	if len(h.VMs) != 4 || len(h.VMConfigs) != 3 || len(h.RDMADevices) != 1 || h.VmknicNamed("vmk1") == nil {
		t.Errorf("facts: %d VMs, %d VM configs, %d RDMA devices", len(h.VMs), len(h.VMConfigs), len(h.RDMADevices))
	}
	ok, why := h.Available(catalog.KindPVRDMADeviceLs)
	if ok || !strings.Contains(why, "needs SSH") || !strings.Contains(why, "TSM-SSH") || !strings.Contains(why, "connection refused") {
		t.Errorf("vsish listing: %v %q", ok, why)
	}
	// The vCenter data fills what the API could not run on vcsim.
	if ok, why := h.Available(catalog.KindRDMADeviceList); !ok {
		t.Errorf("RDMA devices from vCenter: %s", why)
	}
}
