package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Inside a Linux guest: the plan's guest, or in a host's plan the guest
// of the VM the action names (InVM).

// GuestModuleReload loads vmw_pvrdma after the InfiniBand modules it
// needs, the order of the guest setup documents: the port of a PVRDMA
// device stays PORT_DOWN until vmw_pvrdma is loaded after them. They also
// load mlx4_ib, the ConnectX-3 driver, which a PVRDMA guest does not use.
const GuestModuleReload = "sudo modprobe -a ib_umad rdma_cm rdma_ucm && sudo modprobe -r vmw_pvrdma && sudo modprobe vmw_pvrdma"

// GuestModuleLoad loads vmw_pvrdma, not loaded yet, after the modules it
// needs (`modprobe -r` of a module not loaded fails, so not the reload).
const GuestModuleLoad = "sudo modprobe -a ib_umad rdma_cm rdma_ucm && sudo modprobe vmw_pvrdma"

// GuestModulePersist makes the reload order survive a reboot (Ubuntu
// needs it after every boot).
const GuestModulePersist = "Keep that order at every boot (“Setting up a 100GbE PVRDMA Network on vCenter 7”): the three modprobe lines in /usr/local/sbin/rdma-modules.sh, run at boot " +
	"from /etc/rc.local or a oneshot systemd unit (After=systemd-modules-load.service); on Ubuntu also `sudo update-initramfs -k all -u`."

// GuestReloadWarning is what to do before removing vmw_pvrdma.
const GuestReloadWarning = "stop the RDMA jobs in the guest first: removing vmw_pvrdma drops their connections (and fails while one holds the device)"

// devicesListed is the verify read of a PVRDMA device the kernel lists.
func devicesListed(dev string) *Read {
	return guestRead("ls /sys/class/infiniband", dev+" listed", LineOf(dev))
}

// vmwPVRDMALoaded is the read of a loaded vmw_pvrdma.
func vmwPVRDMALoaded() *Read {
	return guestRead("lsmod", "vmw_pvrdma listed", Match{Line: `^vmw_pvrdma\s`})
}

// GuestSetMTU sets the PVRDMA interface's MTU and persists it (Netdev;
// when the guest was not scanned, MAC names the interface).
type GuestSetMTU struct {
	VM     string `json:"vm,omitempty"`
	MTU    int    `json:"mtu,omitempty"`
	MAC    string `json:"mac,omitempty"`
	Netdev string `json:"netdev,omitempty"`
}

const KindGuestSetMTU Kind = "guest_set_mtu"

var _ = register[GuestSetMTU]()

func (GuestSetMTU) Kind() Kind { return KindGuestSetMTU }
func (GuestSetMTU) About() string {
	return "the PVRDMA interface's MTU, persisted (`mac` names the interface when the guest was not scanned)"
}

func (a GuestSetMTU) TargetVM() string { return a.VM }

func (a GuestSetMTU) Words(host string) Words {
	iface := a.Netdev
	if iface == "" {
		iface = "its PVRDMA interface (IFACE: the one with MAC " + orPlaceholder(a.MAC, "of the adapter") + " in `ip -o link`)"
	}
	return Words{On: "guest", Text: fmt.Sprintf("Set %s to MTU %d and persist it (netplan `mtu: %d`, or ifcfg `MTU=%d`).", iface, a.MTU, a.MTU, a.MTU),
		Command: fmt.Sprintf("sudo ip link set dev %s mtu %d", ShellArg(a.Netdev, "IFACE"), a.MTU),
		Sets:    sets("MTU of "+a.Netdev+" in "+host, strconv.Itoa(a.MTU))}
}

func (a GuestSetMTU) Reads(string) Reads {
	c := guestRead("ip -o link", fmt.Sprintf("%s mtu %d", a.Netdev, a.MTU), Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(a.Netdev) + `: .* mtu ` + strconv.Itoa(a.MTU) + ` `})
	return Reads{Check: c, Verify: reads(c)}
}

// GuestReloadDriver reloads vmw_pvrdma after the InfiniBand modules
// (Device; what it shows after: the RoCE MTU, the port ACTIVE).
type GuestReloadDriver struct {
	VM     string `json:"vm,omitempty"`
	Device string `json:"device,omitempty"`
	MTU    int    `json:"mtu,omitempty"`
	// Port: after the step the guest's port must be ACTIVE.
	Port bool `json:"port,omitempty"`
}

const KindGuestReloadDriver Kind = "guest_reload_driver"

var _ = register[GuestReloadDriver]()

func (GuestReloadDriver) Kind() Kind { return KindGuestReloadDriver }
func (GuestReloadDriver) About() string {
	return "reload `vmw_pvrdma` after the IB modules; the device's RoCE MTU follows its interface's MTU only then (`mtu`: the `active_mtu` after; `port`: the port is then `PORT_ACTIVE`)"
}

func (a GuestReloadDriver) TargetVM() string { return a.VM }

// Rank: after everything else the driver needs.
func (GuestReloadDriver) Rank() int { return 2 }

// MergeKey: one reload per guest, showing what each reason needs.
func (a GuestReloadDriver) MergeKey() string { return a.VM }

func (a GuestReloadDriver) Merge(o Value) Value {
	b := o.(GuestReloadDriver)
	a.Port = a.Port || b.Port
	a.MTU = max(a.MTU, b.MTU)
	if a.Device == "" || strings.HasPrefix(b.Device, "vmw_pvrdma") && a.Device == "vmw_pvrdma0" {
		a.Device = b.Device
	}
	return a
}

func (a GuestReloadDriver) Words(host string) Words {
	return Words{On: "guest", Text: "Reload vmw_pvrdma after the InfiniBand modules it needs (ib_umad, rdma_cm, rdma_ucm; not the guides' mlx4_ib, a ConnectX-3 driver).",
		Command: GuestModuleReload, Warnings: []string{GuestReloadWarning},
		Sets: sets("vmw_pvrdma in "+host, "loaded", "load order of vmw_pvrdma in "+host, "after the InfiniBand modules")}
}

func (a GuestReloadDriver) Reads(string) Reads {
	var m []Match
	var exp []string
	if a.Port {
		m = append(m, Match{Line: `^\s*state:\s+PORT_ACTIVE`})
		exp = append(exp, "PORT_ACTIVE")
	}
	if a.MTU > 0 {
		m = append(m, Match{Line: `^\s*active_mtu:\s+` + strconv.Itoa(a.MTU) + `(\s|$)`})
		exp = append(exp, "active_mtu "+strconv.Itoa(a.MTU))
	}
	if len(m) == 0 {
		return Reads{}
	}
	v := reads(guestRead("ibv_devinfo -v", orPlaceholder(a.Device, "vmw_pvrdma0")+": "+strings.Join(exp, ", "), m...))
	return Reads{Check: &v[0], Verify: v} // already so: nothing to reload for
}

// HostSideVerify: in a host's plan, the adapter's active MTU as the host
// shows it.
func (a GuestReloadDriver) HostSideVerify() []Read {
	if a.MTU <= 0 {
		return nil
	}
	return []Read{{Command: vsishProps, VM: a.VM, On: "esxi", Expect: fmt.Sprintf("Active MTU:%d for %s", a.MTU, a.VM),
		Match: []Match{LineOf(fmt.Sprintf("Active MTU:%d", a.MTU))}}}
}

// GuestLoadDriver loads vmw_pvrdma (Device: the device it then lists).
type GuestLoadDriver struct {
	Device string `json:"device,omitempty"`
}

const KindGuestLoadDriver Kind = "guest_load_driver"

var _ = register[GuestLoadDriver]()

func (GuestLoadDriver) Kind() Kind { return KindGuestLoadDriver }
func (GuestLoadDriver) About() string {
	return "load `vmw_pvrdma`"
}

func (GuestLoadDriver) Rank() int { return 1 }

func (a GuestLoadDriver) Words(host string) Words {
	return Words{On: "guest", Text: "Load vmw_pvrdma after the InfiniBand modules it needs (ib_umad, rdma_cm, rdma_ucm).", Command: GuestModuleLoad,
		Sets: sets("vmw_pvrdma in "+host, "loaded")}
}

func (a GuestLoadDriver) Reads(string) Reads {
	c := vmwPVRDMALoaded()
	return Reads{Check: c, Verify: reads(c, devicesListed(orPlaceholder(a.Device, "vmw_pvrdma0")))}
}

// GuestPersistOrder keeps the load order across boots.
type GuestPersistOrder struct{}

const KindGuestPersistOrder Kind = "guest_persist_order"

var _ = register[GuestPersistOrder]()

func (GuestPersistOrder) Kind() Kind { return KindGuestPersistOrder }
func (GuestPersistOrder) About() string {
	return "keep the module load order across boots"
}

func (GuestPersistOrder) Rank() int { return 3 }

func (GuestPersistOrder) Words(host string) Words {
	return Words{On: "guest", Pause: true, Text: GuestModulePersist, Sets: sets("module order at boot in "+host, "vmw_pvrdma last")}
}

func (GuestPersistOrder) Reads(string) Reads { return Reads{} }

func (GuestPersistOrder) Unverified() string { return "the order shows only at the guest's next boot" }

// GuestInstallRDMA installs rdma-core's verbs provider (Value: apt or
// yum).
type GuestInstallRDMA struct {
	Value string `json:"value,omitempty"`
}

const KindGuestInstallRDMA Kind = "guest_install_rdma_core"

var _ = register[GuestInstallRDMA]()

func (GuestInstallRDMA) Kind() Kind { return KindGuestInstallRDMA }
func (GuestInstallRDMA) About() string {
	return "install rdma-core's verbs provider (`value`: `apt`, `yum` (RHEL/CentOS 7), `dnf` (8 and later) or `apt-source` (Ubuntu before 18.04: no package, an upgrade or a source build))"
}

func (GuestInstallRDMA) Rank() int { return 1 }

func (a GuestInstallRDMA) Words(host string) Words {
	w := Words{On: "guest", Text: "Install rdma-core's verbs provider, as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do.", Sets: sets("verbs libraries in "+host, "rdma-core"),
		Command: "sudo apt-get install -y rdma-core ibverbs-providers ibverbs-utils infiniband-diags perftest"}
	switch a.Value {
	case "yum":
		w.Command = "sudo yum install -y rdma-core libibverbs libibverbs-utils infiniband-diags"
	case "dnf":
		w.Command = "sudo dnf install -y rdma-core libibverbs libibverbs-utils infiniband-diags"
	case "apt-source":
		// Ubuntu packaged rdma-core (with the vmw_pvrdma provider) from
		// 18.04 on: no package of this release carries the provider.
		w.Text = "This Ubuntu release packages no rdma-core and no vmw_pvrdma verbs provider (Ubuntu packages them from 18.04 on): " +
			"upgrade the guest to Ubuntu 18.04 or later and install rdma-core there (`sudo apt-get install -y rdma-core ibverbs-providers " +
			"ibverbs-utils`), or build rdma-core from its source release (github.com/linux-rdma/rdma-core, whose providers include vmw_pvrdma); " +
			"then scan the guest again."
		w.Command = ""
		w.Pause = true
	}
	return w
}

func (a GuestInstallRDMA) Reads(string) Reads {
	c := guestRead("dpkg-query -W", "ibverbs-providers installed", Match{Line: `^ibverbs-providers\S*\s`})
	if a.Value == "yum" {
		c = guestRead("rpm -qa", "libibverbs installed", Match{Line: `^libibverbs-[0-9]`})
	}
	return Reads{Check: c, Verify: reads(c, guestRead("ibv_devices", "vmw_pvrdma0 listed", Match{Line: `^\s+vmw_pvrdma[0-9]+\s`}))}
}

// GuestReplaceMOFED replaces MLNX_OFED's libraries by rdma-core (Value:
// the distribution's codename).
type GuestReplaceMOFED struct {
	Value string `json:"value,omitempty"`
}

const KindGuestReplaceMOFED Kind = "guest_replace_mofed"

var _ = register[GuestReplaceMOFED]()

func (GuestReplaceMOFED) Kind() Kind { return KindGuestReplaceMOFED }
func (GuestReplaceMOFED) About() string {
	return "replace MLNX_OFED's libraries by rdma-core"
}

func (GuestReplaceMOFED) Rank() int { return 1 }

func (a GuestReplaceMOFED) Words(host string) Words {
	return Words{On: "guest", Text: "Replace MLNX_OFED's verbs libraries by the distribution's rdma-core, as VMware's “PVRDMA and vSphere Bitfusion” blog does (in an NGC container: in its image).",
		Command: fmt.Sprintf("sudo apt-get purge %s && sudo apt-get update && "+
			"sudo apt-get install -y --reinstall -t %s rdma-core libibverbs1 ibverbs-providers infiniband-diags ibverbs-utils perftest", strings.Join(MOFEDPurge, " "), ShellArg(a.Value, "CODENAME")),
		Warnings: []string{"The purge asks before it removes anything: read its list first, since packages that depend on the verbs libraries " +
			"(MPI, UCX, perftest builds) are removed with them and must be reinstalled after rdma-core",
			"RHEL: remove MLNX_OFED with `sudo /usr/sbin/ofed_uninstall.sh`, then `sudo yum install -y rdma-core libibverbs libibverbs-utils`"},
		Sets: sets("verbs libraries in "+host, "rdma-core")}
}

// MOFEDPurge are the verbs packages MLNX_OFED replaced, which the purge
// removes (with every package that depends on them).
var MOFEDPurge = []string{"ibverbs-providers", "ibverbs-utils", "libibverbs-dev", "libibverbs1"}

// RunbookLines show, before the purge asks, what it would remove: the
// packages and every package that depends on them (a dry run).
func (GuestReplaceMOFED) RunbookLines() (before, after []string) {
	return []string{"echo '   what the purge removes (a dry run, nothing is removed yet):'",
		"apt-get -s purge " + strings.Join(MOFEDPurge, " ") + " | grep -E '^(Purg|Remv) ' || echo '   (none of them is installed)'"}, nil
}

func (GuestReplaceMOFED) Reads(string) Reads {
	c := guestRead("ibv_devices", "vmw_pvrdma0 listed", Match{Line: `^\s+vmw_pvrdma[0-9]+\s`})
	return Reads{Check: c, Verify: reads(c)}
}

// GuestInstallModule installs the kernel's RDMA modules (Version: the
// kernel release).
type GuestInstallModule struct {
	Version string `json:"version,omitempty"`
}

const KindGuestInstallModule Kind = "guest_install_modules"

var _ = register[GuestInstallModule]()

func (GuestInstallModule) Kind() Kind { return KindGuestInstallModule }
func (GuestInstallModule) About() string {
	return "the kernel's RDMA modules for kernel `version`"
}

func (GuestInstallModule) Rank() int { return 1 }

func (a GuestInstallModule) Words(host string) Words {
	return Words{On: "guest", Text: "Install the kernel's RDMA modules (on RHEL the kernel-modules package of the running kernel) and load vmw_pvrdma.",
		Command: fmt.Sprintf("sudo apt-get install -y linux-modules-extra-%s && sudo modprobe vmw_pvrdma", ShellArg(a.Version, "$(uname -r)")),
		Sets:    sets("vmw_pvrdma in "+host, "loaded")}
}

func (GuestInstallModule) Reads(string) Reads {
	c := vmwPVRDMALoaded()
	return Reads{Check: c, Verify: reads(c, devicesListed("vmw_pvrdma0"))}
}

// GuestUpgradeKernel upgrades the guest to a kernel with vmw_pvrdma
// (Version: the minimum).
type GuestUpgradeKernel struct {
	Version string `json:"version,omitempty"`
}

const KindGuestUpgradeKernel Kind = "guest_upgrade_kernel"

var _ = register[GuestUpgradeKernel]()

func (GuestUpgradeKernel) Kind() Kind { return KindGuestUpgradeKernel }
func (GuestUpgradeKernel) About() string {
	return "a kernel with `vmw_pvrdma` (at least `version`)"
}

func (GuestUpgradeKernel) Rank() int { return 1 }

// MergeKey: one upgrade per guest, to the highest minimum asked.
func (GuestUpgradeKernel) MergeKey() string { return "" }

func (a GuestUpgradeKernel) Merge(o Value) Value {
	a.Version = higher(a.Version, o.(GuestUpgradeKernel).Version)
	return a
}

func (a GuestUpgradeKernel) Words(host string) Words {
	return Words{On: "guest", Pause: true, Text: fmt.Sprintf("Upgrade %s to a release whose kernel has vmw_pvrdma (%s or later; VMware's “PVRDMA Setup and Performance Study” lists the supported ones), then reboot it.",
		host, a.Version), Sets: sets("kernel of "+host, "with vmw_pvrdma")}
}

func (GuestUpgradeKernel) Reads(string) Reads {
	return Reads{Verify: reads(guestRead("modinfo vmw_pvrdma", "the module exists", Match{Line: `^name:\s+vmw_pvrdma$`}), devicesListed("vmw_pvrdma0"))}
}

// GuestSetIPv4 puts an address on the PVRDMA interface Netdev.
type GuestSetIPv4 struct {
	Netdev string `json:"netdev,omitempty"`
}

const KindGuestSetIPv4 Kind = "guest_set_ipv4"

var _ = register[GuestSetIPv4]()

func (GuestSetIPv4) Kind() Kind { return KindGuestSetIPv4 }
func (GuestSetIPv4) About() string {
	return "an address on the PVRDMA interface"
}

func (a GuestSetIPv4) Words(host string) Words {
	return Words{On: "guest", Pause: true, Text: fmt.Sprintf("Give %s an IPv4 address (fill in ADDRESS/PREFIX) and persist it; the driver then adds its RoCE v2 GID.", a.Netdev),
		Command: fmt.Sprintf("sudo ip addr add ADDRESS/PREFIX dev %s", ShellArg(a.Netdev, "IFACE")), Sets: sets("IPv4 of "+a.Netdev+" in "+host, "set")}
}

func (a GuestSetIPv4) Reads(string) Reads {
	c := guestRead("ip -o addr", a.Netdev+" has an IPv4 address", Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(a.Netdev) + `\s+inet [0-9]`})
	return Reads{Check: c, Verify: reads(c, guestRead("ibv_devinfo -v", "an IPv4-mapped RoCE v2 GID", Match{Line: `GID\[ *[0-9]+\]:\s+::ffff:[0-9.]+, RoCE v2`}))}
}

// GuestLinkUp brings the PVRDMA interface Netdev up.
type GuestLinkUp struct {
	Netdev string `json:"netdev,omitempty"`
}

const KindGuestLinkUp Kind = "guest_link_up"

var _ = register[GuestLinkUp]()

func (GuestLinkUp) Kind() Kind { return KindGuestLinkUp }
func (GuestLinkUp) About() string {
	return "the PVRDMA interface up"
}

func (a GuestLinkUp) Words(host string) Words {
	return Words{On: "guest", Text: fmt.Sprintf("Bring %s up (the port is down while its interface is).", a.Netdev),
		Command: fmt.Sprintf("sudo ip link set dev %s up", ShellArg(a.Netdev, "IFACE")), Sets: sets("link of "+a.Netdev+" in "+host, "up")}
}

func (a GuestLinkUp) Reads(string) Reads {
	c := guestRead("ip -o link", a.Netdev+" UP", Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(a.Netdev) + `: <([^>]*,)?UP[,>]`})
	return Reads{Check: c, Verify: reads(c)}
}

// Inside is the MTU change in the guest's own plan.
func (a GuestSetMTU) Inside() Value { a.VM = ""; return a }

// Inside is the reload in the guest's own plan.
func (a GuestReloadDriver) Inside() Value { a.VM = ""; return a }
