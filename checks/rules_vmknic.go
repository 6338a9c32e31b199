package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
)

// The vmknic tagged for PVRDMA (/Net/PVRDMAVmknic): set, where it sits, its address.

var ruleVmknicUnset = &Rule{
	ID:           "PVRDMA_VMKNIC_UNSET",
	Title:        "No existing VMkernel adapter is tagged for PVRDMA",
	Severity:     Critical,
	Needs:        []collect.Kind{collect.KindPVRDMAVmknicOpt, collect.KindIPInterfaceList},
	NeedsSubject: vmknicSetting,
	Check:        checkVmknicUnset,
	Why: "PVRDMA uses the VMkernel adapter named in the advanced setting /Net/PVRDMAVmknic to reach other hosts. " +
		"When it is empty, or names a vmknic that does not exist, VMware's configuration steps are incomplete: the " +
		"PVRDMA backend has no vmknic for cross-host communication. VMware's own validation suite sets and asserts it.",
	Fix:  "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN (a vmknic on the PVRDMA vDS); or in the vSphere Client: Host > Configure > System > Advanced System Settings > Net.PVRDMAVmknic.",
	Docs: []string{docTagVmknic, docHostConfig67, docGOSValidate},
}

// vmknicSetting is the advanced setting that tags the PVRDMA vmknic.
const vmknicSetting = "/Net/PVRDMAVmknic"

func checkVmknicUnset(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	const subject = vmknicSetting
	if h.PVRDMAVmknic == nil {
		r.NotEvaluated(subject, "the /Net/PVRDMAVmknic setting was not found in the output")
		return
	}
	name, ref := hp.Tagged, hp.TaggedRef
	if name != "" && h.VmknicNamed(name) != nil {
		r.Pass(subject)
		return
	}
	use, known, why := pvrdmaInUse(h, hp)
	if !known && name == "" {
		r.NotEvaluated(subject, why)
		return
	}
	if !use && name == "" {
		r.Pass(subject) // no PVRDMA VMs: the tag is not needed yet
		return
	}
	target := ""
	if sw := hp.Switch; sw != nil {
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
	ev = append(ev, sourceEv(h, collect.KindIPInterfaceList, "no "+name+" listed")...)
	r.Fail(subject, fmt.Sprintf("/Net/PVRDMAVmknic names %s, which does not exist on %s", name, h.Host), fix, ev...)
}

var ruleVmknicNotOnDVS = &Rule{
	ID:       "PVRDMA_VMKNIC_NOT_ON_DVS",
	Title:    "The PVRDMA vmknic is not on the PVRDMA distributed switch (valid setup, for information)",
	Severity: Info,
	Needs:    []collect.Kind{collect.KindPVRDMAVmknicOpt, collect.KindIPInterfaceList, collect.KindDVSList, collect.KindRDMADeviceList},
	Check:    checkVmknicNotOnDVS,
	Why: "The vmknic tagged in /Net/PVRDMAVmknic carries PVRDMA's control data between hosts (VMware: \"PVRDMA needs " +
		"to use a VMKernel network interface (vmknic) to send and receive control data with other PVRDMA devices\"); " +
		"the RDMA data goes through the HCA, the uplink of the PVRDMA vDS. VMware's own setup guides tag vmk0, the " +
		"management vmknic on a standard switch, so a tagged vmknic off the PVRDMA vDS is a valid setup: it only needs " +
		"to reach the peers' tagged vmknics (VMKPING_UNREACHABLE checks that). pvrdma-doctor reports it as information " +
		"only, so that nobody mistakes it for the data path: its MTU does not limit RDMA frames.",
	Fix:  "Nothing is required. If you prefer to keep PVRDMA's control traffic off the management network, create a vmknic on the PVRDMA vDS and tag it: esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmkN.",
	Docs: []string{docPVRDMAHPC, docTagVmknic},
}

func checkVmknicNotOnDVS(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	name := hp.Tagged
	v := h.VmknicNamed(name)
	if v == nil {
		return // PVRDMA_VMKNIC_UNSET reports it
	}
	sw := hp.Switch
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
}

var ruleVmknicNoIPv4 = &Rule{
	ID:       "PVRDMA_VMKNIC_NO_IPV4",
	Title:    "The PVRDMA vmknic has no IPv4 address",
	Severity: Critical,
	Needs:    []collect.Kind{collect.KindPVRDMAVmknicOpt, collect.KindIPInterfaceList, collect.KindIPv4Get},
	Check:    checkVmknicNoIPv4,
	Why: "PVRDMA's cross-host channel and the RoCE GIDs of the backend are derived from the tagged vmknic's address: " +
		"a vmknic without an IPv4 address (or with 0.0.0.0) cannot reach the peers' PVRDMA vmknics, so cross-host " +
		"PVRDMA traffic fails. (VMware's documents do not say this in so many words; it follows from how PVRDMA uses the vmknic.)",
	Fix:  "esxcli network ip interface ipv4 set -i vmkN -t static -I ADDRESS -N NETMASK (an address in the PVRDMA subnet).",
	Docs: []string{docTagVmknic, docPVRDMA70},
}

func checkVmknicNoIPv4(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	name := hp.Tagged
	v := h.VmknicNamed(name)
	if v == nil {
		return // PVRDMA_VMKNIC_UNSET reports it
	}
	ip := ipv4Of(h, v.Name)
	if ip != nil && ip.Address != "" && ip.Address != "0.0.0.0" {
		r.Pass(v.Name)
		return
	}
	ev := []Evidence{Ev(h.Host, v.Ref)}
	if ip != nil {
		ev = append(ev, Ev(h.Host, ip.Ref))
	} else {
		ev = append(ev, sourceEv(h, collect.KindIPv4Get, "no IPv4 row for "+v.Name)...)
	}
	r.Fail(v.Name, fmt.Sprintf("%s, tagged for PVRDMA, has no IPv4 address", v.Name),
		fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK (an address in the PVRDMA subnet of the peers)", shellArg(v.Name, "vmkN")),
		ev...)
}
