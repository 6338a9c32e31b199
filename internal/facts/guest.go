package facts

import (
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Guest is everything known about one Linux guest (a VM with a PVRDMA
// adapter), from the guest catalogue (internal/catalog/specs_guest.go).
type Guest struct {
	Guest string `json:"guest"`
	Collection
	catalog.GuestFacts

	// NotInstalled names, per command kind, the program the guest does not
	// have (exit 127, "command not found"): a fact, not a failure.
	NotInstalled map[hostio.Kind]string `json:"not_installed,omitempty"`
	// ModuleMissing: `modinfo vmw_pvrdma` says the module does not exist
	// (ModuleMissingRef: its message).
	ModuleMissing    bool      `json:"module_missing,omitempty"`
	ModuleMissingRef parse.Ref `json:"module_missing_ref"`
	// DmesgDenied: the kernel log is not readable without root.
	DmesgDenied bool `json:"dmesg_denied,omitempty"`
	// ProviderWarnings are libibverbs' warnings that a provider could not
	// be loaded (stderr of ibv_devices and ibv_devinfo).
	ProviderWarnings []parse.ProviderWarning `json:"provider_warnings,omitempty"`
	// Adapters are the guest's PVRDMA devices with their interface, port
	// state and the host-side adapter of the same MAC (LinkGuests).
	Adapters []GuestAdapter `json:"adapters,omitempty"`

	Sources map[hostio.Kind][]Source `json:"sources"`
	Errors  []ParseError             `json:"parse_errors,omitempty"`
}

// GuestAdapter is one PVRDMA device of a guest, tied to its host side.
type GuestAdapter struct {
	// Device is the RDMA device ("vmw_pvrdma0", or a udev name such as
	// "rocep11s0" when rdma-core renames it).
	Device string `json:"device"`
	Port   int    `json:"port"`
	// State is the port state as read ("ACTIVE", "DOWN", "PORT_DOWN"),
	// Active whether it is ACTIVE; StateKnown whether any source said.
	State      string    `json:"state,omitempty"`
	Active     bool      `json:"active"`
	StateKnown bool      `json:"state_known"`
	StateRef   parse.Ref `json:"state_ref"`
	// ActiveMTU is the RoCE MTU of the port (ibv_devinfo), 0 if unknown.
	ActiveMTU int       `json:"active_mtu,omitempty"`
	MTURef    parse.Ref `json:"active_mtu_ref"`
	// Netdev is the paired Ethernet interface (rdma link, sysfs ndevs),
	// with its MAC, MTU and IPv4 addresses (ip -o link / addr).
	Netdev    string    `json:"netdev,omitempty"`
	MAC       string    `json:"mac,omitempty"`
	NetdevMTU int       `json:"netdev_mtu,omitempty"`
	NetdevRef parse.Ref `json:"netdev_ref"`
	IPv4      []string  `json:"ipv4,omitempty"`
	// GIDs are the port's GID table (sysfs, else ibv_devinfo -v).
	GIDs []parse.IBGID `json:"gids,omitempty"`
	// The host side of the same MAC (empty when no scanned host has it).
	Host    string `json:"host,omitempty"`
	VMName  string `json:"vm_name,omitempty"`
	WorldID string `json:"world_id,omitempty"`
	Index   string `json:"index,omitempty"`
	// hostIdx, devIdx locate the host-side adapter in the fleet (-1: none).
	hostIdx, devIdx int
	// VMSource says where the VM was found when only its configuration
	// carried the MAC ("vmx", "vcenter").
	VMSource string `json:"vm_source,omitempty"`
}

// HostSide returns the host and host-side PVRDMA device of a guest
// adapter (nil when no scanned host has its MAC).
func (f *Fleet) HostSide(a GuestAdapter) (*Host, *parse.PVRDMADevice) {
	if a.Host == "" || a.hostIdx < 0 || a.hostIdx >= len(f.Hosts) {
		return nil, nil
	}
	h := &f.Hosts[a.hostIdx]
	if a.devIdx < 0 || a.devIdx >= len(h.PVRDMADevices) {
		return h, nil
	}
	return h, &h.PVRDMADevices[a.devIdx]
}

// Available reports whether every given kind was collected and parsed on
// the guest (as Host.Available). A tool that is not installed is a fact:
// its kind counts as available.
func (g *Guest) Available(kinds ...hostio.Kind) (bool, string) {
	h := Host{Collection: g.Collection, Sources: g.Sources}
	ok, why := h.Available(kinds...)
	if !ok && g.Status == hostio.StatusNotCollected {
		why = strings.Replace(why, "host not collected", "guest not collected", 1)
	}
	return ok, why
}

// Installed reports whether the program of a kind's command is installed
// (and, when not, its name).
func (g *Guest) Installed(k hostio.Kind) (bool, string) {
	name, missing := g.NotInstalled[k]
	return !missing, name
}

// HasModule reports whether lsmod lists a module.
func (g *Guest) HasModule(name string) (parse.KernelModule, bool) {
	for _, m := range g.Modules {
		if m.Name == name {
			return m, true
		}
	}
	return parse.KernelModule{}, false
}

// BuildGuest parses every capture of one guest, as BuildHost does for a
// host, then derives its PVRDMA adapters.
func BuildGuest(hr hostio.HostResult) Guest {
	g := Guest{Guest: hr.Host, Collection: CollectionOf(hr), Sources: map[hostio.Kind][]Source{}}
	for _, c := range hr.Captures {
		kind, src := sourceOf(c)
		if c.OK() {
			g.readCapture(kind, c, &src)
		}
		g.Sources[kind] = append(g.Sources[kind], src)
	}
	g.readCarried(hr)
	g.Adapters = guestAdapters(&g)
	return g
}

// readCapture turns one collected guest capture into facts: a missing
// tool, a missing module, an unreadable kernel log, or the output parsed
// by the kind's spec.
func (g *Guest) readCapture(kind hostio.Kind, c hostio.Capture, src *Source) {
	if !catalog.GuestKind(kind) && kind != catalog.KindGuestBWClient && kind != catalog.KindGuestBWServer {
		src.Error = "an ESXi command, not a Linux guest's" // its facts are a host's
		return
	}
	spec, ok := catalog.Lookup(kind)
	if !ok || spec.Parser.Parse == nil || !spec.Parser.Fills(&g.GuestFacts) {
		src.Error = "no parser"
		return
	}
	if kind == catalog.KindGuestDevinfo || kind == catalog.KindGuestDevices {
		for _, w := range parse.ProviderWarnings(c.Stderr) {
			w.Command = c.Command + " (stderr)"
			g.ProviderWarnings = append(g.ProviderWarnings, w)
		}
		// A pasted session shows them among the output.
		for _, w := range parse.ProviderWarnings(c.Stdout) {
			w.Command = c.Command
			g.ProviderWarnings = append(g.ProviderWarnings, w)
		}
	}
	stderr := strings.TrimSpace(c.Stderr)
	switch {
	case parse.ToolMissing(c.ExitCode, stderr, program(c.Command)):
		if g.NotInstalled == nil {
			g.NotInstalled = map[hostio.Kind]string{}
		}
		g.NotInstalled[kind] = program(c.Command)
		src.Parsed = true
		return
	case kind == catalog.KindGuestModinfo && c.ExitCode != 0 && parse.ModuleNotFound(stderr):
		g.ModuleMissing = true
		g.ModuleMissingRef = parse.Ref{Command: c.Command + " (stderr)", Line: 1, Text: firstLineOf(stderr)}
		src.Parsed = true
		return
	case kind == catalog.KindGuestDmesg && c.ExitCode != 0 && parse.DmesgDenied(stderr):
		g.DmesgDenied = true
		src.Parsed = true
		return
	case kind == catalog.KindGuestDevinfo && c.ExitCode != 0 && strings.Contains(c.Stdout+c.Stderr, "No IB devices found"),
		kind == catalog.KindGuestIBClass && c.ExitCode != 0 && strings.Contains(stderr, "No such file or directory"):
		// No RDMA device at all: an empty list is the fact.
		src.Parsed = true
		return
	case c.ExitCode != 0:
		src.Error = "exit status " + strconv.Itoa(c.ExitCode)
		if stderr != "" {
			src.Error += ": " + firstLineOf(stderr)
		}
		return
	}
	// A failed parse adds nothing; a partial one what it read.
	err := spec.Parser.Fill(&g.GuestFacts, c.Stdout, c.Command)
	if sk, partial := parse.Skipped(err); partial {
		src.Parsed, src.Skipped = true, sk
		return
	}
	if err != nil {
		pe := parseErrorOf(c.Command, err)
		g.Errors = append(g.Errors, pe)
		src.Error = pe.String()
		return
	}
	src.Parsed = true
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// PVRDMAVendorID is VMware's PCI vendor ID, which ibv_devinfo prints for a
// PVRDMA device whatever udev named it.
const PVRDMAVendorID = "0x15ad"

// guestAdapters derives a guest's PVRDMA devices: every RDMA device named
// vmw_pvrdma* (or of VMware's vendor ID), its port 1 state (sysfs, else
// ibv_devinfo, else rdma link), its interface and that interface's MAC.
func guestAdapters(g *Guest) []GuestAdapter {
	var names []string
	seen := map[string]bool{}
	add := func(n string, pvrdma bool) {
		if n != "" && pvrdma && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	isPV := func(n string) bool { return strings.HasPrefix(n, "vmw_pvrdma") }
	for _, d := range g.IBDevices {
		add(d.Name, isPV(d.Name) || strings.EqualFold(d.VendorID, PVRDMAVendorID))
	}
	for _, d := range g.IBClass {
		add(d.Name, isPV(d.Name))
	}
	for _, d := range g.VerbsDevices {
		add(d.Name, isPV(d.Name))
	}
	for _, p := range g.SysfsPorts {
		add(p.Device, isPV(p.Device))
	}
	for _, l := range g.RDMALinks {
		add(l.Device, isPV(l.Device))
	}
	var out []GuestAdapter
	for _, n := range names {
		a := GuestAdapter{Device: n, Port: 1, hostIdx: -1, devIdx: -1}
		for _, d := range g.IBDevices {
			if d.Name != n {
				continue
			}
			for _, p := range d.Ports {
				if p.Port == 1 {
					a.State, a.StateKnown, a.StateRef = p.State, p.State != "", p.StateRef
					a.Active = p.StateNum == 4 || p.State == "PORT_ACTIVE"
					a.ActiveMTU, a.MTURef = p.ActiveMTU, p.MTURef
					a.GIDs = p.GIDs
				}
			}
		}
		for _, p := range g.SysfsPorts {
			if p.Device == n && p.Port == 1 {
				if p.State != "" {
					a.State, a.StateKnown, a.StateRef = p.State, true, p.StateRef
					a.Active = p.StateNum == 4 || p.State == "ACTIVE"
				}
				if len(p.GIDs) > 0 {
					a.GIDs = p.GIDs
				}
				for _, gid := range p.GIDs {
					if gid.Netdev != "" && a.Netdev == "" {
						a.Netdev, a.NetdevRef = gid.Netdev, gid.Ref
					}
				}
			}
		}
		for _, l := range g.RDMALinks {
			if l.Device == n && l.Port == 1 {
				if !a.StateKnown {
					a.State, a.StateKnown, a.StateRef = l.State, true, l.Ref
					a.Active = l.State == "ACTIVE"
				}
				if l.Netdev != "" {
					a.Netdev, a.NetdevRef = l.Netdev, l.Ref
				}
			}
		}
		for _, l := range g.Links {
			if a.Netdev != "" && l.Name == a.Netdev {
				a.MAC, a.NetdevMTU = strings.ToLower(l.MAC), l.MTU
				a.NetdevRef = l.MTURef
			}
		}
		for _, ad := range g.Addrs {
			if a.Netdev != "" && ad.Interface == a.Netdev && ad.Family == "inet" {
				a.IPv4 = append(a.IPv4, ad.Address)
			}
		}
		out = append(out, a)
	}
	return out
}

// LinkGuests ties every guest adapter to the host-side PVRDMA adapter of
// the same MAC (vsish properties), or, when no scanned host runs it, to a
// VM configuration (.vmx, vCenter) that carries the MAC.
// Build does it; a fleet assembled by hand calls it once.
func (f *Fleet) LinkGuests() {
	type at struct{ h, d int }
	byMAC := map[string]at{}
	for i := range f.Hosts {
		for j, d := range f.Hosts[i].PVRDMADevices {
			if m := normMAC(d.MAC); m != "" {
				if _, dup := byMAC[m]; !dup {
					byMAC[m] = at{i, j}
				}
			}
		}
	}
	for gi := range f.Guests {
		for ai := range f.Guests[gi].Adapters {
			a := &f.Guests[gi].Adapters[ai]
			m := normMAC(a.MAC)
			if m == "" {
				continue
			}
			if loc, ok := byMAC[m]; ok {
				h := &f.Hosts[loc.h]
				d := h.PVRDMADevices[loc.d]
				a.Host, a.VMName, a.WorldID, a.Index = h.Host, d.VMName, d.WorldID, d.Index
				a.hostIdx, a.devIdx = loc.h, loc.d
				continue
			}
			for hi := range f.Hosts {
				for _, vc := range f.Hosts[hi].VMConfigs {
					for _, va := range vc.Adapters {
						if normMAC(va.MAC) == m && a.Host == "" {
							a.Host, a.VMName, a.VMSource, a.hostIdx = f.Hosts[hi].Host, vc.Name, vc.Source, hi
						}
					}
				}
			}
		}
	}
}

// normMAC lowercases a MAC address and accepts '-' separators.
func normMAC(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", ":")
}

// program is the program a command line runs.
func program(line string) string {
	if f := strings.Fields(line); len(f) > 0 {
		return f[0]
	}
	return ""
}
