package checks

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The values of a VM action's govc command, from vCenter's data (the
// `vcenter vm config` capture): the adapter's device name as govc names
// it, the port group, the guest ID. Without vCenter data, or where it is
// ambiguous, each is "" and the command keeps a placeholder (a pause in
// the runbook), never a guess.

// vcenterAdapter is vCenter's record of the VM's adapter label names (a
// .vmx ethernetN or a vCenter label): the vCenter adapter with that
// label, else the one with the same MAC as the .vmx's adapter, else,
// when the .vmx adapter is PVRDMA and each source lists exactly one
// PVRDMA adapter, that one.
func vcenterAdapter(v vmView, label string) (parse.VMAdapter, bool) {
	var vc []parse.VMAdapter
	var vmx *parse.VMAdapter
	for _, c := range v.Configs {
		for i, a := range c.Adapters {
			switch {
			case c.Source == "vcenter":
				vc = append(vc, a)
			case vmx == nil && label != "" && a.Label == label:
				vmx = &c.Adapters[i]
			}
		}
	}
	if label != "" {
		for _, a := range vc {
			if a.Label == label {
				return a, true
			}
		}
	}
	if vmx == nil {
		return parse.VMAdapter{}, false
	}
	if vmx.MAC != "" {
		for _, a := range vc {
			if strings.EqualFold(a.MAC, vmx.MAC) {
				return a, true
			}
		}
	}
	if !strings.EqualFold(vmx.Type, "vrdma") {
		return parse.VMAdapter{}, false
	}
	var only []parse.VMAdapter
	for _, a := range vc {
		if strings.EqualFold(a.Type, "vrdma") {
			only = append(only, a)
		}
	}
	nvmx := 0
	for _, c := range v.Configs {
		if c.Source != "vcenter" {
			nvmx = max(nvmx, len(c.PVRDMA()))
		}
	}
	if len(only) == 1 && nvmx == 1 {
		return only[0], true
	}
	return parse.VMAdapter{}, false
}

// govcDeviceOf is govc's name of the VM's adapter label names ("" when
// vCenter's data does not give it).
func govcDeviceOf(v vmView, label string) string {
	a, _ := vcenterAdapter(v, label)
	return a.Device
}

// pvrdmaPortgroup is the distributed port group of switch sw that
// vCenter shows the fleet's PVRDMA adapters on: "" when it shows none, or
// more than one (which one is the admin's choice).
func (p *planner) pvrdmaPortgroup(sw string) string {
	var pgs []string
	for i := range p.fleet.Hosts {
		for _, v := range vmViews(&p.fleet.Hosts[i]) {
			for _, c := range v.Configs {
				if c.Source != "vcenter" {
					continue
				}
				for _, a := range c.PVRDMA() {
					if a.Network != "" && a.DVSName == sw && !slices.Contains(pgs, a.Network) {
						pgs = append(pgs, a.Network)
					}
				}
			}
		}
	}
	if len(pgs) != 1 {
		return ""
	}
	return pgs[0]
}

// linux64GuestID is the 64-bit Linux guest ID of the VM's family that a
// generic guest OS type ("other", "other-64", "otherGuest64") becomes:
// otherLinux64Guest, the vSphere API's generic 64-bit Linux; "" for any
// other type (the admin names the distribution).
func linux64GuestID(id string) string {
	switch strings.ToLower(strings.TrimSpace(id)) {
	case "other", "other-64", "otherguest", "otherguest64":
		return "otherLinux64Guest"
	}
	return ""
}

// guestIDOf is the 64-bit Linux guest ID the data gives a VM whose type
// is generic or unknown: its scanned guest's distribution (os-release),
// else otherLinux64Guest for a generic type, else "" (the admin names
// it).
func (p *planner) guestIDOf(host, vm, current string) string {
	for i := range p.fleet.Guests {
		g := &p.fleet.Guests[i]
		if g.OS == nil {
			continue
		}
		for _, a := range g.Adapters {
			if a.Host == host && a.VMName == vm {
				return releaseGuestID(*g.OS)
			}
		}
	}
	return linux64GuestID(current)
}

// releaseGuestID is the vSphere guest ID of a Linux distribution's 64-bit
// release (os-release ID and VERSION_ID), for the distributions and
// releases vSphere 7 and 8 name; otherLinux64Guest for any other Linux.
func releaseGuestID(os parse.OSRelease) string {
	id := strings.ToLower(strings.TrimSpace(os.ID))
	major, _, _ := strings.Cut(strings.TrimSpace(os.VersionID), ".")
	n, err := strconv.Atoi(major)
	in := func(lo, hi int) bool { return err == nil && n >= lo && n <= hi }
	switch {
	case id == "ubuntu":
		return "ubuntu64Guest"
	case id == "debian" && in(8, 12):
		return "debian" + major + "_64Guest"
	case id == "rhel" && in(6, 9):
		return "rhel" + major + "_64Guest"
	case id == "centos" && in(6, 9):
		return "centos" + major + "_64Guest"
	case id == "ol" && in(6, 9):
		return "oracleLinux" + major + "_64Guest"
	case (id == "sles" || id == "sled") && in(11, 15):
		return "sles" + major + "_64Guest"
	case id == "rocky":
		return "rockylinux_64Guest"
	case id == "almalinux":
		return "almalinux_64Guest"
	case id == "photon":
		return "vmwarePhoton64Guest"
	}
	return "otherLinux64Guest"
}
