package checks

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The fleet's reach index (derived once per fleet) answers what walking
// every peer and every probe per host answered: the peers outside a
// subnet, the peers' subnet (ties included) and the probe across two
// subnets, on random fleets of several subnets, netmasks, hosts without
// an address, two hosts of one name, and probes that got replies or not.
func TestReachIndexAnswersAsTheWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 36))
	subnets := []string{"192.168.50.", "192.168.60.", "192.168.70."}
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(9)
		var hosts []facts.Host
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("esx%02d", i+1)
			if i > 0 && r.IntN(12) == 0 {
				name = hosts[i-1].Host // two hosts of one name
			}
			h := goodHost(name, subnets[r.IntN(len(subnets))]+fmt.Sprint(11+i))
			switch r.IntN(8) {
			case 0:
				h.IPv4[1].Netmask = "255.255.0.0" // a wider subnet holding the others
			case 1:
				h.IPv4[1].Address = "" // no address: not a peer
			}
			hosts = append(hosts, h)
		}
		for i := range hosts {
			for k := r.IntN(3); k > 0; k-- {
				to := hosts[r.IntN(n)].IPv4[1].Address
				if to != "" {
					addPings(&hosts[i], to, r.IntN(3) > 0, r.IntN(2) == 0)
				}
			}
		}
		fleet := &facts.Fleet{Hosts: hosts}
		ix := reachOf(fleet)
		paths := fleet.DataPath()
		var all []vmkAddr
		for i := range fleet.Hosts {
			if a, ok := pvrdmaAddr(&fleet.Hosts[i], paths.Host(i)); ok {
				all = append(all, a)
			}
		}
		for i := range fleet.Hosts {
			h := &fleet.Hosts[i]
			var peers []vmkAddr
			for _, a := range all {
				if a.host.Host != h.Host {
					peers = append(peers, a)
				}
			}
			if got := ix.peers(h); got != len(peers) {
				t.Fatalf("trial %d, %s: %d peers; the walk finds %d", trial, h.Host, got, len(peers))
			}
			if len(peers) > 0 {
				ws, wn := peersSubnet(peers)
				if gs, gn := ix.peersSubnet(h); gs != ws || gn != wn {
					t.Fatalf("trial %d, %s: peers' subnet %s (%d); the walk finds %s (%d)", trial, h.Host, gs, gn, ws, wn)
				}
			}
			for _, pre := range []netip.Prefix{netip.MustParsePrefix("192.168.50.0/24"), netip.MustParsePrefix("192.168.60.0/24"),
				netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("10.0.0.0/8")} {
				var want []string
				for _, a := range peers {
					if !pre.Contains(a.addr) {
						want = append(want, a.host.Host+" "+a.addr.String())
					}
				}
				var got []string
				for _, a := range ix.outside(h, pre) {
					got = append(got, a.host.Host+" "+a.addr.String())
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("trial %d, %s outside %s: %v; the walk finds %v", trial, h.Host, pre, got, want)
				}
			}
		}
		for _, a := range all {
			for _, b := range all {
				wh, wp := walkCrossedProbe(fleet, a, b)
				gh, gp := crossedProbe(fleet, a, b)
				if wh != gh || wp != gp {
					t.Fatalf("trial %d: probe across %s and %s: %v; the walk finds %v", trial, a.addr, b.addr, gp, wp)
				}
			}
		}
	}
}

// walkCrossedProbe is the walk the index replaces: every host's probes,
// per pair of vmknics.
func walkCrossedProbe(fleet *facts.Fleet, a, b vmkAddr) (*facts.Host, *parse.Ping) {
	var anyHost *facts.Host
	var anyPing *parse.Ping
	for i := range fleet.Hosts {
		x := &fleet.Hosts[i]
		for j := range x.Pings {
			p := &x.Pings[j]
			if p.Failed() || p.HasStats && p.Received == 0 {
				continue
			}
			to, err := netip.ParseAddr(p.Target)
			if err != nil {
				continue
			}
			src := p.Vmknic()
			if src == "" {
				if hp := fleet.DataPath().For(x); hp != nil && hp.Vmknic != nil {
					src = hp.Vmknic.Name
				}
			}
			ip := ipv4Of(x, src)
			if ip == nil {
				continue
			}
			from, err := netip.ParseAddr(ip.Address)
			if err != nil {
				continue
			}
			if !(a.subnet.Contains(from) && b.subnet.Contains(to) || b.subnet.Contains(from) && a.subnet.Contains(to)) {
				continue
			}
			if from == a.addr && to == b.addr || from == b.addr && to == a.addr {
				return x, p
			}
			if anyPing == nil {
				anyHost, anyPing = x, p
			}
		}
	}
	return anyHost, anyPing
}

// A host whose tagged vmknic is alone in its subnet names three of the
// peers it cannot reach and counts the rest: the finding stays the same
// size in any fleet.
func TestVmknicOtherSubnetNamesAFewPeers(t *testing.T) {
	var hosts []facts.Host
	for i := 1; i <= 6; i++ {
		hosts = append(hosts, goodHost(fmt.Sprintf("esx%02d", i), fmt.Sprintf("192.168.50.%d", 10+i)))
	}
	wrongTag(&hosts[5])
	var fail []Finding
	for _, f := range runRule(t, "PVRDMA_VMKNIC_OTHER_SUBNET", hosts...) {
		if f.Status == StatusFail {
			fail = append(fail, f)
		}
	}
	if len(fail) != 1 || fail[0].Host != "esx06" {
		t.Fatalf("findings %+v; want one, on esx06", fail)
	}
	want := "the PVRDMA vmknics of esx01 (vmk1 192.168.50.11), esx02 (vmk1 192.168.50.12), esx03 (vmk1 192.168.50.13) and 2 more hosts are in 192.168.50.0/24"
	if !strings.Contains(fail[0].Message, want) {
		t.Errorf("message %q; want %q", fail[0].Message, want)
	}
	if n := len(fail[0].Evidence); n != 2+3+1 {
		t.Errorf("%d evidence lines; want its own two, three peers' and the vmknic to tag", n)
	}
}
