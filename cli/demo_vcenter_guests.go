package cli

import (
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
	"github.com/pvrdma-doctor/pvrdma-doctor/vcenter/vcsim"
)

// The simulated vCenter's guests: each scenario VM that has a guest in
// the lab reports, as VMware Tools would, the guest's addresses: its
// management NIC (a vmxnet3 on "VM Network") at the address the lab
// serves the guest on, its PVRDMA NICs at the data addresses the guest's
// `ip -o addr` shows. So `scan --vcenter ... --guests-from-vcenter` finds
// the lab's guests as it finds real ones.

// guestAddrs are the lab guests' addresses (IP only) by name.
func guestAddrs(guests []lab.HostInfo) map[string]string {
	out := map[string]string{}
	for _, g := range guests {
		if h, _, err := net.SplitHostPort(g.Addr); err == nil {
			out[g.Name] = h
		}
	}
	return out
}

// vmxMACs sets each PVRDMA adapter's MAC from the .vmx
// (ethernetN.address, else ethernetN.generatedAddress), in the order of
// vmx.PVRDMAAdapters, as vCenter reports them.
func vmxMACs(vm *vcsim.VM, vmx parse.VMXConfig) {
	for i, a := range vmx.PVRDMAAdapters() {
		if i >= len(vm.Adapters) {
			break
		}
		n := "ethernet" + strconv.Itoa(a.Ethernet)
		mac := vmx.Get(n + ".address")
		if mac == "" {
			mac = vmx.Get(n + ".generatedAddress")
		}
		if _, err := net.ParseMAC(mac); err == nil {
			vm.Adapters[i].MAC = strings.ToLower(mac)
		}
	}
}

// withGuest gives a scenario VM the management NIC and the guest
// identity of its lab guest g, served at addr.
func withGuest(vm *vcsim.VM, g *fixtures.Host, addr string) {
	pvrdma := map[string]int{}
	for i, a := range vm.Adapters {
		if a.MAC != "" {
			pvrdma[a.MAC] = i + 1 // index after the management NIC
		}
	}
	mgmt := vcsim.Adapter{}
	ips := map[int][]string{0: {addr}}
	if g != nil {
		links, _ := parse.IPLink(g.Respond("ip -o link").Stdout)
		addrs, _ := parse.IPAddr(g.Respond("ip -o addr").Stdout)
		for _, l := range links {
			mac := strings.ToLower(l.MAC)
			if _, err := net.ParseMAC(mac); err != nil || mac == "00:00:00:00:00:00" {
				continue
			}
			i, ok := pvrdma[mac]
			if !ok {
				if mgmt.MAC == "" {
					mgmt.MAC = mac
				}
				continue
			}
			for _, a := range addrs {
				if a.Interface == l.Name {
					ips[i] = append(ips[i], a.Address)
				}
			}
		}
	}
	vm.Adapters = append([]vcsim.Adapter{mgmt}, vm.Adapters...)
	vm.Guest = &vcsim.Guest{HostName: vm.Name, IPAddress: addr, IPs: ips}
}

// appendGuestKnownHosts adds the lab guests' host keys to a known_hosts
// file (lab serve: the guests a scan finds through vCenter are checked).
func appendGuestKnownHosts(l *lab.Lab, path string) error {
	var b strings.Builder
	for _, g := range l.Guests() {
		b.WriteString(g.KnownHostsLine + "\n")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
