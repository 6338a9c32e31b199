package checks

// Sources the rules cite (Rule.Docs).
const (
	docPVRDMASupport = "https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-networking/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html"
	docPVRDMAHPC     = "VMware, \"VMware Paravirtual RDMA for High Performance Computing: PVRDMA Setup and Performance Study\" (November 2021), section Troubleshooting"
	docRDMAOverview  = "https://docs.vmware.com/en/VMware-vSphere/6.5/com.vmware.vsphere.networking.doc/GUID-9AADBB49-876E-4E44-8149-D0523D8ADA6A.html"
	docLinuxIBAddr   = "https://github.com/torvalds/linux/blob/master/include/rdma/ib_addr.h (iboe_get_mtu: RoCE MTU from the netdev MTU)"
	docRoCENetwork   = "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.networking.doc/GUID-4A5EBD44-FB1E-4A83-BB47-BBC65181E1C2.html (Network Requirements for RDMA over Converged Ethernet)"
)

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

// catalogueList is every rule of the catalogue, by area (rules_AREA.go).
var catalogueList = []*Rule{
	// rules_version.go
	ruleESXiVersionUnsupported,
	// rules_rdma.go
	ruleNoRDMADevice,
	ruleRDMADeviceDown,
	ruleRoCENotSupported,
	// rules_vmknic.go
	ruleVmknicUnset,
	ruleVmknicNotOnDVS,
	ruleVmknicNoIPv4,
	// rules_firewall.go
	ruleFirewallClosed,
	// rules_switch.go
	ruleRDMAUplinkNotOnDVS,
	ruleDVSMultipleUplinks,
	// rules_mtu.go
	ruleLowMTU,
	ruleActiveMTUAbovePath,
	ruleMTUMismatch,
	// rules_lossless.go
	rulePFCDisabled,
	ruleRDMAErrors,
	// rules_probe.go
	ruleVmkpingUnreachable,
	// rules_adapter.go
	rulePhysicalHCAUnavailable,
	ruleTCPFallback,
	ruleRoCEVersionMismatch,
	// rules_collection.go
	ruleCollectionFailed,
}
