package hostio

// RoleGuest marks a target (and its result) as a Linux guest: a VM with a
// PVRDMA adapter, scanned with the guest catalogue (internal/catalog/specs_guest.go)
// and its own allowlist. The zero role is an ESXi host.
const RoleGuest = "guest"

// The commands of the guest catalogue (read-only; see internal/catalog/specs_guest.go).
const (
	KindGuestKernel    Kind = "guest_kernel"
	KindGuestOSRelease Kind = "guest_os_release"
	KindGuestLsmod     Kind = "guest_lsmod"
	KindGuestModinfo   Kind = "guest_modinfo_vmw_pvrdma"
	KindGuestDevinfo   Kind = "guest_ibv_devinfo"
	KindGuestDevices   Kind = "guest_ibv_devices"
	KindGuestRDMALink  Kind = "guest_rdma_link"
	KindGuestIPLink    Kind = "guest_ip_link"
	KindGuestIPAddr    Kind = "guest_ip_addr"
	KindGuestIBClass   Kind = "guest_sysfs_infiniband"
	KindGuestSysfsPort Kind = "guest_sysfs_port"
	KindGuestDmesg     Kind = "guest_dmesg"
	KindGuestOFED      Kind = "guest_ofed_info"
	KindGuestDpkg      Kind = "guest_dpkg"
	KindGuestRPM       Kind = "guest_rpm"
)

// RoleGuestBandwidth marks the connections of the opt-in bandwidth test
// (scan --bandwidth-test): the guest allowlist plus the two ib_send_bw
// command shapes, which are the only commands the doctor sends that are
// not read-only.
const RoleGuestBandwidth = "guest-bandwidth"

// The bandwidth test's commands.
const (
	KindGuestBWServer Kind = "guest_ib_send_bw_server"
	KindGuestBWClient Kind = "guest_ib_send_bw_client"
)
