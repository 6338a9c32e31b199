package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// withVmk2 gives a host vmk2 on another vDS (vmotion-dvs) at addr/24,
// with gateway gw ("": none).
func withVmk2(h *facts.Host, addr, gw string) {
	h.Vmknics = append(h.Vmknics, parse.Vmknic{Name: "vmk2", Enabled: true, Portset: "DvsPortset-1", Netstack: "defaultTcpipStack",
		VDSName: "vmotion-dvs", MTU: 1500, Record: rec(cmdIfList, "Name", "vmk2", "Portset", "DvsPortset-1", "VDS Name", "vmotion-dvs", "MTU", "1500"),
		Ref: ref(cmdIfList, 40, "vmk2")})
	h.IPv4 = append(h.IPv4, parse.IPv4Interface{Name: "vmk2", Address: addr, Netmask: "255.255.255.0", Gateway: gw, Ref: ref(cmdIPv4, 5, "vmk2  "+addr)})
}

// tag sets /Net/PVRDMAVmknic.
func tag(h *facts.Host, vmk string) {
	h.PVRDMAVmknic.StringValue = vmk
	h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "Type", "string", "String Value", vmk)
}

// wrongTag is issue 39's case: esx02 tags vmk2 (vmotion-dvs,
// 192.168.60.12, no gateway) while vmk1 on rdma-dvs and esx01 use
// 192.168.50.0/24.
func wrongTag(b *facts.Host) {
	withVmk2(b, "192.168.60.12", "")
	tag(b, "vmk2")
}

// onlyWrongTag: the same, and esx02 has no vmknic in 192.168.50.0/24.
func onlyWrongTag(b *facts.Host) {
	wrongTag(b)
	b.IPv4[1].Address = "192.168.70.12"
}

// routedTag: esx02's vmk2 is in another subnet, with a gateway on its
// netstack, and probes between the two vmknics got replies.
func routedTag(withProbe bool) func() []facts.Host {
	return func() []facts.Host {
		a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
		a.IPv4[0].Gateway = "10.10.0.1"
		withVmk2(&b, "192.168.60.12", "192.168.60.1")
		tag(&b, "vmk2")
		b.Pings = nil
		if withProbe {
			addPings(&a, "192.168.60.12", true, true)
			addPings(&b, "192.168.50.11", true, true)
			for i := range b.Pings {
				b.Pings[i].Ref.Command = strings.Replace(b.Pings[i].Ref.Command, "-I vmk1", "-I vmk2", 1)
			}
		}
		return []facts.Host{a, b}
	}
}

func TestVmknicOtherSubnet(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_OTHER_SUBNET", []ruleCase{
		{name: "tagged on another vDS and subnet, no route: warning, one command", hosts: hostsOf(pair(wrongTag)), exact: true,
			want: []want{{"esx02", "vmk2", StatusFail, Warning, "vmk2, tagged for PVRDMA on esx02, is in 192.168.60.0/24 (on distributed switch " +
				"vmotion-dvs, not the PVRDMA vDS rdma-dvs), while the PVRDMA vmknics of esx01 (vmk1 192.168.50.11) are in 192.168.50.0/24: " +
				"the vmknics are in different subnets and no route between them is known (no gateway on vmk2's netstack", "192.168.50.11"},
				{host: "esx01", subject: "vmk1", status: StatusPass}}},
		{name: "the scan's probes between the vmknics on rdma-dvs get replies: no route between the subnets shown, warning", exact: true,
			hosts: hostsOf(pair(func(b *facts.Host) {
				wrongTag(b)
				addPings(b, "192.168.50.11", true, true) // from vmk1 (192.168.50.12): within one subnet
			})),
			want: []want{{"esx02", "vmk2", StatusFail, Warning, "no route between them is known", ""}}},
		{name: "no vmknic of its own in the peers' subnet: warning, no tag proposed", hosts: hostsOf(pair(onlyWrongTag)), exact: true,
			want: []want{{"esx02", "vmk2", StatusFail, Warning, "different subnets and no route between them is known", ""}}},
		{name: "a routed path (gateway and a probe that crossed it): near miss", hosts: routedTag(true), exact: true,
			want: []want{{host: "esx02", subject: "vmk2", status: StatusPass}, {host: "esx01", subject: "vmk1", status: StatusPass}}},
		{name: "a gateway but no probe crossed: no route known", hosts: routedTag(false), exact: true,
			want: []want{{"esx02", "vmk2", StatusFail, Warning, "vmk2's netstack has gateway 192.168.60.1, but no probe between 192.168.60.0/24 and 192.168.50.0/24 got a reply", ""}}},
		{name: "a routed path proved by another pair across the same two subnets (a ring of probes): near miss", exact: true,
			hosts: func() []facts.Host {
				hs := routedTag(false)()
				c := goodHost("esx03", "192.168.50.13")
				addPings(&c, "192.168.60.12", true, true)
				return append(hs, c)
			},
			want: []want{{host: "esx02", subject: "vmk2", status: StatusPass}}},
		{name: "tagged on another switch in the peers' subnet (VMware's guides: vmk0): near miss", exact: true,
			hosts: hostsOf(pair(func(b *facts.Host) { tag(b, "vmk0"); b.IPv4[0].Address = "192.168.50.22" })),
			want:  []want{{host: "esx02", subject: "vmk0", status: StatusPass}}},
		{name: "one subnet: near miss", hosts: hostsOf(pair(func(*facts.Host) {})), exact: true,
			want: []want{{host: "esx02", subject: "vmk1", status: StatusPass}, {host: "esx01", subject: "vmk1", status: StatusPass}}},
	})
	// The one-command fix names the vmknic the peers reach.
	f := runRule(t, "PVRDMA_VMKNIC_OTHER_SUBNET", pair(wrongTag)().Hosts...)
	for _, x := range f {
		if x.Status == StatusFail && !strings.Contains(x.Fix, "Tag vmk1 (distributed switch rdma-dvs, 192.168.50.12, in the peers' subnet 192.168.50.0/24): "+
			"esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1") {
			t.Errorf("fix %q", x.Fix)
		}
	}
}

// The setup VMware's guides call valid is information only while the
// tagged vmknics reach each other; issue 39's case is not called valid.
func TestVmknicNotOnDVSOnlyWhenReached(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_NOT_ON_DVS", []ruleCase{
		{name: "another vDS and subnet, no route: not called valid", hosts: hostsOf(pair(wrongTag)), exact: true},
		{name: "another switch, the peers' subnet: information (near miss)", exact: true,
			hosts: hostsOf(pair(func(b *facts.Host) { tag(b, "vmk0"); b.IPv4[0].Address = "192.168.50.22" })),
			want:  []want{{"esx02", "vmk0", StatusFail, Info, "valid as long as", ""}}},
	})
}

// The plan of issue 39's case: one command, no reboot, no VM power-off,
// no DSCP; without a vmknic in the peers' subnet, no tag at all.
func TestVmknicOtherSubnetPlan(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(*facts.Host)
		want string
	}{
		{"a vmknic in the peers' subnet", wrongTag, "tag_vmknic"},
		{"none", onlyWrongTag, "investigate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fleet := pair(c.f)()
			res := Run(fleet)
			for _, f := range res.Findings {
				if f.Status == StatusFail && (f.RuleID == "DSCP_TRUST" || f.RuleID == "PVRDMA_VMKNIC_NOT_ON_DVS") {
					t.Errorf("%s on %s: %s", f.RuleID, f.Host, f.Message)
				}
			}
			plans := Plans(fleet, res.Findings)
			if p := PlanFor(plans, "esx01"); p != nil && len(p.Steps) > 0 {
				t.Errorf("esx01 plan %+v", p.Steps)
			}
			p := PlanFor(plans, "esx02")
			if p == nil {
				t.Fatalf("no plan for esx02:\n%s", dump(res.Findings))
			}
			var acts []string
			for _, s := range p.Steps {
				acts = append(acts, string(s.Action))
				if s.Action == plan.KindTagVmknic && s.Command != "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1" {
					t.Errorf("tag %+v", s)
				}
			}
			if got := strings.Join(acts, " "); got != c.want {
				t.Errorf("plan %s, want %s\n%s", got, c.want, dump(res.Findings))
			}
		})
	}
}

// An untagged host is told to tag the vmknic in the peers' subnet, never
// one they cannot reach (the cluster demo's esx05 was told "Tag vmk0", the
// management vmknic in another subnet).
func TestTagTargetReachesPeers(t *testing.T) {
	untagged := func(b *facts.Host) { tag(b, "") }
	for _, c := range []struct {
		name       string
		f          func(*facts.Host)
		want, none string
	}{
		{"vmk1 on the PVRDMA vDS in the peers' subnet", untagged, "vmk1", ""},
		{"only vmk0, in another subnet: none", func(b *facts.Host) { untagged(b); b.Vmknics, b.IPv4 = b.Vmknics[:1], b.IPv4[:1] }, "",
			"no vmknic of esx02 has an address in 192.168.50.0/24"},
		{"only vmk0, in the peers' subnet: vmk0", func(b *facts.Host) {
			untagged(b)
			b.Vmknics, b.IPv4 = b.Vmknics[:1], b.IPv4[:1]
			b.IPv4[0].Address = "192.168.50.22"
		}, "vmk0", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fleet := pair(c.f)()
			paths := fleet.DataPath()
			b := &fleet.Hosts[1]
			hp := paths.Host(1)
			got, none := tagTarget(fleet, b, hp, hp.Switch)
			if got != c.want || !strings.HasPrefix(none, c.none) || (c.none == "") != (none == "") {
				t.Errorf("tagTarget = %q, %q; want %q, %q", got, none, c.want, c.none)
			}
		})
	}
}

// A host without PVRDMA VMs whose tag is in another subnet is not ready
// (its vmknic tag step), one headline: HOST_NOT_READY, whose plan tags
// the vmknic in the peers' subnet.
func TestIdleHostWrongTagOneHeadline(t *testing.T) {
	a, b := goodHost("esx01", "192.168.50.11"), idle("esx02", "192.168.50.12")
	wrongTag(&b)
	fleet := &facts.Fleet{Hosts: []facts.Host{a, b}}
	res := Run(fleet)
	var got []string
	for _, f := range res.Findings {
		if f.Status == StatusFail {
			got = append(got, f.RuleID+" "+f.Host+" "+string(f.Severity))
		}
	}
	if strings.Join(got, "; ") != "HOST_NOT_READY esx02 warning" {
		t.Errorf("findings %v\n%s", got, dump(res.Findings))
	}
	if c := ReadinessOf(fleet).row("esx02").Cell(stepVmknic); c.State != CellFail ||
		c.Text != "vmk2 in 192.168.60.0/24, the other hosts' PVRDMA vmknics in 192.168.50.0/24 (no route known)" {
		t.Errorf("tag cell %+v", c)
	}
	p := PlanFor(Plans(fleet, res.Findings), "esx02")
	if p == nil || len(p.Steps) != 1 || p.Steps[0].Action != plan.KindTagVmknic ||
		p.Steps[0].Command != "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1" {
		t.Errorf("plan %+v", p)
	}
}
