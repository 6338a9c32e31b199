package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A healthy Ubuntu 22.04 guest with one PVRDMA adapter (vmw_pvrdma0 on
// ens224, MAC 00:50:56:8a:01:a0, MTU 9000, 192.168.50.21, port ACTIVE,
// RoCE v2 GID for its address), as its commands print it.
type guestOut struct {
	stdout, stderr string
	exit           int
}

const guestMAC = "00:50:56:8a:01:a0"

func healthyGuestOutputs() map[hostio.Kind]guestOut {
	sys := "/sys/class/infiniband/vmw_pvrdma0/ports/1/"
	return map[hostio.Kind]guestOut{
		catalog.KindGuestKernel:    {stdout: "5.15.0-91-generic\n"},
		catalog.KindGuestOSRelease: {stdout: "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nID=ubuntu\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\n"},
		catalog.KindGuestLsmod: {stdout: "Module                  Size  Used by\nrdma_ucm               28672  0\nib_umad                28672  0\nvmw_pvrdma             81920  0\n" +
			"ib_uverbs            167936  2 rdma_ucm,vmw_pvrdma\nib_core               409600  5 rdma_cm,rdma_ucm,ib_umad,ib_uverbs,vmw_pvrdma\nvmxnet3                65536  0\n"},
		catalog.KindGuestModinfo: {stdout: "filename:       /lib/modules/5.15.0-91-generic/kernel/drivers/infiniband/hw/vmw_pvrdma/vmw_pvrdma.ko\nversion:        1.0.1.0-k\ndepends:        ib_core,vmxnet3,ib_uverbs\n"},
		catalog.KindGuestDevinfo: {stdout: "hca_id:\tvmw_pvrdma0\n\ttransport:\t\t\tInfiniBand (0)\n\tvendor_id:\t\t\t0x15ad\n\tphys_port_cnt:\t\t\t1\n" +
			"\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n\t\t\tlink_layer:\t\tEthernet\n" +
			"\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0250:56ff:fe8a:01a0, RoCE v1\n\t\t\tGID[  1]:\t\t::ffff:192.168.50.21, RoCE v2\n"},
		catalog.KindGuestDevices:  {stdout: "    device          \t   node GUID\n    ------          \t----------------\n    vmw_pvrdma0     \t025056fffe8a01a0\n"},
		catalog.KindGuestRDMALink: {stdout: "link vmw_pvrdma0/1 state ACTIVE physical_state LINK_UP netdev ens224 \n"},
		catalog.KindGuestIPLink: {stdout: "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
			"3: ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether " + guestMAC + " brd ff:ff:ff:ff:ff:ff\n"},
		catalog.KindGuestIPAddr:  {stdout: "3: ens224    inet 192.168.50.21/24 brd 192.168.50.255 scope global ens224\\       valid_lft forever preferred_lft forever\n"},
		catalog.KindGuestIBClass: {stdout: "vmw_pvrdma0\n"},
		catalog.KindGuestSysfsPort: {stdout: sys + "state:4: ACTIVE\n" + sys + "phys_state:5: LinkUp\n" +
			sys + "gids/0:fe80:0000:0000:0000:0250:56ff:fe8a:01a0\n" + sys + "gids/1:0000:0000:0000:0000:0000:ffff:c0a8:3215\n" +
			sys + "gid_attrs/types/0:IB/RoCE v1\n" + sys + "gid_attrs/types/1:RoCE v2\n" + sys + "gid_attrs/ndevs/0:ens224\n" + sys + "gid_attrs/ndevs/1:ens224\n"},
		catalog.KindGuestDmesg: {stdout: "[    3.101] vmw_pvrdma 0000:13:00.1: device version 20, driver version 20\n"},
		catalog.KindGuestOFED:  {stderr: "bash: line 1: ofed_info: command not found\n", exit: 127},
		catalog.KindGuestDpkg:  {stdout: "ibverbs-providers:amd64\t39.0-1\nlibibverbs1:amd64\t39.0-1\nrdma-core\t39.0-1\n"},
		catalog.KindGuestRPM:   {stderr: "bash: line 1: rpm: command not found\n", exit: 127},
	}
}

// guestFacts builds a guest from outputs, as the collector records them.
func guestFacts(name string, out map[hostio.Kind]guestOut) facts.Guest {
	hr := hostio.HostResult{Host: name, Role: hostio.RoleGuest, Status: hostio.StatusCollected}
	for _, s := range catalog.GuestSpecs() {
		o, ok := out[s.Kind]
		if !ok {
			continue
		}
		c, err := s.Command(s.Example...)
		if err != nil {
			panic(err)
		}
		hr.Captures = append(hr.Captures, hostio.Capture{Host: name, Command: c.Line, Kind: s.Kind, Stdout: o.stdout, Stderr: o.stderr,
			ExitCode: o.exit, Status: hostio.StatusCollected})
	}
	return facts.BuildGuest(hr)
}

// guestHost is a good host whose PVRDMA adapter has the guest's MAC.
func guestHost(name string, hca int) facts.Host {
	h := goodHost(name, "192.168.50.11")
	h.PVRDMADevices[0].MAC = guestMAC
	h.PVRDMADevices[0].PhysicalHCA = hca
	h.PVRDMADevices[0].Props = rec(cmdProps, "MAC address", guestMAC, "Physical HCA available", itoaT(hca), "RoCE version", "2", "Active MTU", "4096")
	return h
}

func itoaT(n int) string { return string(rune('0' + n)) }

// runGuestRules runs rules on hosts and guests, linked by MAC.
func runGuestRules(t *testing.T, ids []string, hosts []facts.Host, guests ...facts.Guest) Result {
	t.Helper()
	var rules []*Rule
	for _, id := range ids {
		r, ok := Lookup(id)
		if !ok {
			t.Fatalf("no rule %s", id)
		}
		rules = append(rules, r)
	}
	fleet := &facts.Fleet{Hosts: hosts, Guests: guests}
	fleet.LinkGuests()
	return RunRules(fleet, rules)
}

func findRule(fs []Finding, id string) *Finding {
	for i := range fs {
		if fs[i].RuleID == id {
			return &fs[i]
		}
	}
	return nil
}

var guestRuleIDs = []string{"GUEST_KERNEL_TOO_OLD", "GUEST_NO_PVRDMA_DEVICE", "GUEST_PORT_DOWN", "GUEST_MOFED_CONFLICT",
	"GUEST_RDMA_CORE_MISSING", "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "GUEST_NO_ROCEV2_GID"}

func TestGuestRulesHealthy(t *testing.T) {
	g := guestFacts("vm1", healthyGuestOutputs())
	if len(g.Adapters) != 1 || g.Adapters[0].MAC != guestMAC || !g.Adapters[0].Active || g.Adapters[0].Netdev != "ens224" {
		t.Fatalf("adapters %+v", g.Adapters)
	}
	res := runGuestRules(t, guestRuleIDs, []facts.Host{guestHost("esx01", 1)}, g)
	if len(res.Findings) != 0 {
		t.Fatalf("healthy guest has findings: %+v", res.Findings)
	}
	if len(res.Passed) != len(guestRuleIDs) {
		t.Errorf("%d passes, want %d: %+v", len(res.Passed), len(guestRuleIDs), res.Passed)
	}
	if ok, name := g.Installed(catalog.KindGuestOFED); ok || name != "ofed_info" {
		t.Errorf("ofed_info missing is a fact: %v %q", ok, name)
	}
}

// portDown makes the healthy guest's port PORT_DOWN (seed 001's picture).
func portDown(out map[hostio.Kind]guestOut) {
	o := out[catalog.KindGuestSysfsPort]
	o.stdout = strings.Replace(o.stdout, "state:4: ACTIVE", "state:1: DOWN", 1)
	out[catalog.KindGuestSysfsPort] = o
	d := out[catalog.KindGuestDevinfo]
	d.stdout = strings.Replace(d.stdout, "PORT_ACTIVE (4)", "PORT_DOWN (1)", 1)
	out[catalog.KindGuestDevinfo] = d
	l := out[catalog.KindGuestRDMALink]
	l.stdout = strings.Replace(l.stdout, "state ACTIVE", "state DOWN", 1)
	out[catalog.KindGuestRDMALink] = l
}

func TestGuestPortDown(t *testing.T) {
	out := healthyGuestOutputs()
	portDown(out)
	g := guestFacts("vm1", out)

	// Host healthy: the guest is the root cause, fix = seeds' reload order.
	res := runGuestRules(t, []string{"GUEST_PORT_DOWN", "PHYSICAL_HCA_UNAVAILABLE"}, []facts.Host{guestHost("esx01", 1)}, g)
	f := findRule(res.Findings, "GUEST_PORT_DOWN")
	if f == nil || f.Status != StatusFail || f.Severity != Critical || f.CausedBy != nil {
		t.Fatalf("port down on a healthy host: %+v", f)
	}
	if f.Subject != "vmw_pvrdma0 (hpc-esx01 PVRDMA adapter 0 on esx01)" || !strings.Contains(f.Message, "host-side adapter on esx01 is bound to a physical HCA") {
		t.Errorf("subject %q message %q", f.Subject, f.Message)
	}
	if !strings.Contains(f.Fix, "sudo modprobe -a ib_umad rdma_cm rdma_ucm && sudo modprobe -r vmw_pvrdma && sudo modprobe vmw_pvrdma") ||
		!strings.Contains(f.Fix, "systemd unit") || strings.Contains(f.Fix, "mlx4_ib") {
		t.Errorf("fix %q", f.Fix)
	}
	if len(f.Evidence) < 2 || f.Evidence[0].Text != "/sys/class/infiniband/vmw_pvrdma0/ports/1/state:1: DOWN" || f.Evidence[1].Host != "esx01" {
		t.Errorf("evidence %+v", f.Evidence)
	}

	// Host without HCA: PVRDMA falls back to TCP there (seed 004), which
	// does not take a port down; both are root causes, and the guest's
	// plan is the reload order of seeds 000/001, not "fix the host first".
	res = runGuestRules(t, []string{"GUEST_PORT_DOWN", "PHYSICAL_HCA_UNAVAILABLE"}, []facts.Host{guestHost("esx01", 0)}, g)
	f = findRule(res.Findings, "GUEST_PORT_DOWN")
	if f == nil || f.CausedBy != nil || f.Severity != Critical {
		t.Fatalf("port down beside a host without HCA: %+v", f)
	}
	if !strings.Contains(f.Message, "has no physical HCA, but that does not take a port down") || !strings.Contains(f.Message, "“Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog") {
		t.Errorf("message %q", f.Message)
	}
	if hca := findRule(res.Findings, "PHYSICAL_HCA_UNAVAILABLE"); hca == nil || hca.CausedBy != nil {
		t.Errorf("the host side is a root cause of its own: %+v", hca)
	}
	plans := Plans(&facts.Fleet{Hosts: []facts.Host{guestHost("esx01", 0)}, Guests: []facts.Guest{g}}, res.Findings)
	gp := PlanFor(plans, "vm1")
	if gp == nil || gp.Steps[0].Action != plan.KindGuestReloadDriver || gp.Steps[1].Action != plan.KindGuestPersistOrder {
		t.Fatalf("guest plan %+v", gp)
	}
	for _, p := range plans {
		if c := Contradictions(p); len(c) > 0 {
			t.Errorf("contradictions: %v", c)
		}
	}

	// No port state at all: not evaluated.
	out2 := healthyGuestOutputs()
	for _, k := range []hostio.Kind{catalog.KindGuestSysfsPort, catalog.KindGuestDevinfo, catalog.KindGuestRDMALink} {
		delete(out2, k)
	}
	res = runGuestRules(t, []string{"GUEST_PORT_DOWN"}, []facts.Host{guestHost("esx01", 1)}, guestFacts("vm1", out2))
	if f := findRule(res.Findings, "GUEST_PORT_DOWN"); f == nil || f.Status != StatusNotEvaluated {
		t.Errorf("no state: %+v", f)
	}
}

func TestGuestPlanHealthyHostPortDown(t *testing.T) {
	out := healthyGuestOutputs()
	portDown(out)
	g := guestFacts("vm1", out)
	hosts := []facts.Host{guestHost("esx01", 1)}
	res := runGuestRules(t, guestRuleIDs, hosts, g)
	p := PlanFor(Plans(&facts.Fleet{Hosts: hosts, Guests: []facts.Guest{g}}, res.Findings), "vm1")
	if p == nil {
		t.Fatal("no guest plan")
	}
	var acts []string
	for _, s := range p.Steps {
		acts = append(acts, string(s.Action))
	}
	if got := strings.Join(acts, ","); got != "guest_reload_driver,guest_persist_order" {
		t.Errorf("plan %s", got)
	}
	// The reload says what to do first and what it shows after: the port
	// ACTIVE, what changed (it was DOWN).
	r := p.Steps[0]
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "stop the RDMA jobs") || len(r.Verify) != 1 ||
		!strings.Contains(r.Verify[0].Expect, "PORT_ACTIVE") || strings.Contains(r.Command, "mlx4_ib") {
		t.Errorf("reload step %+v", r)
	}
}

func TestGuestNoPVRDMADevice(t *testing.T) {
	out := healthyGuestOutputs()
	noPVRDMA(out)
	g := guestFacts("vm1", out)
	if !g.ModuleMissing || len(g.Adapters) != 0 {
		t.Fatalf("module missing %v adapters %+v", g.ModuleMissing, g.Adapters)
	}
	res := runGuestRules(t, guestRuleIDs, []facts.Host{guestHost("esx01", 1)}, g)
	f := findRule(res.Findings, "GUEST_NO_PVRDMA_DEVICE")
	if f == nil || f.Severity != Critical || !strings.Contains(f.Message, "no vmw_pvrdma module") || !strings.Contains(f.Message, "ens224 is the Ethernet half of hpc-esx01 (PVRDMA adapter 0) on esx01") {
		t.Fatalf("%+v", f)
	}
	if !strings.Contains(f.Fix, "linux-modules-extra-5.15.0-91-generic") {
		t.Errorf("fix %q", f.Fix)
	}
	if len(res.Findings) != 1 {
		t.Errorf("only the missing device should be reported: %+v", res.Findings)
	}
	// Without the host: a warning, it cannot be proved the VM has PVRDMA.
	res = runGuestRules(t, []string{"GUEST_NO_PVRDMA_DEVICE"}, nil, g)
	if f := findRule(res.Findings, "GUEST_NO_PVRDMA_DEVICE"); f == nil || f.Severity != Warning {
		t.Errorf("no host: %+v", f)
	}
	// Installed, not loaded.
	out[catalog.KindGuestModinfo] = healthyGuestOutputs()[catalog.KindGuestModinfo]
	res = runGuestRules(t, []string{"GUEST_NO_PVRDMA_DEVICE"}, nil, guestFacts("vm1", out))
	if f := findRule(res.Findings, "GUEST_NO_PVRDMA_DEVICE"); f == nil || !strings.Contains(f.Message, "not loaded") || !strings.Contains(f.Fix, "modprobe -a ib_umad rdma_cm rdma_ucm") {
		t.Errorf("not loaded: %+v", f)
	}
}

func TestGuestMOFEDConflict(t *testing.T) {
	out := healthyGuestOutputs()
	out[catalog.KindGuestOFED] = guestOut{stdout: "MLNX_OFED_LINUX-5.1-2.4.6.0:\n"}
	out[catalog.KindGuestDpkg] = guestOut{stdout: "ibverbs-providers:amd64\t51mlnx1-1.51246\nlibibverbs1:amd64\t51mlnx1-1.51246\n"}
	out[catalog.KindGuestDevices] = guestOut{stdout: "    device          \t   node GUID\n    ------          \t----------------\n",
		stderr: "libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so': libvmw_pvrdma-rdmav34.so: cannot open shared object file: No such file or directory\n"}
	g := guestFacts("vm1", out)
	res := runGuestRules(t, guestRuleIDs, []facts.Host{guestHost("esx01", 1)}, g)
	f := findRule(res.Findings, "GUEST_MOFED_CONFLICT")
	if f == nil || f.Severity != Critical || !strings.Contains(f.Message, "libibverbs does not list vmw_pvrdma0") {
		t.Fatalf("%+v", f)
	}
	// No -y on a removal: apt lists what it removes (MPI, UCX) and asks.
	if !strings.Contains(f.Fix, "apt-get purge ibverbs-providers ibverbs-utils libibverbs-dev libibverbs1") || strings.Contains(f.Fix, "purge -y") ||
		!strings.Contains(f.Fix, "-t jammy") {
		t.Errorf("fix %q", f.Fix)
	}
	if findRule(res.Findings, "GUEST_RDMA_CORE_MISSING") != nil {
		t.Error("MOFED is not 'rdma-core missing'")
	}
	// MOFED that still lists the PVRDMA device: fine.
	out[catalog.KindGuestDevices] = healthyGuestOutputs()[catalog.KindGuestDevices]
	res = runGuestRules(t, []string{"GUEST_MOFED_CONFLICT"}, nil, guestFacts("vm1", out))
	if len(res.Findings) != 0 {
		t.Errorf("working MOFED: %+v", res.Findings)
	}
}

func TestGuestRDMACoreMissing(t *testing.T) {
	out := healthyGuestOutputs()
	out[catalog.KindGuestDpkg] = guestOut{stdout: "bash\t5.1-6ubuntu1\n"}
	out[catalog.KindGuestDevinfo] = guestOut{stderr: "bash: line 1: ibv_devinfo: command not found\n", exit: 127}
	res := runGuestRules(t, []string{"GUEST_RDMA_CORE_MISSING"}, nil, guestFacts("vm1", out))
	f := findRule(res.Findings, "GUEST_RDMA_CORE_MISSING")
	if f == nil || f.Status != StatusFail || !strings.Contains(f.Message, "ibv_devinfo is not installed") || !strings.Contains(f.Fix, "apt-get install -y rdma-core ibverbs-providers") {
		t.Fatalf("%+v", f)
	}
	// RHEL with libibverbs: fine.
	out[catalog.KindGuestDpkg] = guestOut{stderr: "bash: line 1: dpkg-query: command not found\n", exit: 127}
	out[catalog.KindGuestRPM] = guestOut{stdout: "rdma-core-46.0-1.el9.x86_64\nlibibverbs-46.0-1.el9.x86_64\n"}
	res = runGuestRules(t, []string{"GUEST_RDMA_CORE_MISSING"}, nil, guestFacts("vm1", out))
	if len(res.Findings) != 0 {
		t.Errorf("RHEL rdma-core: %+v", res.Findings)
	}
	// No package manager answered: not evaluated.
	out[catalog.KindGuestRPM] = guestOut{stderr: "bash: line 1: rpm: command not found\n", exit: 127}
	res = runGuestRules(t, []string{"GUEST_RDMA_CORE_MISSING"}, nil, guestFacts("vm1", out))
	if f := findRule(res.Findings, "GUEST_RDMA_CORE_MISSING"); f == nil || f.Status != StatusNotEvaluated {
		t.Errorf("no package list: %+v", f)
	}
}

func TestGuestNetdevMTUExplainsLowMTU(t *testing.T) {
	out := healthyGuestOutputs()
	l := out[catalog.KindGuestIPLink]
	l.stdout = strings.Replace(l.stdout, "ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000", "ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500", 1)
	out[catalog.KindGuestIPLink] = l
	g := guestFacts("vm1", out)
	h := guestHost("esx01", 1)
	h.PVRDMADevices[0].ActiveMTU = 1024
	h.PVRDMADevices[0].Props = rec(cmdProps, "MAC address", guestMAC, "Physical HCA available", "1", "RoCE version", "2", "Active MTU", "1024")
	res := runGuestRules(t, []string{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "LOW_MTU"}, []facts.Host{h}, g)
	gf := findRule(res.Findings, "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU")
	lf := findRule(res.Findings, "LOW_MTU")
	if gf == nil || gf.CausedBy != nil || !strings.Contains(gf.Message, "MTU 1500, which caps its RoCE MTU at 1024") {
		t.Fatalf("guest MTU: %+v", gf)
	}
	if lf == nil || lf.CausedBy == nil || lf.CausedBy.RuleID != "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU" || lf.CausedBy.Host != "vm1" {
		t.Fatalf("LOW_MTU must nest under the guest MTU: %+v", lf)
	}
	if !strings.Contains(gf.Fix, "ip link set dev ens224 mtu 9000") {
		t.Errorf("fix %q", gf.Fix)
	}
	// Its adapter is the only one on the vDS, at 1024 like seed 002's
	// reference setup: information; beside a peer at 4096: a warning.
	if gf.Severity != Info || !strings.Contains(gf.Message, "as in VMware's reference setup") {
		t.Errorf("alone at 1024: %s %q", gf.Severity, gf.Message)
	}
	res = runGuestRules(t, []string{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "LOW_MTU"}, []facts.Host{h, goodHost("esx02", "192.168.50.12")}, g)
	if gf := findRule(res.Findings, "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU"); gf == nil || gf.Severity != Warning {
		t.Errorf("beside a peer at 4096: %+v", gf)
	}
	// 9000 in the guest: passes.
	res = runGuestRules(t, []string{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU"}, []facts.Host{guestHost("esx01", 1)}, guestFacts("vm1", healthyGuestOutputs()))
	if len(res.Findings) != 0 {
		t.Errorf("9000: %+v", res.Findings)
	}
}

func TestGuestNoRoCEv2GID(t *testing.T) {
	out := healthyGuestOutputs()
	s := out[catalog.KindGuestSysfsPort]
	s.stdout = strings.Replace(s.stdout, "gid_attrs/types/1:RoCE v2", "gid_attrs/types/1:IB/RoCE v1", 1)
	out[catalog.KindGuestSysfsPort] = s
	res := runGuestRules(t, []string{"GUEST_NO_ROCEV2_GID"}, []facts.Host{guestHost("esx01", 1)}, guestFacts("vm1", out))
	f := findRule(res.Findings, "GUEST_NO_ROCEV2_GID")
	if f == nil || f.Status != StatusFail || !strings.Contains(f.Message, "no RoCE v2 GID for ens224's address 192.168.50.21") {
		t.Fatalf("%+v", f)
	}
	// Not scanned host: not evaluated.
	res = runGuestRules(t, []string{"GUEST_NO_ROCEV2_GID"}, nil, guestFacts("vm1", out))
	if f := findRule(res.Findings, "GUEST_NO_ROCEV2_GID"); f == nil || f.Status != StatusNotEvaluated {
		t.Errorf("%+v", f)
	}
}

// noPVRDMA makes a guest's kernel lack vmw_pvrdma (modinfo: not found).
func noPVRDMA(out map[hostio.Kind]guestOut) {
	out[catalog.KindGuestModinfo] = guestOut{stderr: "modinfo: ERROR: Module vmw_pvrdma not found.\n", exit: 1}
	out[catalog.KindGuestLsmod] = guestOut{stdout: "Module                  Size  Used by\nvmxnet3                65536  0\n"}
	out[catalog.KindGuestIBClass] = guestOut{stderr: "ls: cannot access '/sys/class/infiniband': No such file or directory\n", exit: 2}
	out[catalog.KindGuestDevinfo] = guestOut{stderr: "No IB devices found\n", exit: 255}
	out[catalog.KindGuestDevices] = guestOut{stdout: "    device          \t   node GUID\n    ------          \t----------------\n"}
	out[catalog.KindGuestRDMALink] = guestOut{}
	delete(out, catalog.KindGuestSysfsPort)
}

// Seed 002 lists the releases that backport vmw_pvrdma (and ran its own
// test bed on CentOS 7.6, kernel 3.10.0-957): the kernel version alone
// proves nothing.
func TestGuestKernelTooOld(t *testing.T) {
	osr := func(id, version, pretty string) string {
		return "NAME=\"" + pretty + "\"\nID=\"" + id + "\"\nVERSION_ID=\"" + version + "\"\nPRETTY_NAME=\"" + pretty + "\"\n"
	}
	centos7 := osr("centos", "7", "CentOS Linux 7 (Core)")
	for _, c := range []struct {
		name, osRelease, kernel string
		noDriver, noModinfo     bool
		sev                     Severity // "" passes
		msg                     string
	}{
		{name: "CentOS 7.6 with a working vmw_pvrdma (seed 002's test bed): passes", osRelease: centos7, kernel: "3.10.0-957.el7.x86_64"},
		{name: "CentOS 7.6 without the module: listed, passes (GUEST_NO_PVRDMA_DEVICE reports it)", osRelease: centos7, kernel: "3.10.0-957.el7.x86_64", noDriver: true},
		{name: "CentOS 7.1 without the module: critical", osRelease: centos7, kernel: "3.10.0-229.el7.x86_64", noDriver: true, sev: Critical,
			msg: "CentOS Linux 7 (Core), 7.1 by its kernel 3.10.0-229.el7.x86_64"},
		{name: "CentOS 7.1, module unknown: warning", osRelease: centos7, kernel: "3.10.0-229.el7.x86_64", noDriver: true, noModinfo: true, sev: Warning,
			msg: "whether its kernel has a vmw_pvrdma module is unknown"},
		{name: "RHEL 7.2 (os-release gives the minor release): passes", osRelease: osr("rhel", "7.2", "Red Hat Enterprise Linux Server 7.2 (Maipo)"),
			kernel: "3.10.0-327.el7.x86_64", noDriver: true},
		{name: "Oracle Linux 7 with UEK R4: passes", osRelease: osr("ol", "7.9", "Oracle Linux Server 7.9"), kernel: "4.1.12-124.48.6.el7uek.x86_64", noDriver: true},
		{name: "Oracle Linux 7 with the Red Hat compatible kernel, no module: critical", osRelease: osr("ol", "7.9", "Oracle Linux Server 7.9"),
			kernel: "3.10.0-1160.el7.x86_64", noDriver: true, sev: Critical, msg: "Oracle Linux Server 7.9"},
		{name: "Ubuntu 14.04: passes", osRelease: osr("ubuntu", "14.04", "Ubuntu 14.04.6 LTS"), kernel: "3.13.0-170-generic", noDriver: true},
		{name: "SLES 12 SP1: passes", osRelease: osr("sles", "12.1", "SUSE Linux Enterprise Server 12 SP1"), kernel: "3.12.49-11-default", noDriver: true},
		{name: "SLES 12 GA, no module: critical", osRelease: osr("sles", "12", "SUSE Linux Enterprise Server 12"), kernel: "3.12.28-4-default", noDriver: true,
			sev: Critical, msg: "SLES 12 SP3 or later"},
		{name: "Debian 8, no module: critical", osRelease: osr("debian", "8", "Debian GNU/Linux 8 (jessie)"), kernel: "3.16.0-4-amd64", noDriver: true,
			sev: Critical, msg: "Linux 3.16.0-4-amd64 (Debian GNU/Linux 8 (jessie)), older than 4.6"},
		{name: "an unlisted old kernel whose module is there: passes", osRelease: osr("debian", "8", "Debian GNU/Linux 8 (jessie)"), kernel: "4.4.0-210-generic"},
		{name: "4.6 or later without the module: passes (GUEST_NO_PVRDMA_DEVICE reports it)", osRelease: osr("fedora", "39", "Fedora Linux 39"),
			kernel: "6.5.6-300.fc39.x86_64", noDriver: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := healthyGuestOutputs()
			out[catalog.KindGuestKernel] = guestOut{stdout: c.kernel + "\n"}
			out[catalog.KindGuestOSRelease] = guestOut{stdout: c.osRelease}
			if c.noDriver {
				noPVRDMA(out)
			}
			if c.noModinfo {
				delete(out, catalog.KindGuestModinfo)
			}
			res := runGuestRules(t, []string{"GUEST_KERNEL_TOO_OLD"}, nil, guestFacts("vm1", out))
			f := findRule(append(res.Findings, res.Passed...), "GUEST_KERNEL_TOO_OLD")
			switch {
			case f == nil:
				t.Fatal("no result")
			case c.sev == "" && f.Status != StatusPass:
				t.Errorf("want a pass: %+v", f)
			case c.sev != "" && (f.Status != StatusFail || f.Severity != c.sev || !strings.Contains(f.Message+" "+f.Fix, c.msg) || f.Evidence[0].Text != c.kernel):
				t.Errorf("want %s containing %q: %+v", c.sev, c.msg, f)
			}
		})
	}
	out := healthyGuestOutputs()
	delete(out, catalog.KindGuestKernel)
	res := runGuestRules(t, []string{"GUEST_KERNEL_TOO_OLD"}, nil, guestFacts("vm1", out))
	if f := findRule(res.Findings, "GUEST_KERNEL_TOO_OLD"); f == nil || f.Status != StatusNotEvaluated {
		t.Errorf("%+v", f)
	}
	// A guest that could not be reached: every guest rule not evaluated, once.
	res = runGuestRules(t, guestRuleIDs, nil, facts.Guest{Guest: "vm2", Collection: facts.Collection{Status: hostio.StatusNotCollected, Reason: "connection refused"}})
	if len(res.Findings) != len(guestRuleIDs) || !strings.Contains(res.Findings[0].Message, "guest not collected: connection refused") {
		t.Errorf("%+v", res.Findings)
	}
}

func TestGuestBandwidthLow(t *testing.T) {
	g := guestFacts("vm1", healthyGuestOutputs())
	h := guestHost("esx01", 1)
	h.RDMADevices[0].SpeedMbps = 100000
	run := func(gbps float64) *Finding {
		g.Bandwidth = []parse.BandwidthResult{{Device: "vmw_pvrdma0", MsgBytes: 65536, AvgGbps: gbps,
			Ref: parse.Ref{Command: "timeout 30 ib_send_bw --report_gbits -F -D 5 -d vmw_pvrdma0 192.168.50.22", Line: 20, Text: " 65536 ..."}}}
		res := runGuestRules(t, []string{"GUEST_BANDWIDTH_LOW"}, []facts.Host{h}, g)
		all := append(res.Findings, res.Passed...)
		return findRule(all, "GUEST_BANDWIDTH_LOW")
	}
	if f := run(12.5); f == nil || f.Status != StatusFail || !strings.Contains(f.Message, "12.50 Gb/s (65536-byte messages), 12% of the 100 Gb/s line rate") {
		t.Errorf("low: %+v", f)
	}
	if f := run(96.31); f == nil || f.Status != StatusPass {
		t.Errorf("line rate: %+v", f)
	}
	g.Bandwidth = nil
	if res := runGuestRules(t, []string{"GUEST_BANDWIDTH_LOW"}, []facts.Host{h}, g); len(res.Findings)+len(res.Passed) != 0 {
		t.Errorf("not run: %+v", res)
	}
}

// The remedy follows the guest's release: Ubuntu 16.04 packages no
// rdma-core (no apt-get install of it; an upgrade or a source build),
// RHEL 8 uses dnf, RHEL/CentOS 7 yum, Ubuntu 22.04 apt.
func TestGuestRDMACoreRemedyByRelease(t *testing.T) {
	cases := []struct {
		osRelease string
		dpkg      bool
		want      string // in the fix
		not       string // never in the fix
	}{
		{"ID=ubuntu\nVERSION_ID=\"16.04\"\n", true, "packages no rdma-core", "apt-get install -y rdma-core ibverbs-providers ibverbs-utils infiniband-diags perftest"},
		{"ID=ubuntu\nVERSION_ID=\"22.04\"\n", true, "sudo apt-get install -y rdma-core", "packages no rdma-core"},
		{"ID=\"rhel\"\nVERSION_ID=\"8.6\"\n", false, "sudo dnf install -y rdma-core", "yum"},
		{"ID=\"centos\"\nVERSION_ID=\"7\"\n", false, "sudo yum install -y rdma-core", "dnf"},
	}
	for _, c := range cases {
		out := healthyGuestOutputs()
		out[catalog.KindGuestOSRelease] = guestOut{stdout: c.osRelease}
		out[catalog.KindGuestDevinfo] = guestOut{stderr: "bash: line 1: ibv_devinfo: command not found\n", exit: 127}
		if c.dpkg {
			out[catalog.KindGuestDpkg] = guestOut{stdout: "bash\t5.1-6ubuntu1\n"}
		} else {
			out[catalog.KindGuestDpkg] = guestOut{stderr: "bash: line 1: dpkg-query: command not found\n", exit: 127}
			out[catalog.KindGuestRPM] = guestOut{stdout: "bash-4.4.20-4.el8.x86_64\n"}
		}
		g := guestFacts("vm1", out)
		res := runGuestRules(t, []string{"GUEST_RDMA_CORE_MISSING"}, nil, g)
		f := findRule(res.Findings, "GUEST_RDMA_CORE_MISSING")
		if f == nil || !strings.Contains(f.Fix, c.want) || strings.Contains(f.Fix, c.not) {
			t.Errorf("%q: fix %+v", c.osRelease, f)
		}
	}
}
