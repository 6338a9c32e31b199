package catalog

import "testing"

// TestCarries: a kind a spec's output carries is another kind of the same
// catalogue, filled by a parser of the same facts struct (facts.BuildGuest
// reads Carries on the guest catalogue).
func TestCarries(t *testing.T) {
	for _, s := range append(Specs(), GuestSpecs()...) {
		for _, k := range s.Carries {
			c, ok := Lookup(k)
			switch {
			case !ok:
				t.Errorf("%s carries %s, which no spec has", s.Kind, k)
			case k == s.Kind:
				t.Errorf("%s carries itself", s.Kind)
			case !GuestKind(s.Kind) || !GuestKind(k):
				t.Errorf("%s carries %s: only guest specs' Carries are read", s.Kind, k)
			case c.Parser.Facts != s.Parser.Facts:
				t.Errorf("%s carries %s, whose parser fills %s, not %s", s.Kind, k, c.Parser.Facts, s.Parser.Facts)
			}
		}
	}
	if s, _ := Lookup(KindGuestIPAddr); len(s.Carries) != 1 || s.Carries[0] != KindGuestIPLink {
		t.Errorf("ip addr carries %v, want the links", s.Carries)
	}
}
