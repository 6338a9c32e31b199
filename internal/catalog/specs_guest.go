package catalog

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The guest catalogue: the read-only commands run inside a Linux VM with a
// PVRDMA adapter (`scan --guests`). It is a catalogue of its own, with its
// own allowlist (GuestAllowed): a guest is never sent an ESXi command and a
// host never a guest command. Every command is read-only; the sysfs reads
// run per RDMA device listed in /sys/class/infiniband, each name checked
// against argGuestRDMADev first. The facts fill facts.Guest.

// The kinds of the guest catalogue (read-only).
const (
	KindGuestKernel    hostio.Kind = "guest_kernel"
	KindGuestOSRelease hostio.Kind = "guest_os_release"
	KindGuestLsmod     hostio.Kind = "guest_lsmod"
	KindGuestModinfo   hostio.Kind = "guest_modinfo_vmw_pvrdma"
	KindGuestDevinfo   hostio.Kind = "guest_ibv_devinfo"
	KindGuestDevices   hostio.Kind = "guest_ibv_devices"
	KindGuestRDMALink  hostio.Kind = "guest_rdma_link"
	KindGuestIPLink    hostio.Kind = "guest_ip_link"
	KindGuestIPAddr    hostio.Kind = "guest_ip_addr"
	KindGuestIBClass   hostio.Kind = "guest_sysfs_infiniband"
	KindGuestSysfsPort hostio.Kind = "guest_sysfs_port"
	KindGuestDmesg     hostio.Kind = "guest_dmesg"
	KindGuestOFED      hostio.Kind = "guest_ofed_info"
	KindGuestDpkg      hostio.Kind = "guest_dpkg"
	KindGuestRPM       hostio.Kind = "guest_rpm"
)

// GuestFacts are the facts the guest catalogue's commands give (and the
// bandwidth test's), as HostFacts for hosts; facts.Guest embeds it.
type GuestFacts struct {
	Kernel       *parse.KernelRelease `json:"kernel,omitempty"`
	OS           *parse.OSRelease     `json:"os,omitempty"`
	Modules      []parse.KernelModule `json:"modules,omitempty"`
	PVRDMAModule *parse.ModInfo       `json:"pvrdma_module,omitempty"`
	IBDevices    []parse.IBDevice     `json:"ib_devices,omitempty"`
	VerbsDevices []parse.VerbsDevice  `json:"verbs_devices,omitempty"`
	RDMALinks    []parse.RDMALink     `json:"rdma_links,omitempty"`
	Links        []parse.NetLink      `json:"links,omitempty"`
	Addrs        []parse.NetAddr      `json:"addrs,omitempty"`
	IBClass      []parse.VerbsDevice  `json:"ib_class,omitempty"`
	SysfsPorts   []parse.SysfsPort    `json:"sysfs_ports,omitempty"`
	Dmesg        []parse.DmesgLine    `json:"dmesg,omitempty"`
	OFED         *parse.OFEDInfo      `json:"ofed,omitempty"`
	Packages     []parse.Package      `json:"packages,omitempty"`
	// Bandwidth are the results of the opt-in bandwidth test run with this
	// guest as the client (scan --bandwidth-test), BandwidthServer its
	// server side's.
	Bandwidth       []parse.BandwidthResult `json:"bandwidth,omitempty"`
	BandwidthServer []parse.BandwidthResult `json:"bandwidth_server,omitempty"`
}

// The sources of the guest's stage 2: what stage 1 showed that makes a
// command worth running (a guest is not asked what its stage 1 answered).
const (
	// FromGuestRDMADevices: every device of the guest's `ls /sys/class/infiniband`.
	FromGuestRDMADevices Source = 100 + iota
	// FromGuestModuleNotLoaded: lsmod does not list vmw_pvrdma.
	FromGuestModuleNotLoaded
	// FromGuestPVRDMATrouble: vmw_pvrdma is loaded, and a PVRDMA port is
	// not ACTIVE or no PVRDMA device is listed (or ibv_devinfo cannot say).
	FromGuestPVRDMATrouble
	// FromGuestNoDpkg: dpkg-query is not installed.
	FromGuestNoDpkg
	// FromGuestVerbsMissing: the kernel has an RDMA device that
	// ibv_devinfo does not list (or ibv_devinfo failed).
	FromGuestVerbsMissing
)

// argGuestRDMADev is an RDMA device name in a guest (vmw_pvrdma0, mlx5_0,
// rocep11s0f1): letters, digits and '_', starting with a letter.
var argGuestRDMADev = Arg{Placeholder: "<dev>", Pattern: `[A-Za-z][A-Za-z0-9_]{0,63}`}

// GuestSysfsPort is the only port the doctor reads: a PVRDMA device has
// one port (phys_port_cnt 1).
const GuestSysfsPort = "1"

// guestSysfsLine reads every file of /sys/class/infiniband/DEV/ports/1
// (state, phys_state, gids/N, gid_attrs/types/N, gid_attrs/ndevs/N, and
// the port's other attributes) as "PATH:VALUE" lines; files that cannot be
// read (an unused GID's type) are skipped silently (-s).
func guestSysfsLine(dev string) string {
	return "grep -s -r -H . /sys/class/infiniband/" + dev + "/ports/" + GuestSysfsPort
}

func guestCmd(v *parse.Ref, line string) { v.Command = line }

var guestSpecs = []*Spec{
	{Kind: KindGuestKernel, Stage: 1, Line: "uname -r",
		Parser: One(parse.UnameRelease, false, func(v *parse.KernelRelease, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) **parse.KernelRelease { return &f.Kernel })},
	{Kind: KindGuestOSRelease, Stage: 1, Line: "cat /etc/os-release",
		Parser: One(parse.OSReleaseFile, false, func(v *parse.OSRelease, l string) { guestCmd(&v.Ref, l); SetRecordCommand(&v.Record, l) }, func(f *GuestFacts) **parse.OSRelease { return &f.OS })},
	{Kind: KindGuestLsmod, Stage: 1, Line: "lsmod",
		Parser: List(parse.Lsmod, func(v *parse.KernelModule, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.KernelModule { return &f.Modules })},
	{Kind: KindGuestModinfo, Stage: 2, Line: "modinfo vmw_pvrdma", From: FromGuestModuleNotLoaded,
		When: "vmw_pvrdma is not in lsmod (is the module there at all?)", Noun: "module checks",
		Parser: One(parse.Modinfo, false, func(v *parse.ModInfo, l string) { guestCmd(&v.Ref, l); SetRecordCommand(&v.Record, l) }, func(f *GuestFacts) **parse.ModInfo { return &f.PVRDMAModule })},
	{Kind: KindGuestDevinfo, Stage: 1, Line: "ibv_devinfo -v",
		Parser: List(parse.IBVDevinfo, func(v *parse.IBDevice, l string) {
			guestCmd(&v.Ref, l)
			for i := range v.Ports {
				p := &v.Ports[i]
				p.Command, p.StateRef.Command, p.MTURef.Command = l, l, l
				for j := range p.GIDs {
					p.GIDs[j].Command = l
				}
			}
		}, func(f *GuestFacts) *[]parse.IBDevice { return &f.IBDevices })},
	{Kind: KindGuestDevices, Stage: 2, Line: "ibv_devices", From: FromGuestVerbsMissing,
		When: "ibv_devinfo lists fewer devices than /sys/class/infiniband (a provider libibverbs cannot load)", Noun: "verbs listings",
		Parser: List(parse.IBVDevices, func(v *parse.VerbsDevice, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.VerbsDevice { return &f.VerbsDevices })},
	{Kind: KindGuestRDMALink, Stage: 1, Line: "rdma link show",
		Parser: List(parse.RDMALinkShow, func(v *parse.RDMALink, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.RDMALink { return &f.RDMALinks })},
	{Kind: KindGuestIPLink, Stage: 1, Line: "ip -o link",
		Parser: List(parse.IPLink, func(v *parse.NetLink, l string) { guestCmd(&v.Ref, l); v.MTURef.Command = l }, func(f *GuestFacts) *[]parse.NetLink { return &f.Links })},
	{Kind: KindGuestIPAddr, Stage: 1, Line: "ip -o addr", Carries: []hostio.Kind{KindGuestIPLink},
		Parser: List(parse.IPAddr, func(v *parse.NetAddr, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.NetAddr { return &f.Addrs })},
	{Kind: KindGuestIBClass, Stage: 1, Line: "ls /sys/class/infiniband",
		Parser: List(parse.SysfsListing, func(v *parse.VerbsDevice, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.VerbsDevice { return &f.IBClass })},
	{Kind: KindGuestDmesg, Stage: 2, Line: "dmesg", From: FromGuestPVRDMATrouble,
		When: "vmw_pvrdma is loaded but a PVRDMA port is not ACTIVE or no PVRDMA device exists (its kernel messages)", Noun: "kernel logs",
		Parser: List(parse.DmesgPVRDMA, func(v *parse.DmesgLine, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.DmesgLine { return &f.Dmesg })},
	{Kind: KindGuestOFED, Stage: 1, Line: "ofed_info -s",
		Parser: One(parse.OFEDInfoS, false, func(v *parse.OFEDInfo, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) **parse.OFEDInfo { return &f.OFED })},
	{Kind: KindGuestDpkg, Stage: 1, Line: "dpkg-query -W",
		Parser: List(parse.DpkgQuery, func(v *parse.Package, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.Package { return &f.Packages })},
	{Kind: KindGuestRPM, Stage: 2, Line: "rpm -qa", From: FromGuestNoDpkg,
		When: "dpkg-query is not installed (an RPM distribution)", Noun: "package lists",
		Parser: List(parse.RPMQuery, func(v *parse.Package, l string) { guestCmd(&v.Ref, l) }, func(f *GuestFacts) *[]parse.Package { return &f.Packages })},
	{Kind: KindGuestSysfsPort, Stage: 2, Line: guestSysfsLine("<dev>"), Args: []Arg{argGuestRDMADev},
		Refuse: "refusing to read the sysfs port files of %q: not an RDMA device name",
		From:   FromGuestRDMADevices, When: "every RDMA device of /sys/class/infiniband", Noun: "RDMA device port reads",
		Example: []string{"vmw_pvrdma0"},
		Parser: List(parse.SysfsPorts, func(v *parse.SysfsPort, l string) {
			guestCmd(&v.Ref, l)
			v.StateRef.Command = l
			for j := range v.GIDs {
				v.GIDs[j].Command = l
			}
		}, func(f *GuestFacts) *[]parse.SysfsPort { return &f.SysfsPorts })},
}

// GuestSpecs returns the guest catalogue in run order.
func GuestSpecs() []*Spec { return guestSpecs }

// GuestAllowed reports whether line is exactly an instance of a guest
// catalogue command.
func GuestAllowed(line string) bool {
	for _, s := range guestSpecs {
		if s.Allowed(line) {
			return true
		}
	}
	return false
}

// GuestKind reports whether k is a command of the guest catalogue.
func GuestKind(k hostio.Kind) bool {
	for _, s := range guestSpecs {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// GuestReadmeTable renders the README's table of the commands run in a
// guest, from the guest catalogue.
func GuestReadmeTable() string {
	var b strings.Builder
	b.WriteString("| in each guest | commands |\n|---|---|\n")
	stageRows(&b, guestSpecs,
		"first (every guest)",
		"then, per RDMA device of `ls /sys/class/infiniband` (the others only when the first commands show they are needed: see --dry-run)")
	return b.String()
}

// GuestSysfsCommand is the sysfs port read of one guest RDMA device.
func GuestSysfsCommand(dev string) (hostio.Command, error) {
	s, _ := Lookup(KindGuestSysfsPort)
	return s.Command(dev)
}
