package checks

import (
	"fmt"

	"regexp"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// The one place a plan's actions become words and commands: for each
// kind, the prose, the exact command (host values through shellArg), where
// it is carried out, what to know first, the read that shows it is already
// done (Check), what must hold first (Require), the reads that show it took
// effect (Verify) and the objects it leaves in a state (Sets).

// vsishProps is the vsish path of a VM's first PVRDMA adapter.
const vsishProps = "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/<worldID>_0/properties"

func esxiRead(cmd, expect string, m ...Match) *Read {
	return &Read{Command: cmd, On: "esxi", Expect: expect, Match: m}
}

func guestRead(cmd, expect string, m ...Match) *Read {
	return &Read{Command: cmd, On: "guest", Expect: expect, Match: m}
}

func reads(rs ...*Read) []Read {
	var out []Read
	for _, r := range rs {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// quoteAll shell-quotes names for a command (placeholder for unshowable).
func quoteAll(names []string, placeholder string) string {
	var out []string
	for _, n := range names {
		out = append(out, shellArg(n, placeholder))
	}
	return strings.Join(out, " ")
}

// unshowable reports whether a name cannot be put into a command as
// itself (the command then has a placeholder a person must fill).
func unshowable(names ...string) bool {
	for _, n := range names {
		if n == "" || !showable(n) {
			return true
		}
	}
	return false
}

// settingsText is "a=1 b=2".
func settingsText(set []Setting) string {
	var out []string
	for _, s := range set {
		out = append(out, s.Name+"="+s.Value)
	}
	return strings.Join(out, " ")
}

// mergedOptions is a module's option string with set merged in: every
// other option kept, in order, the set ones replaced or added at the end.
func mergedOptions(current string, set []Setting) string {
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
	return strings.TrimSpace(strings.Join(out, " ") + " " + settingsText(set))
}

// mergeCommand sets a module's whole option string to its current one
// with set merged in, reading the current one on the host (esxcfg-module
// -g prints the configured option string) when it was not read.
func mergeCommand(module string, current *string, set []Setting) string {
	m := shellArg(module, "MODULE")
	if current != nil {
		return fmt.Sprintf("esxcli system module parameters set -m %s -p %s", m, shellArg(mergedOptions(*current, set), "''"))
	}
	var drop []string
	for _, s := range set {
		drop = append(drop, "-e '^"+s.Name+"='")
	}
	return fmt.Sprintf(`esxcli system module parameters set -m %s -p "$(esxcfg-module -g %s | sed -n "s/.*options = '\(.*\)'/\1/p" | tr ' ' '\n' | grep -v %s -e '^$' | tr '\n' ' ')%s"`,
		m, m, strings.Join(drop, " "), settingsText(set))
}

// vmxLine matches a .vmx line key = "value" (value a regular expression).
func vmxLine(key, valueRE string) Match {
	return Match{Line: `^` + regexp.QuoteMeta(key) + ` = "` + valueRE + `"$`}
}

// atLeastRE is a regular expression for the decimal numbers >= n
// (n < 100).
func atLeastRE(n int) string {
	if n < 10 {
		return fmt.Sprintf("([%d-9]|[1-9][0-9]+)", n)
	}
	tens, ones := n/10, n%10
	alt := fmt.Sprintf("%d[%d-9]", tens, ones)
	if tens < 9 {
		alt += fmt.Sprintf("|[%d-9][0-9]", tens+1)
	}
	return "(" + alt + "|[1-9][0-9][0-9]+)"
}

// adapterDevice is govc's device name of a VM adapter label
// ("ethernet1" -> "ethernet-1").
func adapterDevice(label string) string {
	if n, ok := strings.CutPrefix(label, "ethernet"); ok && n != "" {
		if _, err := strconv.Atoi(n); err == nil {
			return "ethernet-" + n
		}
	}
	return "ethernet-N"
}

// render turns a placed action into its step.
// StepOf renders one action as a plan's step carries it (text, command,
// warnings, reads), outside any plan: unnumbered, resolving nothing.
func StepOf(a Action) PlanStep { return step{action: a}.render() }

func (s step) render() PlanStep {
	a, p := s.action, s.action.Params
	st := PlanStep{Phase: s.phase, Action: a.Kind, Params: p, Optional: s.optional}
	for _, f := range s.resolves {
		st.Resolves = append(st.Resolves, causeOf(f))
	}
	host := a.Host
	vms := joinNames(p.VMs)
	vm := p.VM
	set := func(object, state string) { st.Sets = append(st.Sets, Effect{object, state}) }
	switch a.Kind {
	case ActPowerOffVMs:
		st.On, st.Pause = "vcenter", true
		their := "their"
		if len(p.VMs) == 1 {
			their = "its"
		}
		st.Text = fmt.Sprintf("Shut down %s on %s (%s RDMA jobs stop).", vms, host, their)
		st.Command = "govc vm.power -s " + quoteAll(p.VMs, "VM_NAME")
		var m []Match
		for _, v := range p.VMs {
			m = append(m, Match{Record: v, Absent: true})
		}
		st.Check = esxiRead("esxcli vm process list", "none of them listed", m...)
	case ActMigrateVMs:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Migrate %s off %s (vMotion; with DRS fully automated, entering maintenance mode does it).", vms, host)
		var m []Match
		for _, v := range p.VMs {
			m = append(m, Match{Record: v, Absent: true})
		}
		st.Check = esxiRead("esxcli vm process list", "none of them listed", m...)
	case ActEnterMaintenance:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Put %s in maintenance mode.", host)
		st.Command = "esxcli system maintenanceMode set -e true"
		st.Check = esxiRead("esxcli system maintenanceMode get", "Enabled", lineOf("Enabled"))
	case ActReboot:
		st.On, st.Pause = "esxi", true
		st.Text = fmt.Sprintf("Reboot %s: the driver changes above take effect at boot.", host)
		st.Command = "esxcli system shutdown reboot -r 'pvrdma-doctor plan: RDMA driver changes'"
	case ActExitMaintenance:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Take %s out of maintenance mode.", host)
		st.Command = "esxcli system maintenanceMode set -e false"
		st.Check = esxiRead("esxcli system maintenanceMode get", "Disabled", lineOf("Disabled"))
		st.Verify = reads(st.Check)
	case ActPowerOnVMs:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Power on %s.", vms)
		if len(p.BindHCA) > 0 {
			st.Text = fmt.Sprintf("Power on %s: a PVRDMA adapter binds to the HCA at power-on.", vms)
		}
		st.Command = "govc vm.power -on " + quoteAll(p.VMs, "VM_NAME")
		var m []Match
		for _, v := range p.VMs {
			m = append(m, Match{Record: v})
		}
		st.Check = esxiRead("esxcli vm process list", "each of them listed", m...)
		st.Verify = reads(st.Check)
		for _, v := range p.BindHCA {
			st.Verify = append(st.Verify, Read{Command: vsishProps, VM: v, On: "esxi", Expect: "Physical HCA available:1 for " + v,
				Match: []Match{lineOf("Physical HCA available:1")}})
		}
	case ActInstallNIC:
		st.On, st.Pause = "hardware", true
		st.Text = fmt.Sprintf("None of %s's NICs can carry RoCE: power it off and install an RoCE NIC listed for this ESXi release in the "+
			"VMware Compatibility Guide (a ConnectX-4 or later runs ESXi's inbox nmlx5_rdma driver; an E810 needs Intel's irdman and "+
			"the icen RDMA parameter), cable it like the other hosts' RDMA ports, and power the host on.", host)
		st.Check = esxiRead("esxcli rdma device list", "an Active RDMA device", Match{Line: `\sActive\s`})
		st.Verify = reads(st.Check)
		set(host+" RoCE NIC", "installed")
	case ActUpgradeESXi:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Upgrade %s to ESXi %s or later (8.0 recommended) with vSphere Lifecycle Manager: the other steps need a "+
			"release with PVRDMA.", host, p.Version)
		st.Check = esxiRead("esxcli system version get", "Version "+p.Version+" or later", Match{Line: `^\s*Version: (6\.[5-9]|[7-9]\.|[1-9][0-9]\.)`})
		st.Verify = reads(st.Check)
		set(host+" ESXi release", ">= "+p.Version)
	case ActEnableModule:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Enable %s, the RDMA driver of %s (%s); it loads at the reboot below.", p.Module, nicsText(p.NICs), p.Family)
		st.Command = "esxcli system module set -m " + shellArg(p.Module, "MODULE") + " -e true"
		st.Require = esxiRead("esxcli software vib list", p.Package+" installed (if not: install the vendor's driver component for this "+
			"ESXi release first, esxcli software component apply -d BUNDLE.zip)", Match{Line: `^` + regexp.QuoteMeta(p.Package) + `\s`})
		st.Check = esxiRead("esxcli system module list", p.Module+" enabled", Match{Row: p.Module, Field: "Is Enabled", Value: "true"})
		st.Verify = reads(esxiRead("esxcli system module list", p.Module+" loaded and enabled",
			Match{Row: p.Module, Field: "Is Loaded", Value: "true"}, Match{Row: p.Module, Field: "Is Enabled", Value: "true"}))
		set(p.Module+" on "+host, "enabled")
	case ActSetModuleParams:
		st.On = "esxi"
		what := settingsText(p.Set)
		if p.Current != nil {
			st.Text = fmt.Sprintf("Set %s's %s%s: its options become %q (the current %q, merged); they load at the reboot below.",
				p.Module, what, effectOf(p), mergedOptions(*p.Current, p.Set), *p.Current)
		} else {
			st.Text = fmt.Sprintf("Set %s's %s%s, keeping its other options (`esxcfg-module -g %s` shows them); they load at the reboot below.",
				p.Module, what, effectOf(p), p.Module)
		}
		st.Command = mergeCommand(p.Module, p.Current, p.Set)
		if p.Package != "" {
			st.Require = esxiRead("esxcli software vib list", p.Package+" installed (if not: install the vendor's driver component for this "+
				"ESXi release first, esxcli software component apply -d BUNDLE.zip)", Match{Line: `^` + regexp.QuoteMeta(p.Package) + `\s`})
		}
		st.Warnings = append(st.Warnings, "-p replaces the module's whole option string: the command keeps the current options and merges the new ones in",
			fmt.Sprintf("takes effect at the next reboot, on every port %s drives (%s)", p.Module, nicsText(p.NICs)))
		var m []Match
		for _, x := range p.Set {
			m = append(m, Match{Row: x.Name, Field: "Value", Value: x.Value})
		}
		st.Check = esxiRead("esxcli system module parameters list -m "+shellArg(p.Module, "MODULE"), what, m...)
		st.Verify = reads(st.Check)
		if pfc := pfcPriority(p.Set); pfc >= 0 && p.NIC != "" {
			st.Verify = append(st.Verify, *esxiRead("esxcli network nic dcb status get -n "+shellArg(p.NIC, "vmnicN"),
				fmt.Sprintf("%s: PFC Enabled: true, on priority %d", p.NIC, pfc), Match{Field: "PFC Enabled", Value: "true"},
				Match{Field: "PFC Configuration", Value: pfcBits(pfc)}))
		}
		for _, x := range p.Set {
			set(p.Module+" option "+x.Name+" on "+host, x.Value)
		}
	case ActSetUplinks:
		st.On, st.Pause = "vcenter", true
		target := strings.Join(p.Uplinks, ", ")
		if p.NewNIC {
			target = "the new NIC's cabled port (`esxcli network nic list`)"
		}
		st.Text = fmt.Sprintf("Make %s the only uplink of %s on %s (no LAG, no teaming): vSphere Client > Networking > %s > Add and Manage "+
			"Hosts > Manage physical adapters; PVRDMA's uplink changes only with its VMs off.", target, p.Switch, host, p.Switch)
		if p.NewNIC {
			st.Verify = reads(esxiRead("esxcli network vswitch dvs vmware list", p.Switch+": one uplink",
				Match{Record: p.Switch}, Match{Line: `^\s*Uplinks: vmnic[0-9]+\s*$`}))
			set("uplinks of "+p.Switch+" on "+host, "the new NIC's port")
		} else {
			st.Check = esxiRead("esxcli network vswitch dvs vmware list", p.Switch+": Uplinks: "+target,
				Match{Record: p.Switch, Field: "Uplinks", Value: target})
			st.Verify = reads(st.Check)
			set("uplinks of "+p.Switch+" on "+host, target)
		}
	case ActNICUp:
		st.On = "esxi"
		st.Text = fmt.Sprintf("%s is administratively down: bring it up.", p.NIC)
		st.Command = "esxcli network nic up -n " + shellArg(p.NIC, "vmnicN")
		st.Check = esxiRead("esxcli network nic list", p.NIC+" Admin Status Up", Match{Row: p.NIC, Field: "Admin Status", Value: "Up"})
		st.Verify = reads(esxiRead("esxcli rdma device list", p.Device+" Active", Match{Row: p.Device, Field: "State", Value: "Active"}))
		set("admin state of "+p.NIC+" on "+host, "up")
	case ActRepairLink:
		st.On, st.Pause = "hardware", true
		st.Text = fmt.Sprintf("Repair the link of %s (%s is down): the cable or optic, and the switch port (up, same speed).", p.NIC, p.Device)
		st.Check = esxiRead("esxcli network nic list", p.NIC+" Link Status Up", Match{Row: p.NIC, Field: "Link Status", Value: "Up"})
		st.Verify = reads(esxiRead("esxcli rdma device list", p.Device+" Active", Match{Row: p.Device, Field: "State", Value: "Active"}))
		set("link of "+p.NIC+" on "+host, "up")
	case ActTagVmknic:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Tag %s for PVRDMA.", p.Vmknic)
		st.Command = "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s " + shellArg(p.Vmknic, "vmkN")
		st.Check = esxiRead("esxcli system settings advanced list -o /Net/PVRDMAVmknic", "String Value: "+p.Vmknic,
			Match{Field: "String Value", Value: p.Vmknic})
		st.Verify = reads(st.Check)
		set("/Net/PVRDMAVmknic on "+host, p.Vmknic)
	case ActSetVmknicIPv4:
		st.On, st.Pause = "esxi", true
		st.Text = fmt.Sprintf("Give %s an address in the peers' PVRDMA subnet (fill in ADDRESS and NETMASK).", p.Vmknic)
		st.Command = fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK", shellArg(p.Vmknic, "vmkN"))
		st.Check = esxiRead("esxcli network ip interface ipv4 get", p.Vmknic+" has an address",
			Match{Line: `^` + regexp.QuoteMeta(p.Vmknic) + `\s+[1-9][0-9]*\.`})
		st.Verify = reads(st.Check)
		set("IPv4 of "+p.Vmknic+" on "+host, "static")
	case ActEnableRuleset:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Enable the %s firewall ruleset (TCP 28250-28761 in and out).", p.Ruleset)
		st.Command = "esxcli network firewall ruleset set -e true -r " + shellArg(p.Ruleset, "RULESET")
		st.Check = esxiRead("esxcli network firewall ruleset list", p.Ruleset+" true", Match{Row: p.Ruleset, Field: "Enabled", Value: "true"})
		st.Verify = reads(st.Check)
		set(p.Ruleset+" ruleset on "+host, "enabled")
	case ActRestoreRules:
		st.On, st.Pause = "esxi", true
		st.Text = fmt.Sprintf("The %s ruleset is enabled but its rules lack a direction: find the file that overrides VMware's definition "+
			"(`grep -l %s /etc/vmware/firewall/*.xml`), restore TCP %d-%d inbound and outbound, then reload the rules.",
			p.Ruleset, p.Ruleset, pvrdmaPortLo, pvrdmaPortHi)
		st.Command = "esxcli network firewall refresh"
		m := []Match{{Line: fmt.Sprintf(`^%s\s+Inbound\s+TCP\s+Dst\s+%d\s+%d\s*$`, regexp.QuoteMeta(p.Ruleset), pvrdmaPortLo, pvrdmaPortHi)},
			{Line: fmt.Sprintf(`^%s\s+Outbound\s+TCP\s+Dst\s+%d\s+%d\s*$`, regexp.QuoteMeta(p.Ruleset), pvrdmaPortLo, pvrdmaPortHi)}}
		st.Check = esxiRead(catalog.Describe(catalog.KindFirewallRules), fmt.Sprintf("%s Inbound and Outbound TCP %d-%d", p.Ruleset, pvrdmaPortLo, pvrdmaPortHi), m...)
		st.Verify = reads(st.Check)
		set(p.Ruleset+" rules on "+host, fmt.Sprintf("TCP %d-%d in and out", pvrdmaPortLo, pvrdmaPortHi))
	case ActAllowIP:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Allow %s through the %s ruleset.", strings.Join(p.IPs, ", "), p.Ruleset)
		var cmds []string
		var m []Match
		for _, ip := range p.IPs {
			cmds = append(cmds, fmt.Sprintf("esxcli network firewall ruleset allowedip add -r %s -i %s", shellArg(p.Ruleset, "RULESET"), shellArg(ip, "IP")))
			m = append(m, Match{Line: regexp.QuoteMeta(ip)})
		}
		st.Command = strings.Join(cmds, " && ")
		st.Check = esxiRead("esxcli network firewall ruleset allowedip list -r "+shellArg(p.Ruleset, "RULESET"), strings.Join(p.IPs, ", ")+" listed", m...)
		st.Verify = reads(st.Check)
		set("allowed IPs of "+p.Ruleset+" on "+host, strings.Join(p.IPs, ", "))
	case ActSetVmknicMTU:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Raise %s to MTU %d.", p.Vmknic, p.MTU)
		st.Command = fmt.Sprintf("esxcli network ip interface set -i %s -m %d", shellArg(p.Vmknic, "vmkN"), p.MTU)
		st.Check = esxiRead("esxcli network ip interface list", fmt.Sprintf("%s MTU: %d", p.Vmknic, p.MTU),
			Match{Record: p.Vmknic, Field: "MTU", Value: strconv.Itoa(p.MTU)})
		st.Verify = reads(st.Check)
		set("MTU of "+p.Vmknic+" on "+host, strconv.Itoa(p.MTU))
	case ActSetVDSMTU:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Raise %s to MTU %d (vSphere Client: %s > Settings > Edit > Advanced > MTU).", p.Switch, p.MTU, p.Switch)
		st.Command = fmt.Sprintf("govc dvs.change -mtu %d %s", p.MTU, shellArg(p.Switch, "DVS"))
		st.Check = esxiRead("esxcli network vswitch dvs vmware list", fmt.Sprintf("%s MTU: %d", p.Switch, p.MTU),
			Match{Record: p.Switch, Field: "MTU", Value: strconv.Itoa(p.MTU)})
		st.Verify = reads(st.Check)
		set("MTU of "+p.Switch, strconv.Itoa(p.MTU))
	case ActSetSwitchMTU:
		st.On, st.Pause = "switch", true
		st.Text = fmt.Sprintf("Set MTU %d on the physical switch ports (and inter-switch links) of the PVRDMA path of %s.", p.MTU, strings.Join(p.Hosts, ", "))
		if p.Unmeasured && p.Probe != "" {
			f := strings.Fields(p.Probe)
			st.Text = fmt.Sprintf("If the jumbo probe to %s now fails (no probe measured these switch ports yet): "+
				"set MTU %d on the switch ports between %s and its peers.", f[len(f)-1], p.MTU, host)
		}
		if p.Probe != "" {
			// The jumbo probe passing shows the ports carry jumbo frames
			// already: nothing to change (a runbook skips it).
			st.Check = esxiRead(p.Probe, "3 packets transmitted, 3 packets received", Match{Line: `3 packets transmitted, 3 packets received`})
			st.Verify = reads(st.Check)
		}
		for _, h := range p.Hosts {
			set("MTU of the switch ports of "+h, strconv.Itoa(p.MTU))
		}
	case ActSetPause:
		st.On = "esxi"
		st.Text = fmt.Sprintf("Turn on global pause on %s (its driver has no PFC parameter).", p.NIC)
		st.Command = fmt.Sprintf("esxcli network nic pauseParams set -n %s -r true -t true", shellArg(p.NIC, "vmnicN"))
		st.Check = esxiRead("esxcli network nic get -n "+shellArg(p.NIC, "vmnicN"), "Pause RX: true, Pause TX: true",
			Match{Field: "Pause RX", Value: "true"}, Match{Field: "Pause TX", Value: "true"})
		st.Verify = reads(st.Check)
		set("global pause of "+p.NIC+" on "+host, "on")
	case ActSetSwitchFlow:
		st.On, st.Pause = "switch", true
		if p.Mode == "pfc" {
			st.Text = fmt.Sprintf("Switch port of %s: PFC on priority %d, as on the host (DCBX).", p.NIC, p.Priority)
		} else {
			st.Text = fmt.Sprintf("Switch port of %s: flow control (global pause) on in both directions, as “Setting up a 100GbE PVRDMA Network on vCenter 7”'s switch has it.", p.NIC)
		}
		set("flow control of the switch port of "+p.NIC, p.Mode)
	case ActVMMemoryPin:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > Memory > Reservation: \"Reserve all guest memory (All locked)\".", vm)
		st.Command = "govc vm.change -vm " + govcVM(vm) + " -memory-pin=true"
		st.Verify = vmxVerify(p, vm, "all guest memory reserved", vmxLine("sched.mem.pin", "TRUE"))
		set(vm+" on "+host+": memory reservation", "all guest memory, locked")
	case ActVMUpgradeHardware:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Upgrade %s's compatibility to hardware version %s or later (take a snapshot first).", vm, p.Version)
		st.Command = "govc vm.upgrade -vm " + govcVM(vm)
		n, _ := strconv.Atoi(p.Version)
		st.Verify = vmxVerify(p, vm, "hardware version "+p.Version+" or later", vmxLine("virtualHW.version", atLeastRE(n)))
		set(vm+" on "+host+": virtual hardware version", ">= "+p.Version)
	case ActVMSetGuestOS:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("Set %s's guest OS type to its 64-bit Linux distribution (Edit Settings > VM Options > Guest OS).", vm)
		st.Command = "govc vm.change -vm " + govcVM(vm) + " -g " + shellArg(p.Value, "GUEST_ID")
		st.Verify = vmxVerify(p, vm, "a 64-bit Linux guest OS type", Match{Line: `^guestOS = "[a-z]*(linux|rhel|centos|ubuntu|debian|sles|oracle|rocky|alma|photon|amazon|asianux)[a-z0-9_]*-64"$`})
		set(vm+" on "+host+": guest OS type", "64-bit Linux")
	case ActVMReplaceAdapter:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("PVRDMA has no driver for %s's guest: replace its PVRDMA adapter %s by a VMXNET3 adapter on the same port "+
			"group (Edit Settings), or run the RDMA workload in a 64-bit Linux VM instead.", vm, p.Adapter)
		st.Command = fmt.Sprintf("govc device.remove -vm %s %s && govc vm.network.add -vm %s -net PORTGROUP -net.adapter vmxnet3",
			govcVM(vm), adapterDevice(p.Adapter), govcVM(vm))
		st.Verify = vmxVerify(p, vm, p.Adapter+" is VMXNET3", vmxLine(p.Adapter+".virtualDev", "vmxnet3"))
		set(vm+" on "+host+": "+p.Adapter, "vmxnet3")
	case ActVMSetNetwork:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter) > Browse: a distributed port group of %s.", vm, p.Adapter, p.Switch)
		st.Command = fmt.Sprintf("govc vm.network.change -vm %s -net PORTGROUP %s", govcVM(vm), adapterDevice(p.Adapter))
		st.Verify = vmxVerify(p, vm, p.Adapter+" on a distributed port", Match{Line: `^` + regexp.QuoteMeta(p.Adapter) + `\.dvs\.switchId = "`})
		set(vm+" ("+p.Adapter+") on "+host+": backing", p.Switch)
	case ActVMConnectAdapter:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter): check Connected and Connect At Power On.", vm, p.Adapter)
		st.Command = fmt.Sprintf("govc device.connect -vm %s %s", govcVM(vm), adapterDevice(p.Adapter))
		st.Verify = vmxVerify(p, vm, p.Adapter+" connects at power-on", vmxLine(p.Adapter+".startConnected", "TRUE"))
		set(vm+" ("+p.Adapter+") on "+host+": connected at power on", "yes")
	case ActVMSetProtocol:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > %s (the PVRDMA adapter) > Device protocol: RoCE v%s.", vm, orPlaceholder(p.Adapter, "the PVRDMA adapter"), p.Value)
		st.Verify = []Read{{Command: vsishProps, VM: vm, On: "esxi", Expect: "RoCE version:" + p.Value, Match: []Match{lineOf("RoCE version:" + p.Value)}}}
		set("device protocol of "+vm+" on "+host, "RoCE v"+p.Value)
	case ActVMSetFirmware:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > VM Options > Boot Options > Firmware: EFI.", vm)
		st.Warnings = append(st.Warnings, "a guest installed under BIOS does not boot after the switch: convert its boot disk to GPT/EFI first, or reinstall with EFI")
		st.Verify = vmxVerify(p, vm, "firmware efi", vmxLine("firmware", "efi"))
		set(vm+" on "+host+": firmware", "EFI")
	case ActVMSetExtraConfig:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings > VM Options > Advanced > Edit Configuration: %s.", vm, settingsText(p.Set))
		var es []string
		var m []Match
		for _, x := range p.Set {
			es = append(es, "-e "+shellArg(x.Name+"="+x.Value, "KEY=VALUE"))
			if strings.EqualFold(x.Value, "FALSE") {
				m = append(m, Match{Line: vmxLine(x.Name, "[Tt][Rr][Uu][Ee]").Line, Absent: true}) // off: not TRUE
			} else {
				m = append(m, vmxLine(x.Name, regexp.QuoteMeta(x.Value)))
			}
			set(vm+" on "+host+": "+x.Name, x.Value)
		}
		st.Command = "govc vm.change -vm " + govcVM(vm) + " " + strings.Join(es, " ")
		st.Verify = vmxVerify(p, vm, settingsText(p.Set), m...)
	case ActVMRemoveDevice:
		st.On, st.Pause = "vcenter", true
		st.Text = fmt.Sprintf("On %s: Edit Settings: remove its extra entry of PCI device %s, or replace it by a free passthrough device "+
			"(`esxcli hardware pci list`: Configured Owner VM Passthru, in no other VM).", vm, p.Device)
		set("passthrough device "+p.Device+" on "+host, "used once, by one VM")
	case ActGuestSetMTU:
		st.On = "guest"
		iface := p.Netdev
		if iface == "" {
			iface = "its PVRDMA interface (IFACE: the one with MAC " + orPlaceholder(p.MAC, "of the adapter") + " in `ip -o link`)"
		}
		st.Text = fmt.Sprintf("Set %s to MTU %d and persist it (netplan `mtu: %d`, or ifcfg `MTU=%d`).", iface, p.MTU, p.MTU, p.MTU)
		st.Command = fmt.Sprintf("sudo ip link set dev %s mtu %d", shellArg(p.Netdev, "IFACE"), p.MTU)
		st.Check = guestRead("ip -o link", fmt.Sprintf("%s mtu %d", p.Netdev, p.MTU), Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(p.Netdev) + `: .* mtu ` + strconv.Itoa(p.MTU) + ` `})
		st.Verify = reads(st.Check)
		set("MTU of "+p.Netdev+" in "+host, strconv.Itoa(p.MTU))
	case ActGuestReloadDriver:
		st.On = "guest"
		st.Text = "Reload vmw_pvrdma after the InfiniBand modules it needs (ib_umad, rdma_cm, rdma_ucm; not the guides' mlx4_ib, a ConnectX-3 driver)."
		st.Command = guestModuleReload
		st.Warnings = append(st.Warnings, guestReloadWarning)
		dev := orPlaceholder(p.Device, "vmw_pvrdma0")
		var m []Match
		var exp []string
		if p.Port {
			m = append(m, Match{Line: `^\s*state:\s+PORT_ACTIVE`})
			exp = append(exp, "PORT_ACTIVE")
		}
		if p.MTU > 0 {
			m = append(m, Match{Line: `^\s*active_mtu:\s+` + strconv.Itoa(p.MTU) + `(\s|$)`})
			exp = append(exp, "active_mtu "+strconv.Itoa(p.MTU))
		}
		if len(m) > 0 {
			st.Verify = reads(guestRead("ibv_devinfo -v", dev+": "+strings.Join(exp, ", "), m...))
			st.Check = &st.Verify[0] // already so: nothing to reload for
		}
		set("vmw_pvrdma in "+host, "loaded")
		set("load order of vmw_pvrdma in "+host, "after the InfiniBand modules")
	case ActGuestLoadDriver:
		st.On = "guest"
		st.Text = "Load vmw_pvrdma after the InfiniBand modules it needs (ib_umad, rdma_cm, rdma_ucm)."
		st.Command = guestModuleLoad
		st.Check = guestRead("lsmod", "vmw_pvrdma listed", Match{Line: `^vmw_pvrdma\s`})
		st.Verify = reads(st.Check, guestRead("ls /sys/class/infiniband", orPlaceholder(p.Device, "vmw_pvrdma0")+" listed", lineOf(orPlaceholder(p.Device, "vmw_pvrdma0"))))
		set("vmw_pvrdma in "+host, "loaded")
	case ActGuestPersistOrder:
		st.On, st.Pause = "guest", true
		st.Text = guestModulePersist
		set("module order at boot in "+host, "vmw_pvrdma last")
	case ActGuestInstallRDMA:
		st.On = "guest"
		st.Text = "Install rdma-core's verbs provider, as “Setting up a 100GbE PVRDMA Network on vCenter 7” and VMware's “PVRDMA and vSphere Bitfusion” blog do."
		if p.Value == "yum" {
			st.Command = "sudo yum install -y rdma-core libibverbs libibverbs-utils infiniband-diags"
			st.Check = guestRead("rpm -qa", "libibverbs installed", Match{Line: `^libibverbs-[0-9]`})
		} else {
			st.Command = "sudo apt-get install -y rdma-core ibverbs-providers ibverbs-utils infiniband-diags perftest"
			st.Check = guestRead("dpkg-query -W", "ibverbs-providers installed", Match{Line: `^ibverbs-providers\S*\s`})
		}
		st.Verify = reads(st.Check, guestRead("ibv_devices", "vmw_pvrdma0 listed", Match{Line: `^\s+vmw_pvrdma[0-9]+\s`}))
		set("verbs libraries in "+host, "rdma-core")
	case ActGuestReplaceMOFED:
		st.On = "guest"
		st.Text = "Replace MLNX_OFED's verbs libraries by the distribution's rdma-core, as VMware's “PVRDMA and vSphere Bitfusion” blog does (in an NGC container: in its image)."
		st.Command = fmt.Sprintf("sudo apt-get purge -y ibverbs-providers ibverbs-utils libibverbs-dev libibverbs1 && sudo apt-get update && "+
			"sudo apt-get install -y --reinstall -t %s rdma-core libibverbs1 ibverbs-providers infiniband-diags ibverbs-utils perftest", shellArg(p.Value, "CODENAME"))
		st.Warnings = append(st.Warnings, "RHEL: remove MLNX_OFED with `sudo /usr/sbin/ofed_uninstall.sh`, then `sudo yum install -y rdma-core libibverbs libibverbs-utils`")
		st.Check = guestRead("ibv_devices", "vmw_pvrdma0 listed", Match{Line: `^\s+vmw_pvrdma[0-9]+\s`})
		st.Verify = reads(st.Check)
		set("verbs libraries in "+host, "rdma-core")
	case ActGuestInstallModule:
		st.On = "guest"
		st.Text = "Install the kernel's RDMA modules (on RHEL the kernel-modules package of the running kernel) and load vmw_pvrdma."
		st.Command = fmt.Sprintf("sudo apt-get install -y linux-modules-extra-%s && sudo modprobe vmw_pvrdma", shellArg(p.Version, "$(uname -r)"))
		st.Check = guestRead("lsmod", "vmw_pvrdma listed", Match{Line: `^vmw_pvrdma\s`})
		st.Verify = reads(st.Check, guestRead("ls /sys/class/infiniband", "vmw_pvrdma0 listed", lineOf("vmw_pvrdma0")))
		set("vmw_pvrdma in "+host, "loaded")
	case ActGuestUpgradeKernel:
		st.On, st.Pause = "guest", true
		st.Text = fmt.Sprintf("Upgrade %s to a release whose kernel has vmw_pvrdma (%s or later; VMware's “PVRDMA Setup and Performance Study” lists the supported ones), then reboot it.",
			host, p.Version)
		st.Verify = reads(guestRead("modinfo vmw_pvrdma", "the module exists", Match{Line: `^name:\s+vmw_pvrdma$`}),
			guestRead("ls /sys/class/infiniband", "vmw_pvrdma0 listed", lineOf("vmw_pvrdma0")))
		set("kernel of "+host, "with vmw_pvrdma")
	case ActGuestSetIPv4:
		st.On, st.Pause = "guest", true
		st.Text = fmt.Sprintf("Give %s an IPv4 address (fill in ADDRESS/PREFIX) and persist it; the driver then adds its RoCE v2 GID.", p.Netdev)
		st.Command = fmt.Sprintf("sudo ip addr add ADDRESS/PREFIX dev %s", shellArg(p.Netdev, "IFACE"))
		st.Check = guestRead("ip -o addr", p.Netdev+" has an IPv4 address", Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(p.Netdev) + `\s+inet [0-9]`})
		st.Verify = reads(st.Check, guestRead("ibv_devinfo -v", "an IPv4-mapped RoCE v2 GID", Match{Line: `GID\[ *[0-9]+\]:\s+::ffff:[0-9.]+, RoCE v2`}))
		set("IPv4 of "+p.Netdev+" in "+host, "set")
	case ActGuestLinkUp:
		st.On = "guest"
		st.Text = fmt.Sprintf("Bring %s up (the port is down while its interface is).", p.Netdev)
		st.Command = fmt.Sprintf("sudo ip link set dev %s up", shellArg(p.Netdev, "IFACE"))
		st.Check = guestRead("ip -o link", p.Netdev+" UP", Match{Line: `^[0-9]+: ` + regexp.QuoteMeta(p.Netdev) + `: <([^>]*,)?UP[,>]`})
		st.Verify = reads(st.Check)
		set("link of "+p.Netdev+" in "+host, "up")
	case ActInvestigate, ActFollowFix:
		st.On, st.Pause = "esxi", true
		st.Text = p.Note
	default:
		st.Text = string(a.Kind)
	}
	if st.On == "guest" && vm != "" {
		// In a host's plan: the guest of one of its VMs, maybe not
		// scanned: the host side shows what changed.
		st.Text = "In " + vm + ": " + strings.ToLower(st.Text[:1]) + st.Text[1:]
		st.Check = nil
		if a.Kind == ActGuestReloadDriver && p.MTU > 0 {
			st.Verify = []Read{{Command: vsishProps, VM: vm, On: "esxi", Expect: fmt.Sprintf("Active MTU:%d for %s", p.MTU, vm),
				Match: []Match{lineOf(fmt.Sprintf("Active MTU:%d", p.MTU))}}}
		} else {
			st.Verify = nil
		}
	}
	if strings.Contains(st.Command, "IFACE") || strings.Contains(st.Command, "ADDRESS") {
		st.Pause = true // a person fills in the placeholder
	}
	if st.Command != "" && st.On != "guest" && st.On != "esxi" && st.On != "vcenter" {
		st.Pause = true
	}
	if unshowable(append(append([]string{}, p.VMs...), vmOrNone(vm)...)...) {
		st.Pause = true // a placeholder stands for a name the command cannot show
	}
	return st
}

func vmOrNone(vm string) []string {
	if vm == "" {
		return nil
	}
	return []string{vm}
}

// vmxVerify reads a VM's .vmx for a VM setting (none when the plan does
// not know the command that reads it).
func vmxVerify(p Params, vm, expect string, m ...Match) []Read {
	if p.Config == "" {
		return nil
	}
	return []Read{{Command: p.Config, On: "esxi", Expect: vm + ": " + expect, Match: m}}
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

// effectOf says what a module parameter step turns on, and where.
func effectOf(p Params) string {
	if prio := pfcPriority(p.Set); prio >= 0 {
		return fmt.Sprintf(" (PFC on priority %d, on every port of %s: %s)", prio, p.Module, nicsText(p.NICs))
	}
	for _, x := range p.Set {
		if x.Name == "RDMA" {
			return fmt.Sprintf(" (RDMA on for %s)", nicsText(p.NICs))
		}
	}
	return ""
}
