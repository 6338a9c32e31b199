package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesVM are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesVM = []*Rule{
	{ID: "VM_MEMORY_NOT_RESERVED", Plan: planVMMemory, Severity: Critical, Check: checkVMMemoryNotReserved,
		ListedBy: listedVMs},
	{ID: "VM_HW_VERSION_TOO_OLD", Plan: planVMHardware, Severity: Critical, Check: checkVMHWVersionTooOld,
		ListedBy: listedVMs},
	{ID: "VM_GUEST_NOT_LINUX64", Plan: planVMGuestOS, Severity: Critical, Check: checkVMGuestNotLinux64,
		ListedBy: listedVMs},
	{ID: "VM_PVRDMA_NOT_ON_DVS", Plan: planVMNetwork, Severity: Critical, Check: checkVMPVRDMANotOnDVS,
		ListedBy: listedVMs},
	{ID: "VM_PEERS_ON_DIFFERENT_DVS", Plan: planVMPeersDVS, Severity: Warning, Scope: FleetScope, Check: checkVMPeersOnDifferentDVS,
		ListedBy: listedVMs},
	{ID: "VM_ADAPTER_DISCONNECTED", Plan: planVMConnect, Severity: Critical, Check: checkVMAdapterDisconnected,
		ListedBy: listedVMs},
	{ID: "VM_DEVICE_PROTOCOL_MISMATCH", Plan: planVMProtocol, Severity: Critical, Check: checkVMDeviceProtocolMismatch,
		ListedBy: listedAdapters,
		Needs:    []hostio.Kind{catalog.KindRDMADeviceList, catalog.KindRDMAProtocolList}},
}

// The checks of this area (prose: catalogue.yaml): the configuration of each PVRDMA VM (seed 002, "Virtual
// Machine Setup"): memory reservation, hardware version, guest OS, the
// PVRDMA adapters' backing, connection and device protocol. They read
// facts.Host.VMConfigs (vmconfig.go joins a VM's sources); a running PVRDMA
// VM whose configuration was not read is reported not evaluated, with why.

// pvrdmaViews calls f for each PVRDMA VM of the host with a configuration,
// reporting the others not evaluated.
func pvrdmaViews(h *facts.Host, r *Reporter, f func(v vmView)) {
	for _, v := range vmViews(h) {
		if !v.pvrdma() {
			continue
		}
		if len(v.Configs) == 0 {
			r.NotEvaluated(v.Name, v.Why)
			continue
		}
		f(v)
	}
}

// failingConfig returns the first of the VM's configurations (.vmx first)
// that gives the value a rule reads (has; nil: every configuration gives
// it) and fails the rule (bad). Without one (ok false) it reports the VM:
// not evaluated (unknown says why) when no configuration gives the value,
// passed when none fails.
func failingConfig(v vmView, r *Reporter, unknown string, has, bad func(c parse.VMConfig) bool) (c parse.VMConfig, ok bool) {
	known := false
	for _, c := range v.Configs {
		if has != nil && !has(c) {
			continue
		}
		known = true
		if bad(c) {
			return c, true
		}
	}
	if known {
		r.Pass(v.Name)
	} else {
		r.NotEvaluated(v.Name, unknown)
	}
	return parse.VMConfig{}, false
}

// With the VM powered off: the prefix of every VM-settings fix.
func offFirst(vm string) string {
	return fmt.Sprintf("Power off %s, then ", shellArg(vm, "the VM"))
}

func checkVMMemoryNotReserved(in *Input, r *Reporter) {
	h := in.Host
	pvrdmaViews(h, r, func(v vmView) {
		c, ok := failingConfig(v, r, "", nil, func(c parse.VMConfig) bool {
			full := c.MemoryMB > 0 && c.MemReservationSet && c.MemReservationMB >= c.MemoryMB
			return !(c.MemLockedToMaxSet && c.MemLockedToMax) && !full
		})
		if !ok {
			return
		}
		lock := "not set"
		if c.MemLockedToMaxSet {
			lock = strconv.FormatBool(c.MemLockedToMax)
		}
		resv := "no reservation"
		if c.MemReservationSet {
			resv = fmt.Sprintf("a reservation of %d MB", c.MemReservationMB)
		}
		size := "its memory"
		if c.MemoryMB > 0 {
			size = fmt.Sprintf("its %d MB", c.MemoryMB)
		}
		msg := fmt.Sprintf("%s does not reserve all guest memory: %s has \"Reserve all guest memory (All locked)\" %s and %s of %s; "+
			"PVRDMA pins guest memory for RDMA and needs all of it reserved", v.Name, sourceName(c), lock, resv, size)
		msg += disagreement(v, "the memory reservation", func(c parse.VMConfig) (string, bool) {
			if !c.MemLockedToMaxSet && !c.MemReservationSet {
				return "", false
			}
			return fmt.Sprintf("locked %t, %d of %d MB reserved", c.MemLockedToMax, c.MemReservationMB, c.MemoryMB), true
		})
		ev := []Evidence{cfgEv(h.Host, c, "MemLockedToMax", "no sched.mem.pin: not locked")}
		if c.MemReservationSet {
			ev = append(ev, cfgEv(h.Host, c, "MemReservationMB", ""))
		}
		if c.MemoryMB > 0 {
			ev = append(ev, cfgEv(h.Host, c, "MemoryMB", ""))
		}
		r.Fail(v.Name, msg, offFirst(v.Name)+"vSphere Client: Edit Settings > Virtual Hardware > Memory > Reservation: check \"Reserve all guest "+
			"memory (All locked)\"; or: govc vm.change -vm "+govcVM(v.Name)+" -memory-pin=true", ev...)
	})
}

// Hardware versions: PVRDMA needs 13 (vSphere 6.5); native endpoints 18
// (vSphere 7.0 U1: NATIVE_ENDPOINTS_UNAVAILABLE, rules_native.go).
const (
	minHWPVRDMA = 13
	minHWNative = 18
)

// hwNeeded is the hardware version a PVRDMA VM needs, and why.
func hwNeeded(parse.VMConfig) (int, string) {
	return minHWPVRDMA, "PVRDMA needs hardware version 13 or later"
}

func checkVMHWVersionTooOld(in *Input, r *Reporter) {
	h := in.Host
	pvrdmaViews(h, r, func(v vmView) {
		c, ok := failingConfig(v, r, "no source gives its virtual hardware version",
			func(c parse.VMConfig) bool { return c.HWVersion != 0 },
			func(c parse.VMConfig) bool { need, _ := hwNeeded(c); return c.HWVersion < need })
		if !ok {
			return
		}
		need, why := hwNeeded(c)
		msg := fmt.Sprintf("%s runs virtual hardware version %d: %s", v.Name, c.HWVersion, why)
		msg += disagreement(v, "the hardware version", func(c parse.VMConfig) (string, bool) {
			return strconv.Itoa(c.HWVersion), c.HWVersion > 0
		})
		ev := []Evidence{cfgEv(h.Host, c, "HWVersion", "")}
		r.Fail(v.Name, msg, offFirst(v.Name)+fmt.Sprintf("upgrade its compatibility to hardware version %d or later (take a snapshot first): "+
			"vSphere Client: Actions > Compatibility > Upgrade VM Compatibility; or: govc vm.upgrade -vm %s (the latest version the host "+
			"supports)", need, govcVM(v.Name)), ev...)
	})
}

// switchName names a vDS by its UUID from the host's (or any host's)
// `esxcli network vswitch dvs vmware list`; the UUID itself when unknown.
func switchName(fleet *facts.Fleet, h *facts.Host, uuid string) string {
	u := normUUID(uuid)
	hosts := []*facts.Host{h}
	if fleet != nil {
		for i := range fleet.Hosts {
			hosts = append(hosts, &fleet.Hosts[i])
		}
	}
	for _, x := range hosts {
		if x == nil {
			continue
		}
		for _, d := range x.DVSwitches {
			if d.VDSID != "" && normUUID(d.VDSID) == u {
				return d.Name
			}
		}
	}
	return "vDS " + uuid
}

// onDVS reports whether an adapter's backing is a distributed port.
func onDVS(a parse.VMAdapter) bool { return a.DVSUUID != "" || a.DVSName != "" }

func checkVMPVRDMANotOnDVS(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	pvrdmaViews(h, r, func(v vmView) {
		for _, a := range v.Configs[0].PVRDMA() {
			subject := adapterSubject(v.Name, a)
			var bad *parse.VMConfig
			var ba parse.VMAdapter
			for i, c := range v.Configs {
				for _, x := range c.PVRDMA() {
					if x.Label == a.Label || (x.MAC != "" && strings.EqualFold(x.MAC, a.MAC)) {
						if !onDVS(x) && bad == nil {
							bad, ba = &v.Configs[i], x
						}
					}
				}
			}
			if bad == nil {
				r.Pass(subject)
				continue
			}
			where := "no network"
			if ba.Network != "" {
				where = fmt.Sprintf("the standard-switch port group %q", ba.Network)
			}
			msg := fmt.Sprintf("%s's PVRDMA adapter %s is connected to %s, not to a distributed port group: PVRDMA needs a vSphere Distributed Switch",
				v.Name, a.Label, where)
			msg += disagreement(v, "its backing", func(c parse.VMConfig) (string, bool) {
				for _, x := range c.PVRDMA() {
					if x.Label == a.Label || (x.MAC != "" && strings.EqualFold(x.MAC, a.MAC)) {
						if onDVS(x) {
							return "a distributed port", true
						}
						return "a standard port group", true
					}
				}
				return "", false
			})
			target := "the PVRDMA vDS"
			if hp != nil && hp.Switch != nil {
				target = hp.Switch.Name
			}
			r.Fail(subject, msg, offFirst(v.Name)+fmt.Sprintf("vSphere Client: Edit Settings > %s (the PVRDMA adapter) > Browse: choose a distributed "+
				"port group of %s, the vDS whose only uplink is the host's RDMA NIC.", a.Label, target),
				adapterEv(h.Host, *bad, ba, "Network", "no networkName and no dvs.switchId: not on a distributed port"))
		}
	})
}

// checkVMPeersOnDifferentDVS compares the vDSs of the PVRDMA adapters of
// every VM of the scan: PVRDMA VMs can only reach each other over one vDS.
// The vDS most of them use is taken as the PVRDMA vDS.
func checkVMPeersOnDifferentDVS(in *Input, r *Reporter) {
	type member = dvsMember
	bySwitch := map[string][]member{}
	var all []member
	for _, i := range in.Ready {
		h := &in.Fleet.Hosts[i]
		for _, v := range vmViews(h) {
			if !v.pvrdma() {
				continue
			}
			if len(v.Configs) == 0 {
				r.NotEvaluatedOn(h.Host, v.Name, v.Why)
				continue
			}
			for _, c := range v.Configs {
				found := false
				for _, a := range c.PVRDMA() {
					if !onDVS(a) {
						continue
					}
					u := normUUID(a.DVSUUID)
					if u == "" {
						u = "name:" + a.DVSName
					}
					m := member{h, v, c, a, u}
					all = append(all, m)
					bySwitch[u] = append(bySwitch[u], m)
					found = true
				}
				if found {
					break // one source per VM
				}
			}
		}
	}
	if len(bySwitch) < 2 {
		for _, m := range all {
			r.PassOn(m.h.Host, m.v.Name)
		}
		return
	}
	vms := func(ms []member) int {
		seen := map[string]bool{}
		for _, m := range ms {
			seen[m.h.Host+"\x00"+m.v.Name] = true
		}
		return len(seen)
	}
	// The vDS they should all be on: the one with an RDMA uplink and
	// jumbo frames (chooseVDS), else no direction at all (never the
	// majority's vDS when it is the one without RDMA).
	stats := fleetSwitches(in.Fleet, in.Paths)
	var cands []*vdsInfo
	candOf := map[*vdsInfo]string{}
	keys := make([]string, 0, len(bySwitch))
	for u := range bySwitch {
		keys = append(keys, u)
	}
	sort.Strings(keys)
	for _, u := range keys {
		st := stats[u]
		if st == nil {
			st = byName(stats, name(bySwitch[u][0]))
		}
		c := &vdsInfo{Key: u, Name: name(bySwitch[u][0]), VMs: vms(bySwitch[u])}
		if st != nil {
			c.RDMAHosts, c.MTU = st.RDMAHosts, st.MTU
		}
		cands = append(cands, c)
		candOf[c] = u
	}
	var names []string
	for u := range bySwitch {
		names = append(names, fmt.Sprintf("%s (%s)", name(bySwitch[u][0]), plural(vms(bySwitch[u]), "VM")))
	}
	sort.Strings(names)
	best, why := chooseVDS(cands)
	if best == nil {
		noDirection(r, all, bySwitch, names, vms)
		return
	}
	main := candOf[best]
	// The example: the first by host and VM name, whatever order the
	// configurations were read in (a scan, a saved folder).
	mainMember := bySwitch[main][0]
	for _, m := range bySwitch[main][1:] {
		if m.h.Host < mainMember.h.Host || m.h.Host == mainMember.h.Host && m.v.Name < mainMember.v.Name {
			mainMember = m
		}
	}
	mainName := name(mainMember)
	reported := map[string]bool{}
	for _, m := range all {
		key := m.h.Host + "\x00" + m.v.Name
		if m.uuid == main || reported[key] {
			continue
		}
		reported[key] = true
		subject := adapterSubject(m.v.Name, m.a)
		r.FailOn(m.h.Host, subject, fmt.Sprintf("%s's PVRDMA adapter %s is on %s, while %d other PVRDMA VMs of the scan are on %s (e.g. %s on %s): "+
			"PVRDMA VMs reach each other only over one vDS, so if they are meant to talk over RDMA they cannot; vDSs in use: %s; "+
			"%s is the PVRDMA vDS: %s",
			m.v.Name, m.a.Label, name(m), vms(bySwitch[main]), mainName, mainMember.v.Name, mainMember.h.Host, strings.Join(names, ", "), mainName, why),
			offFirst(m.v.Name)+fmt.Sprintf("vSphere Client: Edit Settings > %s (the PVRDMA adapter) > Browse: choose a distributed port group of %s, "+
				"the vDS of its RDMA peers; leave it if %s is not meant to talk to them (suppress this finding).", m.a.Label, mainName, m.v.Name),
			adapterEv(m.h.Host, m.c, m.a, "DVSUUID", ""), adapterEv(mainMember.h.Host, mainMember.c, mainMember.a, "DVSUUID", ""))
	}
	for _, m := range all {
		key := m.h.Host + "\x00" + m.v.Name
		if !reported[key] {
			reported[key] = true
			r.PassOn(m.h.Host, m.v.Name)
		}
	}
}

// noDirection reports every PVRDMA adapter of the scan when they are on
// several vDSs and none of them is the PVRDMA vDS for sure: no VM is told
// to move to a vDS that may be the wrong one.
func noDirection(r *Reporter, all []dvsMember, bySwitch map[string][]dvsMember, names []string, vms func([]dvsMember) int) {
	reported := map[string]bool{}
	for _, m := range all {
		key := m.h.Host + "\x00" + m.v.Name
		if reported[key] {
			continue
		}
		reported[key] = true
		others := 0
		for u, ms := range bySwitch {
			if u != m.uuid {
				others += vms(ms)
			}
		}
		r.FailOn(m.h.Host, adapterSubject(m.v.Name, m.a), fmt.Sprintf("%s's PVRDMA adapter %s is on %s, while %d other PVRDMA VMs of the scan "+
			"are on other vDSs (vDSs in use: %s): PVRDMA VMs reach each other only over one vDS. None of them stands out as the PVRDMA "+
			"vDS (an Active RDMA uplink and jumbo frames), so pvrdma-doctor names no direction",
			m.v.Name, m.a.Label, name(m), others, strings.Join(names, ", ")),
			fmt.Sprintf("Choose the vDS whose only uplink on every host is the RoCE NIC, at MTU 9000 (the guides' rdma-dvs), and connect the "+
				"PVRDMA VMs that talk to each other to it: %sEdit Settings > %s (the PVRDMA adapter) > Browse. Leave %s where it is if it is "+
				"not meant to talk to the others (suppress this finding).", offFirst(m.v.Name), m.a.Label, m.v.Name),
			adapterEv(m.h.Host, m.c, m.a, "DVSUUID", ""))
	}
}

// dvsMember is one PVRDMA adapter on a vDS, for VM_PEERS_ON_DIFFERENT_DVS.
type dvsMember struct {
	h    *facts.Host
	v    vmView
	c    parse.VMConfig
	a    parse.VMAdapter
	uuid string
}

// name names the vDS of a member adapter.
func name(m dvsMember) string {
	if m.a.DVSName != "" {
		return m.a.DVSName
	}
	return switchName(nil, m.h, m.a.DVSUUID)
}

func checkVMAdapterDisconnected(in *Input, r *Reporter) {
	h := in.Host
	pvrdmaViews(h, r, func(v vmView) {
		for _, a := range v.Configs[0].PVRDMA() {
			subject := adapterSubject(v.Name, a)
			var sev Severity
			var msg string
			var ev []Evidence
			for _, c := range v.Configs {
				for _, x := range c.PVRDMA() {
					if x.Label != a.Label && (x.MAC == "" || !strings.EqualFold(x.MAC, a.MAC)) {
						continue
					}
					switch {
					case x.ConnectedSet && !x.Connected && sev == "":
						sev, msg = Critical, fmt.Sprintf("%s's PVRDMA adapter %s is not connected (%s)", v.Name, a.Label, sourceName(c))
						ev = append(ev, adapterEv(h.Host, c, x, "Connected", "Connected: false"))
					case x.StartConnectedSet && !x.StartConnected && sev == "":
						sev = Critical
						msg = fmt.Sprintf("%s's PVRDMA adapter %s is not set to connect at power on (%s: startConnected FALSE), so it has no "+
							"network after each power-on", v.Name, a.Label, sourceName(c))
						if x.ConnectedSet && x.Connected {
							sev = Warning
							msg = fmt.Sprintf("%s's PVRDMA adapter %s is connected now but not set to connect at power on (%s): it loses "+
								"its network at the next power-on", v.Name, a.Label, sourceName(c))
						}
						ev = append(ev, adapterEv(h.Host, c, x, "StartConnected", ""))
					}
				}
			}
			if sev == "" {
				r.Pass(subject)
				continue
			}
			msg += disagreement(v, "connect at power on", func(c parse.VMConfig) (string, bool) {
				for _, x := range c.PVRDMA() {
					if x.Label == a.Label && x.StartConnectedSet {
						return strconv.FormatBool(x.StartConnected), true
					}
				}
				return "", false
			})
			r.FailSeverity(sev, h.Host, subject, msg, fmt.Sprintf("vSphere Client: %s > Edit Settings > %s (the PVRDMA adapter): check Connected "+
				"and Connect At Power On.", shellArg(v.Name, "the VM"), a.Label), ev...)
		}
	})
}

// guestFamily classifies a guest OS identifier as the .vmx (guestOS,
// "rhel8-64") or vCenter (guestId, "rhel8_64Guest") writes it: "linux64",
// "linux32", "windows", "other" (a known non-Linux OS) or "unknown"
// ("other-64": Other 64-bit, any OS).
func guestFamily(id string) string {
	s := strings.ToLower(strings.TrimSpace(id))
	s = strings.TrimSuffix(s, "guest")
	is64 := strings.Contains(s, "64")
	switch {
	case strings.HasPrefix(s, "win"):
		return "windows"
	case strings.HasPrefix(s, "darwin"), strings.HasPrefix(s, "freebsd"), strings.HasPrefix(s, "solaris"), strings.HasPrefix(s, "netware"),
		strings.HasPrefix(s, "os2"), strings.HasPrefix(s, "dos"), strings.HasPrefix(s, "vmkernel"), strings.HasPrefix(s, "openserver"),
		strings.HasPrefix(s, "unixware"), strings.HasPrefix(s, "ecomstation"):
		return "other"
	}
	for _, l := range []string{"linux", "rhel", "centos", "ubuntu", "debian", "sles", "suse", "oracle", "fedora", "photon", "asianux",
		"alma", "rocky", "amazon", "coreos", "mandrake", "mandriva", "turbolinux", "redhat", "miracle", "pardus", "kylin", "fusionos", "crxpod", "crxsys"} {
		if strings.Contains(s, l) {
			if is64 {
				return "linux64"
			}
			return "linux32"
		}
	}
	return "unknown"
}

func checkVMGuestNotLinux64(in *Input, r *Reporter) {
	h := in.Host
	pvrdmaViews(h, r, func(v vmView) {
		c, ok := failingConfig(v, r, "no source gives its guest OS type",
			func(c parse.VMConfig) bool { return c.GuestOS != "" },
			func(c parse.VMConfig) bool { return guestFamily(c.GuestOS) != "linux64" })
		if !ok {
			return
		}
		fam := guestFamily(c.GuestOS)
		sev, what := Critical, map[string]string{
			"windows": "a Windows guest: PVRDMA has no Windows driver (Linux guests only)",
			"other":   "not Linux: PVRDMA's guest driver (vmw_pvrdma) is Linux-only",
			"linux32": "32-bit Linux: PVRDMA supports 64-bit Linux guests only",
		}[fam]
		if fam == "unknown" {
			sev, what = Warning, "a generic or unknown guest OS type: PVRDMA supports 64-bit Linux guests, and the type should say which "+
				"(vCenter offers the PVRDMA adapter only for guest types that support it)"
		}
		msg := fmt.Sprintf("%s's guest OS type %q is %s", v.Name, c.GuestOS, what)
		msg += disagreement(v, "the guest OS type", func(c parse.VMConfig) (string, bool) { return guestFamily(c.GuestOS), c.GuestOS != "" })
		// A guest PVRDMA has no driver for keeps its workload off PVRDMA
		// (relabelling it would not give it one); a generic type on what
		// is likely a Linux guest gets its real type.
		fix := offFirst(v.Name) + "replace its PVRDMA adapter by a VMXNET3 adapter on the same port group (vSphere Client: Edit Settings), " +
			"or run the RDMA workload in a 64-bit Linux VM instead."
		if fam == "unknown" {
			fix = offFirst(v.Name) + "set the guest OS type to the VM's 64-bit Linux distribution (vSphere Client: Edit Settings > VM Options > " +
				"General Options > Guest OS); or: govc vm.change -vm " + govcVM(v.Name) + " -g GUEST_ID (e.g. rhel8_64Guest, ubuntu64Guest)"
			if id := linux64GuestID(c.GuestOS); id != "" {
				fix = offFirst(v.Name) + "set the guest OS type to its 64-bit Linux distribution's, or to Other Linux (64-bit) (vSphere Client: " +
					"Edit Settings > VM Options > General Options > Guest OS); or: govc vm.change -vm " + govcVM(v.Name) + " -g " + id
			}
		}
		r.FailSeverity(sev, h.Host, v.Name, msg, fix, cfgEv(h.Host, c, "GuestOS", ""))
	})
}

// roceOf is the RoCE version a device protocol names (rocev1 -> 1).
func roceOf(protocol string) int {
	switch strings.ToLower(strings.TrimSpace(protocol)) {
	case "rocev1":
		return 1
	case "rocev2":
		return 2
	}
	return 0
}

func checkVMDeviceProtocolMismatch(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	if hp == nil || len(hp.Usable) == 0 {
		return // no RDMA device PVRDMA can use: the HCA rules say why
	}
	supports := map[int][]string{}
	var protoEv []Evidence
	for _, d := range hp.Usable {
		for _, p := range h.RDMAProtocols {
			if p.Device != d.Name {
				continue
			}
			protoEv = append(protoEv, Ev(h.Host, p.Ref))
			if p.RoCEv1 {
				supports[1] = append(supports[1], d.Name)
			}
			if p.RoCEv2 {
				supports[2] = append(supports[2], d.Name)
			}
		}
	}
	if len(protoEv) == 0 {
		return // the usable devices' protocols are not listed
	}
	views := vmViews(h)
	configured := func(d parse.PVRDMADevice) (string, parse.VMConfig, parse.VMAdapter, bool) {
		for _, v := range views {
			if v.worldID() != d.WorldID {
				continue
			}
			for _, c := range v.Configs {
				for _, a := range c.PVRDMA() {
					if a.DeviceProtocol != "" && a.MAC != "" && strings.EqualFold(a.MAC, d.MAC) {
						return a.DeviceProtocol, c, a, true
					}
				}
			}
		}
		return "", parse.VMConfig{}, parse.VMAdapter{}, false
	}
	var devs []string
	for _, d := range hp.Usable {
		devs = append(devs, d.Name)
	}
	for _, d := range h.PVRDMADevices {
		subject := vmLabel(d)
		runtime := 0
		if d.Props.Lookup("RoCE version").Line > 0 {
			runtime = d.RoCEVersion
		}
		want, what := runtime, "vsish `RoCE version`"
		var ev []Evidence
		if runtime > 0 {
			ev = append(ev, Ev(h.Host, d.Props.Lookup("RoCE version").Ref))
		}
		note := ""
		if p, c, a, ok := configured(d); ok && roceOf(p) > 0 {
			want, what = roceOf(p), "its device protocol in "+sourceName(c)
			ev = append([]Evidence{adapterEv(h.Host, c, a, "DeviceProtocol", "deviceProtocol = "+p)}, ev...)
			if runtime > 0 && runtime != roceOf(p) {
				note = fmt.Sprintf("; the sources disagree on its RoCE version: %s says %s, vsish shows RoCE v%d", sourceName(c), p, runtime)
			}
		}
		if want == 0 {
			r.NotEvaluated(subject, "neither vsish (`RoCE version`) nor a VM configuration gives its RoCE version")
			continue
		}
		if len(supports[want]) > 0 {
			r.Pass(subject)
			continue
		}
		other := 3 - want
		fix := offFirst(d.VMName) + fmt.Sprintf("set its PVRDMA adapter's device protocol to RoCE v%d (vSphere Client: Edit Settings > network "+
			"adapter > Device protocol; VirtualVmxnet3Vrdma.deviceProtocol = rocev%d).", other, other)
		if len(supports[other]) == 0 {
			fix = fmt.Sprintf("%s's RDMA device supports neither RoCE version: enable RoCE in its driver (see ROCE_NOT_SUPPORTED).", h.Host)
		}
		r.Fail(subject, fmt.Sprintf("%s uses RoCE v%d (%s), which %s (the RDMA device PVRDMA uses on %s) does not support%s",
			subject, want, what, strings.Join(devs, ", "), h.Host, note), fix, append(ev, protoEv...)...)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
