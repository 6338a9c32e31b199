package parse

import (
	"path/filepath"
	"strings"
	"testing"
)

// guestCases are every real guest capture of testdata/guest (copied from
// ../shared/samples/guest) with the values it must give.
var guestCases = map[string]func(t *testing.T, text string){
	"cat_sysfs_gids__rocm-ernic-amd_emrdma-empty-gid0.txt": func(t *testing.T, text string) {
		p := parsed(t, SysfsPorts, text)
		eq(t, "ports", len(p), 1)
		eq(t, "gids", len(p[0].GIDs), 1)
		eq(t, "gid 0 (author's comment dropped)", p[0].GIDs[0].GID, "0000:0000:0000:0000:0000:0000:0000:0000")
		eq(t, "zero", GIDZero(p[0].GIDs[0].GID), true)
	},
	"cat_sysfs_gids__rxe-dev-79-rxe.txt": func(t *testing.T, text string) {
		p, err := SysfsPorts(text)
		if _, partial := Skipped(err); !partial {
			t.Fatalf("want a partial result (the echoed command line), got %v", err)
		}
		eq(t, "gids", len(p[0].GIDs), 4)
		eq(t, "gid 0", p[0].GIDs[0].GID, "fe80:0000:0000:0000:76e6:e2ff:fe05:0c78")
		ip, ok := GIDIPv4(p[0].GIDs[1].GID)
		eq(t, "gid 1 is IPv4-mapped", ok, true)
		eq(t, "gid 1 ipv4", ip, "1.1.1.2")
		eq(t, "gid 3 zero", GIDZero(p[0].GIDs[3].GID), true)
	},
	"dmesg__rocm-ernic-msix-amd_emrdma-probe-fail-ENOMEM.txt": func(t *testing.T, text string) {
		d := parsed(t, DmesgPVRDMA, text)
		eq(t, "fork lines are another driver's", len(d), 0)
	},
	"dmesg__rocm-ernic-next-steps-vmw_pvrdma-probe-fail.txt": func(t *testing.T, text string) {
		d := parsed(t, DmesgPVRDMA, text)
		eq(t, "lines", len(d), 2)
		eq(t, "pci", d[0].PCI, "0000:00:04.0")
		eq(t, "message", d[0].Message, "driver needs RoCE v1 or v2 support")
		eq(t, "probe failure kept", d[1].Message, "probe of 0000:00:04.0 failed with error -14")
	},
	"dmesg__rocm-ernic-working-status-amd_emrdma-probe-ok.txt": func(t *testing.T, text string) {
		d, _ := DmesgPVRDMA(text)
		eq(t, "fork lines are another driver's", len(d), 0)
		v, _ := DmesgPVRDMA(strings.ReplaceAll(text, "amd_emrdma", "vmw_pvrdma"))
		eq(t, "lines as vmw_pvrdma", len(v), 5)
		eq(t, "time", v[0].Time, "48.699620")
		eq(t, "message", v[0].Message, "device version 17, driver version 20")
	},
	"ib_send_bw__byteps-371-mlx5-server.txt": func(t *testing.T, text string) {
		r := parsed(t, PerftestBW, text)
		eq(t, "truncated after the header: no rows", len(r), 0)
	},
	"ib_write_bw__ibm-storage-ceph-docs-bnxt-server.txt": func(t *testing.T, text string) {
		r, _ := PerftestBW(text)
		eq(t, "server without rows", len(r), 0)
	},
	"ib_write_bw__perftest-132-mlx5-client-quoted.txt": func(t *testing.T, text string) {
		r := parsed(t, PerftestBW, text)
		eq(t, "rows", len(r), 3)
		eq(t, "device", r[0].Device, "mlx5_0")
		eq(t, "bytes", r[2].MsgBytes, int64(8))
		eq(t, "avg", r[2].AvgGbps, 0.17)
		eq(t, "peak row 1", r[0].PeakGbps, 0.042350)
	},
	"ib_write_bw__sriov-cni-348-no-device.txt": func(t *testing.T, text string) {
		r, _ := PerftestBW(text)
		eq(t, "no device, no rows", len(r), 0)
		w := ProviderWarnings(text)
		eq(t, "warnings", len(w), 2)
		eq(t, "driver", w[0].Driver, "bnxt_re")
	},
	"ibv_devices__k8s-rdma-sriov-dev-plugin-30.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevices, text)
		eq(t, "devices", len(d), 1)
		eq(t, "name", d[0].Name, "mlx5_0")
		eq(t, "guid", d[0].NodeGUID, "98039b03003b0346")
	},
	"ibv_devices__meta-openembedded-86-empty.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevices, text)
		eq(t, "devices", len(d), 0)
	},
	"ibv_devices__rxe-dev-51-no-provider.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevices, text)
		eq(t, "devices", len(d), 0)
		w := ProviderWarnings(text)
		eq(t, "warnings", len(w), 2)
		eq(t, "driver", w[0].Driver, "rxe")
		eq(t, "device", w[1].Device, "/sys/class/infiniband_verbs/uverbs0")
	},
	"ibv_devinfo__azhpc-images-pr44-azure-vm.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevinfo, text)
		eq(t, "devices", len(d), 2)
		eq(t, "name", d[0].Name, "rdmaP23800p0s2")
		eq(t, "state", d[0].Ports[0].State, "PORT_ACTIVE")
		eq(t, "state num", d[0].Ports[0].StateNum, 4)
		eq(t, "active mtu", d[0].Ports[0].ActiveMTU, 1024)
		eq(t, "max mtu", d[0].Ports[0].MaxMTU, 4096)
		eq(t, "link layer", d[0].Ports[0].LinkLayer, "Ethernet")
		eq(t, "truncated 2nd device has no ports", len(d[1].Ports), 0)
		eq(t, "part id", d[1].VendorPartID, "4120")
	},
	"ibv_devinfo__heioy-books-mlx4-tabs.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevinfo, text)
		eq(t, "devices", len(d), 2)
		eq(t, "ports", len(d[0].Ports), 2)
		eq(t, "port 2", d[0].Ports[1].Port, 2)
		eq(t, "port 2 down", d[0].Ports[1].State, "PORT_DOWN")
		eq(t, "port 2 num", d[0].Ports[1].StateNum, 1)
		eq(t, "link layer", d[1].Ports[0].LinkLayer, "InfiniBand")
		eq(t, "port count", d[1].PhysPortCnt, 2)
	},
	"ibv_devinfo__sriov-cni-348-bnxt-abi-warning.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevinfo, text)
		eq(t, "no devices", len(d), 0)
		ws := ProviderWarnings(text)
		eq(t, "abi warnings", len(ws), 2)
		eq(t, "driver", ws[0].Driver, "bnxt_re")
		eq(t, "kernel ABI", ws[0].KernelABI, 6)
		eq(t, "provider ABIs", [2]int{ws[0].ProviderABIMin, ws[0].ProviderABIMax}, [2]int{1, 1})
		eq(t, "device", ws[0].Device, "/sys/class/infiniband/bnxt_re2")
		eq(t, "a mismatch", ws[0].ABIMismatch(), true)
	},
	"ibv_devinfo_v__heioy-books-mlx4-port2.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevinfo, text)
		eq(t, "devices", len(d), 1)
		eq(t, "ports", len(d[0].Ports), 1)
		p := d[0].Ports[0]
		eq(t, "port", p.Port, 2)
		eq(t, "state", p.State, "PORT_DOWN")
		eq(t, "phys", p.PhysState, "POLLING")
		eq(t, "gids", len(p.GIDs), 1)
		eq(t, "gid type not printed", p.GIDs[0].Type, "")
		eq(t, "gid", p.GIDs[0].GID, "fe80:0000:0000:0000:7cfe:9003:00a5:95c2")
	},
	"ibv_devinfo_v__k8s-rdma-shared-dev-plugin-164-port-gids.txt": func(t *testing.T, text string) {
		d, err := IBVDevinfo(text)
		if _, partial := Skipped(err); !partial {
			t.Fatalf("a port section without hca_id is partial, got %v", err)
		}
		p := d[0].Ports[0]
		eq(t, "state", p.State, "PORT_ACTIVE")
		eq(t, "active mtu", p.ActiveMTU, 4096)
		eq(t, "gids (markdown ** dropped)", len(p.GIDs), 2)
		eq(t, "gid index", p.GIDs[0].Index, 14)
		ip, _ := GIDIPv4(p.GIDs[1].GID)
		eq(t, "gid ip", ip, "192.168.6.6")
		eq(t, "phys", p.PhysState, "LINK_UP")
	},
	"ibv_devinfo_v__magnate3-rxe0.txt": func(t *testing.T, text string) {
		d := parsed(t, IBVDevinfo, text)
		eq(t, "name", d[0].Name, "rxe0")
		p := d[0].Ports[0]
		eq(t, "active mtu", p.ActiveMTU, 1024)
		eq(t, "gids", len(p.GIDs), 2)
		eq(t, "gid 1 index", p.GIDs[1].Index, 1)
	},
	"ip_addr__aci-containers-ens192-vlan-mtu9000.txt": func(t *testing.T, text string) {
		l := parsed(t, IPLink, text)
		eq(t, "links", len(l), 1)
		eq(t, "name", l[0].Name, "ens192.4093")
		eq(t, "parent", l[0].Parent, "ens192")
		eq(t, "mtu", l[0].MTU, 9000)
		eq(t, "mac", l[0].MAC, "00:50:56:97:da:24")
		eq(t, "up", l[0].Up(), true)
		a := parsed(t, IPAddr, text)
		eq(t, "addrs", len(a), 2)
		eq(t, "v4", a[0].Address, "10.0.128.64")
		eq(t, "prefix", a[0].Prefix, 16)
		eq(t, "iface", a[0].Interface, "ens192.4093")
		eq(t, "v6 scope", a[1].Scope, "link")
	},
	"libibverbs_warnings__byteps-313-vmw_pvrdma-IBVERBS_PRIVATE.txt": func(t *testing.T, text string) {
		w := ProviderWarnings(text)
		eq(t, "warnings", len(w), 6)
		eq(t, "vmw_pvrdma provider", w[0].Driver, "vmw_pvrdma")
		d := parsed(t, IBVDevinfo, text)
		eq(t, "no devices", len(d), 0)
	},
	"lsmod_grep__rocm-ernic-msix-amd_emrdma.txt": func(t *testing.T, text string) {
		m := parsed(t, Lsmod, text)
		eq(t, "modules", len(m), 3)
		eq(t, "ib_core users", strings.Join(m[2].Users, ","), "amd_emrdma,ib_uverbs")
		eq(t, "ib_core used by", m[2].UsedBy, 2)
	},
	"lsmod_grep_mlx__pve-vm-passthrough-mlx4core-only.txt": func(t *testing.T, text string) {
		m := parsed(t, Lsmod, text)
		eq(t, "modules", len(m), 1)
		eq(t, "name", m[0].Name, "mlx4_core")
		eq(t, "size", m[0].Size, int64(311296))
	},
	"lsmod_grep_rxe__rxe-dev-51.txt": func(t *testing.T, text string) {
		m := parsed(t, Lsmod, text)
		eq(t, "modules", len(m), 4)
		eq(t, "ib_core users", len(m[3].Users), 6)
	},
	"modinfo_vmxnet3__insights-core-test-fixture.txt": func(t *testing.T, text string) {
		m := parsed(t, Modinfo, text)
		eq(t, "filename", m.Filename, "/lib/modules/3.10.0-957.10.1.el7.x86_64/kernel/drivers/net/vmxnet3/vmxnet3.ko.xz")
		eq(t, "version", m.Version, "1.4.14.0-k")
		eq(t, "depends empty", m.Depends, "")
		eq(t, "vermagic", m.Vermagic, "3.10.0-957.10.1.el7.x86_64 SMP mod_unload modversions")
	},
	"ofed_info_s__k8s-rdma-sriov-dev-plugin-30.txt": func(t *testing.T, text string) {
		o := parsed(t, OFEDInfoS, text)
		eq(t, "version (colon dropped)", o.Version, "MLNX_OFED_LINUX-5.0-2.1.8.0")
	},
	"pkg_listing__ompi-9957-inbox-rdma-core-no-ofed.txt": func(t *testing.T, text string) {
		p := parsed(t, RPMQuery, text)
		eq(t, "packages (the transcript's first command)", len(p), 1)
		eq(t, "name", p[0].Name, "rdma-core")
		eq(t, "version", p[0].Version, "17.2-3.el7")
		eq(t, "arch", p[0].Arch, "x86_64")
		eq(t, "ofed_info missing", ToolMissing(1, "-bash: ofed_info: command not found", "ofed_info"), true)
		eq(t, "another program's noise", ToolMissing(0, "bash: line 1: cat: command not found", "uname"), false)
	},
	"rdma__orbstack-172-no-netlink-rdma.txt": func(t *testing.T, text string) {
		_, err := RDMALinkShow(text)
		wantParseError(t, err, 1)
	},
	"rdma_link_show__3fs-pr283-mlx5.txt": func(t *testing.T, text string) {
		l := parsed(t, RDMALinkShow, text)
		eq(t, "links", len(l), 2)
		eq(t, "dev", l[1].Device, "mlx5_1")
		eq(t, "port", l[1].Port, 1)
		eq(t, "state", l[0].State, "ACTIVE")
		eq(t, "phys", l[0].PhysState, "LINK_UP")
		eq(t, "netdev (trailing space)", l[1].Netdev, "p1p2")
	},
	"rdma_link_show__ibm-storage-ceph-docs-bnxt.txt": func(t *testing.T, text string) {
		l := parsed(t, RDMALinkShow, text)
		eq(t, "netdev", l[0].Netdev, "eno12399np0")
	},
	// show_gids (Mellanox's script, also in rdma-core's contrib): what
	// admins type to see the GID table, read into the ports' GIDs as
	// sysfs gives them (issue 23).
	"show_gids__k8s-rdma-sriov-dev-plugin-30-empty.txt": func(t *testing.T, text string) {
		p := parsed(t, SysfsPorts, text)
		if p == nil || len(p) != 0 {
			t.Errorf("an empty table is an empty list, got %#v", p)
		}
	},
	"show_gids__mooncake-1617-rocep-mixed.txt": func(t *testing.T, text string) {
		p := parsed(t, SysfsPorts, text)
		eq(t, "ports", len(p), 5)
		eq(t, "device", p[4].Device, "rocep193s0f0")
		eq(t, "gids", len(p[4].GIDs), 2)
		eq(t, "v1 type", p[4].GIDs[0].Type, "IB/RoCE v1")
		eq(t, "v2 type", p[4].GIDs[1].Type, "RoCE v2")
		eq(t, "gid", p[0].GIDs[1].GID, "fd93:16d3:59b6:010d:0690:81ff:fe39:e3e8")
		eq(t, "netdev", p[0].GIDs[0].Netdev, "enp105s0")
	},
}

// TestGuestSamples runs every real guest capture through its parser, and
// fails when a capture has no case.
func TestGuestSamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "guest", "*.txt"))
	if len(files) == 0 {
		t.Fatal("no guest samples")
	}
	for _, f := range files {
		name := filepath.Base(f)
		check, ok := guestCases[name]
		if !ok {
			t.Errorf("sample %s has no case", name)
			continue
		}
		t.Run(name, func(t *testing.T) { check(t, sample(t, filepath.Join("guest", name))) })
	}
}
