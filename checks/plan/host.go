package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// The actions on the host's hardware, drivers and network.

// PVRDMAPortLo, PVRDMAPortHi are the TCP ports of the pvrdma firewall
// ruleset.
const PVRDMAPortLo, PVRDMAPortHi = 28250, 28761

// InstallNIC installs an RoCE NIC (the host powers off); Switch is the
// vDS it will serve.
type InstallNIC struct {
	Switch string `json:"switch,omitempty"`
}

const KindInstallNIC Kind = "install_nic"

var _ = register[InstallNIC]()

func (InstallNIC) Kind() Kind { return KindInstallNIC }
func (InstallNIC) About() string {
	return "install an RoCE NIC (the host powers off); `switch`: the vDS it will serve"
}

func (InstallNIC) Words(host string) Words {
	return Words{On: "hardware", Pause: true, Text: fmt.Sprintf("None of %s's NICs can carry RoCE: power it off and install an RoCE NIC listed for this ESXi release in the "+
		"VMware Compatibility Guide (a ConnectX-4 or later runs ESXi's inbox nmlx5_rdma driver; an E810 needs Intel's irdman and "+
		"the icen RDMA parameter), cable it like the other hosts' RDMA ports, and power the host on.", host),
		Sets: sets(host+" RoCE NIC", "installed")}
}

func (InstallNIC) Reads(string) Reads {
	c := esxiRead("esxcli rdma device list", "an Active RDMA device", Match{Line: `\sActive\s`})
	return Reads{Check: c, Verify: reads(c)}
}

// UpgradeESXi upgrades ESXi to at least Version.
type UpgradeESXi struct {
	Version string `json:"version,omitempty"`
}

const KindUpgradeESXi Kind = "upgrade_esxi"

var _ = register[UpgradeESXi]()

func (UpgradeESXi) Kind() Kind { return KindUpgradeESXi }
func (UpgradeESXi) About() string {
	return "upgrade ESXi to at least `version`"
}

func (a UpgradeESXi) Words(host string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Upgrade %s to ESXi %s or later (8.0 recommended) with vSphere Lifecycle Manager: the other steps need a "+
		"release with PVRDMA.", host, a.Version), Sets: sets(host+" ESXi release", ">= "+a.Version)}
}

func (a UpgradeESXi) Reads(string) Reads {
	c := esxiRead("esxcli system version get", "Version "+a.Version+" or later", Match{Line: `^\s*Version: ` + versionAtLeast(a.Version)})
	return Reads{Check: c, Verify: reads(c)}
}

// versionAtLeast is a pattern for `esxcli system version get`'s Version
// (X.Y.U: major, minor, update) at or above a release ("6.5", "7.0 Update
// 1"): the update is the third number (7.0 Update 1 is 7.0.1).
func versionAtLeast(v string) string {
	base, upd, _ := strings.Cut(v, " Update ")
	maj, minor, _ := strings.Cut(base, ".")
	M, err1 := strconv.Atoi(strings.TrimSpace(maj))
	m, err2 := strconv.Atoi(strings.TrimSpace(minor))
	u, err3 := strconv.Atoi(strings.TrimSpace(upd))
	if upd == "" {
		u, err3 = 0, nil
	}
	if err1 != nil || err2 != nil || err3 != nil || M > 9 || m > 9 || u > 9 {
		return `(6\.[5-9]|[7-9]\.|[1-9][0-9]\.)`
	}
	alts := []string{fmt.Sprintf(`%d\.%d\.[%d-9]`, M, m, u)}
	if m < 9 {
		alts = append(alts, fmt.Sprintf(`%d\.[%d-9]\.`, M, m+1))
	}
	if M < 9 {
		alts = append(alts, fmt.Sprintf(`[%d-9]\.`, M+1))
	}
	alts = append(alts, `[1-9][0-9]\.`)
	return "(" + strings.Join(alts, "|") + ")"
}

// MergeKey: one upgrade per host, to the highest minimum asked.
func (UpgradeESXi) MergeKey() string { return "" }

func (a UpgradeESXi) Merge(o Value) Value {
	a.Version = higher(a.Version, o.(UpgradeESXi).Version)
	return a
}

// EnableModule enables a VMkernel module (the RDMA driver of NICs, of a
// Family, shipped in Package).
type EnableModule struct {
	Module  string   `json:"module,omitempty"`
	Family  string   `json:"family,omitempty"`
	Package string   `json:"package,omitempty"`
	NICs    []string `json:"nics,omitempty"`
}

const KindEnableModule Kind = "enable_module"

var _ = register[EnableModule]()

func (EnableModule) Kind() Kind { return KindEnableModule }
func (EnableModule) About() string {
	return "enable the NIC family's RDMA module (`esxcli system module set -e true -m MODULE`); `require` reads that its VIB (`package`) is installed"
}

func (a EnableModule) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Enable %s, the RDMA driver of %s (%s); it loads at the reboot below.", a.Module, nicsText(a.NICs), a.Family),
		Command: "esxcli system module set -m " + ShellArg(a.Module, "MODULE") + " -e true", Sets: sets(a.Module+" on "+host, "enabled")}
}

func (a EnableModule) Reads(string) Reads {
	return Reads{Require: packageRead(a.Package),
		Check: esxiRead("esxcli system module list", a.Module+" enabled", Match{Row: a.Module, Field: "Is Enabled", Value: "true"}),
		Verify: reads(esxiRead("esxcli system module list", a.Module+" loaded and enabled",
			Match{Row: a.Module, Field: "Is Loaded", Value: "true"}, Match{Row: a.Module, Field: "Is Enabled", Value: "true"}))}
}

// packageRead requires a driver bundle installed.
func packageRead(pkg string) *Read {
	return esxiRead("esxcli software vib list", pkg+" installed (if not: install the vendor's driver component for this "+
		"ESXi release first, esxcli software component apply -d BUNDLE.zip)", Match{Line: `^` + regexp.QuoteMeta(pkg) + `\s`})
}

// SetModuleParams sets module parameters, merged into the module's
// option string (Current when it was read; absent, the command reads it
// and merges). NICs are the ports it drives, NIC the one whose PFC a
// verify read shows.
type SetModuleParams struct {
	Module string    `json:"module,omitempty"`
	Set    []Setting `json:"set,omitempty"`
	// Current is the module's option string as read; absent when it was
	// not read (the command then reads it and merges).
	Current *string  `json:"current,omitempty"`
	Family  string   `json:"family,omitempty"`
	Package string   `json:"package,omitempty"`
	NIC     string   `json:"nic,omitempty"`
	NICs    []string `json:"nics,omitempty"`
	// RoCE is the NIC whose RoCE the settings turn back on (a LAN
	// driver's RoCE switch): verified by its RDMA device after the reboot.
	RoCE string `json:"roce,omitempty"`
}

const KindSetModuleParams Kind = "set_module_params"

var _ = register[SetModuleParams]()

func (SetModuleParams) Kind() Kind { return KindSetModuleParams }
func (SetModuleParams) About() string {
	return "set module parameters, read-merge-write: the command keeps the module's other options (`-p` replaces the whole string) and the new ones load at the reboot, on every port the module drives; `current` is the option string as read (absent: the command reads it with `esxcfg-module -g`)"
}

func (a SetModuleParams) Words(host string) Words {
	what := SettingsText(a.Set)
	w := Words{On: "esxi", Command: MergeCommand(a.Module, a.Current, a.Set),
		Warnings: []string{"-p replaces the module's whole option string: the command keeps the current options and merges the new ones in",
			fmt.Sprintf("takes effect at the next reboot, on every port %s drives (%s)", a.Module, nicsText(a.NICs))}}
	if a.Current != nil {
		w.Text = fmt.Sprintf("Set %s's %s%s: its options become %q (the current %q, merged); they load at the reboot below.",
			a.Module, what, a.effect(), MergedOptions(*a.Current, a.Set), *a.Current)
	} else {
		w.Text = fmt.Sprintf("Set %s's %s%s, keeping its other options (`esxcfg-module -g %s` shows them); they load at the reboot below.",
			a.Module, what, a.effect(), a.Module)
	}
	for _, x := range a.Set {
		w.Sets = append(w.Sets, Effect{a.Module + " option " + x.Name + " on " + host, x.Value})
	}
	return w
}

func (a SetModuleParams) Reads(string) Reads {
	var r Reads
	if a.Package != "" {
		r.Require = packageRead(a.Package)
	}
	var m []Match
	for _, x := range a.Set {
		m = append(m, Match{Row: x.Name, Field: "Value", Value: x.Value})
	}
	r.Check = esxiRead("esxcli system module parameters list -m "+ShellArg(a.Module, "MODULE"), SettingsText(a.Set), m...)
	r.Verify = reads(r.Check)
	if a.RoCE != "" {
		r.Verify = append(r.Verify, *esxiRead("esxcli rdma device list", a.RoCE+" has an RDMA device (vmrdmaN paired with it)",
			Match{Line: `^vmrdma[0-9]+\s.*\s` + regexp.QuoteMeta(a.RoCE) + `(\s|$)`}))
	}
	if pfc := pfcPriority(a.Set); pfc >= 0 && a.NIC != "" {
		r.Verify = append(r.Verify, *esxiRead("esxcli network nic dcb status get -n "+ShellArg(a.NIC, "vmnicN"),
			fmt.Sprintf("%s: PFC Enabled: true, on priority %d", a.NIC, pfc), Match{Field: "PFC Enabled", Value: "true"},
			Match{Field: "PFC Configuration", Value: pfcBits(pfc)}))
	}
	return r
}

// RunbookLines show the module's configured options before and after.
func (a SetModuleParams) RunbookLines() (before, after []string) {
	show := func(when string) []string {
		return []string{"echo '   options " + when + ":'; esxcfg-module -g " + textsafe.ShellQuote(a.Module)}
	}
	return show("now"), show("after")
}

// effect says what a module parameter step turns on, and where.
func (a SetModuleParams) effect() string {
	if prio := pfcPriority(a.Set); prio >= 0 {
		return fmt.Sprintf(" (PFC on priority %d, on every port of %s: %s)", prio, a.Module, nicsText(a.NICs))
	}
	for _, x := range a.Set {
		if x.Name == "RDMA" {
			return fmt.Sprintf(" (RDMA on for %s)", nicsText(a.NICs))
		}
	}
	if a.RoCE != "" {
		return fmt.Sprintf(" (RoCE back on for %s)", a.RoCE)
	}
	return ""
}

// MergedOptions is a module's option string with set merged in: every
// other option kept, in order, the set ones replaced or added at the end.
func MergedOptions(current string, set []Setting) string {
	names := map[string]bool{}
	for _, s := range set {
		names[s.Name] = true
	}
	var out []string
	for _, f := range strings.Fields(current) {
		name, _, _ := strings.Cut(f, "=")
		if !names[name] {
			out = append(out, f)
		}
	}
	return strings.TrimSpace(strings.Join(out, " ") + " " + SettingsText(set))
}

// MergeCommand sets a module's whole option string to its current one
// with set merged in, reading the current one on the host (esxcfg-module
// -g prints the configured option string) when it was not read.
func MergeCommand(module string, current *string, set []Setting) string {
	m := ShellArg(module, "MODULE")
	if current != nil {
		return fmt.Sprintf("esxcli system module parameters set -m %s -p %s", m, ShellArg(MergedOptions(*current, set), "''"))
	}
	var drop []string
	for _, s := range set {
		drop = append(drop, "-e '^"+s.Name+"='")
	}
	return fmt.Sprintf(`esxcli system module parameters set -m %s -p "$(esxcfg-module -g %s | sed -n "s/.*options = '\(.*\)'/\1/p" | tr ' ' '\n' | grep -v %s -e '^$' | tr '\n' ' ')%s"`,
		m, m, strings.Join(drop, " "), SettingsText(set))
}

// nicsText lists the ports a driver step affects.
func nicsText(nics []string) string {
	if len(nics) == 0 {
		return "its ports"
	}
	return strings.Join(nics, ", ")
}

// pfcPriority is the priority a pfctx setting enables (-1 when none).
func pfcPriority(set []Setting) int {
	for _, s := range set {
		if s.Name != "pfctx" {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimPrefix(s.Value, "0x"), 16, 32)
		if err != nil || v == 0 {
			return -1
		}
		for p := 0; p < 8; p++ {
			if v&(1<<p) != 0 {
				return p
			}
		}
	}
	return -1
}

// pfcBits is dcb status's "PFC Configuration" with one priority on.
func pfcBits(prio int) string {
	bits := make([]string, 8)
	for i := range bits {
		bits[i] = "0"
	}
	if prio >= 0 && prio < 8 {
		bits[prio] = "1"
	}
	return strings.Join(bits, " ")
}

// SetUplinks makes Uplinks (or, NewNIC, the port of the NIC install_nic
// adds) the only uplinks of the vDS Switch.
type SetUplinks struct {
	Switch  string   `json:"switch,omitempty"`
	Uplinks []string `json:"uplinks,omitempty"`
	NewNIC  bool     `json:"new_nic,omitempty"`
}

const KindSetUplinks Kind = "set_uplinks"

var _ = register[SetUplinks]()

func (SetUplinks) Kind() Kind { return KindSetUplinks }
func (SetUplinks) About() string {
	return "make `uplinks` the vDS's only active uplinks; `new_nic`: the port of the NIC `install_nic` adds"
}

func (a SetUplinks) target() string {
	if a.NewNIC {
		return "the new NIC's cabled port (`esxcli network nic list`)"
	}
	return strings.Join(a.Uplinks, ", ")
}

func (a SetUplinks) Words(host string) Words {
	w := Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Make %s the only uplink of %s on %s (no LAG, no teaming): vSphere Client > Networking > %s > Add and Manage "+
		"Hosts > Manage physical adapters; PVRDMA's uplink changes only with its VMs off.", a.target(), a.Switch, host, a.Switch)}
	if a.NewNIC {
		w.Sets = sets("uplinks of "+a.Switch+" on "+host, "the new NIC's port")
	} else {
		w.Sets = sets("uplinks of "+a.Switch+" on "+host, a.target())
	}
	return w
}

func (a SetUplinks) Reads(string) Reads {
	if a.NewNIC {
		return Reads{Verify: reads(esxiRead("esxcli network vswitch dvs vmware list", a.Switch+": one uplink",
			Match{Record: a.Switch}, Match{Line: `^\s*Uplinks: vmnic[0-9]+\s*$`}))}
	}
	c := esxiRead("esxcli network vswitch dvs vmware list", a.Switch+": Uplinks: "+a.target(), Match{Record: a.Switch, Field: "Uplinks", Value: a.target()})
	return Reads{Check: c, Verify: reads(c)}
}

// NICUp brings an administratively down uplink (of the RDMA device
// Device) up.
type NICUp struct {
	NIC    string `json:"nic,omitempty"`
	Device string `json:"device,omitempty"`
}

const KindNICUp Kind = "nic_up"

var _ = register[NICUp]()

func (NICUp) Kind() Kind { return KindNICUp }
func (NICUp) About() string {
	return "bring an administratively down uplink up"
}

func (a NICUp) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("%s is administratively down: bring it up.", a.NIC),
		Command: "esxcli network nic up -n " + ShellArg(a.NIC, "vmnicN"), Sets: sets("admin state of "+a.NIC+" on "+host, "up")}
}

func (a NICUp) Reads(string) Reads {
	return Reads{Check: esxiRead("esxcli network nic list", a.NIC+" Admin Status Up", Match{Row: a.NIC, Field: "Admin Status", Value: "Up"}),
		Verify: reads(esxiRead("esxcli rdma device list", a.Device+" Active", Match{Row: a.Device, Field: "State", Value: "Active"}))}
}

// RepairLink repairs the physical link of an uplink (of the RDMA device
// Device).
type RepairLink struct {
	NIC    string `json:"nic,omitempty"`
	Device string `json:"device,omitempty"`
}

const KindRepairLink Kind = "repair_link"

var _ = register[RepairLink]()

func (RepairLink) Kind() Kind { return KindRepairLink }
func (RepairLink) About() string {
	return "repair a physical link (cable, optic, switch port)"
}

func (a RepairLink) Words(host string) Words {
	return Words{On: "hardware", Pause: true, Text: fmt.Sprintf("Repair the link of %s (%s is down): the cable or optic, and the switch port (up, same speed).", a.NIC, a.Device),
		Sets: sets("link of "+a.NIC+" on "+host, "up")}
}

func (a RepairLink) Reads(string) Reads {
	return Reads{Check: esxiRead("esxcli network nic list", a.NIC+" Link Status Up", Match{Row: a.NIC, Field: "Link Status", Value: "Up"}),
		Verify: reads(esxiRead("esxcli rdma device list", a.Device+" Active", Match{Row: a.Device, Field: "State", Value: "Active"}))}
}

// TagVmknic sets /Net/PVRDMAVmknic.
type TagVmknic struct {
	Vmknic string `json:"vmknic,omitempty"`
}

const KindTagVmknic Kind = "tag_vmknic"

var _ = register[TagVmknic]()

func (TagVmknic) Kind() Kind { return KindTagVmknic }
func (TagVmknic) About() string {
	return "set `/Net/PVRDMAVmknic` to the vmknic"
}

func (a TagVmknic) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Tag %s for PVRDMA.", a.Vmknic),
		Command: "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s " + ShellArg(a.Vmknic, "vmkN"),
		Sets:    sets("/Net/PVRDMAVmknic on "+host, a.Vmknic)}
}

func (a TagVmknic) Reads(string) Reads {
	c := esxiRead("esxcli system settings advanced list -o /Net/PVRDMAVmknic", "String Value: "+a.Vmknic, Match{Field: "String Value", Value: a.Vmknic})
	return Reads{Check: c, Verify: reads(c)}
}

// SetVmknicIPv4 gives a vmknic a static IPv4 address.
type SetVmknicIPv4 struct {
	Vmknic string `json:"vmknic,omitempty"`
}

const KindSetVmknicIPv4 Kind = "set_vmknic_ipv4"

var _ = register[SetVmknicIPv4]()

func (SetVmknicIPv4) Kind() Kind { return KindSetVmknicIPv4 }
func (SetVmknicIPv4) About() string {
	return "give the vmknic a static IPv4 address"
}

func (a SetVmknicIPv4) Words(host string) Words {
	return Words{On: "esxi", Pause: true, Text: fmt.Sprintf("Give %s an address in the peers' PVRDMA subnet (fill in ADDRESS and NETMASK).", a.Vmknic),
		Command: fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK", ShellArg(a.Vmknic, "vmkN")),
		Sets:    sets("IPv4 of "+a.Vmknic+" on "+host, "static")}
}

func (a SetVmknicIPv4) Reads(string) Reads {
	c := esxiRead("esxcli network ip interface ipv4 get", a.Vmknic+" has an address", Match{Line: `^` + regexp.QuoteMeta(a.Vmknic) + `\s+[1-9][0-9]*\.`})
	return Reads{Check: c, Verify: reads(c)}
}

// EnableRuleset enables a firewall ruleset.
type EnableRuleset struct {
	Ruleset string `json:"ruleset,omitempty"`
}

const KindEnableRuleset Kind = "enable_ruleset"

var _ = register[EnableRuleset]()

func (EnableRuleset) Kind() Kind { return KindEnableRuleset }
func (EnableRuleset) About() string {
	return "enable the `pvrdma` firewall ruleset"
}

func (a EnableRuleset) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Enable the %s firewall ruleset (TCP 28250-28761 in and out).", a.Ruleset),
		Command: "esxcli network firewall ruleset set -e true -r " + ShellArg(a.Ruleset, "RULESET"), Sets: sets(a.Ruleset+" ruleset on "+host, "enabled")}
}

func (a EnableRuleset) Reads(string) Reads {
	c := esxiRead("esxcli network firewall ruleset list", a.Ruleset+" true", Match{Row: a.Ruleset, Field: "Enabled", Value: "true"})
	return Reads{Check: c, Verify: reads(c)}
}

// RestoreRules restores a ruleset's port rules.
type RestoreRules struct {
	Ruleset string `json:"ruleset,omitempty"`
}

const KindRestoreRules Kind = "restore_ruleset_rules"

var _ = register[RestoreRules]()

func (RestoreRules) Kind() Kind { return KindRestoreRules }
func (RestoreRules) About() string {
	return "restore the ruleset's port rules (enabled, but its rules were removed)"
}

func (a RestoreRules) Words(host string) Words {
	return Words{On: "esxi", Pause: true, Text: fmt.Sprintf("The %s ruleset is enabled but its rules lack a direction: find the file that overrides VMware's definition "+
		"(`grep -l %s /etc/vmware/firewall/*.xml`), restore TCP %d-%d inbound and outbound, then reload the rules.",
		a.Ruleset, a.Ruleset, PVRDMAPortLo, PVRDMAPortHi),
		Command: "esxcli network firewall refresh", Sets: sets(a.Ruleset+" rules on "+host, fmt.Sprintf("TCP %d-%d in and out", PVRDMAPortLo, PVRDMAPortHi))}
}

func (a RestoreRules) Reads(string) Reads {
	m := []Match{{Line: fmt.Sprintf(`^%s\s+Inbound\s+TCP\s+Dst\s+%d\s+%d\s*$`, regexp.QuoteMeta(a.Ruleset), PVRDMAPortLo, PVRDMAPortHi)},
		{Line: fmt.Sprintf(`^%s\s+Outbound\s+TCP\s+Dst\s+%d\s+%d\s*$`, regexp.QuoteMeta(a.Ruleset), PVRDMAPortLo, PVRDMAPortHi)}}
	c := esxiRead(catalog.Describe(catalog.KindFirewallRules), fmt.Sprintf("%s Inbound and Outbound TCP %d-%d", a.Ruleset, PVRDMAPortLo, PVRDMAPortHi), m...)
	return Reads{Check: c, Verify: reads(c)}
}

// AllowIP allows addresses through a ruleset.
type AllowIP struct {
	Ruleset string   `json:"ruleset,omitempty"`
	IPs     []string `json:"ips,omitempty"`
}

const KindAllowIP Kind = "allow_ip"

var _ = register[AllowIP]()

func (AllowIP) Kind() Kind { return KindAllowIP }
func (AllowIP) About() string {
	return "allow the peers' addresses through the ruleset"
}

func (a AllowIP) Words(host string) Words {
	var cmds []string
	for _, ip := range a.IPs {
		cmds = append(cmds, fmt.Sprintf("esxcli network firewall ruleset allowedip add -r %s -i %s", ShellArg(a.Ruleset, "RULESET"), ShellArg(ip, "IP")))
	}
	return Words{On: "esxi", Text: fmt.Sprintf("Allow %s through the %s ruleset.", strings.Join(a.IPs, ", "), a.Ruleset),
		Command: strings.Join(cmds, " && "), Sets: sets("allowed IPs of "+a.Ruleset+" on "+host, strings.Join(a.IPs, ", "))}
}

func (a AllowIP) Reads(string) Reads {
	var m []Match
	for _, ip := range a.IPs {
		m = append(m, Match{Line: regexp.QuoteMeta(ip)})
	}
	c := esxiRead("esxcli network firewall ruleset allowedip list -r "+ShellArg(a.Ruleset, "RULESET"), strings.Join(a.IPs, ", ")+" listed", m...)
	return Reads{Check: c, Verify: reads(c)}
}

// SetVmknicMTU sets a vmknic's MTU.
type SetVmknicMTU struct {
	Vmknic string `json:"vmknic,omitempty"`
	MTU    int    `json:"mtu,omitempty"`
}

const KindSetVmknicMTU Kind = "set_vmknic_mtu"

var _ = register[SetVmknicMTU]()

func (SetVmknicMTU) Kind() Kind { return KindSetVmknicMTU }
func (SetVmknicMTU) About() string {
	return "the vmknic's MTU"
}

func (a SetVmknicMTU) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Raise %s to MTU %d.", a.Vmknic, a.MTU),
		Command: fmt.Sprintf("esxcli network ip interface set -i %s -m %d", ShellArg(a.Vmknic, "vmkN"), a.MTU),
		Sets:    sets("MTU of "+a.Vmknic+" on "+host, strconv.Itoa(a.MTU))}
}

func (a SetVmknicMTU) Reads(string) Reads {
	c := esxiRead("esxcli network ip interface list", fmt.Sprintf("%s MTU: %d", a.Vmknic, a.MTU), Match{Record: a.Vmknic, Field: "MTU", Value: strconv.Itoa(a.MTU)})
	return Reads{Check: c, Verify: reads(c)}
}

// SetVDSMTU sets a vDS's MTU.
type SetVDSMTU struct {
	Switch string `json:"switch,omitempty"`
	MTU    int    `json:"mtu,omitempty"`
}

const KindSetVDSMTU Kind = "set_vds_mtu"

var _ = register[SetVDSMTU]()

func (SetVDSMTU) Kind() Kind { return KindSetVDSMTU }
func (SetVDSMTU) About() string {
	return "the vDS's MTU (vCenter)"
}

func (a SetVDSMTU) Words(string) Words {
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Raise %s to MTU %d (vSphere Client: %s > Settings > Edit > Advanced > MTU).", a.Switch, a.MTU, a.Switch),
		Command: fmt.Sprintf("govc dvs.change -mtu %d %s", a.MTU, ShellArg(a.Switch, "DVS")), Sets: sets("MTU of "+a.Switch, strconv.Itoa(a.MTU))}
}

func (a SetVDSMTU) Reads(string) Reads {
	c := esxiRead("esxcli network vswitch dvs vmware list", fmt.Sprintf("%s MTU: %d", a.Switch, a.MTU), Match{Record: a.Switch, Field: "MTU", Value: strconv.Itoa(a.MTU)})
	return Reads{Check: c, Verify: reads(c)}
}

// SetSwitchMTU sets the MTU of the physical switch ports of Hosts, before
// any step raises a host's MTU (PhaseSwitch comes before PhaseHost). Probe
// is the vmkping that proves it; Unmeasured: no probe measured the
// switch ports yet (they are set unless the switch shows them at the MTU
// already; the probe tells once the host sends jumbo frames).
type SetSwitchMTU struct {
	MTU        int      `json:"mtu,omitempty"`
	Hosts      []string `json:"hosts,omitempty"`
	Probe      string   `json:"probe,omitempty"`
	Unmeasured bool     `json:"unmeasured,omitempty"`
}

const KindSetSwitchMTU Kind = "set_switch_mtu"

var _ = register[SetSwitchMTU]()

func (SetSwitchMTU) Kind() Kind { return KindSetSwitchMTU }
func (SetSwitchMTU) About() string {
	return "the physical switch ports' MTU, set before any host's MTU is raised; `probe` is the vmkping that proves it; `unmeasured`: no probe measured the ports yet (set unless the switch shows them at the MTU already; the probe tells once the host sends jumbo frames)"
}

func (a SetSwitchMTU) Words(host string) Words {
	w := Words{On: "switch", Pause: true, Text: fmt.Sprintf("Set MTU %d on the physical switch ports (and inter-switch links) of the PVRDMA path of %s.", a.MTU, strings.Join(a.Hosts, ", "))}
	if a.Unmeasured && a.Probe != "" {
		f := strings.Fields(a.Probe)
		w.Text = fmt.Sprintf("Before %s sends jumbo frames: on the switch, check the ports between %s and its peers (and inter-switch links) "+
			"and set MTU %d where they are below it (no probe measured them yet; the jumbo probe to %s shows it once the host's path carries jumbo frames).",
			host, host, a.MTU, f[len(f)-1])
	}
	for _, h := range a.Hosts {
		w.Sets = append(w.Sets, Effect{"MTU of the switch ports of " + h, strconv.Itoa(a.MTU)})
	}
	return w
}

func (a SetSwitchMTU) Reads(string) Reads {
	if a.Probe == "" {
		return Reads{}
	}
	// The jumbo probe passing shows the ports carry jumbo frames already:
	// nothing to change (a runbook skips it).
	c := esxiRead(a.Probe, "3 packets transmitted, 3 packets received", Match{Line: `3 packets transmitted, 3 packets received`})
	return Reads{Check: c, Verify: reads(c)}
}

// SetPause turns global pause on on an uplink.
type SetPause struct {
	NIC string `json:"nic,omitempty"`
}

const KindSetPause Kind = "set_pause"

var _ = register[SetPause]()

func (SetPause) Kind() Kind { return KindSetPause }
func (SetPause) About() string {
	return "global pause (RX and TX) on the uplink"
}

func (a SetPause) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Turn on global pause on %s (its driver has no PFC parameter).", a.NIC),
		Command: fmt.Sprintf("esxcli network nic pauseParams set -n %s -r true -t true", ShellArg(a.NIC, "vmnicN")),
		Sets:    sets("global pause of "+a.NIC+" on "+host, "on")}
}

func (a SetPause) Reads(string) Reads {
	c := esxiRead("esxcli network nic get -n "+ShellArg(a.NIC, "vmnicN"), "Pause RX: true, Pause TX: true",
		Match{Field: "Pause RX", Value: "true"}, Match{Field: "Pause TX", Value: "true"})
	return Reads{Check: c, Verify: reads(c)}
}

// SetSwitchFlow sets PFC (Mode pfc, on Priority) or global pause (Mode
// pause) on the switch port of an uplink.
type SetSwitchFlow struct {
	NIC      string `json:"nic,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Priority int    `json:"priority,omitempty"`
	// DCBX: the host's NIC takes PFC from the switch port (willing mode),
	// so the switch is the one place it is set.
	DCBX bool `json:"dcbx,omitempty"`
}

const KindSetSwitchFlow Kind = "set_switch_flow"

var _ = register[SetSwitchFlow]()

func (SetSwitchFlow) Kind() Kind { return KindSetSwitchFlow }
func (SetSwitchFlow) About() string {
	return "PFC (`mode` `pfc` on `priority`) or pause on the uplink's switch port"
}

func (a SetSwitchFlow) Words(string) Words {
	w := Words{On: "switch", Pause: true, Sets: sets("flow control of the switch port of "+a.NIC, a.Mode)}
	switch {
	case a.Mode == "pfc" && a.DCBX:
		w.Text = fmt.Sprintf("Switch port of %s: PFC on priority %d, advertised by DCBX (the NIC takes it in willing mode; "+
			"`esxcli network nic dcb status get -n %s` then shows it). Only where the switch cannot run PFC: global pause "+
			"on the switch port and `esxcli network nic pauseParams set -n %s -r true -t true`, never beside PFC.",
			a.NIC, a.Priority, ShellArg(a.NIC, "vmnicN"), ShellArg(a.NIC, "vmnicN"))
	case a.Mode == "pfc":
		w.Text = fmt.Sprintf("Switch port of %s: PFC on priority %d, as on the host (DCBX).", a.NIC, a.Priority)
	default:
		w.Text = fmt.Sprintf("Switch port of %s: flow control (global pause) on in both directions, as “Setting up a 100GbE PVRDMA Network on vCenter 7”'s switch has it.", a.NIC)
	}
	return w
}

func (SetSwitchFlow) Reads(string) Reads { return Reads{} }

func (SetSwitchFlow) Unverified() string { return "the host reads no switch port's configuration" }

// higher is the higher of two "at least" versions.
func higher(a, b string) string {
	if VersionLess(a, b) {
		return b
	}
	return a
}

// VersionLess compares the numbers of two versions ("6.5" < "7.0 Update
// 1" < "7.0.3"; "13" < "18").
func VersionLess(a, b string) bool {
	nums := func(v string) []int {
		var out []int
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
		return out
	}
	return slices.Compare(nums(a), nums(b)) < 0
}
