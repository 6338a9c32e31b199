package catalog

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The kinds of the ESXi commands, one per spec below (the VM side's are
// in specs_vm.go, vCenter's in specs_vcenter.go, the guests' in
// specs_guest.go). Stage 1 commands are fixed; stage 2 commands take
// arguments learned from stage 1 (validated); stage 3 probes take peer
// addresses (validated).
const (
	KindSystemVersion      hostio.Kind = "system_version"
	KindRDMADeviceList     hostio.Kind = "rdma_device_list"
	KindRDMAProtocolList   hostio.Kind = "rdma_protocol_list"
	KindRDMAVmknicList     hostio.Kind = "rdma_vmknic_list"
	KindRDMAStats          hostio.Kind = "rdma_stats"
	KindVMProcessList      hostio.Kind = "vm_process_list"
	KindPVRDMADeviceLs     hostio.Kind = "pvrdma_device_ls"
	KindPVRDMAProperties   hostio.Kind = "pvrdma_properties"
	KindIPInterfaceList    hostio.Kind = "ip_interface_list"
	KindIPv4Get            hostio.Kind = "ip_interface_ipv4"
	KindNICList            hostio.Kind = "nic_list"
	KindNICGet             hostio.Kind = "nic_get"
	KindNICStats           hostio.Kind = "nic_stats"
	KindDCBStatus          hostio.Kind = "nic_dcb_status"
	KindDVSList            hostio.Kind = "dvs_list"
	KindStandardSwitchList hostio.Kind = "vswitch_standard_list"
	KindPVRDMAVmknicOpt    hostio.Kind = "pvrdma_vmknic_setting"
	KindFirewallRulesets   hostio.Kind = "firewall_ruleset_list"
	KindFirewallRules      hostio.Kind = "firewall_pvrdma_rules"
	KindFirewallGlobal     hostio.Kind = "firewall_global"
	KindVmkping            hostio.Kind = "vmkping"
)

// HostFacts are the facts the ESXi catalogue's commands give, one field
// per fact a spec fills (its Parser: List, One or Each, with the field):
// a list is appended to, a single fact replaced. facts.Host embeds it
// (the JSON keeps its fields flat); a new fact is `omitempty` so that
// reports without it stay the same.
type HostFacts struct {
	Version          *parse.SystemVersion    `json:"version,omitempty"`
	RDMADevices      []parse.RDMADevice      `json:"rdma_devices"`
	RDMAProtocols    []parse.RDMAProtocol    `json:"rdma_protocols"`
	RDMAVmknics      []parse.RDMAVmknic      `json:"rdma_vmknics"`
	RDMAStats        []parse.RDMAStats       `json:"rdma_stats"`
	VMs              []parse.VMProcess       `json:"vms"`
	PVRDMAListing    []parse.VsishEntry      `json:"pvrdma_listing"`
	PVRDMADevices    []parse.PVRDMADevice    `json:"pvrdma_devices"`
	Vmknics          []parse.Vmknic          `json:"vmknics"`
	IPv4             []parse.IPv4Interface   `json:"ipv4"`
	NICs             []parse.NIC             `json:"nics"`
	NICDetails       []parse.NICDetail       `json:"nic_details"`
	DCB              []parse.DCBStatus       `json:"dcb"`
	NICStats         []parse.NICStats        `json:"nic_stats,omitempty"`
	DVSwitches       []parse.DVSwitch        `json:"dv_switches"`
	StandardSwitches []parse.StandardSwitch  `json:"standard_switches"`
	PVRDMAVmknic     *parse.AdvancedSetting  `json:"pvrdma_vmknic,omitempty"`
	Rulesets         []parse.FirewallRuleset `json:"firewall_rulesets"`
	PVRDMARules      []parse.FirewallRule    `json:"pvrdma_rules"`
	Firewall         *parse.FirewallGlobal   `json:"firewall,omitempty"`
	Pings            []parse.Ping            `json:"pings"`
	// VMConfigs are the PVRDMA VMs' configurations, from every source that
	// gave one (.vmx over SSH, vCenter); each entry says its Source.
	VMConfigs []parse.VMConfig `json:"vm_configs,omitempty"`
	// VCenterHost is the host's configuration read from vCenter (`scan
	// --vcenter`); its facts fill the kinds SSH gave none of (see
	// fillFromVCenter).
	VCenterHost *parse.VCenterHost `json:"vcenter_host,omitempty"`
	// PCIDevices are the host's PCI devices (`esxcli hardware pci list`):
	// passthrough state and names of the GPUs VMs use.
	PCIDevices []parse.PCIDevice `json:"pci_devices,omitempty"`
	// The driver layer (specs_drivers.go): VMkernel modules, the VIBs
	// that carry them, the parameters of the NIC and RDMA drivers, the
	// ENS state of the NICs, the pvrdma ruleset's allowed addresses, the
	// CPU architecture.
	Modules      []parse.Module      `json:"modules,omitempty"`
	VIBs         []parse.VIB         `json:"vibs,omitempty"`
	ModuleParams []parse.ModuleParam `json:"module_params,omitempty"`
	ENS          []parse.ENSNIC      `json:"ens,omitempty"`
	AllowedIPs   []parse.AllowedIPs  `json:"allowed_ips,omitempty"`
	Machine      *parse.Machine      `json:"machine,omitempty"`
}

// Argument shapes: every value learned from a host is one of these before
// it reaches a command line.
var (
	argWorldID = Arg{Placeholder: "<worldID>", Pattern: `[0-9]{1,12}`}
	argIndex   = Arg{Placeholder: "<index>", Pattern: `[0-9]{1,12}`}
	argRDMADev = Arg{Placeholder: "<vmrdmaN>", Pattern: `vmrdma[0-9]{1,4}`}
	argVmnic   = Arg{Placeholder: "<vmnicN>", Pattern: `vmnic[0-9]{1,4}`}
)

// Options shared by several commands.
var (
	optDevice    = Option{Short: "-d", Long: "--device"}
	optInterface = Option{Short: "-i", Long: "--interface-name"}
	optNetstack  = Option{Short: "-N", Long: "--netstack"}
	optRuleset   = Option{Short: "-r", Long: "--ruleset-id"}
	optDeviceArg = Option{Short: "-d", Long: "--device", Role: OptArg}
	optNicArg    = Option{Short: "-n", Long: "--nic-name", Role: OptArg}
)

func esxcli(words string, opts ...Option) []Form {
	return []Form{{Tool: "esxcli", Words: words, Opts: opts}}
}

func cmdOnly(v *parse.Ref, line string) { v.Command = line }

var (
	reDeviceArg = regexp.MustCompile(`-d\s+(vmrdma[0-9]+)`)
	reNicArg    = regexp.MustCompile(`-n\s+(vmnic[0-9]+)`)
	// rePVRDMAPath takes the world ID and adapter index from the command
	// path, which is authoritative over the block's own keys.
	rePVRDMAPath = regexp.MustCompile(`/pvrdmaDevices/([0-9]+)_([0-9]+)/properties\s*$`)
)

// specs is the catalogue. Stage 1 runs in this order; stage 2 commands run
// in this order of kinds (collect plans them).
var specs = []*Spec{
	{Kind: KindSystemVersion, Stage: 1, Line: "esxcli system version get",
		Forms:  esxcli("system version get"),
		Parser: One(parse.SystemVersionGet, false, func(v *parse.SystemVersion, l string) { v.Command = l }, func(f *HostFacts) **parse.SystemVersion { return &f.Version }),
		Diff:   &DiffKey{Key: Constant("ESXi"), Skip: []string{"Product"}}},
	{Kind: KindRDMADeviceList, Stage: 1, Line: "esxcli rdma device list",
		Forms:  esxcli("rdma device list"),
		Parser: List(parse.RDMADeviceList, func(v *parse.RDMADevice, l string) { v.Command = l }, func(f *HostFacts) *[]parse.RDMADevice { return &f.RDMADevices }),
		Diff:   &DiffKey{Key: Keyed(func(r parse.RDMADevice) string { return r.Name })}},
	{Kind: KindRDMAProtocolList, Stage: 1, Line: "esxcli rdma device protocol list",
		Forms:  esxcli("rdma device protocol list", optDevice),
		Parser: List(parse.RDMAProtocolList, func(v *parse.RDMAProtocol, l string) { v.Command = l }, func(f *HostFacts) *[]parse.RDMAProtocol { return &f.RDMAProtocols }),
		Diff:   &DiffKey{What: "protocols of", Key: Keyed(func(r parse.RDMAProtocol) string { return r.Device })}},
	{Kind: KindRDMAVmknicList, Stage: 1, Line: "esxcli rdma device vmknic list",
		Forms:  esxcli("rdma device vmknic list", optDevice),
		Parser: List(parse.RDMAVmknicList, func(v *parse.RDMAVmknic, l string) { v.Command = l }, func(f *HostFacts) *[]parse.RDMAVmknic { return &f.RDMAVmknics }),
		Diff:   &DiffKey{What: "RDMA binding of", Key: Keyed(func(r parse.RDMAVmknic) string { return r.Device })}},
	{Kind: KindVMProcessList, Stage: 1, Line: "esxcli vm process list",
		Forms:  esxcli("vm process list"),
		Parser: List(parse.VMProcessList, func(v *parse.VMProcess, l string) { v.Command = l }, func(f *HostFacts) *[]parse.VMProcess { return &f.VMs }),
		Diff:   &DiffKey{What: "VM", Key: Keyed(func(v parse.VMProcess) string { return v.DisplayName }), Skip: []string{"WorldID", "ProcessID", "CartelID"}}},
	{Kind: KindPVRDMADeviceLs, Stage: 1, Line: "vsish -e ls " + PVRDMADevicesDir,
		Parser: List(parse.VsishLs, func(v *parse.VsishEntry, l string) { v.Command = l }, func(f *HostFacts) *[]parse.VsishEntry { return &f.PVRDMAListing })},
	{Kind: KindIPInterfaceList, Stage: 1, Line: "esxcli network ip interface list",
		Forms: append(esxcli("network ip interface list", optInterface, optNetstack),
			Form{Tool: "esxcfg-vmknic", Words: "-l", Also: []hostio.Kind{KindIPv4Get}}),
		Parser: List(parse.IPInterfaceList, func(v *parse.Vmknic, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) *[]parse.Vmknic { return &f.Vmknics }),
		Diff:   &DiffKey{Key: Keyed(func(v parse.Vmknic) string { return v.Name })}},
	{Kind: KindIPv4Get, Stage: 1, Line: "esxcli network ip interface ipv4 get",
		Forms:  esxcli("network ip interface ipv4 get", optInterface, optNetstack),
		Parser: List(parse.IPv4Get, func(v *parse.IPv4Interface, l string) { v.Command = l }, func(f *HostFacts) *[]parse.IPv4Interface { return &f.IPv4 }),
		Diff:   &DiffKey{Key: Keyed(func(i parse.IPv4Interface) string { return i.Name })}},
	{Kind: KindNICList, Stage: 1, Line: "esxcli network nic list",
		Forms:  append(esxcli("network nic list"), Form{Tool: "esxcfg-nics", Words: "-l"}),
		Parser: List(parse.NICList, func(v *parse.NIC, l string) { v.Command = l }, func(f *HostFacts) *[]parse.NIC { return &f.NICs }),
		Diff:   &DiffKey{Key: Keyed(func(n parse.NIC) string { return n.Name })}},
	{Kind: KindDVSList, Stage: 1, Line: "esxcli network vswitch dvs vmware list",
		Forms:  esxcli("network vswitch dvs vmware list", Option{Short: "-v", Long: "--vds-name"}),
		Parser: List(parse.DVSList, func(v *parse.DVSwitch, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) *[]parse.DVSwitch { return &f.DVSwitches }),
		Diff:   &DiffKey{What: "DVS", Key: Keyed(func(d parse.DVSwitch) string { return d.Name })}},
	{Kind: KindStandardSwitchList, Stage: 1, Line: "esxcli network vswitch standard list",
		Forms: append(esxcli("network vswitch standard list", Option{Short: "-v", Long: "--vswitch-name"}),
			Form{Tool: "esxcfg-vswitch", Words: "-l", Also: []hostio.Kind{KindDVSList}}),
		Parser: List(parse.StandardSwitchList, func(v *parse.StandardSwitch, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) *[]parse.StandardSwitch { return &f.StandardSwitches }),
		Diff:   &DiffKey{What: "vSwitch", Key: Keyed(func(s parse.StandardSwitch) string { return s.Name })}},
	{Kind: KindPVRDMAVmknicOpt, Stage: 1, Line: "esxcli system settings advanced list -o /Net/PVRDMAVmknic",
		Forms:  esxcli("system settings advanced list", Option{Short: "-o", Long: "--option", Role: OptFixed, Value: "/Net/PVRDMAVmknic", Fold: true}),
		Parser: One(parse.AdvancedSettingList, false, func(v *parse.AdvancedSetting, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) **parse.AdvancedSetting { return &f.PVRDMAVmknic }),
		Diff:   &DiffKey{Key: Keyed(func(a parse.AdvancedSetting) string { return a.Path }), Skip: []string{"Path", "Type"}}},
	{Kind: KindFirewallRulesets, Stage: 1, Line: "esxcli network firewall ruleset list",
		Forms:  esxcli("network firewall ruleset list", optRuleset),
		Parser: List(parse.FirewallRulesetList, func(v *parse.FirewallRuleset, l string) { v.Command = l }, func(f *HostFacts) *[]parse.FirewallRuleset { return &f.Rulesets }),
		Diff:   &DiffKey{What: "firewall ruleset", Key: Keyed(func(f parse.FirewallRuleset) string { return f.Name })}},
	{Kind: KindFirewallRules, Stage: 1, Line: "esxcli network firewall ruleset rule list -r pvrdma",
		Forms:  esxcli("network firewall ruleset rule list", Option{Short: "-r", Long: "--ruleset-id", Role: OptFixed, Value: "pvrdma"}),
		Parser: List(parse.FirewallRuleList, func(v *parse.FirewallRule, l string) { cmdOnly(&v.Ref, l) }, func(f *HostFacts) *[]parse.FirewallRule { return &f.PVRDMARules }),
		Diff: &DiffKey{What: "firewall rule", Key: Keyed(func(r parse.FirewallRule) string {
			return fmt.Sprintf("%s %s %s %d-%d", r.Ruleset, r.Direction, r.Protocol, r.PortBegin, r.PortEnd)
		})}},
	{Kind: KindFirewallGlobal, Stage: 1, Line: "esxcli network firewall get",
		Forms:  esxcli("network firewall get"),
		Parser: One(parse.FirewallGet, true, func(v *parse.FirewallGlobal, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) **parse.FirewallGlobal { return &f.Firewall })},

	{Kind: KindPVRDMAProperties, Stage: 2, Line: "vsish -e cat " + PVRDMADevicesDir + "<worldID>_<index>/properties",
		Args: []Arg{argWorldID, argIndex}, Refuse: "refusing PVRDMA device %q_%q: world ID and index must be digits",
		From: FromPVRDMABackends, Noun: "PVRDMA device properties", Example: []string{"1001474360", "0"},
		When:   "for each PVRDMA adapter listed by `vsish -e ls " + PVRDMADevicesDir + "` (<worldID>, <index>: digits)",
		Parser: Each(parse.PVRDMAProperties, stampPVRDMA, func(f *HostFacts) *[]parse.PVRDMADevice { return &f.PVRDMADevices }),
		Diff: &DiffKey{What: "VM", Key: Keyed(func(d parse.PVRDMADevice) string {
			name := d.VMName
			if name == "" {
				name = "world " + d.WorldID
			}
			return name + " adapter " + d.Index
		}), Skip: []string{"WorldID", "VMName", "Index"}}},
	{Kind: KindRDMAStats, Stage: 2, Line: "esxcli rdma device stats get -d <vmrdmaN>",
		Args: []Arg{argRDMADev}, Refuse: "refusing RDMA device name %q: expected vmrdmaN",
		From: FromRDMADevices, Noun: "RDMA device counters", Example: []string{"vmrdma0"},
		When:   "for each RDMA device listed by `esxcli rdma device list`",
		Forms:  esxcli("rdma device stats get", optDeviceArg),
		Parser: Each(parse.RDMAStatsGet, stampRDMAStats, func(f *HostFacts) *[]parse.RDMAStats { return &f.RDMAStats })},
	{Kind: KindNICGet, Stage: 2, Line: "esxcli network nic get -n <vmnicN>",
		Args: []Arg{argVmnic}, Refuse: "refusing uplink name %q: expected vmnicN",
		From: FromFacts, Instances: flowUplinks, InstancesRead: []hostio.Kind{KindRDMADeviceList, KindDVSList, KindNICList},
		Noun: "uplink details", Example: []string{"vmnic4"},
		When:   "for each uplink paired with an RDMA device and each vDS uplink whose NIC can carry RoCE (its pause parameters, read before a plan touches flow control)",
		Forms:  esxcli("network nic get", optNicArg),
		Parser: Each(parse.NICGet, func(v *parse.NICDetail, l string) { v.Command = l; SetRecordCommand(&v.Record, l) }, func(f *HostFacts) *[]parse.NICDetail { return &f.NICDetails }),
		Diff:   &DiffKey{Key: Keyed(func(n parse.NICDetail) string { return n.Name })}},
	{Kind: KindDCBStatus, Stage: 2, Line: "esxcli network nic dcb status get -n <vmnicN>",
		Args: []Arg{argVmnic}, Refuse: "refusing uplink name %q: expected vmnicN",
		From: FromFacts, Instances: flowUplinks, InstancesRead: []hostio.Kind{KindRDMADeviceList, KindDVSList, KindNICList},
		Noun: "uplink DCB states", Example: []string{"vmnic4"},
		When:   "for each uplink paired with an RDMA device and each vDS uplink whose NIC can carry RoCE (the flow control a fix plan must read before touching it)",
		Forms:  esxcli("network nic dcb status get", optNicArg),
		Parser: Each(parse.DCBStatusGet, stampDCB, func(f *HostFacts) *[]parse.DCBStatus { return &f.DCB }),
		Diff:   &DiffKey{What: "DCB of", Key: Keyed(func(d parse.DCBStatus) string { return d.Nic })}},

	{Kind: KindNICStats, Stage: 2, Line: "esxcli network nic stats get -n <vmnicN>",
		Args: []Arg{argVmnic}, Refuse: "refusing uplink name %q: expected vmnicN",
		From: FromRDMAUplinks, Noun: "uplink counters", Example: []string{"vmnic4"},
		When:   "for each uplink paired with an RDMA device",
		Forms:  esxcli("network nic stats get", optNicArg),
		Parser: Each(parse.NICStatsGet, stampNICStats, func(f *HostFacts) *[]parse.NICStats { return &f.NICStats }),
		// Traffic grows between any two scans; drops and errors are what
		// a diff should show.
		Diff: &DiffKey{What: "counters of", Key: Keyed(func(n parse.NICStats) string { return n.Nic }),
			Skip: []string{"PacketsReceived", "PacketsSent", "BytesReceived", "BytesSent"}}},
	{Kind: KindVmkping, Stage: 3, Line: "vmkping -I <vmkN> -c <count> [-i <interval>] [-W <wait>] -d -s <payload> <peer>",
		From:     FromPeers,
		Template: "vmkping -I <vmkN> [-S <netstack>] -c <1|3> [-i 0.2] [-W 1] -d -s <payload 1..8972> <peer IPv4>",
		When:     "from the PVRDMA vmknic to the PVRDMA vmknic of peers (--probes ring|all; the size search adds -c 1 tries)",
		Example:  []string{"vmk1", "", "3", "0.2", "1", "8972", "192.168.50.12"},
		Allow:    `vmkping -I (vmk[0-9]{1,4})(?: -S ([A-Za-z][A-Za-z0-9_-]{0,63}))? -c ([1-9]|10)(?: -i (0\.[0-9]{1,3}|1))?(?: -W ([1-9]))? -d -s ([0-9]{1,4}) ([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})`,
		File:     `vmkping_-I_(vmk[0-9]{1,4})(?:_-S_([A-Za-z][A-Za-z0-9_-]{0,63}))?_-c_([1-9]|10)(?:_-i_(0\.[0-9]{1,3}|1))?(?:_-W_([1-9]))?_-d_-s_([0-9]{1,4})_([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})`,
		Build:    buildVmkping,
		Valid:    validProbeLine,
		Prefixes: []string{"vmkping", "ping "},
		README: "`vmkping -I vmkN [-S netstack] -c 3 -i 0.2 -W 1 -d -s <MTU-28> <peer>` from each host's PVRDMA vmknic to its peers' (the next three in name order, or every peer with `--probes all`); " +
			"when that size is lost, a search for the largest payload that passes: at most " + strconv.Itoa(MaxSearchRounds) + " rounds of `-c 1 -W 1` tries sent together (at most " + strconv.Itoa(MaxRoundTries) + " in all; a round waits once, at most 1 s)",
		Parser: Each(parse.Vmkping, func(v *parse.Ping, l string) { v.Command = l }, func(f *HostFacts) *[]parse.Ping { return &f.Pings }),
		Diff:   &DiffKey{Key: Keyed(func(p parse.Ping) string { return p.Command }), Skip: []string{"AvgMs", "MinMs", "MaxMs"}}},
}

// parseOnlySpecs are outputs that `pvrdma-doctor parse` reads but no scan
// runs: they have no kind and no fact, and are never allowlisted.
var parseOnlySpecs = []*Spec{
	{Line: "esxcli network vswitch standard portgroup list",
		Forms:  esxcli("network vswitch standard portgroup list", Option{Short: "-v", Long: "--vswitch-name"}),
		Parser: Output(parse.PortgroupList)},
}

func stampPVRDMA(v *parse.PVRDMADevice, l string) {
	v.Command = l
	SetRecordCommand(&v.Props, l)
	if m := rePVRDMAPath.FindStringSubmatch(l); m != nil {
		v.WorldID, v.Index = m[1], m[2]
	}
}

func stampRDMAStats(v *parse.RDMAStats, l string) {
	SetRecordCommand(&v.Record, l)
	fromLine(&v.Device, reDeviceArg, l)
}

func stampNICStats(v *parse.NICStats, l string) {
	SetRecordCommand(&v.Record, l)
	fromLine(&v.Nic, reNicArg, l)
}

func stampDCB(v *parse.DCBStatus, l string) {
	v.Command = l
	SetRecordCommand(&v.Record, l)
	fromLine(&v.Nic, reNicArg, l)
}

// fromLine sets an empty name from the command line's argument (the
// output does not always repeat the device or uplink it is about).
func fromLine(dst *string, re *regexp.Regexp, line string) {
	if *dst != "" {
		return
	}
	if m := re.FindStringSubmatch(line); m != nil {
		*dst = m[1]
	}
}

var (
	reVmknic   = regexp.MustCompile(`^vmk[0-9]{1,4}$`)
	reNetstack = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
)

// MaxSearchTries bounds the one-packet tries of a path MTU search after
// the configured size was lost (collect.SearchPathMTU): the standard
// 1472-byte payload, then a binary search of the rest (ceil(log2(8972-1472))
// = 13), or of 1..1471.
const MaxSearchTries = 14

// MaxSearchRounds bounds the rounds of the path MTU search the collector
// runs (collect.SearchRounds: concurrent one-packet tries, smallest first;
// each round waits at most once for a lost reply), and MaxRoundTries its
// tries to one peer: 20 evenly spaced sizes a round (21^3 >= the 8917
// payloads from 56 to 8972), plus, in round 1, 56, 1472 and 1473 and two
// hints with the size above each.
const (
	MaxSearchRounds  = 3
	SearchRoundSizes = 20
	MaxRoundTries    = MaxSearchRounds*SearchRoundSizes + 3 + 2*2
)

// buildVmkping builds a path probe from, in order: vmknic, netstack (""
// or defaultTcpipStack: none), packet count (1..10; "" = 3), interval
// ("" = vmkping's default of 1 s, else 0.001..1 s), reply wait ("" = none,
// else 1..9 s), ICMP payload size, peer IPv4 address (the order of the
// line and of its stored file name's groups). The legacy form of four
// arguments (vmknic, netstack, payload, peer) is `-c 3` without -i and -W.
func buildVmkping(args ...string) (hostio.Command, error) {
	if len(args) == 4 {
		args = []string{args[0], args[1], "3", "", "", args[2], args[3]}
	}
	if len(args) != 7 {
		return hostio.Command{}, fmt.Errorf("vmkping takes 7 arguments, got %d", len(args))
	}
	vmknic, netstack, count, interval, wait, peer := args[0], args[1], args[2], args[3], args[4], args[6]
	payload, err := strconv.Atoi(args[5])
	if !reVmknic.MatchString(vmknic) {
		return hostio.Command{}, fmt.Errorf("refusing vmknic %q: expected vmkN", vmknic)
	}
	addr, perr := netip.ParseAddr(peer)
	if perr != nil || !addr.Is4() {
		return hostio.Command{}, fmt.Errorf("refusing peer address %q: expected an IPv4 address", peer)
	}
	if err := ProbeTarget(addr); err != nil {
		return hostio.Command{}, fmt.Errorf("refusing peer address %s: %v", addr, err)
	}
	if err != nil || payload < 1 || payload > 8972 {
		return hostio.Command{}, fmt.Errorf("refusing payload %s: expected 1..8972", args[5])
	}
	if count == "" {
		count = "3"
	}
	if n, err := strconv.Atoi(count); err != nil || n < 1 || n > 10 || strconv.Itoa(n) != count {
		return hostio.Command{}, fmt.Errorf("refusing packet count %q: expected 1..10", count)
	}
	if interval != "" && !reInterval.MatchString(interval) {
		return hostio.Command{}, fmt.Errorf("refusing interval %q: expected 0.001..0.999 or 1 (seconds)", interval)
	}
	if wait != "" && !reWait.MatchString(wait) {
		return hostio.Command{}, fmt.Errorf("refusing reply wait %q: expected 1..9 (seconds)", wait)
	}
	line := "vmkping -I " + vmknic
	if netstack != "" && netstack != "defaultTcpipStack" {
		if !reNetstack.MatchString(netstack) {
			return hostio.Command{}, fmt.Errorf("refusing netstack %q", netstack)
		}
		line += " -S " + netstack
	}
	line += " -c " + count
	if interval != "" {
		line += " -i " + interval
	}
	if wait != "" {
		line += " -W " + wait
	}
	line += " -d -s " + strconv.Itoa(payload) + " " + addr.String()
	return hostio.Command{Kind: KindVmkping, Line: line, Stage: 3}, nil
}

// validProbeLine checks the peer of an allowlisted vmkping line (group 7
// of its Allow pattern): the allowlist refuses what the constructor does.
func validProbeLine(m []string) bool {
	a, err := netip.ParseAddr(m[7])
	return err == nil && ProbeTarget(a) == nil
}

// ProbeTarget says why an address is no vmkping target (nil when it is
// one): a probe goes to one unicast address of another host, never to a
// broadcast or multicast group (every host of a network would answer),
// the probing host itself (loopback, 0.0.0.0/8 "this network") or a
// link-local address (any host of the link may hold it). A hostile host
// names its own address: it must not make its peers flood or probe
// themselves.
func ProbeTarget(a netip.Addr) error {
	a = a.Unmap()
	b := a.As4()
	switch {
	case !a.Is4():
		return fmt.Errorf("not an IPv4 address")
	case a.IsLoopback():
		return fmt.Errorf("a loopback address")
	case a.IsLinkLocalUnicast():
		return fmt.Errorf("a link-local address")
	case a.IsMulticast():
		return fmt.Errorf("a multicast address")
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return fmt.Errorf("the broadcast address")
	case b[0] == 0:
		return fmt.Errorf("an address of \"this network\" (0.0.0.0/8)")
	}
	return nil
}

var (
	reInterval = regexp.MustCompile(`^(0\.[0-9]{1,3}|1)$`)
	reWait     = regexp.MustCompile(`^[1-9]$`)
)
