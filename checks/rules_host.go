package checks

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Host configuration rules: ESXi version, RDMA devices, the PVRDMA vmknic
// tag and the firewall ruleset.

const (
	docPVRDMA70     = "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.networking.doc/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html"
	docTagVmknic    = "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.networking.doc/GUID-B3776418-86AF-448D-B814-FDA4EFB6A34E.html (Tag a VMkernel Adapter for PVRDMA; Enable the Firewall Rule for PVRDMA)"
	docHostConfig67 = "VMware vSphere 6.7 Networking guide, \"Configure an ESXi Host for PVRDMA\""
	docGOSValidate  = "https://github.com/vmware/ansible-vsphere-gos-validation (common/esxi_enable_pvrdma_configs.yml)"
	docFirewallCLI  = "https://docs.vmware.com/en/VMware-vSphere/6.7/vspherecli-concepts-examples/GUID-CB2A997E-9B49-4B08-8202-3FB220EADE9D.html"
	docRoCE67       = "VMware vSphere 6.7 Networking guide, \"Network Requirements for RDMA over Converged Ethernet\""
	docLossless     = "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.storage.doc/GUID-B764140D-BCF3-4C99-8169-E5B058757518.html (Configuring lossless Ethernet for NVMe over RDMA)"
	docMellanoxPFC  = "https://community.mellanox.com/docs/DOC-2581 (HowTo Run RoCE over L2 Enabled with PFC, ESXi)"
	docLinuxPVRDMA  = "https://github.com/torvalds/linux/tree/master/drivers/infiniband/hw/vmw_pvrdma"
	docVrdmaAPI     = "https://developer.broadcom.com/xapis/vcenter-storage-monitoring-service-api/8.0U1/vim.vm.device.VirtualVmxnet3Vrdma.html"
)

func init() {
	register(&Rule{
		ID:       "ESXI_VERSION_UNSUPPORTED",
		Title:    "ESXi release is older than 6.5 and has no PVRDMA",
		Severity: Critical,
		Why: "PVRDMA exists since ESXi 6.5 (and vCenter 6.5): an older host cannot give VMs a PVRDMA adapter, and " +
			"PVRDMA VMs cannot run or migrate there.",
		Fix:     "Upgrade the host to ESXi 6.5 or later (7.0 U1+ for native endpoints, 8.0 recommended) with vSphere Lifecycle Manager.",
		Docs:    []string{docRDMAOverview, docPVRDMA70},
		Applies: "all (fires on ESXi < 6.5)",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindSystemVersion); !ok || h.Version == nil {
				if why == "" {
					why = "`esxcli system version get` gave no version"
				}
				r.NotEvaluated(h.Host, why)
				return
			}
			major, minor, _, ok := esxiVersion(h.Version.Version)
			if !ok {
				r.NotEvaluated(h.Host, fmt.Sprintf("ESXi version %q could not be read", h.Version.Version))
				return
			}
			if major > 6 || (major == 6 && minor >= 5) {
				r.Pass(h.Host)
				return
			}
			r.Fail(h.Host, fmt.Sprintf("%s runs ESXi %s; PVRDMA needs ESXi 6.5 or later", h.Host, h.Version.Version),
				fmt.Sprintf("Upgrade %s from ESXi %s to 6.5 or later (8.0 recommended) with vSphere Lifecycle Manager, then reconnect the PVRDMA VMs.",
					h.Host, h.Version.Version),
				Ev(h.Host, h.Version.Ref))
		},
	})

	register(&Rule{
		ID:       "NO_RDMA_DEVICE",
		Title:    "Host runs PVRDMA VMs but has no RDMA device",
		Severity: Critical,
		Why: "Without a physical RDMA device (RoCE NIC with its ESXi RDMA driver), PVRDMA VMs on this host can only talk " +
			"RDMA to VMs on the same host (memcpy); traffic to PVRDMA VMs on other hosts falls back to a TCP-based channel " +
			"with reduced performance. It is critical when peers are on other hosts and harmless (info) when " +
			"all PVRDMA VMs share one host; pvrdma-doctor cannot see which VMs talk to each other, so it takes the safer " +
			"reading: critical as soon as another scanned host runs PVRDMA VMs, info otherwise (with a hint to scan the peers).",
		Fix: "Install an RoCE-capable NIC listed in the VMware Compatibility Guide and its RDMA driver (nmlx5_rdma, bnxtroce, " +
			"irdman), check it with `esxcli rdma device list`, and make its vmnic the only uplink of the PVRDMA vDS.",
		Docs:    []string{docRDMAOverview, docPVRDMA70},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, fleet *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList, hostio.KindPVRDMADeviceLs); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			if len(h.RDMADevices) > 0 || !hasPVRDMA(h) {
				r.Pass(h.Host)
				return
			}
			ev := sourceEv(h, hostio.KindRDMADeviceList, "no RDMA device listed")
			if len(h.PVRDMAListing) > 0 {
				ev = append(ev, Ev(h.Host, h.PVRDMAListing[0].Ref))
			}
			vms := joinNames(pvrdmaVMNames(h))
			var peers []string
			for i := range fleet.Hosts {
				o := &fleet.Hosts[i]
				if o.Host != h.Host && hasPVRDMA(o) {
					peers = append(peers, o.Host)
					if len(o.PVRDMAListing) > 0 && len(peers) == 1 {
						e := Ev(o.Host, o.PVRDMAListing[0].Ref)
						e.Note = "PVRDMA VMs on another host"
						ev = append(ev, e)
					}
				}
			}
			fix := fmt.Sprintf("On %s: install an RoCE NIC and its ESXi RDMA driver, check that `esxcli rdma device list` shows it Active, "+
				"make its vmnic the only uplink of the PVRDMA vDS, then power-cycle the PVRDMA VMs (%s). Until then, keep the VMs "+
				"that talk to each other on one host.", h.Host, joinNames(fixVMNames(h)))
			if len(peers) > 0 {
				verb := "run"
				if len(peers) == 1 {
					verb = "runs"
				}
				r.Fail(h.Host, fmt.Sprintf("%s has no RDMA device but runs PVRDMA VMs (%s) while %s also %s PVRDMA VMs: "+
					"cross-host PVRDMA traffic falls back to TCP", h.Host, vms, strings.Join(peers, ", "), verb), fix, ev...)
				return
			}
			r.FailSeverity(Info, h.Host, h.Host, fmt.Sprintf("%s has no RDMA device; its PVRDMA VMs (%s) can reach PVRDMA VMs on the same "+
				"host only at full speed (no other scanned host runs PVRDMA VMs; scan the peers' hosts too if they exist)", h.Host, vms), fix, ev...)
		},
	})

	register(&Rule{
		ID:       "RDMA_DEVICE_DOWN",
		Title:    "RDMA device is not Active",
		Severity: Critical,
		Why: "An RDMA device whose state is not Active (Down, Init, ...) carries no RDMA traffic: PVRDMA adapters bound to it " +
			"lose their physical HCA and cross-host traffic falls back to TCP. The usual cause is the paired uplink's link " +
			"(cable, optic, switch port) or the uplink being administratively down. Only a device on the PVRDMA data path " +
			"(its uplink is an uplink of the PVRDMA vDS) is critical; an unused port (e.g. the second port of a dual-port " +
			"card) is reported as information.",
		Fix:     "Bring the paired uplink's link up: check `esxcli network nic get -n vmnicN`, the cable and the switch port; if the NIC is administratively down, `esxcli network nic up -n vmnicN`.",
		Docs:    []string{docPVRDMAHPC, docRDMAOverview},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			for _, d := range h.RDMADevices {
				if strings.EqualFold(strings.TrimSpace(d.State), "active") {
					r.Pass(d.Name)
					continue
				}
				ev := []Evidence{Ev(h.Host, d.Ref)}
				fix := fmt.Sprintf("Check the link of %s: `esxcli network nic get -n %s` (Link Status), the cable/optic and the switch port; "+
					"then power-cycle the PVRDMA VMs so their adapters bind to the HCA again.", d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"))
				if n := nicByName(h, d.PairedUplink); n != nil {
					ev = append(ev, Ev(h.Host, n.Ref))
					if strings.EqualFold(n.AdminStatus, "down") {
						fix = fmt.Sprintf("%s is administratively down: `esxcli network nic up -n %s`, then check that `esxcli rdma device list` shows %s Active.",
							d.PairedUplink, shellArg(d.PairedUplink, "vmnicN"), d.Name)
					}
				}
				msg := fmt.Sprintf("%s (paired with %s) is %s, not Active", d.Name, orPlaceholder(d.PairedUplink, "no uplink"),
					orPlaceholder(d.State, "in an unknown state"))
				sev := offPathSeverity(h, d, Critical)
				if sev == Info {
					msg += "; PVRDMA does not use it (its uplink is not on the PVRDMA vDS), so this is information only"
					fix = "Nothing is needed for PVRDMA. " + fix
				}
				r.FailSeverity(sev, h.Host, d.Name, msg, fix, ev...)
			}
		},
	})

	register(&Rule{
		ID:       "PVRDMA_VMKNIC_UNSET",
		Title:    "No existing VMkernel adapter is tagged for PVRDMA",
		Severity: Critical,
		Why: "PVRDMA uses the VMkernel adapter named in the advanced setting /Net/PVRDMAVmknic to reach other hosts. " +
			"When it is empty, or names a vmknic that does not exist, VMware's configuration steps are incomplete: the " +
			"PVRDMA backend has no vmknic for cross-host communication. VMware's own validation suite sets and asserts it.",
		Fix:     "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN (a vmknic on the PVRDMA vDS); or in the vSphere Client: Host > Configure > System > Advanced System Settings > Net.PVRDMAVmknic.",
		Docs:    []string{docTagVmknic, docHostConfig67, docGOSValidate},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			const subject = "/Net/PVRDMAVmknic"
			if ok, why := h.Available(hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList); !ok || h.PVRDMAVmknic == nil {
				if why == "" {
					why = "the /Net/PVRDMAVmknic setting was not found in the output"
				}
				r.NotEvaluated(subject, why)
				return
			}
			name, ref := pvrdmaVmknicName(h)
			if name != "" && findVmknic(h, name) != nil {
				r.Pass(subject)
				return
			}
			use, known, why := pvrdmaInUse(h)
			if !known && name == "" {
				r.NotEvaluated(subject, why)
				return
			}
			if !use && name == "" {
				r.Pass(subject) // no PVRDMA VMs: the tag is not needed yet
				return
			}
			target := ""
			if sw := pvrdmaSwitch(h); sw != nil {
				target = dvsVmknic(h, sw.Name)
			}
			fix := fmt.Sprintf("esxcli system settings advanced set -o /Net/PVRDMAVmknic -s %s", shellArg(target, "vmkN"))
			if target == "" {
				fix = "Create a VMkernel adapter on the PVRDMA vDS, then: " + fix
			}
			ev := []Evidence{Ev(h.Host, ref)}
			if name == "" {
				r.Fail(subject, fmt.Sprintf("/Net/PVRDMAVmknic is empty on %s, which runs PVRDMA VMs", h.Host), fix, ev...)
				return
			}
			ev = append(ev, sourceEv(h, hostio.KindIPInterfaceList, "no "+name+" listed")...)
			r.Fail(subject, fmt.Sprintf("/Net/PVRDMAVmknic names %s, which does not exist on %s", name, h.Host), fix, ev...)
		},
	})

	register(&Rule{
		ID:       "PVRDMA_VMKNIC_NOT_ON_DVS",
		Title:    "The PVRDMA vmknic is not on the PVRDMA distributed switch (valid setup, for information)",
		Severity: Info,
		Why: "The vmknic tagged in /Net/PVRDMAVmknic carries PVRDMA's control data between hosts (VMware: \"PVRDMA needs " +
			"to use a VMKernel network interface (vmknic) to send and receive control data with other PVRDMA devices\"); " +
			"the RDMA data goes through the HCA, the uplink of the PVRDMA vDS. VMware's own setup guides tag vmk0, the " +
			"management vmknic on a standard switch, so a tagged vmknic off the PVRDMA vDS is a valid setup: it only needs " +
			"to reach the peers' tagged vmknics (VMKPING_UNREACHABLE checks that). pvrdma-doctor reports it as information " +
			"only, so that nobody mistakes it for the data path: its MTU does not limit RDMA frames.",
		Fix:     "Nothing is required. If you prefer to keep PVRDMA's control traffic off the management network, create a vmknic on the PVRDMA vDS and tag it: esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN.",
		Docs:    []string{docPVRDMAHPC, docTagVmknic},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList, hostio.KindDVSList, hostio.KindRDMADeviceList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			name, _ := pvrdmaVmknicName(h)
			v := findVmknic(h, name)
			if v == nil {
				return // PVRDMA_VMKNIC_UNSET reports it
			}
			sw := pvrdmaSwitch(h)
			if sw == nil || v.VDSName == sw.Name {
				r.Pass(v.Name)
				return
			}
			ev := []Evidence{Ev(h.Host, v.Record.RefOf("VDS Name")), Ev(h.Host, v.Record.RefOf("Portset"))}
			where := "standard switch " + orPlaceholder(v.Portset, "(unknown)")
			if v.VDSName != "" {
				where = "distributed switch " + v.VDSName
			}
			fix := "Nothing is required."
			if other := dvsVmknic(h, sw.Name); other != "" {
				fix += fmt.Sprintf(" To keep PVRDMA's control traffic on %s instead, tag %s: esxcli system settings advanced set -o /Net/PVRDMAVmknic -s %s", sw.Name, other, shellArg(other, "vmkN"))
			} else {
				fix += fmt.Sprintf(" To keep PVRDMA's control traffic on %s instead, create a vmknic on it and tag it (esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN).", sw.Name)
			}
			r.FailSeverity(Info, h.Host, v.Name, fmt.Sprintf("%s, tagged for PVRDMA, is on %s, not on the PVRDMA vDS %s: this is the setup VMware's "+
				"PVRDMA guides use (the tagged vmknic carries control data; RDMA data goes through the HCA on %s), valid as long as "+
				"the tagged vmknics of all hosts reach each other", v.Name, where, sw.Name, sw.Name), fix, ev...)
		},
	})

	register(&Rule{
		ID:       "PVRDMA_VMKNIC_NO_IPV4",
		Title:    "The PVRDMA vmknic has no IPv4 address",
		Severity: Critical,
		Why: "PVRDMA's cross-host channel and the RoCE GIDs of the backend are derived from the tagged vmknic's address: " +
			"a vmknic without an IPv4 address (or with 0.0.0.0) cannot reach the peers' PVRDMA vmknics, so cross-host " +
			"PVRDMA traffic fails. (VMware's documents do not say this in so many words; it follows from how PVRDMA uses the vmknic.)",
		Fix:     "esxcli network ip interface ipv4 set -i vmkN -t static -I ADDRESS -N NETMASK (an address in the PVRDMA subnet).",
		Docs:    []string{docTagVmknic, docPVRDMA70},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList, hostio.KindIPv4Get); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			name, _ := pvrdmaVmknicName(h)
			v := findVmknic(h, name)
			if v == nil {
				return // PVRDMA_VMKNIC_UNSET reports it
			}
			ip := ipv4Of(h, v.Name)
			if covered, why := h.Covers(hostio.KindIPv4Get, v.Name); ip == nil && !covered {
				r.NotEvaluated(v.Name, why)
				return
			}
			if ip != nil && ip.Address != "" && ip.Address != "0.0.0.0" {
				r.Pass(v.Name)
				return
			}
			ev := []Evidence{Ev(h.Host, v.Ref)}
			if ip != nil {
				ev = append(ev, Ev(h.Host, ip.Ref))
			} else {
				ev = append(ev, sourceEv(h, hostio.KindIPv4Get, "no IPv4 row for "+v.Name)...)
			}
			r.Fail(v.Name, fmt.Sprintf("%s, tagged for PVRDMA, has no IPv4 address", v.Name),
				fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK (an address in the PVRDMA subnet of the peers)", shellArg(v.Name, "vmkN")),
				ev...)
		},
	})

	register(&Rule{
		ID:       "PVRDMA_FIREWALL_CLOSED",
		Title:    "The pvrdma firewall ruleset is disabled, missing or does not open its ports",
		Severity: Critical,
		Why: "ESXi's firewall blocks PVRDMA's host-to-host communication unless the `pvrdma` ruleset is enabled; VMware's " +
			"host configuration steps and its validation suite enable it. With it closed, PVRDMA VMs cannot reach peers on " +
			"other hosts. A missing ruleset means the ESXi release has no PVRDMA support. pvrdma-doctor also reads the " +
			"firewall's global state (`esxcli network firewall get`): when the firewall is disabled no ruleset filters " +
			"anything, so a closed ruleset only matters once the firewall is enabled again (information). And it reads the " +
			"ruleset's port rules: VMware's setup guide shows pvrdma opening TCP 28250-28761 incoming and outgoing; an " +
			"enabled ruleset whose rules do not cover that range (a damaged or customised firewall configuration) is a warning.",
		Fix:     "esxcli network firewall ruleset set -e true -r pvrdma (or vSphere Client: Host > Configure > Firewall > Edit > pvrdma).",
		Docs:    []string{docTagVmknic, docHostConfig67, docFirewallCLI, docGOSValidate, docPVRDMAHPC},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			const subject = "pvrdma"
			if ok, why := h.Available(hostio.KindFirewallRulesets); !ok {
				r.NotEvaluated(subject, why)
				return
			}
			if ok, why := h.Covers(hostio.KindFirewallRulesets, subject); !ok {
				r.NotEvaluated(subject, why)
				return
			}
			use, known, why := pvrdmaInUse(h)
			if !known {
				r.NotEvaluated(subject, why)
				return
			}
			if !use {
				r.Pass(subject)
				return
			}
			// The global state: unknown (older bundles) counts as enabled.
			fwOff := false
			var fwEv []Evidence
			if ok, _ := h.Available(hostio.KindFirewallGlobal); ok && h.Firewall != nil {
				fwEv = []Evidence{Ev(h.Host, h.Firewall.Record.RefOf("Enabled"))}
				fwOff = !h.Firewall.Enabled
			}
			var rs *parse.FirewallRuleset
			for i := range h.Rulesets {
				if h.Rulesets[i].Name == "pvrdma" {
					rs = &h.Rulesets[i]
				}
			}
			switch {
			case rs == nil && fwOff:
				r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("%s has no pvrdma firewall ruleset, but its firewall is disabled, so nothing is blocked now", h.Host),
					fmt.Sprintf("%s's ESXi release lacks the pvrdma ruleset: upgrade it to ESXi 6.5 or later before enabling the firewall.", h.Host),
					append(sourceEv(h, hostio.KindFirewallRulesets, "no pvrdma ruleset listed"), fwEv...)...)
			case rs == nil:
				r.Fail(subject, fmt.Sprintf("%s has no pvrdma firewall ruleset although it runs PVRDMA", h.Host),
					fmt.Sprintf("%s's ESXi release lacks the pvrdma ruleset: upgrade it to ESXi 6.5 or later, then esxcli network firewall ruleset set -e true -r pvrdma", h.Host),
					append(sourceEv(h, hostio.KindFirewallRulesets, "no pvrdma ruleset listed"), fwEv...)...)
			case !rs.Enabled && fwOff:
				r.FailSeverity(Info, h.Host, subject, fmt.Sprintf("the pvrdma firewall ruleset is disabled on %s, but the firewall itself is disabled, "+
					"so nothing blocks PVRDMA now; it will as soon as the firewall is enabled", h.Host),
					fmt.Sprintf("On %s, before enabling the firewall again: esxcli network firewall ruleset set -e true -r pvrdma", h.Host),
					append([]Evidence{Ev(h.Host, rs.Ref)}, fwEv...)...)
			case !rs.Enabled:
				r.Fail(subject, fmt.Sprintf("the pvrdma firewall ruleset is disabled on %s, which runs PVRDMA, and the firewall is enabled", h.Host),
					fmt.Sprintf("On %s: esxcli network firewall ruleset set -e true -r pvrdma", h.Host), append([]Evidence{Ev(h.Host, rs.Ref)}, fwEv...)...)
			case fwOff:
				r.Pass(subject)
			default:
				pvrdmaPortRules(h, r, subject, rs)
			}
		},
	})

	register(&Rule{
		ID:       "ROCE_NOT_SUPPORTED",
		Title:    "RDMA device supports neither RoCE v1 nor RoCE v2",
		Severity: Critical,
		Why: "PVRDMA is RDMA over Converged Ethernet: the guest driver refuses a device without RoCE v1 or v2 support " +
			"(\"driver needs RoCE v1 or v2 support\"), and an iWARP-only or InfiniBand device cannot back a PVRDMA adapter.",
		Fix:     "Use an RoCE-capable NIC (check `esxcli rdma device protocol list`) as the PVRDMA vDS uplink; for Intel E810, enable RDMA (RoCEv2) in the icen module parameters and reboot.",
		Docs:    []string{docLinuxPVRDMA, docRoCENetwork},
		Applies: "ESXi 6.5 and later",
		Host: func(h *facts.Host, _ *facts.Fleet, r *Reporter) {
			if ok, why := h.Available(hostio.KindRDMADeviceList, hostio.KindRDMAProtocolList); !ok {
				r.NotEvaluated(h.Host, why)
				return
			}
			for _, d := range h.RDMADevices {
				found := false
				for _, p := range h.RDMAProtocols {
					if p.Device != d.Name {
						continue
					}
					found = true
					if p.RoCEv1 || p.RoCEv2 {
						r.Pass(d.Name)
						break
					}
					msg := fmt.Sprintf("%s (%s) supports neither RoCE v1 nor RoCE v2", d.Name, orPlaceholder(d.Description, d.Driver))
					sev := offPathSeverity(h, d, Critical)
					if sev == Info {
						msg += "; PVRDMA does not use it (its uplink is not on the PVRDMA vDS), so this is information only"
					}
					r.FailSeverity(sev, h.Host, d.Name, msg,
						fmt.Sprintf("Replace %s's NIC (%s) with an RoCE-capable one, or enable RoCE in its driver's module parameters "+
							"(esxcli system module parameters list -m %s) and reboot.", d.Name, d.PairedUplink, orPlaceholder(d.Driver, "DRIVER")),
						Ev(h.Host, p.Ref))
					break
				}
				if !found {
					r.NotEvaluated(d.Name, fmt.Sprintf("%s is missing from `esxcli rdma device protocol list`", d.Name))
				}
			}
		},
	})
}

// PVRDMA's port range (VMware, "Paravirtual RDMA for HPC", figure 6: the
// pvrdma service opens 28250-28761 (TCP) incoming and outgoing).
const pvrdmaPortLo, pvrdmaPortHi = 28250, 28761

// pvrdmaPortRules checks that an enabled pvrdma ruleset's rules open TCP
// 28250-28761 in both directions.
func pvrdmaPortRules(h *facts.Host, r *Reporter, subject string, rs *parse.FirewallRuleset) {
	if ok, _ := h.Available(hostio.KindFirewallRules); !ok {
		r.Pass(subject) // the ruleset is enabled; its rules were not read
		return
	}
	covered := map[string]bool{}
	var ev []Evidence
	for _, ru := range h.PVRDMARules {
		if ru.Ruleset != "" && ru.Ruleset != "pvrdma" {
			continue
		}
		ev = append(ev, Ev(h.Host, ru.Ref))
		if strings.EqualFold(ru.Protocol, "TCP") && ru.PortBegin <= pvrdmaPortLo && ru.PortEnd >= pvrdmaPortHi {
			covered[strings.ToLower(ru.Direction)] = true
		}
	}
	var missing []string
	for _, d := range []string{"inbound", "outbound"} {
		if !covered[d] {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		r.Pass(subject)
		return
	}
	if len(ev) == 0 {
		ev = sourceEv(h, hostio.KindFirewallRules, "no rule listed for the pvrdma ruleset")
	}
	ev = append([]Evidence{Ev(h.Host, rs.Ref)}, ev...)
	r.FailSeverity(Warning, h.Host, subject, fmt.Sprintf("the pvrdma ruleset is enabled on %s, but its rules do not open TCP %d-%d %s",
		h.Host, pvrdmaPortLo, pvrdmaPortHi, strings.Join(missing, " and ")),
		fmt.Sprintf("On %s: compare `esxcli network firewall ruleset rule list -r pvrdma` with VMware's definition (TCP %d-%d inbound and outbound); "+
			"restore the host's firewall configuration (a custom /etc/vmware/firewall/ file may override it), then esxcli network firewall refresh.",
			h.Host, pvrdmaPortLo, pvrdmaPortHi), ev...)
}
