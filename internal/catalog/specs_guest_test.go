package catalog_test

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Every guest spec is complete, on the guest allowlist only, and fills a
// guest's facts.
func TestEveryGuestSpecIsComplete(t *testing.T) {
	for _, s := range catalog.GuestSpecs() {
		t.Run(string(s.Kind), func(t *testing.T) {
			c, err := s.Command(s.Example...)
			if err != nil {
				t.Fatal(err)
			}
			if err := collect.CheckGuestAllowed(c.Line); err != nil {
				t.Errorf("%q not on the guest allowlist: %v", c.Line, err)
			}
			if err := collect.CheckAllowed(c.Line); err == nil {
				t.Errorf("guest command %q is on the ESXi allowlist", c.Line)
			}
			if got := catalog.KindOf(c.Line); got != s.Kind {
				t.Errorf("KindOf(%q) = %q", c.Line, got)
			}
			if !s.Parser.Fills(&catalog.GuestFacts{}) {
				t.Errorf("the parser fills a %s, not a guest's facts", s.Parser.Facts)
			}
			if s.Stage == 2 && len(s.Args) > 0 {
				if _, err := s.Command("x;reboot"); err == nil || !strings.HasPrefix(err.Error(), "refusing") {
					t.Errorf("hostile device name: %v", err)
				}
			}
			if s.Stage == 2 {
				if s.When == "" || s.Noun == "" || s.From == catalog.FromNothing {
					t.Error("stage 2 without When or Noun")
				}
			}
		})
	}
	for _, s := range catalog.Specs() {
		c, err := s.Command(s.Example...)
		if err == nil && collect.CheckGuestAllowed(c.Line) == nil {
			t.Errorf("ESXi command %q is on the guest allowlist", c.Line)
		}
	}
	for _, bad := range []string{"rmmod vmw_pvrdma", "modprobe vmw_pvrdma", "cat /etc/shadow", "dmesg -c", "ibv_devinfo -v; reboot", "rpm -e rdma-core"} {
		if collect.CheckGuestAllowed(bad) == nil {
			t.Errorf("%q allowed", bad)
		}
	}
	if got := collect.CheckAllowedFor(hostio.RoleGuest, "esxcli rdma device list"); got == nil {
		t.Error("ESXi command allowed for a guest")
	}
}

// The bandwidth test's commands are on no read-only allowlist: only on the
// bandwidth test's own connections, and only with valid values.
func TestBandwidthCommands(t *testing.T) {
	srv, err := catalog.BandwidthServer("vmw_pvrdma0")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := catalog.BandwidthClient("vmw_pvrdma0", "192.168.50.101")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{srv.Line, cli.Line} {
		if collect.CheckAllowed(l) == nil || collect.CheckGuestAllowed(l) == nil {
			t.Errorf("%q is on a read-only allowlist", l)
		}
		if collect.CheckAllowedFor(hostio.RoleGuestBandwidth, l) != nil {
			t.Errorf("%q refused on the bandwidth test's connection", l)
		}
	}
	if collect.CheckAllowedFor(hostio.RoleGuestBandwidth, "esxcli rdma device list") == nil {
		t.Error("an ESXi command on the bandwidth connection")
	}
	for _, bad := range [][2]string{{"x;reboot", "192.168.50.101"}, {"vmw_pvrdma0", "192.168.50.101; reboot"}, {"vmw_pvrdma0", "999.1.1.1"}, {"vmw_pvrdma0", "fe80::1"}} {
		if _, err := catalog.BandwidthClient(bad[0], bad[1]); err == nil {
			t.Errorf("client %q %q accepted", bad[0], bad[1])
		}
	}
	if collect.CheckAllowedFor(hostio.RoleGuestBandwidth, "timeout 30 ib_send_bw --report_gbits -F -D 5 -d vmw_pvrdma0 999.1.1.1") == nil {
		t.Error("an invalid address passes the bandwidth allowlist")
	}
}
