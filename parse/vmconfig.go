package parse

// VMConfig is one VM's configuration as the checks read it, the same model
// from either source: its .vmx file read over SSH (Source "vmx", built from
// a VMXConfig) or vCenter's VirtualMachine config read through the vSphere
// API (Source "vcenter"). A field a source does not carry stays zero and
// its *Set flag false, so rules can tell "absent" from "false" and say
// which source they read; where two sources disagree the rule says so.
type VMConfig struct {
	// Source is "vmx" or "vcenter".
	Source string `json:"source"`
	// Name is the display name (displayName / config.name).
	Name string `json:"name"`
	// UUID is the BIOS UUID (uuid.bios / config.uuid), the key that joins
	// a VM's sources with each other and with `esxcli vm process list`.
	UUID string `json:"uuid,omitempty"`
	// InstanceUUID is vc.uuid / config.instanceUuid.
	InstanceUUID string `json:"instance_uuid,omitempty"`
	// ConfigFile is the datastore path of the .vmx.
	ConfigFile string `json:"config_file,omitempty"`
	// HWVersion is virtualHW.version / config.version ("vmx-19" -> 19).
	HWVersion int `json:"hw_version,omitempty"`
	// GuestOS is guestOS / config.guestId as the source writes it
	// ("ubuntu-64", "ubuntu64Guest").
	GuestOS string `json:"guest_os,omitempty"`
	// Firmware is "efi" or "bios" (a .vmx without the key is BIOS).
	Firmware string `json:"firmware,omitempty"`
	// MemoryMB is memSize / config.hardware.memoryMB.
	MemoryMB int64 `json:"memory_mb,omitempty"`
	// MemReservationMB is sched.mem.min / config.memoryAllocation.reservation.
	MemReservationMB  int64 `json:"mem_reservation_mb,omitempty"`
	MemReservationSet bool  `json:"mem_reservation_set,omitempty"`
	// MemLockedToMax is sched.mem.pin / config.memoryReservationLockedToMax
	// ("Reserve all guest memory (All locked)").
	MemLockedToMax    bool `json:"mem_locked_to_max,omitempty"`
	MemLockedToMaxSet bool `json:"mem_locked_to_max_set,omitempty"`
	// Adapters are the VM's network adapters (PVRDMA and others).
	Adapters []VMAdapter `json:"adapters,omitempty"`
	// Passthrough are the PCI passthrough devices (GPUs and others).
	Passthrough []PassthroughDevice `json:"passthrough,omitempty"`
	// Extra holds the advanced keys the checks read (vrdma*, pciPassthru*),
	// as written.
	Extra map[string]string `json:"extra,omitempty"`
	// Refs point at where each value was read, by field name
	// ("HWVersion", "MemReservationMB") or Extra key as written; a rule
	// cites them as evidence. A source without lines leaves them out.
	Refs map[string]Ref `json:"refs,omitempty"`
	// PowerState is runtime.powerState (vCenter only: "poweredOn", ...).
	PowerState string `json:"power_state,omitempty"`
	// Guest is the guest's network identity from VMware Tools (vCenter
	// only; nil when vCenter reports none).
	Guest *VMGuest `json:"guest,omitempty"`
	Ref
}

// VMGuest is what VMware Tools reports of a guest (guest.hostName,
// guest.ipAddress, guest.toolsRunningStatus, guest.net). The values come
// from inside the VM: untrusted, never dialled or quoted unvalidated.
type VMGuest struct {
	HostName           string       `json:"host_name,omitempty"`
	IPAddress          string       `json:"ip_address,omitempty"`
	ToolsRunningStatus string       `json:"tools_running_status,omitempty"`
	NICs               []VMGuestNIC `json:"nics,omitempty"`
}

// VMGuestNIC is one guest NIC: its MAC (lower case; the MAC of one of
// the VM's adapters), its addresses and port group.
type VMGuestNIC struct {
	MAC          string   `json:"mac,omitempty"`
	IPs          []string `json:"ips,omitempty"`
	Connected    bool     `json:"connected,omitempty"`
	ConnectedSet bool     `json:"connected_set,omitempty"`
	Network      string   `json:"network,omitempty"`
}

// VMAdapter is one virtual network adapter of a VM.
type VMAdapter struct {
	// Label names the adapter as its source does ("ethernet1",
	// "Network adapter 2").
	Label string `json:"label"`
	// Type is the virtual device: "vrdma" (VirtualVmxnet3Vrdma),
	// "vmxnet3", "e1000e", ...
	Type string `json:"type"`
	// Device is the adapter's name in govc commands (vCenter only: the
	// device list's name, "ethernet-0"); "" when no source gives it.
	Device string `json:"device,omitempty"`
	MAC    string `json:"mac,omitempty"`
	// Connected is the runtime state (vCenter only); StartConnected is
	// "connect at power on".
	Connected         bool `json:"connected,omitempty"`
	ConnectedSet      bool `json:"connected_set,omitempty"`
	StartConnected    bool `json:"start_connected,omitempty"`
	StartConnectedSet bool `json:"start_connected_set,omitempty"`
	// Network is the port group name; DVSUUID and PortgroupKey the
	// distributed port backing (empty on a standard switch port group).
	Network      string `json:"network,omitempty"`
	DVSUUID      string `json:"dvs_uuid,omitempty"`
	DVSName      string `json:"dvs_name,omitempty"`
	PortgroupKey string `json:"portgroup_key,omitempty"`
	// DeviceProtocol is "rocev1" or "rocev2" for PVRDMA adapters ("" when
	// the source does not say).
	DeviceProtocol string `json:"device_protocol,omitempty"`
	// Refs point at where each value was read, by field name
	// ("StartConnected", "Network", "DVSUUID").
	Refs map[string]Ref `json:"refs,omitempty"`
	Ref
}

// PassthroughDevice is one PCI passthrough device of a VM.
type PassthroughDevice struct {
	// Label names it as its source does ("pciPassthru0", "PCI device 0").
	Label string `json:"label"`
	// ID is the host PCI address ("0000:3b:00.0").
	ID       string `json:"id,omitempty"`
	VendorID string `json:"vendor_id,omitempty"`
	DeviceID string `json:"device_id,omitempty"`
	Ref
}
