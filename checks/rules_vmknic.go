package checks

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesVmknic are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesVmknic = []*Rule{
	{ID: "PVRDMA_VMKNIC_UNSET", Plan: planVmknicUnset, Severity: Critical, NeedsSubject: vmknicSetting, Check: checkVmknicUnset,
		Needs: []hostio.Kind{catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList}},
	{ID: "PVRDMA_VMKNIC_NOT_ON_DVS", Severity: Info, Check: checkVmknicNotOnDVS,
		Needs: []hostio.Kind{catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList, catalog.KindDVSList, catalog.KindRDMADeviceList}},
	{ID: "PVRDMA_VMKNIC_OTHER_SUBNET", Plan: planVmknicOtherSubnet, Severity: Warning, Check: checkVmknicOtherSubnet,
		Needs: []hostio.Kind{catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList, catalog.KindIPv4Get}},
	{ID: "PVRDMA_VMKNIC_NO_IPV4", Plan: planVmknicNoIPv4, Severity: Critical, Check: checkVmknicNoIPv4,
		Needs: []hostio.Kind{catalog.KindPVRDMAVmknicOpt, catalog.KindIPInterfaceList, catalog.KindIPv4Get}},
}

// The checks of this area (prose: catalogue.yaml): the vmknic tagged for PVRDMA (/Net/PVRDMAVmknic): set, where it sits, its address.

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
	if name != "" && hp.TaggedVmknic != nil {
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
	target, none := tagTarget(in.Fleet, h, hp, hp.Switch)
	fix := fmt.Sprintf("esxcli system settings advanced set -o /Net/PVRDMAVmknic -s %s", shellArg(target, "vmkN"))
	switch {
	case none != "":
		fix = capitalFirst(none) + ", so no tag is proposed: create a VMkernel adapter with an address in it (on the PVRDMA vDS), then: " + fix
	case target == "":
		fix = "Create a VMkernel adapter on the PVRDMA vDS, then: " + fix
	}
	ev := []Evidence{Ev(h.Host, ref)}
	if name == "" {
		r.Fail(subject, fmt.Sprintf("/Net/PVRDMAVmknic is empty on %s, which runs PVRDMA VMs", h.Host), fix, ev...)
		return
	}
	ev = append(ev, sourceEv(h, catalog.KindIPInterfaceList, "no "+name+" listed")...)
	r.Fail(subject, fmt.Sprintf("/Net/PVRDMAVmknic names %s, which does not exist on %s", name, h.Host), fix, ev...)
}

func checkVmknicNotOnDVS(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	v := hp.TaggedVmknic
	if v == nil {
		return // PVRDMA_VMKNIC_UNSET reports it
	}
	sw := hp.Switch
	if sw == nil || v.VDSName == sw.Name {
		r.Pass(v.Name)
		return
	}
	if _, unreached := otherSubnetOf(in); unreached {
		return // valid only while the tagged vmknics reach each other: PVRDMA_VMKNIC_OTHER_SUBNET says they do not
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

func checkVmknicNoIPv4(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	v := hp.TaggedVmknic
	if v == nil {
		return // PVRDMA_VMKNIC_UNSET reports it
	}
	if row := readinessFor(in, h.Host); row != nil && row.Judged() {
		return // a host without PVRDMA VMs: HOST_NOT_READY reports it
	}
	ip := ipv4Of(h, v.Name)
	if covered, why := h.Covers(catalog.KindIPv4Get, v.Name); ip == nil && !covered {
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
		ev = append(ev, sourceEv(h, catalog.KindIPv4Get, "no IPv4 row for "+v.Name)...)
	}
	r.Fail(v.Name, fmt.Sprintf("%s, tagged for PVRDMA, has no IPv4 address", v.Name),
		fmt.Sprintf("esxcli network ip interface ipv4 set -i %s -t static -I ADDRESS -N NETMASK (an address in the PVRDMA subnet of the peers)", shellArg(v.Name, "vmkN")),
		ev...)
}
