package hostio

import "context"

// RoleGuest marks a target (and its result) as a Linux guest: a VM with a
// PVRDMA adapter, scanned with the guest catalogue (internal/catalog/specs_guest.go)
// and its own allowlist. The zero role is an ESXi host.
const RoleGuest = "guest"

// RoleGuestBandwidth marks the connections of the opt-in bandwidth test
// (scan --bandwidth-test): the guest allowlist plus the two ib_send_bw
// command shapes, which are the only commands the doctor sends that are
// not read-only.
const RoleGuestBandwidth = "guest-bandwidth"

// ByRole is a Runner that sends each target to the transport of its
// role: guests (RoleGuest, RoleGuestBandwidth) to Guests, hosts to Hosts
// (each with its own credentials).
type ByRole struct{ Hosts, Guests Runner }

// Name is the hosts' transport's.
func (r ByRole) Name() string { return r.Hosts.Name() }

func (r ByRole) pick(t Target) Runner {
	if t.Role == RoleGuest || t.Role == RoleGuestBandwidth {
		return r.Guests
	}
	return r.Hosts
}

// Open opens t with the transport of its role.
func (r ByRole) Open(ctx context.Context, t Target) (Conn, error) {
	return r.pick(t).Open(ctx, t)
}

// TargetNotes passes on the chosen transport's notes (host key policy).
func (r ByRole) TargetNotes(t Target) []string {
	if n, ok := r.pick(t).(interface{ TargetNotes(Target) []string }); ok {
		return n.TargetNotes(t)
	}
	return nil
}
