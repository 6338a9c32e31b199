// Package parse turns raw ESXi command output into typed facts. Every
// function here is pure: text in, facts out, no I/O.
package parse

// Ref points at the evidence of a fact: the command whose output it came
// from, the 1-based line in that output, and the text of that line.
// Parsers set Line and Text; Build sets Command.
type Ref struct {
	Command string `json:"command,omitempty"`
	Line    int    `json:"line,omitempty"`
	Text    string `json:"text,omitempty"`
	// Property is, for a fact read from vCenter (a JSON document, one
	// object a line), the property path and value the fact is
	// ("config.memoryAllocation.reservation = 0"): what the evidence
	// shows of the line.
	Property string `json:"property,omitempty"`
}

// Field is one value of a key/value record with where it was read.
type Field struct {
	Value string `json:"value"`
	Ref
}

// Record is a key/value structure (esxcli record, vsish block) with the
// position of every key, so a rule can point at the exact line it read.
// Its fields are kept in the order they were read, in one slice (record.go:
// Field, Get, RefOf, Keys, All, Set): a fleet holds hundreds of thousands
// of them, mostly of a few fields each, and a map per record cost several
// times the fields themselves. Every field was read from the record's own
// command (Ref.Command), which is not repeated per field.
type Record struct {
	// Title is the record's title line (VM display name, vmk1, switch name), if any.
	Title  string
	fields []recField
	// props are the fields' vCenter property paths (Ref.Property) by key:
	// nil but for records read from vCenter, so the others pay nothing.
	props map[string]string
	// at indexes fields by key once a record has many (indexed): nil for
	// the small records most outputs hold, so they pay nothing.
	at map[string]int
	// Nested holds nested structures by parent key (e.g. "Driver Info", "DVPort").
	Nested map[string][]Record
	Ref
}

// SystemVersion is `esxcli system version get`.
type SystemVersion struct {
	Product string `json:"product"`
	Version string `json:"version"` // "6.7.0", "8.0.3"
	Build   string `json:"build"`
	Update  string `json:"update"`
	Patch   string `json:"patch"`
	Ref
}

// RDMADevice is a row of `esxcli rdma device list`.
type RDMADevice struct {
	Name         string `json:"name"`
	Driver       string `json:"driver"`
	State        string `json:"state"` // "Active", "Down", ...
	MTU          int    `json:"mtu"`   // RDMA MTU, 256..4096; 0 if unknown
	Speed        string `json:"speed"` // as printed, e.g. "100 Gbps"
	SpeedMbps    int    `json:"speed_mbps"`
	PairedUplink string `json:"paired_uplink"`
	Description  string `json:"description"`
	Ref
}

// RDMAProtocol is a row of `esxcli rdma device protocol list`.
type RDMAProtocol struct {
	Device string `json:"device"`
	RoCEv1 bool   `json:"roce_v1"`
	RoCEv2 bool   `json:"roce_v2"`
	IWARP  bool   `json:"iwarp"`
	Ref
}

// RDMAVmknic is a row of `esxcli rdma device vmknic list`.
type RDMAVmknic struct {
	Device   string `json:"device"`
	Vmknic   string `json:"vmknic"`
	NetStack string `json:"netstack"`
	Ref
}

// RDMAStats is `esxcli rdma device stats get -d vmrdmaN`: every counter by
// its printed key ("Packets received", "Error packets received", ...).
type RDMAStats struct {
	Device   string           `json:"device"`
	Counters map[string]int64 `json:"counters"`
	Record   Record           `json:"record"`
}

// VMProcess is one VM of `esxcli vm process list`.
type VMProcess struct {
	// DisplayName is the "Display Name:" value.
	DisplayName string `json:"display_name"`
	// Title is the record's title line, which can differ from the display
	// name (seen on ESXi 6.0: title "DC", Display Name "Camp-DC").
	Title      string `json:"title,omitempty"`
	WorldID    string `json:"world_id"`
	ProcessID  string `json:"process_id"`
	CartelID   string `json:"vmx_cartel_id"`
	UUID       string `json:"uuid"`
	ConfigFile string `json:"config_file"`
	// ConfigFileLine is the line of the text the Config File was read
	// from (0: none): the path as the host wrote it, byte for byte, is
	// there (ConfigFile went through what copying normalises: a no-break
	// space read as a space), for whoever sends it back to the host.
	ConfigFileLine int `json:"-"`
	Ref
}

// VsishEntry is one line of a `vsish -e ls` listing.
type VsishEntry struct {
	Name  string `json:"name"` // without the trailing "/"
	IsDir bool   `json:"is_dir"`
	Ref
}

// PVRDMADevice is the `PVRDMA Device Properties { ... }` block of
// vsish /vmkModules/vrdma/pvrdmaDevices/<wid>_<idx>/properties.
type PVRDMADevice struct {
	WorldID string `json:"world_id"` // from the path (Build) or "VMM leader ID of VM"
	Index   string `json:"index"`
	VMName  string `json:"vm_name,omitempty"` // joined from vm process list by Build
	MAC     string `json:"mac"`
	// PhysicalHCA is "Physical HCA available": 1 = backed by the RNIC.
	PhysicalHCA int `json:"physical_hca_available"`
	RoCEVersion int `json:"roce_version"`
	ActiveMTU   int `json:"active_mtu"`
	// Props holds every key of the block as printed, with its line.
	Props Record `json:"props"`
	Ref
}

// Vmknic is one interface of `esxcli network ip interface list`.
type Vmknic struct {
	Name      string `json:"name"`
	MAC       string `json:"mac"`
	Enabled   bool   `json:"enabled"`
	Portset   string `json:"portset"`
	Portgroup string `json:"portgroup"`
	Netstack  string `json:"netstack"`
	VDSName   string `json:"vds_name"` // "" when N/A
	VDSPort   string `json:"vds_port"`
	MTU       int    `json:"mtu"`
	Record    Record `json:"record"`
	Ref
}

// IPv4Interface is a row of `esxcli network ip interface ipv4 get`.
type IPv4Interface struct {
	Name        string `json:"name"`
	Address     string `json:"address"`
	Netmask     string `json:"netmask"`
	Broadcast   string `json:"broadcast"`
	AddressType string `json:"address_type"`
	Gateway     string `json:"gateway"`
	DHCPDNS     bool   `json:"dhcp_dns"`
	Ref
}

// NIC is a row of `esxcli network nic list`.
type NIC struct {
	Name        string `json:"name"`
	PCIDevice   string `json:"pci_device"`
	Driver      string `json:"driver"`
	AdminStatus string `json:"admin_status"`
	LinkStatus  string `json:"link_status"`
	SpeedMbps   int    `json:"speed_mbps"`
	Duplex      string `json:"duplex"`
	MAC         string `json:"mac"`
	MTU         int    `json:"mtu"`
	Description string `json:"description"`
	Ref
}

// NICDetail is `esxcli network nic get -n vmnicN`.
type NICDetail struct {
	Name            string `json:"name"`
	Driver          string `json:"driver"`
	DriverVersion   string `json:"driver_version"`
	FirmwareVersion string `json:"firmware_version"`
	LinkStatus      string `json:"link_status"`
	PauseRX         bool   `json:"pause_rx"`
	PauseTX         bool   `json:"pause_tx"`
	Record          Record `json:"record"`
	Ref
}

// DCBStatus is `esxcli network nic dcb status get -n vmnicN`.
type DCBStatus struct {
	Nic        string `json:"nic"`
	DCBEnabled bool   `json:"dcb_enabled"`
	// PFCEnabled reports whether PFC is operationally enabled.
	PFCEnabled bool `json:"pfc_enabled"`
	// PFCPriorities lists the priorities (0..7) with PFC enabled.
	PFCPriorities []int  `json:"pfc_priorities"`
	Record        Record `json:"record"`
	Ref
}

// DVSwitch is one switch of `esxcli network vswitch dvs vmware list`.
type DVSwitch struct {
	Name    string   `json:"name"`
	VDSID   string   `json:"vds_id"`
	MTU     int      `json:"mtu"`
	Uplinks []string `json:"uplinks"`
	Record  Record   `json:"record"`
	Ref
}

// StandardSwitch is one switch of `esxcli network vswitch standard list`.
type StandardSwitch struct {
	Name       string   `json:"name"`
	MTU        int      `json:"mtu"`
	Uplinks    []string `json:"uplinks"`
	Portgroups []string `json:"portgroups"`
	Record     Record   `json:"record"`
	Ref
}

// Portgroup is a row of `esxcli network vswitch standard portgroup list`.
type Portgroup struct {
	Name          string `json:"name"`
	VSwitch       string `json:"vswitch"`
	ActiveClients int    `json:"active_clients"`
	VLAN          int    `json:"vlan_id"`
	Ref
}

// AdvancedSetting is `esxcli system settings advanced list -o PATH`.
type AdvancedSetting struct {
	Path        string `json:"path"`
	Type        string `json:"type"`
	IntValue    int    `json:"int_value"`
	StringValue string `json:"string_value"`
	Record      Record `json:"record"`
	Ref
}

// FirewallRuleset is a row of `esxcli network firewall ruleset list`.
type FirewallRuleset struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Ref
}

// FirewallGlobal is `esxcli network firewall get`: the host firewall's
// global state. With Enabled false no ruleset filters anything.
type FirewallGlobal struct {
	Enabled       bool   `json:"enabled"`
	Loaded        bool   `json:"loaded"`
	DefaultAction string `json:"default_action"` // DROP or PASS
	Record        Record `json:"record"`
	Ref
}

// FirewallRule is a row of `esxcli network firewall ruleset rule list -r NAME`.
type FirewallRule struct {
	Ruleset   string `json:"ruleset"`
	Direction string `json:"direction"`
	Protocol  string `json:"protocol"`
	PortType  string `json:"port_type"`
	PortBegin int    `json:"port_begin"`
	PortEnd   int    `json:"port_end"`
	Ref
}

// Ping is the result of one vmkping run.
type Ping struct {
	Target         string  `json:"target"`
	Payload        int     `json:"payload"`
	Transmitted    int     `json:"transmitted"`
	Received       int     `json:"received"`
	LossPercent    float64 `json:"loss_percent"`
	MessageTooLong bool    `json:"message_too_long"` // "sendto() failed (Message too long)"
	HasStats       bool    `json:"has_stats"`
	AvgMs          float64 `json:"avg_ms"`
	// MinMs and MaxMs are the round-trip line's minimum and maximum.
	MinMs float64 `json:"min_ms,omitempty"`
	MaxMs float64 `json:"max_ms,omitempty"`
	// Failures are the error lines printed instead of replies
	// ("sendto() failed (...)", "Request timeout for icmp_seq 1").
	Failures []string `json:"failures,omitempty"`
	// FailureRef is where the first of them was printed.
	FailureRef Ref `json:"failure_ref,omitzero"`
	// Round is the round of the path MTU search this one-packet try was
	// sent in (from its capture, not its output; 0: the configured-size
	// probe, or a search that did not record rounds).
	Round int `json:"round,omitempty"`
	Ref
}

// PCIDevice is one device of `esxcli hardware pci list`.
type PCIDevice struct {
	Address         string `json:"address"`
	VMkernelName    string `json:"vmkernel_name"`
	VendorName      string `json:"vendor_name"`
	DeviceName      string `json:"device_name"`
	VendorID        string `json:"vendor_id"`
	DeviceID        string `json:"device_id"`
	DeviceClassName string `json:"device_class_name"`
	ConfiguredOwner string `json:"configured_owner"`
	CurrentOwner    string `json:"current_owner"`
	ModuleName      string `json:"module_name"`
	PassthruCapable bool   `json:"passthru_capable"`
	SlotDescription string `json:"slot_description"`
	Record          Record `json:"record"`
	Ref
}
