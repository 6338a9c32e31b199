package vcenter

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Guests discovered from vCenter (`scan --vcenter ... --guests-from-vcenter`):
// every powered-on VM with a PVRDMA adapter whose guest address VMware
// Tools reports (guest.net, guest.ipAddress in the `vcenter vm config`
// capture) becomes a guest target. The address dialled is one of a NIC
// that is not a PVRDMA adapter (the management network), IPv4 first, else
// guest.ipAddress. Addresses come from inside the VM: each is parsed as
// an IP address (no zones, no names, nothing else) before it becomes a
// target, and is only ever dialled, never written into a command line.

// DefaultGuestPort is the SSH port of guests discovered from vCenter.
const DefaultGuestPort = 22

// DiscoveredGuest is one PVRDMA VM vCenter knows, with the address to
// scan it at, or why it is not scanned.
type DiscoveredGuest struct {
	VM, Host string
	Addr     string // IP address, canonical form; "" when not scanned
	Skip     string // why not scanned
}

// reTargetName is a VM name that can name a guest target as it is.
var reTargetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// DiscoverGuests reads the PVRDMA VMs of each host's `vcenter vm config`
// capture, in host then VM order.
func DiscoverGuests(captures map[string][]hostio.Capture) []DiscoveredGuest {
	hosts := make([]string, 0, len(captures))
	for h := range captures {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var out []DiscoveredGuest
	for _, h := range hosts {
		for _, c := range captures[h] {
			if c.Kind != catalog.KindVCenterVMs || c.Status != hostio.StatusCollected {
				continue
			}
			vms, _ := parse.VCenterVMConfig(c.Stdout)
			for _, vm := range vms {
				if d, ok := guestOf(vm); ok {
					d.Host = h
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// guestOf picks a PVRDMA VM's address; ok is false for a VM without a
// PVRDMA adapter.
func guestOf(vm parse.VMConfig) (DiscoveredGuest, bool) {
	d := DiscoveredGuest{VM: vm.Name}
	pvrdma := map[string]bool{}
	for _, a := range vm.Adapters {
		if a.Type == "vrdma" {
			pvrdma[strings.ToLower(a.MAC)] = true
		}
	}
	if len(pvrdma) == 0 {
		return d, false
	}
	if vm.PowerState != "poweredOn" {
		d.Skip = "powered off"
		if vm.PowerState != "" && vm.PowerState != "poweredOff" {
			d.Skip = "not powered on (" + vm.PowerState + ")"
		}
		return d, true
	}
	g := vm.Guest
	if g == nil {
		d.Skip = "no guest address known (VMware Tools not running?)"
		return d, true
	}
	var mgmt []string
	for _, n := range g.NICs {
		if pvrdma[n.MAC] || n.ConnectedSet && !n.Connected {
			continue
		}
		mgmt = append(mgmt, n.IPs...)
	}
	var refused []string
	owned := pvrdmaAddrs(vm)
	pick := func(cands []string) string {
		var v6 string
		for _, c := range cands {
			a, err := guestAddr(c)
			if err == nil && owned[a] {
				err = fmt.Errorf("%s belongs to a PVRDMA adapter of the VM", a)
			}
			if err != nil {
				refused = append(refused, err.Error())
				continue
			}
			if a.Is4() {
				return a.String()
			}
			if v6 == "" {
				v6 = a.String()
			}
		}
		return v6
	}
	d.Addr = pick(mgmt)
	if d.Addr == "" && g.IPAddress != "" {
		d.Addr = pick([]string{g.IPAddress})
	}
	if d.Addr == "" {
		d.Skip = "no guest address known (VMware Tools not running?)"
		if len(refused) > 0 {
			d.Skip = "no usable guest address (" + strings.Join(refused, "; ") + ")"
		}
	}
	return d, true
}

// pvrdmaAddrs are the addresses VMware Tools reports for the VM's PVRDMA
// adapters (guest.net entries with an adapter's MAC): the RDMA network,
// never dialled, whichever NIC or guest.ipAddress also names them.
func pvrdmaAddrs(vm parse.VMConfig) map[netip.Addr]bool {
	macs := map[string]bool{}
	for _, a := range vm.Adapters {
		if a.Type == "vrdma" && a.MAC != "" {
			macs[strings.ToLower(a.MAC)] = true
		}
	}
	owned := map[netip.Addr]bool{}
	if vm.Guest == nil {
		return owned
	}
	for _, n := range vm.Guest.NICs {
		if !macs[strings.ToLower(n.MAC)] {
			continue
		}
		for _, ip := range n.IPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				owned[a.WithZone("").Unmap()] = true
			} else if p, err := netip.ParsePrefix(ip); err == nil {
				owned[p.Addr().Unmap()] = true
			}
		}
	}
	return owned
}

// guestAddr validates one address VMware Tools reports: an IPv4 or IPv6
// address and nothing else (no zone, port, name or prefix length), that
// can be dialled without an interface (not link-local, multicast,
// unspecified).
func guestAddr(s string) (netip.Addr, error) {
	shown := textsafe.Line(s)
	if len(s) > 64 {
		shown = textsafe.Line(s[:64]) + "..."
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address", shown)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("%q is scoped to an interface of the guest", shown)
	}
	a = a.Unmap()
	switch {
	case a.IsLinkLocalUnicast():
		return netip.Addr{}, fmt.Errorf("%s is link-local", a)
	case a.IsUnspecified(), a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return netip.Addr{}, fmt.Errorf("%s cannot be dialled", a)
	}
	return a, nil
}

// GuestTargets turns the discovered guests into guest targets (SSH
// on port), leaving out those given by --guests (by name or address) and
// those whose name is a host's; notes say which PVRDMA VMs are not
// scanned and why.
func GuestTargets(found []DiscoveredGuest, port int, given []hostio.Target) (targets []hostio.Target, notes []string) {
	taken := map[string]bool{}
	for _, t := range given {
		taken[t.Name] = true
		if h, _, err := net.SplitHostPort(t.DialAddr()); err == nil {
			taken[h] = true
		}
	}
	var skipped []string
	for _, d := range found {
		vm := fmt.Sprintf("%s (on %s)", textsafe.Line(d.VM), d.Host)
		if d.Addr == "" {
			skipped = append(skipped, vm+": "+d.Skip)
			continue
		}
		name := d.VM
		if !reTargetName.MatchString(name) {
			// A VM name that is not a plain host name: the guest is
			// named by its address.
			name = d.Addr
		}
		if taken[name] {
			name = d.Addr // the VM's name is a host's or another guest's
		}
		if taken[name] || taken[d.Addr] {
			continue // given by --guests
		}
		taken[name], taken[d.Addr] = true, true
		targets = append(targets, hostio.Target{Name: name, Addr: net.JoinHostPort(d.Addr, strconv.Itoa(port)), Role: hostio.RoleGuest})
	}
	notes = append(notes, fmt.Sprintf("guests from vCenter: %s of %s with a VMware Tools address (SSH port %d)",
		plural(len(targets), "guest", "guests"), plural(len(found), "PVRDMA VM", "PVRDMA VMs"), port))
	for _, s := range skipped {
		notes = append(notes, "not scanned: "+s)
	}
	return targets, notes
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
