package parse

import "testing"

// Guest outputs in the tools' documented formats, as the doctor runs them.
const (
	guestSysfs = "/sys/class/infiniband/vmw_pvrdma0/ports/1/state:1: DOWN\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/phys_state:5: LinkUp\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/gids/0:fe80:0000:0000:0000:0250:56ff:fe8a:01a0\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/gids/1:0000:0000:0000:0000:0000:ffff:c0a8:3215\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/gid_attrs/types/0:IB/RoCE v1\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/gid_attrs/types/1:RoCE v2\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/gid_attrs/ndevs/1:ens224\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/pkeys/0:0xffff\n" +
		"/sys/class/infiniband/vmw_pvrdma0/ports/1/rate:25 Gb/sec (1X EDR)\n"
	guestIPLink = "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
		"2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:8a:01:10 brd ff:ff:ff:ff:ff:ff\\    altname enp11s0\n" +
		"3: ens224: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:8A:01:A0 brd ff:ff:ff:ff:ff:ff\n"
	guestIPAddr = "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n" +
		"3: ens224    inet 192.168.50.21/24 brd 192.168.50.255 scope global ens224\\       valid_lft forever preferred_lft forever\n" +
		"3: ens224    inet6 fe80::250:56ff:fe8a:1a0/64 scope link \\       valid_lft forever preferred_lft forever\n"
	guestDevinfo = "hca_id:\tvmw_pvrdma0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t3.0.000\n\tphys_port_cnt:\t\t\t1\n" +
		"\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n" +
		"\t\t\tlink_layer:\t\tEthernet\n\t\t\tphys_state:\t\tLINK_UP (5)\n" +
		"\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0250:56ff:fe8a:01a0, RoCE v1\n" +
		"\t\t\tGID[  1]:\t\t::ffff:192.168.50.21, RoCE v2\n"
	guestOSRelease = "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n"
	guestDpkg      = "ibverbs-providers:amd64\t39.0-1\nlibibverbs1:amd64\t51mlnx1-1.51246\nrdma-core\t39.0-1\nperftest\t\n"
	guestLsmod     = "Module                  Size  Used by\nvmw_pvrdma             81920  0\nib_uverbs             167936  1 vmw_pvrdma\nvmxnet3                65536  0\n"
	guestModinfo   = "filename:       /lib/modules/5.15.0-91-generic/kernel/drivers/infiniband/hw/vmw_pvrdma/vmw_pvrdma.ko\nversion:        1.0.1.0-k\nlicense:        Dual BSD/GPL\ndepends:        ib_core,vmxnet3,ib_uverbs\nvermagic:       5.15.0-91-generic SMP mod_unload modversions \n"
)

func TestGuestFormats(t *testing.T) {
	p := parsed(t, SysfsPorts, guestSysfs)
	eq(t, "ports", len(p), 1)
	eq(t, "device", p[0].Device, "vmw_pvrdma0")
	eq(t, "state", p[0].State, "DOWN")
	eq(t, "state num", p[0].StateNum, 1)
	eq(t, "phys", p[0].PhysState, "LinkUp")
	eq(t, "gid 1 type", p[0].GIDs[1].Type, "RoCE v2")
	eq(t, "gid 1 netdev", p[0].GIDs[1].Netdev, "ens224")
	eq(t, "gid 0 type", p[0].GIDs[0].Type, "IB/RoCE v1")

	l := parsed(t, IPLink, guestIPLink)
	eq(t, "links", len(l), 3)
	eq(t, "ens224 mac lowercased", l[2].MAC, "00:50:56:8a:01:a0")
	eq(t, "ens224 mtu", l[2].MTU, 9000)
	eq(t, "ens192 mac", l[1].MAC, "00:50:56:8a:01:10")
	eq(t, "index", l[1].Index, 2)

	a := parsed(t, IPAddr, guestIPAddr)
	eq(t, "addrs", len(a), 3)
	eq(t, "ens224 v4", a[1].Address, "192.168.50.21")
	eq(t, "ens224 iface", a[1].Interface, "ens224")
	eq(t, "v6", a[2].Family, "inet6")

	d := parsed(t, IBVDevinfo, guestDevinfo)
	eq(t, "gid v2 normalized", d[0].Ports[0].GIDs[1].GID, "0000:0000:0000:0000:0000:ffff:c0a8:3215")
	eq(t, "gid v2 type", d[0].Ports[0].GIDs[1].Type, "RoCE v2")
	eq(t, "port down", d[0].Ports[0].State, "PORT_DOWN")

	o := parsed(t, OSReleaseFile, guestOSRelease)
	eq(t, "id", o.ID, "ubuntu")
	eq(t, "codename", o.VersionCodename, "jammy")
	eq(t, "pretty", o.PrettyName, "Ubuntu 22.04.4 LTS")

	pk := parsed(t, DpkgQuery, guestDpkg)
	eq(t, "installed packages", len(pk), 3)
	eq(t, "arch", pk[1].Arch, "amd64")
	eq(t, "mofed version", pk[1].Version, "51mlnx1-1.51246")

	m := parsed(t, Lsmod, guestLsmod)
	eq(t, "modules", len(m), 3)

	mi := parsed(t, Modinfo, guestModinfo)
	eq(t, "depends", mi.Depends, "ib_core,vmxnet3,ib_uverbs")
	eq(t, "not found", ModuleNotFound("modinfo: ERROR: Module vmw_pvrdma not found.\n"), true)

	k := parsed(t, UnameRelease, "4.4.0-210-generic\n")
	eq(t, "old", k.AtLeast(4, 6), false)
	k, _ = UnameRelease("5.14.0-362.8.1.el9_3.x86_64\n")
	eq(t, "el9", k.AtLeast(4, 6), true)
	eq(t, "minor", k.Minor, 14)

	r := parsed(t, RPMQuery, "rdma-core-46.0-1.el9.x86_64\nlibibverbs-46.0-1.el9.x86_64\npackage mlnx-ofa_kernel is not installed\n")
	eq(t, "rpms", len(r), 2)
	eq(t, "rpm name", r[1].Name, "libibverbs")

	ls := parsed(t, SysfsListing, "vmw_pvrdma0\n")
	eq(t, "listing", ls[0].Name, "vmw_pvrdma0")
	_, err := SysfsListing("vmw_pvrdma0; reboot\n")
	wantParseError(t, err, 1)
}
