package parse

// The facts of a Linux guest (a VM with a PVRDMA adapter), read from the
// output of the guest commands of the catalogue (internal/catalog/specs_guest.go).
// Formats: the tools' documented output and the real captures in
// ../shared/samples/guest (tested in guest_samples_test.go).

// KernelRelease is `uname -r`.
type KernelRelease struct {
	Release string `json:"release"`
	// Major, Minor, Patch are the leading numbers ("5.15.0-91-generic" ->
	// 5, 15, 0).
	Major int `json:"major"`
	Minor int `json:"minor"`
	Patch int `json:"patch"`
	Ref
}

// AtLeast reports whether the release is major.minor or later.
func (k KernelRelease) AtLeast(major, minor int) bool {
	return k.Major > major || (k.Major == major && k.Minor >= minor)
}

// OSRelease is /etc/os-release.
type OSRelease struct {
	ID              string `json:"id"`
	IDLike          string `json:"id_like,omitempty"`
	VersionID       string `json:"version_id,omitempty"`
	VersionCodename string `json:"version_codename,omitempty"`
	PrettyName      string `json:"pretty_name,omitempty"`
	Record          Record `json:"record"`
	Ref
}

// KernelModule is one row of `lsmod`.
type KernelModule struct {
	Name   string   `json:"name"`
	Size   int64    `json:"size"`
	UsedBy int      `json:"used_by"`
	Users  []string `json:"users,omitempty"`
	Ref
}

// ModInfo is `modinfo MODULE`: the module's fields as printed.
type ModInfo struct {
	Filename string `json:"filename"`
	Version  string `json:"version,omitempty"`
	Depends  string `json:"depends,omitempty"`
	Vermagic string `json:"vermagic,omitempty"`
	Record   Record `json:"record"`
	Ref
}

// IBDevice is one device (hca_id block) of `ibv_devinfo [-v]`.
type IBDevice struct {
	Name         string   `json:"name"`
	Transport    string   `json:"transport,omitempty"`
	FWVer        string   `json:"fw_ver,omitempty"`
	NodeGUID     string   `json:"node_guid,omitempty"`
	VendorID     string   `json:"vendor_id,omitempty"`
	VendorPartID string   `json:"vendor_part_id,omitempty"`
	PhysPortCnt  int      `json:"phys_port_cnt,omitempty"`
	Ports        []IBPort `json:"ports,omitempty"`
	Ref
}

// IBPort is one port of an IBDevice.
type IBPort struct {
	Port int `json:"port"`
	// State is the state name ("PORT_ACTIVE", "PORT_DOWN"), StateNum its
	// number (4, 1).
	State     string  `json:"state"`
	StateNum  int     `json:"state_num"`
	StateRef  Ref     `json:"state_ref"`
	MaxMTU    int     `json:"max_mtu,omitempty"`
	ActiveMTU int     `json:"active_mtu,omitempty"`
	MTURef    Ref     `json:"mtu_ref"`
	LinkLayer string  `json:"link_layer,omitempty"`
	PhysState string  `json:"phys_state,omitempty"`
	GIDs      []IBGID `json:"gids,omitempty"`
	Ref
}

// IBGID is one GID table entry: from `ibv_devinfo -v` ("GID[  1]: ...,
// RoCE v2"; older libibverbs print no type) or from sysfs.
type IBGID struct {
	Index int    `json:"index"`
	GID   string `json:"gid"`
	// Type is "RoCE v1", "RoCE v2", "IB/RoCE v1" or "" (not printed).
	Type string `json:"type,omitempty"`
	// Netdev is the interface the entry belongs to (sysfs gid_attrs/ndevs).
	Netdev string `json:"netdev,omitempty"`
	Ref
}

// VerbsDevice is one row of `ibv_devices`.
type VerbsDevice struct {
	Name     string `json:"name"`
	NodeGUID string `json:"node_guid,omitempty"`
	Ref
}

// RDMALink is one line of `rdma link show` (iproute2).
type RDMALink struct {
	Device    string `json:"device"`
	Port      int    `json:"port"`
	State     string `json:"state"`
	PhysState string `json:"physical_state,omitempty"`
	Netdev    string `json:"netdev,omitempty"`
	Ref
}

// NetLink is one interface of `ip -o link` (or `ip link`/`ip addr`).
type NetLink struct {
	Index int    `json:"index,omitempty"`
	Name  string `json:"name"`
	// Parent is the lower device of a VLAN ("ens192" of "ens192.4093@ens192").
	Parent string   `json:"parent,omitempty"`
	Flags  []string `json:"flags,omitempty"`
	MTU    int      `json:"mtu"`
	State  string   `json:"state,omitempty"`
	MAC    string   `json:"mac,omitempty"`
	MTURef Ref      `json:"mtu_ref"`
	Ref
}

// Up reports whether the interface is administratively up.
func (l NetLink) Up() bool {
	for _, f := range l.Flags {
		if f == "UP" {
			return true
		}
	}
	return false
}

// NetAddr is one address of `ip -o addr` (or `ip addr`).
type NetAddr struct {
	Interface string `json:"interface"`
	// Family is "inet" or "inet6".
	Family string `json:"family"`
	// Address is the address without its prefix length.
	Address string `json:"address"`
	Prefix  int    `json:"prefix"`
	Scope   string `json:"scope,omitempty"`
	Ref
}

// SysfsPort is one RDMA port as /sys/class/infiniband/DEV/ports/N shows it.
type SysfsPort struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	// State is the state name ("ACTIVE", "DOWN"); StateNum its number.
	State     string  `json:"state,omitempty"`
	StateNum  int     `json:"state_num,omitempty"`
	StateRef  Ref     `json:"state_ref"`
	PhysState string  `json:"phys_state,omitempty"`
	GIDs      []IBGID `json:"gids,omitempty"`
	Ref
}

// DmesgLine is one kernel log line of the vmw_pvrdma driver.
type DmesgLine struct {
	// Time is the timestamp as printed ("48.699620"), if any.
	Time string `json:"time,omitempty"`
	// PCI is the device address ("0000:0b:00.1"), if the line names one.
	PCI     string `json:"pci,omitempty"`
	Message string `json:"message"`
	Ref
}

// OFEDInfo is `ofed_info -s`.
type OFEDInfo struct {
	// Version is "MLNX_OFED_LINUX-5.0-2.1.8.0" (the trailing colon dropped).
	Version string `json:"version"`
	Ref
}

// Package is one installed package of `dpkg-query -W` or `rpm -qa`.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Arch    string `json:"arch,omitempty"`
	// Manager is "dpkg" or "rpm".
	Manager string `json:"manager"`
	Ref
}

// BandwidthResult is the summary of an `ib_send_bw` client run.
type BandwidthResult struct {
	Device string `json:"device,omitempty"`
	// MsgBytes is the message size of the result row.
	MsgBytes int64 `json:"msg_bytes"`
	// PeakGbps and AvgGbps are in Gb/s (converted from MB/s when the run
	// did not use --report_gbits).
	PeakGbps float64 `json:"peak_gbps"`
	AvgGbps  float64 `json:"avg_gbps"`
	Ref
}
