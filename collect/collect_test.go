package collect

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// fakeRunner answers commands from a map per host; it records every line.
type fakeRunner struct {
	mu      sync.Mutex
	hosts   map[string]map[string]string // host -> command -> stdout
	openErr map[string]error
	hang    map[string]bool // command lines that never return
	exits   map[string]int  // command line -> exit status
	sent    []string
	opens   map[string]int
}

func (f *fakeRunner) Name() string { return "fake" }

func (f *fakeRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opens == nil {
		f.opens = map[string]int{}
	}
	f.opens[t.Name]++
	if err := f.openErr[t.Name]; err != nil {
		return nil, err
	}
	return &fakeConn{f: f, host: t.Name}, nil
}

type fakeConn struct {
	f    *fakeRunner
	host string
}

func (c *fakeConn) Notes() []string { return nil }
func (c *fakeConn) Close() error    { return nil }
func (c *fakeConn) Run(ctx context.Context, line string) hostio.Result {
	c.f.mu.Lock()
	c.f.sent = append(c.f.sent, line)
	out, ok := c.f.hosts[c.host][line]
	hang := c.f.hang[line]
	c.f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return hostio.Result{ExitCode: -1, Err: ctx.Err()}
	}
	if !ok {
		return hostio.Result{Stderr: []byte("sh: " + strings.Fields(line)[0] + ": not found\n"), ExitCode: 127}
	}
	return hostio.Result{Stdout: []byte(out), ExitCode: c.f.exits[line]}
}

const rdmaList = `Name     Driver      State   MTU   Speed     Paired Uplink  Description
-------  ----------  ------  ----  --------  -------------  -----------
vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800 Family [ConnectX-5 Ex]
`

// vmxPath is the .vmx of the test host's one PVRDMA VM.
const vmxPath = "/vmfs/volumes/663cda3d-e8fee44e-e8fe-b8cef6a1c201/hpc-node01/hpc-node01.vmx"

func hostOutputs(ls string) map[string]string {
	return map[string]string{
		"esxcli rdma device list":         rdmaList,
		"vsish -e ls " + PVRDMADevicesDir: ls,
		"esxcli vm process list": "hpc-node01\n   World ID: 1001474360\n   Process ID: 0\n   VMX Cartel ID: 1001474359\n" +
			"   UUID: 42 1c 36 2f 61 d6 d1 4b-a2 3e 76 c5 b8 1e 9a 01\n   Display Name: hpc-node01\n" +
			"   Config File: " + vmxPath + "\n",
		"esxcli system settings advanced list -o /Net/PVRDMAVmknic": "   Path: /Net/PVRDMAVmknic\n   Type: string\n   Int Value: 0\n   Default Int Value: 0\n   Min Value: 0\n   Max Value: 0\n   String Value: vmk1\n   Default String Value: \n   Valid Characters: \n   Description: Vmknic for PVRDMA\n",
	}
}

func TestCollectPlansStage2FromStage1AndValidatesValues(t *testing.T) {
	f := &fakeRunner{hosts: map[string]map[string]string{
		// A hostile listing: only the well-formed entry may become a command.
		"esx01": hostOutputs("1001474360_0/\n1;reboot_0/\n$(id)_1/\n"),
	}}
	res := Collect(context.Background(), []hostio.Target{{Name: "esx01"}}, Options{Runner: f})
	if len(res) != 1 {
		t.Fatalf("got %d results", len(res))
	}
	for _, line := range f.sent {
		if err := CheckAllowed(line); err != nil {
			t.Errorf("sent a non-allowlisted line: %v", err)
		}
		if strings.Contains(line, "reboot") || strings.Contains(line, "$(") {
			t.Errorf("host output reached a command line: %q", line)
		}
	}
	// Every stage-2 command of the catalogue runs for what this host's
	// stage-1 output names: its one PVRDMA device (and its VM's .vmx), RDMA
	// device and uplink.
	args := map[catalog.Source][]string{
		catalog.FromPVRDMAVMs:      {vmxPath},
		catalog.FromPVRDMABackends: {"1001474360", "0"},
		catalog.FromRDMADevices:    {"vmrdma0"},
		catalog.FromRDMAUplinks:    {"vmnic4"},
		// The driver of its RDMA device (catalog.FromFacts).
		catalog.FromFacts: {"nmlx5_rdma"},
	}
	var want []string
	for _, s := range catalog.Specs() {
		if s.Stage != 2 {
			continue
		}
		a, ok := args[s.From]
		if s.Kind == catalog.KindDCBStatus || s.Kind == catalog.KindNICGet {
			a = []string{"vmnic4"} // its RDMA uplink's details and flow control (catalog.FromFacts)
		}
		if !ok {
			t.Fatalf("%s: stage-2 source %v has no value in this test's host; add one", s.Kind, s.From)
		}
		c, err := s.Command(a...)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, c.Line)
	}
	if len(want) < 5 {
		t.Fatalf("the catalogue lists %d stage-2 commands, want at least 5: %q", len(want), want)
	}
	for _, w := range want {
		if _, ok := res[0].Find(w); !ok {
			t.Errorf("stage 2 command %q was not run", w)
		}
	}
	if len(res[0].Captures) != len(Stage1())+len(want) {
		t.Errorf("got %d captures, want %d", len(res[0].Captures), len(Stage1())+len(want))
	}
	if got := strings.Join(res[0].Notes, "\n"); !strings.Contains(got, `"1;reboot"`) {
		t.Errorf("the rejected entry should be reported in the host notes, got %q", got)
	}
	if f.opens["esx01"] != 1 {
		t.Errorf("opened %d connections, want 1", f.opens["esx01"])
	}
}

func TestCollectOneHostFailureDoesNotStopOthers(t *testing.T) {
	f := &fakeRunner{
		hosts:   map[string]map[string]string{"good": hostOutputs("")},
		openErr: map[string]error{"bad": errors.New("cannot connect to bad:22: connection refused")},
	}
	res := Collect(context.Background(), []hostio.Target{{Name: "bad"}, {Name: "good"}}, Options{Runner: f, Probes: true})
	if res[0].Status != hostio.StatusNotCollected || !strings.Contains(res[0].Reason, "refused") {
		t.Errorf("bad host: status %s reason %q", res[0].Status, res[0].Reason)
	}
	if res[1].Status == hostio.StatusNotCollected || len(res[1].Captures) < len(Stage1()) {
		t.Errorf("good host: status %s with %d captures", res[1].Status, len(res[1].Captures))
	}
}

func TestCollectHungCommandTimesOutAndKeepsTheRest(t *testing.T) {
	f := &fakeRunner{
		hosts: map[string]map[string]string{"esx01": hostOutputs("")},
		hang:  map[string]bool{"esxcli network nic list": true},
	}
	res := Collect(context.Background(), []hostio.Target{{Name: "esx01"}}, Options{Runner: f, CommandTimeout: 50 * time.Millisecond})
	h := res[0]
	c, ok := h.Find("esxcli network nic list")
	if !ok || c.Status != hostio.StatusTimedOut {
		t.Fatalf("hung command: %+v", c)
	}
	if c2, _ := h.Find("esxcli rdma device list"); c2.Status != hostio.StatusCollected {
		t.Errorf("other command lost: %+v", c2)
	}
	if h.Status != hostio.StatusPartial {
		t.Errorf("host status %s, want partial", h.Status)
	}
}

func TestCollectUnknownCommandIsFailedWithReason(t *testing.T) {
	f := &fakeRunner{hosts: map[string]map[string]string{"esx01": hostOutputs("")}}
	res := Collect(context.Background(), []hostio.Target{{Name: "esx01"}}, Options{Runner: f})
	c, _ := res[0].Find("esxcli network vswitch dvs vmware list")
	if c.Status != hostio.StatusFailed || c.ExitCode != 127 || !strings.Contains(c.Error, "not found") {
		t.Errorf("got %+v", c)
	}
}

// vmk1IPv4 is `esxcli network ip interface ipv4 get` of a host whose vmk1
// has the static address ip in 192.168.50.0/24.
func vmk1IPv4(ip string) string {
	return "Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
		"----  ------------  -------------  --------------  ------------  -------  --------\n" +
		"vmk1  " + ip + "  255.255.255.0  192.168.50.255  STATIC        0.0.0.0     false\n"
}

func TestCollectProbesWaitForPeersWithoutDeadlock(t *testing.T) {
	hosts := map[string]map[string]string{}
	for name, ip := range map[string]string{"a": "192.168.50.11", "b": "192.168.50.12", "c": "192.168.50.13"} {
		o := hostOutputs("")
		o["esxcli network ip interface ipv4 get"] = vmk1IPv4(ip)
		hosts[name] = o
	}
	f := &fakeRunner{hosts: hosts}
	// Concurrency 1: waiting hosts must release their slot.
	res := Collect(context.Background(), []hostio.Target{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Options{Runner: f, Probes: true, Concurrency: 1, ProbePeers: 1, HostTimeout: 5 * time.Second})
	c, ok := res[0].Find("vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.12")
	if !ok {
		t.Fatalf("host a did not probe its ring neighbour b; captures: %v", commandsOf(res[0]))
	}
	if c.Kind != catalog.KindVmkping {
		t.Errorf("kind %s", c.Kind)
	}
	if _, ok := res[2].Find("vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.11"); !ok {
		t.Errorf("host c should probe a (ring wraps); captures: %v", commandsOf(res[2]))
	}
}

func commandsOf(h hostio.HostResult) []string {
	var out []string
	for _, c := range h.Captures {
		out = append(out, c.Command)
	}
	return out
}

func TestCommandConstructorsRejectHostileValues(t *testing.T) {
	bad := []func() (Command, error){
		func() (Command, error) { return PVRDMAProperties("1; reboot", "0") },
		func() (Command, error) { return PVRDMAProperties("123", "0/../../x") },
		func() (Command, error) { return RDMAStats("vmrdma0 -x") },
		func() (Command, error) { return NICGet("vmnic4;id") },
		func() (Command, error) { return DCBStatus("$(id)") },
		func() (Command, error) { return Vmkping("vmk1", "", "192.168.1.1; reboot", 8972) },
		func() (Command, error) { return Vmkping("vmk1", "x y", "192.168.1.1", 8972) },
		func() (Command, error) { return Vmkping("vmk1", "", "::1", 8972) },
	}
	for i, f := range bad {
		if c, err := f(); err == nil {
			t.Errorf("case %d: accepted %q", i, c.Line)
		}
	}
	assertRefused(t,
		"esxcli rdma device list; reboot",
		"esxcli rdma device list && reboot",
		"esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1",
		"esxcli network firewall ruleset set -e true -r pvrdma",
		"vsish -e set /vmkModules/vrdma/x 1",
		"reboot",
		"esxcli rdma device list\nreboot",
	)
	for _, c := range Stage1() {
		if err := CheckAllowed(c.Line); err != nil {
			t.Errorf("stage 1 command rejected: %v", err)
		}
	}
}

// assertRefused fails t for every line the ESXi allowlist lets through.
func assertRefused(t *testing.T, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if CheckAllowed(line) == nil {
			t.Errorf("allowlist accepted %q", line)
		}
	}
}

func TestFileName(t *testing.T) {
	cases := map[string]string{
		"esxcli rdma device list": "esxcli_rdma_device_list.txt",
		"vsish -e cat /vmkModules/vrdma/pvrdmaDevices/1001_0/properties": "vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_1001_0_properties.txt",
		"vmkping -I vmk1 -c 3 -d -s 8972 192.168.50.12":                  "vmkping_-I_vmk1_-c_3_-d_-s_8972_192.168.50.12.txt",
	}
	for in, want := range cases {
		if got := catalog.FileName(in); got != want {
			t.Errorf("catalog.FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollectKeepsFailedProbesAsResults(t *testing.T) {
	const lossy = "PING 192.168.50.12 (192.168.50.12): 8972 data bytes\nsendto() failed (Message too long)\n\n--- 192.168.50.12 ping statistics ---\n3 packets transmitted, 0 packets received, 100% packet loss\n"
	a, b := hostOutputs(""), hostOutputs("")
	a["esxcli network ip interface ipv4 get"] = vmk1IPv4("192.168.50.11")
	b["esxcli network ip interface ipv4 get"] = vmk1IPv4("192.168.50.12")
	jumbo := "vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.12"
	a[jumbo] = lossy
	f := &fakeRunner{hosts: map[string]map[string]string{"a": a, "b": b}, exits: map[string]int{jumbo: 1}}
	res := Collect(context.Background(), []hostio.Target{{Name: "a"}, {Name: "b"}}, Options{Runner: f, Probes: true})
	c, ok := res[0].Find(jumbo)
	if !ok || c.Status != hostio.StatusCollected || c.ExitCode != 1 || !strings.Contains(c.Stdout, "100% packet loss") {
		t.Fatalf("lossy probe should be a collected result with its exit status: %+v", c)
	}
	// A failing command of another kind stays failed.
	f.exits["esxcli network nic list"] = 1
	f.hosts["a"]["esxcli network nic list"] = "PING x"
	res = Collect(context.Background(), []hostio.Target{{Name: "a"}}, Options{Runner: f})
	if c, _ := res[0].Find("esxcli network nic list"); c.Status != hostio.StatusFailed {
		t.Errorf("non-probe failure: %+v", c)
	}
}

// A rescan of one host still probes its paths to the hosts scanned before.
func TestCollectRescanProbesEarlierPeers(t *testing.T) {
	a, b := hostOutputs(""), hostOutputs("")
	a["esxcli network ip interface ipv4 get"] = vmk1IPv4("192.168.50.11")
	b["esxcli network ip interface ipv4 get"] = vmk1IPv4("192.168.50.12")
	f := &fakeRunner{hosts: map[string]map[string]string{"a": a, "b": b}}
	first := Collect(context.Background(), []hostio.Target{{Name: "a"}, {Name: "b"}}, Options{Runner: f, Probes: true})
	again := Collect(context.Background(), []hostio.Target{{Name: "a"}}, Options{Runner: f, Probes: true, Peers: first})
	if _, ok := again[0].Find("vmkping -I vmk1 -c 3 -i 0.2 -W 1 -d -s 8972 192.168.50.12"); !ok {
		t.Errorf("rescan of a did not probe b; captures: %v", commandsOf(again[0]))
	}
	if f.opens["b"] != 1 {
		t.Errorf("b was connected to %d times; a rescan of a must not reconnect to b", f.opens["b"])
	}
	// Without peers a lone host has no one to probe.
	alone := Collect(context.Background(), []hostio.Target{{Name: "a"}}, Options{Runner: f, Probes: true})
	for _, c := range alone[0].Captures {
		if c.Kind == catalog.KindVmkping {
			t.Errorf("lone host probed %q", c.Command)
		}
	}
}
