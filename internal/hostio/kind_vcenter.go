package hostio

// The kinds of what the vCenter source reads through the vSphere API (no
// command line is sent to a host for them; see package vcenter).
const (
	// KindVCenterVMs: the VMs of one host with a PVRDMA adapter or a PCI
	// passthrough device, as vCenter describes them.
	KindVCenterVMs Kind = "vcenter_vm_config"
	// KindVCenterHost: one host's RDMA devices, vmknics, distributed
	// switches, Net.PVRDMAVmknic and firewall rulesets, from vCenter.
	KindVCenterHost Kind = "vcenter_host_config"
)

// Transports as captures and host results name them.
const (
	TransportSSH        = "ssh"
	TransportVCenter    = "vcenter"
	TransportVSphereAPI = "vsphere-api"
)
