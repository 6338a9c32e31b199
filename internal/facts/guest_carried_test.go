package facts

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// ipAddrShow is `ip addr show` of a guest with a PVRDMA adapter beside
// its vmxnet3 interface (iproute2's multi-line form).
const ipAddrShow = `1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
2: ens160: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000
    link/ether 00:50:56:a1:00:01 brd ff:ff:ff:ff:ff:ff
    altname enp3s0
    inet 127.0.10.5/24 brd 127.0.10.255 scope global ens160
       valid_lft forever preferred_lft forever
3: ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000
    link/ether 00:50:56:a1:00:02 brd ff:ff:ff:ff:ff:ff
    inet 127.0.50.11/24 brd 127.0.50.255 scope global ens224
       valid_lft forever preferred_lft forever
`

func guestOf(caps ...hostio.Capture) Guest {
	for i := range caps {
		caps[i].Host = "vm1"
	}
	return BuildGuest(hostio.HostResult{Host: "vm1", Status: hostio.StatusCollected, Captures: caps})
}

// linkFacts are the facts of a link the checks read, without where they
// were read (the command differs).
func linkFacts(ls []parse.NetLink) []parse.NetLink {
	out := make([]parse.NetLink, len(ls))
	for i, l := range ls {
		l.Ref, l.MTURef = parse.Ref{}, parse.Ref{}
		out[i] = l
	}
	return out
}

// TestIPAddrShowCarriesLinks: a guest whose only capture of the network
// is `ip addr show` (the catalogue's ip -o addr kind) has the same links,
// MTU, state and MAC, as with `ip link show`, and the rules that need the
// links find them.
func TestIPAddrShowCarriesLinks(t *testing.T) {
	viaLink := guestOf(capture(catalog.KindGuestIPLink, "ip link show", ipAddrShow))
	viaAddr := guestOf(capture(catalog.KindGuestIPAddr, "ip addr show", ipAddrShow))
	if len(viaLink.Links) != 3 {
		t.Fatalf("ip link show: %d links, want 3: %+v", len(viaLink.Links), viaLink.Links)
	}
	if !reflect.DeepEqual(linkFacts(viaAddr.Links), linkFacts(viaLink.Links)) {
		t.Errorf("ip addr show links:\n%+v\nwant (ip link show):\n%+v", viaAddr.Links, viaLink.Links)
	}
	if len(viaAddr.Addrs) != 3 {
		t.Errorf("ip addr show: %d addresses, want 3", len(viaAddr.Addrs))
	}
	if len(viaAddr.Links) != 3 {
		t.Fatalf("ip addr show: %d links, want 3", len(viaAddr.Links))
	}
	if l := viaAddr.Links[2]; l.MTURef.Command != "ip addr show" || l.MTURef.Line != 10 {
		t.Errorf("ens224's MTU is cited from %+v, want ip addr show line 10", l.MTURef)
	}
	if ok, why := viaAddr.Available(catalog.KindGuestIPLink); !ok {
		t.Errorf("links not available from ip addr show: %s", why)
	}
}

// TestIPAddrShowSample: the multi-line sample of a VM on vSphere (the
// interface index trimmed by its author) gives its link's MTU and MAC.
func TestIPAddrShowSample(t *testing.T) {
	b, err := os.ReadFile("../../parse/testdata/guest/ip_addr__aci-containers-ens192-vlan-mtu9000.txt")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#@") {
			body = append(body, l)
		}
	}
	g := guestOf(capture(catalog.KindGuestIPAddr, "ip a", strings.Join(body, "\n")))
	if len(g.Links) != 1 || g.Links[0].Name != "ens192.4093" || g.Links[0].MTU != 9000 || g.Links[0].MAC != "00:50:56:97:da:24" || g.Links[0].State != "UP" {
		t.Errorf("links %+v, want ens192.4093 mtu 9000 00:50:56:97:da:24 UP", g.Links)
	}
}

// TestIPAddrShowBadLine: a malformed line loses its own facts only: the
// other interfaces keep their links and addresses, the source says what
// was skipped.
func TestIPAddrShowBadLine(t *testing.T) {
	bad := strings.Replace(ipAddrShow, "    inet 127.0.10.5/24 brd", "    inet 127.0.10.5/99 brd", 1)
	bad = strings.Replace(bad, "2: ens160:", "#garbage# ens160", 1)
	g := guestOf(capture(catalog.KindGuestIPAddr, "ip addr show", bad))
	var names []string
	for _, l := range g.Links {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "lo ens224" {
		t.Errorf("links %v, want lo ens224 (ens160's head line is unreadable)", names)
	}
	if l := g.Links[len(g.Links)-1]; l.MTU != 9000 || l.MAC != "00:50:56:a1:00:02" {
		t.Errorf("ens224 %+v, want mtu 9000 and its MAC", l)
	}
	if len(g.Addrs) != 2 {
		t.Errorf("addresses %+v, want lo's and ens224's", g.Addrs)
	}
	src := g.Sources[catalog.KindGuestIPLink]
	if len(src) != 1 || !src[0].Parsed || len(src[0].Skipped) == 0 {
		t.Errorf("link source %+v, want parsed with the skipped lines", src)
	}
}

// TestIPAddrNearMiss: `ip -o addr` (the catalogue's form) prints no link
// line: it is no source of links; and where `ip -o link` was collected
// the links come from it alone, never twice.
func TestIPAddrNearMiss(t *testing.T) {
	oneline := "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n3: ens224    inet 127.0.50.11/24 brd 127.0.50.255 scope global ens224\\       valid_lft forever preferred_lft forever\n"
	g := guestOf(capture(catalog.KindGuestIPAddr, "ip -o addr", oneline))
	if len(g.Links) != 0 || len(g.Sources[catalog.KindGuestIPLink]) != 0 {
		t.Errorf("ip -o addr gave links %+v, sources %+v", g.Links, g.Sources[catalog.KindGuestIPLink])
	}
	if ok, _ := g.Available(catalog.KindGuestIPLink); ok {
		t.Error("links available without any link line")
	}
	both := guestOf(capture(catalog.KindGuestIPLink, "ip link show", ipAddrShow), capture(catalog.KindGuestIPAddr, "ip addr show", ipAddrShow))
	if len(both.Links) != 3 || len(both.Sources[catalog.KindGuestIPLink]) != 1 {
		t.Errorf("with ip link show collected: %d links, %d link sources; want 3 and 1", len(both.Links), len(both.Sources[catalog.KindGuestIPLink]))
	}
}
