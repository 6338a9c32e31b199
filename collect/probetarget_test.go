package collect_test

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// A hostile host names its own PVRDMA vmknic address; its peers probe it.
// Over real SSH: a broadcast, multicast, loopback, link-local or "this
// network" address is never probed, from anywhere, and the host's notes
// say why; an address that is the broadcast of the prober's subnet is not
// probed by that peer (issue 24.8). The lab's own addresses (192.168.50.x,
// answered by fixtures/network.go) are probed as before.
func TestProbesGoToUnicastAddressesOnly(t *testing.T) {
	sc := loadScenario(t, "healthy")
	real := sc.Host("esx01").Respond("esxcli network ip interface ipv4 get").Stdout
	for _, tc := range []struct{ addr, note, peerNote string }{
		{"255.255.255.255", "the broadcast address", ""},
		{"224.0.0.1", "a multicast address", ""},
		{"127.0.0.1", "a loopback address", ""},
		{"169.254.10.11", "a link-local address", ""},
		{"0.0.0.9", `"this network"`, ""},
		{"192.168.50.255", "", "is the broadcast address of this host's subnet 192.168.50.0/24"},
		{"192.168.50.0", "", "is the network address of this host's subnet 192.168.50.0/24"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			out := strings.Replace(real, "192.168.50.11 ", tc.addr+strings.Repeat(" ", max(0, len("192.168.50.11 ")-len(tc.addr))), 1)
			if out == real {
				t.Fatal("esx01's vmk1 address not found in its output")
			}
			l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{Streams: []lab.Stream{
				{Prefix: "esxcli network ip interface ipv4 get", Text: out}}}}}})
			r := labRunner(t, l)
			res := scan(t, r, l.Targets(), collect.Options{Probes: true})
			for _, h := range l.Hosts() {
				for _, c := range l.Stats(h.Name).Commands {
					if strings.HasPrefix(c, "vmkping") && strings.HasSuffix(c, " "+tc.addr) {
						t.Errorf("%s was sent %q", h.Name, c)
					}
				}
			}
			if tc.note != "" {
				notes := strings.Join(res["esx01"].Notes, "\n")
				if !strings.Contains(notes, "no path probes to or from this host") || !strings.Contains(notes, tc.note) {
					t.Errorf("esx01 notes: %s", notes)
				}
				return
			}
			if notes := strings.Join(res["esx02"].Notes, "\n"); !strings.Contains(notes, tc.peerNote) {
				t.Errorf("esx02 notes: %s", notes)
			}
			// The other direction, to an address of the subnet, is probed.
			probed := false
			for _, c := range l.Stats("esx01").Commands {
				probed = probed || strings.HasPrefix(c, "vmkping") && strings.HasSuffix(c, " 192.168.50.12")
			}
			if !probed {
				t.Errorf("esx01 did not probe esx02: %q", l.Stats("esx01").Commands)
			}
		})
	}
	// Unchanged, the lab's addresses are probed both ways.
	l := lab.StartTB(t, sc, lab.Options{})
	scan(t, labRunner(t, l), l.Targets(), collect.Options{Probes: true})
	for _, h := range []struct{ name, peer string }{{"esx01", "192.168.50.12"}, {"esx02", "192.168.50.11"}} {
		n := 0
		for _, c := range l.Stats(h.name).Commands {
			if strings.HasPrefix(c, "vmkping") && strings.HasSuffix(c, " "+h.peer) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s never probed %s", h.name, h.peer)
		}
	}
}
