package hostio

// Kind identifies what a command is, independent of its arguments.
type Kind string

// The catalogue of every command pvrdma-doctor may ever send to a host.
// Stage 1 commands are fixed; stage 2 commands take arguments learned from
// stage 1 (validated); stage 3 probes take peer addresses (validated).
const (
	KindSystemVersion      Kind = "system_version"
	KindRDMADeviceList     Kind = "rdma_device_list"
	KindRDMAProtocolList   Kind = "rdma_protocol_list"
	KindRDMAVmknicList     Kind = "rdma_vmknic_list"
	KindRDMAStats          Kind = "rdma_stats"
	KindVMProcessList      Kind = "vm_process_list"
	KindPVRDMADeviceLs     Kind = "pvrdma_device_ls"
	KindPVRDMAProperties   Kind = "pvrdma_properties"
	KindIPInterfaceList    Kind = "ip_interface_list"
	KindIPv4Get            Kind = "ip_interface_ipv4"
	KindNICList            Kind = "nic_list"
	KindNICGet             Kind = "nic_get"
	KindDCBStatus          Kind = "nic_dcb_status"
	KindDVSList            Kind = "dvs_list"
	KindStandardSwitchList Kind = "vswitch_standard_list"
	KindPVRDMAVmknicOpt    Kind = "pvrdma_vmknic_setting"
	KindFirewallRulesets   Kind = "firewall_ruleset_list"
	KindFirewallRules      Kind = "firewall_pvrdma_rules"
	KindFirewallGlobal     Kind = "firewall_global"
	KindVmkping            Kind = "vmkping"
)

// Command is one validated, allowlisted command line.
type Command struct {
	Kind  Kind   `json:"kind"`
	Line  string `json:"command"`
	Stage int    `json:"stage"`
}
