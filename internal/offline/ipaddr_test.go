package offline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// TestIPAddrShowGivesLinks: a guest's `ip addr show`, fed to analyze as a
// file of a folder of saved outputs (under the catalogue's name for
// `ip -o addr`, or a name spelling the command) or in a pasted session,
// gives its interfaces' MTU, state and MAC beside the addresses, and no
// interface twice.
func TestIPAddrShowGivesLinks(t *testing.T) {
	out := "2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n" +
		"    link/ether 00:50:56:97:da:24 brd ff:ff:ff:ff:ff:ff\n" +
		"    inet 127.0.50.5/24 brd 127.0.50.255 scope global ens192\n" +
		"       valid_lft forever preferred_lft forever\n"
	lsmod := "Module                  Size  Used by\nvmw_pvrdma            118784  0\n"
	check := func(t *testing.T, in *Input) {
		t.Helper()
		if len(in.Results) != 1 {
			t.Fatalf("%d hosts, want the one guest", len(in.Results))
		}
		g := facts.BuildGuest(in.Results[0])
		if len(g.Links) != 1 || g.Links[0].Name != "ens192" || g.Links[0].MTU != 9000 || g.Links[0].MAC != "00:50:56:97:da:24" || g.Links[0].State != "UP" {
			t.Errorf("links %+v, want ens192 mtu 9000 UP 00:50:56:97:da:24", g.Links)
		}
		if len(g.Addrs) != 1 || g.Addrs[0].Address != "127.0.50.5" {
			t.Errorf("addresses %+v", g.Addrs)
		}
		if ok, why := g.Available(catalog.KindGuestIPLink); !ok {
			t.Errorf("links not available: %s", why)
		}
	}
	for _, name := range []string{catalog.FileName("ip -o addr"), "ip_addr_show.txt", "ip a.txt"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "vm1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for n, b := range map[string]string{name: out, "lsmod.txt": lsmod} {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			check(t, in)
		})
	}
	t.Run("transcript", func(t *testing.T) {
		in, err := LoadReader("session.txt", strings.NewReader("root@vm1:~# lsmod\n"+lsmod+"root@vm1:~# ip addr show\n"+out))
		if err != nil {
			t.Fatal(err)
		}
		check(t, in)
	})
}
