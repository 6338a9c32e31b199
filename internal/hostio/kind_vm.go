package hostio

// Kinds of the VM-side commands (internal/catalog/specs_vm.go).
const (
	// KindHardwarePCI is `esxcli hardware pci list`: the host's PCI
	// devices, their passthrough state (GPUs for passthrough VMs).
	KindHardwarePCI Kind = "hardware_pci_list"
	// KindVMX is `cat '<Config File>'` of a PVRDMA VM's .vmx.
	KindVMX Kind = "vmx"
)
