package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 23: `parse --command` reads every guest command the collector
// runs, in the forms admins type, from the outputs those forms print
// (the scenario's own outputs for the catalogue's spellings, testdata
// for the others). Each gives the facts it carries, nothing is skipped,
// and an empty device table is an empty list, not null.
func TestParseGuestFormsAsAdminsTypeThem(t *testing.T) {
	guest := filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", "mixed", "hpc-node02")
	forms := filepath.Join("testdata", "guest-forms")
	cases := []struct {
		command, file string
		want          []string // in the JSON output
	}{
		{"ibv_devinfo -v", filepath.Join(guest, "ibv_devinfo_-v.txt"), []string{`"name": "vmw_pvrdma0"`, `"state": "PORT_DOWN"`}},
		{"ibv_devinfo", filepath.Join(forms, "ibv_devinfo.txt"), []string{`"state": "PORT_ACTIVE"`, `"active_mtu": 1024`}},
		{"ibv_devinfo -d vmw_pvrdma0", filepath.Join(forms, "ibv_devinfo.txt"), []string{`"name": "vmw_pvrdma0"`}},
		{"ibv_devinfo -v -d vmw_pvrdma0 -i 1", filepath.Join(guest, "ibv_devinfo_-v.txt"), []string{`"name": "vmw_pvrdma0"`}},
		{"ibv_devices", filepath.Join(guest, "ibv_devices.txt"), []string{`"name": "vmw_pvrdma0"`}},
		{"ibstat", filepath.Join(forms, "ibstat.txt"), []string{`"name": "vmw_pvrdma0"`, `"state": "PORT_ACTIVE"`, `"state_num": 4`, `"link_layer": "Ethernet"`}},
		{"ibstat vmw_pvrdma0", filepath.Join(forms, "ibstat.txt"), []string{`"phys_state": "LINK_UP"`}},
		{"ip -o addr", filepath.Join(guest, "ip_-o_addr.txt"), []string{`"address": "192.168.50.102"`}},
		{"ip addr show", filepath.Join(forms, "ip_addr_show.txt"), []string{`"address": "192.168.50.102"`, `"interface": "ens224"`}},
		{"ip a", filepath.Join(forms, "ip_addr_show.txt"), []string{`"address": "10.20.0.102"`}},
		{"ip -o link", filepath.Join(guest, "ip_-o_link.txt"), []string{`"name": "ens224"`, `"mtu": 9000`}},
		{"ip link show", filepath.Join(forms, "ip_addr_show.txt"), []string{`"name": "ens224"`, `"mtu": 9000`}},
		{"ip -d link show", filepath.Join(forms, "ip_d_link_show.txt"), []string{`"name": "ens224"`, `"mac": "00:50:56:8a:01:a1"`}},
		{"ip -o link show ens224", filepath.Join(guest, "ip_-o_link.txt"), []string{`"name": "ens224"`}},
		{"rdma link show", filepath.Join(guest, "rdma_link_show.txt"), []string{`"netdev": "ens224"`}},
		{"rdma link", filepath.Join(guest, "rdma_link_show.txt"), []string{`"state": "DOWN"`}},
		{"show_gids", filepath.Join(forms, "show_gids.txt"), []string{`"type": "RoCE v2"`, `"netdev": "ens224"`, `"gid": "0000:0000:0000:0000:0000:ffff:c0a8:3266"`}},
		{"lsmod", filepath.Join(guest, "lsmod.txt"), []string{`"name": "vmw_pvrdma"`}},
		{"lsmod | grep pvrdma", filepath.Join(guest, "lsmod.txt"), []string{`"name": "vmw_pvrdma"`}},
		{"modinfo vmw_pvrdma", filepath.Join(guest, "modinfo_vmw_pvrdma.txt"), []string{`"vmw_pvrdma`}},
		{"cat /etc/os-release", filepath.Join(guest, "cat_etc_os-release.txt"), []string{`"ID"`}},
		{"uname -r", filepath.Join(guest, "uname_-r.txt"), []string{`"release"`}},
		{"uname -a", filepath.Join(forms, "uname_a.txt"), []string{`"release": "5.15.0-91-generic"`, `"major": 5`}},
		{"dmesg", filepath.Join(guest, "dmesg.txt"), nil},
		{"dmesg -T", filepath.Join(forms, "dmesg_T.txt"), []string{`"time": "Mon Jan 15 09:12:01 2024"`, `"pci": "0000:0b:00.1"`, `"message": "attached to device"`}},
		{"dmesg | grep -i pvrdma", filepath.Join(forms, "dmesg_T.txt"), []string{`"message": "device version 20, driver version 20"`}},
		{"ofed_info -s", "", nil},
		{"dpkg-query -W", filepath.Join(guest, "dpkg-query_-W.txt"), []string{`"manager": "dpkg"`}},
		{"dpkg -l", filepath.Join(forms, "dpkg_l.txt"), []string{`"name": "rdma-core"`, `"version": "39.0-1"`, `"name": "ibverbs-providers"`}},
		{"dpkg -l | grep rdma", filepath.Join(forms, "dpkg_l.txt"), []string{`"name": "rdma-core"`}},
		{"rpm -qa", "", nil},
		{"ls /sys/class/infiniband", filepath.Join(guest, "ls_sys_class_infiniband.txt"), []string{`"name": "vmw_pvrdma0"`}},
		{"sudo dmesg", filepath.Join(guest, "dmesg.txt"), nil},
	}
	for _, c := range cases {
		in := "MLNX_OFED_LINUX-5.8-1.1.2.1:\n"
		if c.command == "rpm -qa" {
			in = "rdma-core-44.0-2.el9.x86_64\nlibibverbs-44.0-2.el9.x86_64\n"
		}
		if c.file != "" {
			b, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			in = string(b)
		}
		code, out, stderr := runCLI(t, in, "parse", "--command", c.command, "--output", "json", "-")
		if code != ExitOK || stderr != "" {
			t.Errorf("%s: exit %d\n%s", c.command, code, stderr)
			continue
		}
		if strings.TrimSpace(out) == "null" {
			t.Errorf("%s: null", c.command)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %s not in\n%s", c.command, w, out)
			}
		}
		if c.command == "dpkg -l" && strings.Contains(out, "mlnx-ofed-kernel-utils") {
			t.Errorf("dpkg -l: a package removed (rc) is listed as installed")
		}
	}
	// An empty device table is an empty list.
	code, out, _ := runCLI(t, "    device          \t   node GUID\n    ------          \t----------------\n", "parse", "--command", "ibv_devices", "--output", "json", "-")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("empty ibv_devices: exit %d, %q", code, out)
	}
}
