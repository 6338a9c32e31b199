package hostio

// RoleGuest marks a target (and its result) as a Linux guest: a VM with a
// PVRDMA adapter, scanned with the guest catalogue (internal/catalog/specs_guest.go)
// and its own allowlist. The zero role is an ESXi host.
const RoleGuest = "guest"

// RoleGuestBandwidth marks the connections of the opt-in bandwidth test
// (scan --bandwidth-test): the guest allowlist plus the two ib_send_bw
// command shapes, which are the only commands the doctor sends that are
// not read-only.
const RoleGuestBandwidth = "guest-bandwidth"
