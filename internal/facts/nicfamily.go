package facts

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// NIC families: what an uplink's hardware can do for PVRDMA and which ESXi
// drivers give it an RDMA device. PVRDMA needs RoCE (v1 or v2) from the
// host's RDMA device (VMware, "Paravirtual RDMA for HPC": the vmnic "needs
// to support either the RoCE v1 or RoCE v2 protocols"); a NIC that only
// lacks its RDMA driver needs the driver, not a new NIC. The family of a
// vmnic comes from its PCI vendor and device IDs (`esxcli hardware pci
// list`) when they are known, else from its driver and description
// (`esxcli network nic list`). The one table of it; Host.NMLX5 reads it.
//
// Sources: NVIDIA's native ESXi driver manual (nmlx5_core / nmlx5_rdma,
// nmlx4_en / nmlx4_rdma, module parameters take effect after a reboot);
// Intel's irdman release notes (E810 RoCE v2 and iWARP, X722 iWARP only,
// RDMA turned on with the LAN driver's RDMA module parameter, after a
// reboot; no RoCE v1); Broadcom's bnxtnet / bnxtroce and Marvell QLogic's
// qedentv / qedrntv native drivers.

// NICFamily is what a NIC family can do for PVRDMA.
type NICFamily struct {
	// Name is the family ("ConnectX-5", "E810", "X710"); "" when unknown.
	Name string
	// LANDriver and RDMADriver are the ESXi modules of the family's
	// Ethernet and RDMA functions (RDMADriver "" when it has none).
	LANDriver, RDMADriver string
	// RoCE: the hardware can carry RoCE (v2, and v1 unless NoRoCEv1), so
	// PVRDMA can use it once its RDMA driver runs.
	RoCE     bool
	NoRoCEv1 bool
	// IWARPOnly: RDMA over iWARP only, which PVRDMA does not use (X722).
	IWARPOnly bool
	// EnableParam is the LAN driver's module parameter that turns RDMA on
	// (icen's RDMA, one value per port); "" when the RDMA driver needs no
	// parameter.
	EnableParam string
	// PFCParams: the LAN driver sets PFC with the pfctx/pfcrx module
	// parameters (ConnectX: nmlx5_core, nmlx4_en).
	PFCParams bool
	// Package names the driver bundle that carries RDMADriver (for
	// `esxcli software vib list`).
	Package string
	// EnabledOutside says where RDMA is turned on when nothing on ESXi
	// does it (Cisco VIC: the vNIC's RoCE property in Cisco IMC or UCS
	// Manager); "" when ESXi's modules and parameters do.
	EnabledOutside string
}

// pciFamily is one row of the table: a vendor ID and the device IDs of a
// family.
type pciFamily struct {
	vendor  string
	devices []string
	family  NICFamily
}

var (
	connectX4 = NICFamily{LANDriver: "nmlx5_core", RDMADriver: "nmlx5_rdma", RoCE: true, PFCParams: true, Package: "nmlx5-rdma"}
	connectX3 = NICFamily{Name: "ConnectX-3", LANDriver: "nmlx4_en", RDMADriver: "nmlx4_rdma", RoCE: true, PFCParams: true, Package: "nmlx4-rdma"}
	e810      = NICFamily{Name: "E810", LANDriver: "icen", RDMADriver: "irdman", RoCE: true, NoRoCEv1: true, EnableParam: "RDMA", Package: "irdman"}
	x722      = NICFamily{Name: "X722", LANDriver: "i40en", RDMADriver: "irdman", IWARPOnly: true, Package: "irdman"}
	bnxt      = NICFamily{Name: "BCM574xx/575xx", LANDriver: "bnxtnet", RDMADriver: "bnxtroce", RoCE: true, Package: "bnxtroce"}
	qlogic    = NICFamily{Name: "QLogic FastLinQ", LANDriver: "qedentv", RDMADriver: "qedrntv", RoCE: true, Package: "qedrntv"}
	// Cisco VIC 1400/14000/15000: RoCE v2 only (no RoCE v1), turned on
	// per vNIC in Cisco IMC or UCS Manager (Cisco's VIC configuration
	// guide, "Guidelines, Limitations, and Requirements"); nenic carries
	// the Ethernet and the RDMA function of the vNIC.
	ciscoVIC = NICFamily{Name: "Cisco VIC", LANDriver: "nenic", RDMADriver: "nenic", RoCE: true, NoRoCEv1: true, Package: "nenic",
		EnabledOutside: "the vNIC's RoCE v2 property in Cisco IMC or UCS Manager (VIC 1400 series and later; the VIC 1200/1300 series has no RoCE v2)"}
)

func named(f NICFamily, name string) NICFamily { f.Name = name; return f }

// pciFamilies are the families by PCI IDs (vendor 0x15b3 NVIDIA/Mellanox,
// 0x8086 Intel, 0x14e4 Broadcom, 0x1077 QLogic).
var pciFamilies = []pciFamily{
	{"0x15b3", []string{"0x1003", "0x1007"}, connectX3},
	{"0x15b3", []string{"0x1013"}, named(connectX4, "ConnectX-4")},
	{"0x15b3", []string{"0x1015"}, named(connectX4, "ConnectX-4 Lx")},
	{"0x15b3", []string{"0x1017", "0x1019"}, named(connectX4, "ConnectX-5")},
	{"0x15b3", []string{"0x101b", "0x101d", "0x101f"}, named(connectX4, "ConnectX-6")},
	{"0x15b3", []string{"0x1021"}, named(connectX4, "ConnectX-7")},
	{"0x15b3", []string{"0xa2d6", "0xa2dc"}, named(connectX4, "BlueField")},
	{"0x8086", []string{"0x1591", "0x1592", "0x1593", "0x1599", "0x159a", "0x159b"}, e810},
	{"0x8086", []string{"0x37ce", "0x37cf", "0x37d0", "0x37d1", "0x37d2", "0x37d3"}, x722},
	{"0x8086", []string{"0x1572", "0x1574", "0x1580", "0x1581", "0x1583", "0x1584", "0x1585", "0x1586", "0x1587", "0x1588", "0x1589", "0x158a", "0x158b"},
		NICFamily{Name: "X710", LANDriver: "i40en"}},
	{"0x8086", []string{"0x1528", "0x1563", "0x15c8", "0x15ad", "0x10fb", "0x1557"}, NICFamily{Name: "X550/X540/82599", LANDriver: "ixgben"}},
	{"0x8086", []string{"0x1521", "0x1523"}, NICFamily{Name: "I350", LANDriver: "igbn"}},
	{"0x14e4", []string{"0x16d6", "0x16d7", "0x16d8", "0x16d9", "0x16df", "0x16e2", "0x16e3"}, named(bnxt, "BCM574xx")},
	{"0x14e4", []string{"0x1750", "0x1751", "0x1752"}, named(bnxt, "BCM575xx")},
	{"0x14e4", []string{"0x1657", "0x165f", "0x1656", "0x165a"}, NICFamily{Name: "BCM5719/5720", LANDriver: "ntg3"}},
	{"0x1077", []string{"0x8070", "0x8080", "0x8090", "0x1634", "0x1644", "0x1654", "0x1656"}, qlogic},
	{"0x1137", []string{"0x0043"}, ciscoVIC},
}

// familyByDriver is the fallback when the PCI IDs are unknown: what the
// LAN driver (and the description, for drivers that serve several
// families) says.
func familyByDriver(driver, description string) NICFamily {
	d := strings.ToLower(description)
	switch driver {
	case "nmlx5_core":
		f := named(connectX4, "ConnectX-4 or later")
		for _, n := range []string{"ConnectX-4 Lx", "ConnectX-4", "ConnectX-5", "ConnectX-6", "ConnectX-7", "BlueField"} {
			if strings.Contains(d, strings.ToLower(n)) {
				f.Name = n
			}
		}
		return f
	case "nmlx4_en", "nmlx4_core":
		return connectX3
	case "icen":
		return e810
	case "i40en":
		if strings.Contains(d, "x722") {
			return x722
		}
		return NICFamily{Name: "X710", LANDriver: "i40en"}
	case "bnxtnet":
		if strings.Contains(d, "netxtreme-e") || strings.Contains(d, "rdma") || strings.Contains(d, "bcm574") || strings.Contains(d, "bcm575") {
			return bnxt
		}
		return NICFamily{Name: "NetXtreme-C", LANDriver: "bnxtnet"}
	case "qedentv":
		return qlogic
	case "nenic":
		return ciscoVIC
	case "ixgben", "ixgbe":
		return NICFamily{Name: "X550/X540/82599", LANDriver: driver}
	case "igbn":
		return NICFamily{Name: "I350", LANDriver: driver}
	case "ntg3", "tg3":
		return NICFamily{Name: "BCM5719/5720", LANDriver: driver}
	}
	return NICFamily{LANDriver: driver}
}

// Known reports whether the family was recognized.
func (f NICFamily) Known() bool { return f.Name != "" }

// FamilyOf returns the NIC family of an uplink: the driver bound to it
// (`esxcli network nic list` Driver, `esxcli hardware pci list` Module
// Name) names the family; its PCI IDs (matched by its VMkernel name or
// its PCI address) name the model within it, and the family when no
// driver is known or the driver is unknown to the table. PCI IDs that
// say another family than the bound driver are a note (IdentityConflict),
// not the identity. A zero NICFamily (Known false) when neither says.
func (h *Host) FamilyOf(vmnic string) NICFamily {
	byPCI, byDriver, _ := h.familySources(vmnic)
	if byDriver.Known() && (!byPCI.Known() || !sameFamily(byPCI, byDriver)) {
		return byDriver
	}
	if byPCI.Known() {
		return byPCI
	}
	return byDriver
}

// IdentityConflict says, for a NIC whose PCI IDs name another family than
// the driver bound to it, what each says ("" when they agree or one is
// unknown).
func (h *Host) IdentityConflict(vmnic string) string {
	byPCI, byDriver, driver := h.familySources(vmnic)
	if !byPCI.Known() || !byDriver.Known() || sameFamily(byPCI, byDriver) {
		return ""
	}
	return vmnic + "'s PCI IDs say " + byPCI.Name + " (driver " + byPCI.LANDriver + "), but " + driver + " is bound to it (" +
		byDriver.Name + "): the bound driver is taken as its identity"
}

// sameFamily reports whether the families by PCI IDs and by driver agree:
// the same LAN driver, or the same family name (ixgbe and ixgben).
func sameFamily(byPCI, byDriver NICFamily) bool {
	return byPCI.LANDriver == byDriver.LANDriver || byPCI.Name == byDriver.Name
}

// familySources are a NIC's family by its PCI IDs and by its bound driver
// (and description), and that driver's name.
func (h *Host) familySources(vmnic string) (byPCI, byDriver NICFamily, driver string) {
	n := h.NICNamed(vmnic)
	var pci *parse.PCIDevice
	for i := range h.PCIDevices {
		p := &h.PCIDevices[i]
		if p.VMkernelName == vmnic || (n != nil && n.PCIDevice != "" && parse.NormalizePCIAddress(p.Address) == parse.NormalizePCIAddress(n.PCIDevice)) {
			pci = p
			break
		}
	}
	if pci != nil {
		v, d := strings.ToLower(pci.VendorID), strings.ToLower(pci.DeviceID)
	rows:
		for _, row := range pciFamilies {
			if row.vendor != v {
				continue
			}
			for _, id := range row.devices {
				if id == d {
					byPCI = row.family
					break rows
				}
			}
		}
	}
	desc := ""
	if n != nil {
		driver, desc = n.Driver, n.Description
	}
	for _, d := range h.NICDetails {
		if d.Name == vmnic && driver == "" {
			driver = d.Driver
		}
	}
	if driver == "" && pci != nil {
		driver, desc = pci.ModuleName, pci.DeviceName
	}
	if driver == "" {
		return byPCI, NICFamily{}, ""
	}
	return byPCI, familyByDriver(driver, desc), driver
}

// PCIDeviceOf returns the `esxcli hardware pci list` entry of a NIC (by
// its VMkernel name or its PCI address); nil when none is listed.
func (h *Host) PCIDeviceOf(vmnic string) *parse.PCIDevice {
	n := h.NICNamed(vmnic)
	for i := range h.PCIDevices {
		p := &h.PCIDevices[i]
		if p.VMkernelName == vmnic || (n != nil && n.PCIDevice != "" && parse.NormalizePCIAddress(p.Address) == parse.NormalizePCIAddress(n.PCIDevice)) {
			return p
		}
	}
	return nil
}
