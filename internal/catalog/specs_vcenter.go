package catalog

import (
	"regexp"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The vCenter source's captures. Their "command lines" name what was read
// through the vSphere API (one PropertyCollector retrieval per object type
// for the whole inventory, split per host); nothing is ever sent to a host
// for them, so they are not part of the allowlist (collect.CheckAllowed
// refuses them) nor of the stage-1 plan. They are catalogue specs so that
// facts routing, bundles, `analyze` and `parse` treat them like any other
// capture.
const (
	// VCenterVMLine names the capture of a host's PVRDMA and passthrough VMs.
	VCenterVMLine = "vcenter vm config"
	// VCenterHostLine names the capture of a host's network configuration.
	VCenterHostLine = "vcenter host config"
)

// The kinds of what the vCenter source reads through the vSphere API.
const (
	// KindVCenterVMs: the VMs of one host with a PVRDMA adapter or a PCI
	// passthrough device, as vCenter describes them.
	KindVCenterVMs hostio.Kind = "vcenter_vm_config"
	// KindVCenterHost: one host's RDMA devices, vmknics, distributed
	// switches, Net.PVRDMAVmknic and firewall rulesets, from vCenter.
	KindVCenterHost hostio.Kind = "vcenter_host_config"
)

var apiSpecs = []*Spec{
	{Kind: KindVCenterVMs, Stage: 1, Line: VCenterVMLine,
		README: "per VM with a PVRDMA adapter or PCI passthrough device, `config` (adapters, hardware version, guest OS, memory reservation, extraConfig `vrdma*`/`pciPassthru*`, firmware, passthrough devices) and `runtime.host`",
		Parser: List(parse.VCenterVMConfig, (*parse.VMConfig).SetCommand, func(f *HostFacts) *[]parse.VMConfig { return &f.VMConfigs })},
	{Kind: KindVCenterHost, Stage: 1, Line: VCenterHostLine,
		README: "per host `config.network` (`rdmaDevice`, `vnic`, `proxySwitch`), `Net.PVRDMAVmknic` (its OptionManager), `config.firewall`; per vDS `config.maxMtu` and uplink names",
		Parser: One(parse.VCenterHostConfig, false, stampVCenterHost, func(f *HostFacts) **parse.VCenterHost { return &f.VCenterHost })},
}

// APISpecs returns the specs of what the vCenter source reads.
func APISpecs() []*Spec { return apiSpecs }

func init() {
	for _, s := range apiSpecs {
		if byKind[s.Kind] != nil {
			panic("catalog: duplicate kind " + string(s.Kind))
		}
		byKind[s.Kind] = s
		s.allow = regexp.MustCompile(`^` + regexp.QuoteMeta(s.Line) + `$`)
		s.file = regexp.MustCompile(`^` + regexp.QuoteMeta(FileName(s.Line)[:len(FileName(s.Line))-len(".txt")]) + `$`)
	}
}

// apiKindOf names the kind of a vCenter capture's command ("" if none).
func apiKindOf(line string) hostio.Kind {
	for _, s := range apiSpecs {
		if s.Line == line {
			return s.Kind
		}
	}
	return ""
}

func stampVCenterHost(v *parse.VCenterHost, l string) {
	v.Command = l
	v.RDMADeviceList.Command = l
	if c := v.Cluster; c != nil {
		c.Command, c.DRSRef.Command, c.HARef.Command = l, l, l
	}
	for i := range v.RDMADevices {
		v.RDMADevices[i].Command = l
	}
	for i := range v.RDMAProtocols {
		v.RDMAProtocols[i].Command = l
	}
	for i := range v.Vmknics {
		v.Vmknics[i].Command = l
		SetRecordCommand(&v.Vmknics[i].Record, l)
	}
	for i := range v.IPv4 {
		v.IPv4[i].Command = l
	}
	for i := range v.DVSwitches {
		v.DVSwitches[i].Command = l
		SetRecordCommand(&v.DVSwitches[i].Record, l)
	}
	if v.PVRDMAVmknic != nil {
		v.PVRDMAVmknic.Command = l
		SetRecordCommand(&v.PVRDMAVmknic.Record, l)
	}
	for i := range v.Rulesets {
		v.Rulesets[i].Command = l
	}
	for i := range v.PVRDMARules {
		v.PVRDMARules[i].Command = l
	}
}
