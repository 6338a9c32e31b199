package parse

import "testing"

func TestSubnet(t *testing.T) {
	for _, c := range []struct{ addr, mask, want string }{
		{"192.168.50.12", "255.255.255.0", "192.168.50.0/24"},
		{"10.1.2.3", "255.255.240.0", "10.1.0.0/20"},
		{"192.168.50.12", "255.0.255.0", "invalid Prefix"}, // not contiguous
		{"192.168.50.12", "", "invalid Prefix"},
		{"fe80::1", "255.255.255.0", "invalid Prefix"},
	} {
		if got := Subnet(c.addr, c.mask).String(); got != c.want {
			t.Errorf("Subnet(%q, %q) = %s, want %s", c.addr, c.mask, got, c.want)
		}
	}
}
