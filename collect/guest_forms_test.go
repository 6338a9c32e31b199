package collect

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// The guest commands as admins type them map to the guest catalogue's
// kinds: complete forms with no filter (the catalogue's own line when
// they are it), partial ones with what they show.
func TestRecognizeGuestForms(t *testing.T) {
	for _, c := range []struct {
		typed  string
		kind   hostio.Kind
		line   string
		filter string
	}{
		{"ibv_devinfo -v", catalog.KindGuestDevinfo, "ibv_devinfo -v", ""},
		{"ibv_devinfo", catalog.KindGuestDevinfo, "ibv_devinfo", ""},
		{"ibv_devinfo --verbose", catalog.KindGuestDevinfo, "ibv_devinfo --verbose", ""},
		{"ibv_devinfo -d vmw_pvrdma0", catalog.KindGuestDevinfo, "ibv_devinfo -d vmw_pvrdma0", "vmw_pvrdma0"},
		{"ibv_devinfo -v -d vmw_pvrdma0 -i 1", catalog.KindGuestDevinfo, "ibv_devinfo -v -d vmw_pvrdma0 -i 1", "vmw_pvrdma0 1"},
		{"ibv_devices", catalog.KindGuestDevices, "ibv_devices", ""},
		{"ibstat", catalog.KindGuestDevinfo, "ibstat", "ibstat"},
		{"ip addr show", catalog.KindGuestIPAddr, "ip addr show", ""},
		{"ip a", catalog.KindGuestIPAddr, "ip a", ""},
		{"ip -o addr", catalog.KindGuestIPAddr, "ip -o addr", ""},
		{"ip -4 -o addr show dev ens224", catalog.KindGuestIPAddr, "ip -4 -o addr show dev ens224", "ens224"},
		{"ip link show", catalog.KindGuestIPLink, "ip link show", ""},
		{"ip -d link show", catalog.KindGuestIPLink, "ip -d link show", ""},
		{"ip -o link", catalog.KindGuestIPLink, "ip -o link", ""},
		{"rdma link show", catalog.KindGuestRDMALink, "rdma link show", ""},
		{"rdma link", catalog.KindGuestRDMALink, "rdma link", ""},
		{"show_gids", catalog.KindGuestSysfsPort, "show_gids", "show_gids"},
		{"lsmod", catalog.KindGuestLsmod, "lsmod", ""},
		{"lsmod | grep pvrdma", catalog.KindGuestLsmod, "lsmod | grep pvrdma", "grep pvrdma"},
		{"modinfo vmw_pvrdma", catalog.KindGuestModinfo, "modinfo vmw_pvrdma", ""},
		{"cat /etc/os-release", catalog.KindGuestOSRelease, "cat /etc/os-release", ""},
		{"uname -r", catalog.KindGuestKernel, "uname -r", ""},
		{"uname -a", catalog.KindGuestKernel, "uname -a", ""},
		{"dmesg", catalog.KindGuestDmesg, "dmesg", ""},
		{"sudo dmesg -T", catalog.KindGuestDmesg, "dmesg -T", ""},
		{"dmesg | grep -i pvrdma", catalog.KindGuestDmesg, "dmesg", ""},
		{"dmesg | grep mlx5", catalog.KindGuestDmesg, "dmesg | grep mlx5", "grep mlx5"},
		{"ofed_info -s", catalog.KindGuestOFED, "ofed_info -s", ""},
		{"dpkg -l", catalog.KindGuestDpkg, "dpkg -l", ""},
		{"dpkg-query -W", catalog.KindGuestDpkg, "dpkg-query -W", ""},
		{"dpkg -l '*rdma*'", catalog.KindGuestDpkg, "dpkg -l '*rdma*'", "'*rdma*'"},
		{"rpm -qa", catalog.KindGuestRPM, "rpm -qa", ""},
		{"rpm -qa | grep rdma", catalog.KindGuestRPM, "rpm -qa | grep rdma", "grep rdma"},
		{"ls /sys/class/infiniband/", catalog.KindGuestIBClass, "ls /sys/class/infiniband/", ""},
		{"grep -s -r -H . /sys/class/infiniband/vmw_pvrdma0/ports/1", catalog.KindGuestSysfsPort, "grep -s -r -H . /sys/class/infiniband/vmw_pvrdma0/ports/1", ""},
	} {
		r, ok := Recognize(c.typed)
		if !ok || r.Kind != c.kind || r.Line != c.line || r.Filter != c.filter || !r.IsGuest() {
			t.Errorf("%q: %v %+v, want %s %q filter %q", c.typed, ok, r, c.kind, c.line, c.filter)
		}
	}
	// `ip addr` (not -o) prints the links too.
	if r, _ := Recognize("ip a"); len(r.Also) != 1 || r.Also[0] != catalog.KindGuestIPLink {
		t.Errorf("ip a: also %v", r.Also)
	}
	if r, _ := Recognize("ip -o addr"); len(r.Also) != 0 {
		t.Errorf("ip -o addr: also %v", r.Also)
	}
	for _, typed := range []string{"ip -br addr", "modinfo vmxnet3", "cat /etc/hosts", "uname -m", "dmesg -w", "ibv_devinfo -l", "ls -l /sys/class/infiniband"} {
		if r, ok := Recognize(typed); ok {
			t.Errorf("%q recognized as %+v", typed, r)
		}
	}
}
