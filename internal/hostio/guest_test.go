package hostio

import (
	"context"
	"testing"
)

type namedRunner struct{ name string }

func (r namedRunner) Name() string                               { return r.name }
func (r namedRunner) Open(context.Context, Target) (Conn, error) { return nil, nil }
func (r namedRunner) TargetNotes(t Target) []string              { return []string{r.name + ":" + t.Name} }

// ByRole sends guests (and the bandwidth test's connections) to the
// guests' transport, hosts to the hosts', and passes on its notes.
func TestByRole(t *testing.T) {
	r := ByRole{Hosts: namedRunner{"hosts"}, Guests: namedRunner{"guests"}}
	for _, c := range []struct{ role, want string }{{"", "hosts"}, {RoleGuest, "guests"}, {RoleGuestBandwidth, "guests"}} {
		if got := r.pick(Target{Role: c.role}).Name(); got != c.want {
			t.Errorf("role %q -> %s, want %s", c.role, got, c.want)
		}
		if n := r.TargetNotes(Target{Name: "x", Role: c.role}); len(n) != 1 || n[0] != c.want+":x" {
			t.Errorf("role %q: notes %v", c.role, n)
		}
	}
	if r.Name() != "hosts" {
		t.Errorf("Name %q", r.Name())
	}
}
