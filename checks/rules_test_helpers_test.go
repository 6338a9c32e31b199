package checks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Hand-built facts for rule tests. A "good" host is a healthy PVRDMA host:
// one Active RDMA device vmrdma0 on vmnic4, the only uplink of rdma-dvs
// (MTU 9000), vmk1 on rdma-dvs tagged for PVRDMA, PFC on, no errors, one
// PVRDMA VM.

const (
	cmdRDMAList  = "esxcli rdma device list"
	cmdProto     = "esxcli rdma device protocol list"
	cmdIfList    = "esxcli network ip interface list"
	cmdIPv4      = "esxcli network ip interface ipv4 get"
	cmdDVS       = "esxcli network vswitch dvs vmware list"
	cmdTag       = "esxcli system settings advanced list -o /Net/PVRDMAVmknic"
	cmdFirewall  = "esxcli network firewall ruleset list"
	cmdLs        = "vsish -e ls /vmkModules/vrdma/pvrdmaDevices/"
	cmdVersion   = "esxcli system version get"
	cmdVMKBind   = "esxcli rdma device vmknic list"
	cmdNICList   = "esxcli network nic list"
	cmdProps     = "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/2100788_0/properties"
	cmdNICGet4   = "esxcli network nic get -n vmnic4"
	cmdDCB4      = "esxcli network nic dcb status get -n vmnic4"
	cmdStats0    = "esxcli rdma device stats get -d vmrdma0"
	cmdPingSmall = "vmkping -I vmk1 -c 3 -d -s 1472 192.168.50.12"
	cmdPingJumbo = "vmkping -I vmk1 -c 3 -d -s 8972 192.168.50.12"
	cmdVMList    = "esxcli vm process list"
)

func ref(cmd string, line int, text string) parse.Ref {
	return parse.Ref{Command: cmd, Line: line, Text: text}
}

func rec(cmd string, kv ...string) parse.Record {
	r := parse.NewRecord(ref(cmd, 1, ""))
	for i := 0; i+1 < len(kv); i += 2 {
		line := i/2 + 2
		r.Set(kv[i], parse.Field{Value: kv[i+1], Ref: ref(cmd, line, "   "+kv[i]+": "+kv[i+1])})
	}
	return r
}

func collected(h *facts.Host, cmds ...string) {
	for _, c := range cmds {
		k := catalog.KindOf(c)
		h.Sources[k] = append(h.Sources[k], facts.Source{Command: c, Status: hostio.StatusCollected, Parsed: true})
	}
}

// missing marks a kind's command as failed on the host.
func missing(h *facts.Host, cmd string) {
	k := catalog.KindOf(cmd)
	var keep []facts.Source
	for _, s := range h.Sources[k] {
		if s.Command != cmd {
			keep = append(keep, s)
		}
	}
	h.Sources[k] = append(keep, facts.Source{Command: cmd, Status: hostio.StatusFailed, Error: "exit status 1"})
}

func goodHost(name string, ip string) facts.Host {
	h := facts.Host{Host: name, Collection: facts.Collection{Status: hostio.StatusCollected}, Sources: map[hostio.Kind][]facts.Source{}}
	collected(&h, cmdRDMAList, cmdProto, cmdIfList, cmdIPv4, cmdDVS, cmdTag, cmdFirewall, cmdLs, cmdVersion, cmdVMKBind,
		cmdNICList, cmdProps, cmdNICGet4, cmdDCB4, cmdStats0, cmdVMList, cmdPCI)
	h.Version = &parse.SystemVersion{Product: "VMware ESXi", Version: "8.0.3", Build: "24022510", Ref: ref(cmdVersion, 2, "   Version: 8.0.3")}
	h.RDMADevices = []parse.RDMADevice{{Name: "vmrdma0", Driver: "nmlx5_rdma", State: "Active", MTU: 4096, PairedUplink: "vmnic4",
		Description: "MT27800 Family [ConnectX-5]", Ref: ref(cmdRDMAList, 3, "vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4  MT27800 Family [ConnectX-5]")}}
	h.RDMAProtocols = []parse.RDMAProtocol{{Device: "vmrdma0", RoCEv1: true, RoCEv2: true, Ref: ref(cmdProto, 3, "vmrdma0     true     true  false")}}
	h.RDMAVmknics = []parse.RDMAVmknic{{Device: "vmrdma0", Vmknic: "vmk1", NetStack: "defaultTcpipStack", Ref: ref(cmdVMKBind, 3, "vmrdma0  vmk1    defaultTcpipStack")}}
	vr := rec(cmdIfList, "Name", "vmk1", "Portset", "DvsPortset-0", "VDS Name", "rdma-dvs", "MTU", "9000")
	h.Vmknics = []parse.Vmknic{
		{Name: "vmk0", Enabled: true, Portset: "vSwitch0", Netstack: "defaultTcpipStack", MTU: 1500, Record: rec(cmdIfList, "Name", "vmk0", "MTU", "1500"), Ref: ref(cmdIfList, 1, "vmk0")},
		{Name: "vmk1", Enabled: true, Portset: "DvsPortset-0", Netstack: "defaultTcpipStack", VDSName: "rdma-dvs", MTU: 9000, Record: vr, Ref: ref(cmdIfList, 20, "vmk1")},
	}
	h.IPv4 = []parse.IPv4Interface{
		{Name: "vmk0", Address: "10.10.0.11", Netmask: "255.255.255.0", Ref: ref(cmdIPv4, 3, "vmk0  10.10.0.11")},
		{Name: "vmk1", Address: ip, Netmask: "255.255.255.0", Ref: ref(cmdIPv4, 4, "vmk1  "+ip)},
	}
	h.NICs = []parse.NIC{{Name: "vmnic4", AdminStatus: "Up", LinkStatus: "Up", MTU: 9000, Driver: "nmlx5_core", Ref: ref(cmdNICList, 4, "vmnic4  0000:3b:00.0  nmlx5_core  Up  Up  100000")}}
	h.NICDetails = []parse.NICDetail{{Name: "vmnic4", Driver: "nmlx5_core", LinkStatus: "Up",
		Record: rec(cmdNICGet4, "Name", "vmnic4", "Pause RX", "false", "Pause TX", "false"), Ref: ref(cmdNICGet4, 1, "")}}
	h.DCB = []parse.DCBStatus{{Nic: "vmnic4", DCBEnabled: true, PFCEnabled: true, PFCPriorities: []int{3},
		Record: rec(cmdDCB4, "Nic Name", "vmnic4", "PFC Enabled", "true", "PFC Configuration", "0 0 0 1 0 0 0 0"), Ref: ref(cmdDCB4, 1, "")}}
	h.RDMAStats = []parse.RDMAStats{{Device: "vmrdma0", Counters: map[string]int64{"Packets received": 100, "Error packets received": 0, "Queue pairs in ERR state": 0},
		Record: rec(cmdStats0, "Packets received", "100", "Error packets received", "0", "Queue pairs in ERR state", "0")}}
	h.DVSwitches = []parse.DVSwitch{{Name: "rdma-dvs", MTU: 9000, Uplinks: []string{"vmnic4"},
		Record: rec(cmdDVS, "Name", "rdma-dvs", "MTU", "9000", "Uplinks", "vmnic4"), Ref: ref(cmdDVS, 1, "rdma-dvs")}}
	h.PVRDMAVmknic = &parse.AdvancedSetting{Path: "/Net/PVRDMAVmknic", Type: "string", StringValue: "vmk1",
		Record: rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "Type", "string", "String Value", "vmk1"), Ref: ref(cmdTag, 1, "")}
	h.Rulesets = []parse.FirewallRuleset{{Name: "sshServer", Enabled: true, Ref: ref(cmdFirewall, 3, "sshServer  true")},
		{Name: "pvrdma", Enabled: true, Ref: ref(cmdFirewall, 44, "pvrdma                          true                         true                     true")}}
	h.PVRDMAListing = []parse.VsishEntry{{Name: "2100788_0", IsDir: true, Ref: ref(cmdLs, 1, "2100788_0/")}}
	h.PVRDMADevices = []parse.PVRDMADevice{{WorldID: "2100788", Index: "0", VMName: "hpc-" + name, PhysicalHCA: 1, RoCEVersion: 2, ActiveMTU: 4096,
		Props: rec(cmdProps, "Physical HCA available", "1", "RoCE version", "2", "Active MTU", "4096"), Ref: ref(cmdProps, 1, "PVRDMA Device Properties {")}}
	return h
}

// addPings adds a small and a jumbo probe to target with the given results.
func addPings(h *facts.Host, target string, smallOK, jumboOK bool) {
	mk := func(payload int, ok bool) parse.Ping {
		cmd := "vmkping -I vmk1 -c 3 -d -s " + strconv.Itoa(payload) + " " + target
		p := parse.Ping{Target: target, Payload: payload, Transmitted: 3, HasStats: true}
		if ok {
			p.Received = 3
			p.Ref = ref(cmd, 6, "3 packets transmitted, 3 packets received, 0% packet loss")
		} else {
			p.LossPercent = 100
			p.Ref = ref(cmd, 6, "3 packets transmitted, 0 packets received, 100% packet loss")
		}
		return p
	}
	for _, p := range []parse.Ping{mk(1472, smallOK), mk(8972, jumboOK)} {
		collected(h, p.Ref.Command)
		h.Pings = append(h.Pings, p)
	}
}

// runRule runs one rule on a fleet and returns its results (pass included).
func runRule(t *testing.T, id string, hosts ...facts.Host) []Finding {
	t.Helper()
	rule, ok := Lookup(id)
	if !ok {
		t.Fatalf("rule %s not registered", id)
	}
	fleet := &facts.Fleet{Hosts: hosts}
	res := RunRules(fleet, []*Rule{rule})
	return append(append([]Finding(nil), res.Findings...), res.Passed...)
}

// want describes the expected result of a rule for one subject.
type want struct {
	host, subject string
	status        Status
	severity      Severity
	msg           string // substring of the message (fail, not evaluated)
	evLine        string // substring of one evidence line's text (fail)
}

type ruleCase struct {
	name  string
	hosts func() []facts.Host
	want  []want
	// exact: no other failing or not-evaluated results than want.
	exact bool
}

func runCases(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runRule(t, id, c.hosts()...)
			matched := map[int]bool{}
			for _, w := range c.want {
				found := false
				for i, f := range got {
					if f.Host != w.host || f.Subject != w.subject || f.Status != w.status {
						continue
					}
					found = true
					matched[i] = true
					if w.severity != "" && f.Severity != w.severity {
						t.Errorf("%s %s: severity %s, want %s", w.host, w.subject, f.Severity, w.severity)
					}
					if w.msg != "" && !strings.Contains(f.Message, w.msg) {
						t.Errorf("%s %s: message %q does not contain %q", w.host, w.subject, f.Message, w.msg)
					}
					if w.status == StatusFail {
						if f.Fix == "" || len(f.Evidence) == 0 {
							t.Errorf("%s %s: fail without fix or evidence: %+v", w.host, w.subject, f)
						}
						for _, e := range f.Evidence {
							if e.Host == "" || e.Command == "" {
								t.Errorf("%s %s: evidence without host or command: %+v", w.host, w.subject, e)
							}
						}
					}
					if w.evLine != "" {
						ok := false
						for _, e := range f.Evidence {
							if e.Line > 0 && strings.Contains(e.Text, w.evLine) {
								ok = true
							}
						}
						if !ok {
							t.Errorf("%s %s: no evidence line containing %q in %+v", w.host, w.subject, w.evLine, f.Evidence)
						}
					}
				}
				if !found {
					t.Errorf("no %s result for %s %s; got:\n%s", w.status, w.host, w.subject, dump(got))
				}
			}
			if c.exact {
				for i, f := range got {
					if !matched[i] && f.Status != StatusPass {
						t.Errorf("unexpected %s %s %s: %s", f.Status, f.Host, f.Subject, f.Message)
					}
				}
			}
		})
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + string(f.Status) + " " + string(f.Severity) + " " + f.Host + " [" + f.Subject + "] " + f.Message + "\n")
	}
	return b.String()
}

const vm01 = "hpc-esx01 (PVRDMA adapter 0)"

// setProp changes one vsish property of the host's first PVRDMA device.

func setProp(h *facts.Host, key, value string) {
	d := &h.PVRDMADevices[0]
	props := rec(cmdProps, "Physical HCA available", "1", "RoCE version", "2", "Active MTU", "4096")
	f := props.Lookup(key)
	f.Value = value
	f.Text = key + ":" + value
	props.Set(key, f)
	d.Props = props
	switch key {
	case "Physical HCA available":
		d.PhysicalHCA = atoi(value)
	case "Active MTU":
		d.ActiveMTU = atoi(value)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func one(f func(h *facts.Host)) func() []facts.Host {
	return func() []facts.Host {
		h := goodHost("esx01", "192.168.50.11")
		if f != nil {
			f(&h)
		}
		return []facts.Host{h}
	}
}

// two is one for a fleet of two good hosts, esx01 (192.168.50.11) and
// esx02 (192.168.50.12), which f (when not nil) changes.
func two(f func(a, b *facts.Host)) func() []facts.Host {
	return func() []facts.Host {
		a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
		if f != nil {
			f(&a, &b)
		}
		return []facts.Host{a, b}
	}
}

// probed is two where each host has probed the other (small and jumbo
// probes answered) before f (when not nil) changes them.
func probed(f func(a, b *facts.Host)) func() []facts.Host {
	return two(func(a, b *facts.Host) {
		addPings(a, "192.168.50.12", true, true)
		addPings(b, "192.168.50.11", true, true)
		if f != nil {
			f(a, b)
		}
	})
}

// addProbe adds one vmkping run from vmk1 with count packets of payload
// bytes: replied, lost (left the host, no reply) or refused by the
// sending host (`sendto() failed (Message too long)`).
func addProbe(h *facts.Host, target string, count, payload int, result string) {
	cmd := "vmkping -I vmk1 -c " + strconv.Itoa(count) + " -d -s " + strconv.Itoa(payload) + " " + target
	p := parse.Ping{Target: target, Payload: payload, Transmitted: count, HasStats: true}
	switch result {
	case "ok":
		p.Received = count
		p.Ref = ref(cmd, 6, "packets received, 0% packet loss")
	case "refused":
		p.Transmitted, p.LossPercent, p.MessageTooLong = 0, 100, true
		p.Failures = []string{"sendto() failed (Message too long)"}
		p.FailureRef = ref(cmd, 2, "sendto() failed (Message too long)")
		p.Ref = ref(cmd, 6, "0 packets transmitted, 0 packets received, 100% packet loss")
	default:
		p.LossPercent = 100
		p.Ref = ref(cmd, 6, "packets transmitted, 0 packets received, 100% packet loss")
	}
	collected(h, cmd)
	h.Pings = append(h.Pings, p)
}
