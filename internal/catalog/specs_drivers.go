package catalog

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The driver layer under the RDMA devices (issue 28): which VMkernel
// modules the host has, loaded and enabled; the VIBs that carry them
// (their versions); the parameters of the drivers of the NICs PVRDMA can
// use; the ENS state of the NICs; the pvrdma ruleset's allowed addresses;
// the CPU architecture. Formats: parse/drivers.go.
const (
	KindModuleList        hostio.Kind = "module_list"
	KindVIBList           hostio.Kind = "vib_list"
	KindFirewallAllowedIP hostio.Kind = "firewall_pvrdma_allowedip"
	KindENSList           hostio.Kind = "nic_ens_list"
	KindMachine           hostio.Kind = "cpu_arch"
	KindModuleParameters  hostio.Kind = "module_parameters"
)

// argModule is a VMkernel module name (nmlx5_core, i40en_ens): a letter,
// then letters, digits and underscores; a value from a host that is not
// one never reaches a command line.
var argModule = Arg{Placeholder: "<module>", Pattern: `[A-Za-z][A-Za-z0-9_]{0,47}`}

// reModuleName is argModule's pattern, anchored (what Instances offers).
var reModuleName = regexp.MustCompile(`^` + argModule.Pattern + `$`)

// driverSpecs are the commands of the driver layer (spec.go appends them
// to the catalogue).
var driverSpecs = []*Spec{
	{Kind: KindModuleList, Stage: 1, Line: "esxcli system module list",
		Forms:  esxcli("system module list", Option{Short: "-e", Long: "--enabled"}, Option{Short: "-l", Long: "--loaded"}),
		Parser: List(parse.ModuleList, func(v *parse.Module, l string) { v.Command = l }, func(f *HostFacts) *[]parse.Module { return &f.Modules }),
		Diff:   &DiffKey{What: "module", Key: Keyed(func(m parse.Module) string { return m.Name })}},
	{Kind: KindVIBList, Stage: 1, Line: "esxcli software vib list",
		Forms:  esxcli("software vib list"),
		Parser: List(parse.VIBList, func(v *parse.VIB, l string) { v.Command = l }, func(f *HostFacts) *[]parse.VIB { return &f.VIBs }),
		Diff:   &DiffKey{What: "VIB", Key: Keyed(func(v parse.VIB) string { return v.Name })}},
	{Kind: KindFirewallAllowedIP, Stage: 1, Line: "esxcli network firewall ruleset allowedip list -r pvrdma",
		Forms:  esxcli("network firewall ruleset allowedip list", Option{Short: "-r", Long: "--ruleset-id", Role: OptFixed, Value: "pvrdma"}),
		Parser: List(parse.AllowedIPList, func(v *parse.AllowedIPs, l string) { v.Command = l }, func(f *HostFacts) *[]parse.AllowedIPs { return &f.AllowedIPs }),
		Diff:   &DiffKey{What: "allowed IPs of", Key: Keyed(func(a parse.AllowedIPs) string { return a.Ruleset })}},
	{Kind: KindENSList, Stage: 1, Line: "esxcfg-nics -e",
		Forms:  []Form{{Tool: "esxcfg-nics", Words: "-e"}},
		Parser: List(parse.ENSList, func(v *parse.ENSNIC, l string) { v.Command = l }, func(f *HostFacts) *[]parse.ENSNIC { return &f.ENS }),
		Diff:   &DiffKey{What: "ENS of", Key: Keyed(func(e parse.ENSNIC) string { return e.Name })}},
	{Kind: KindMachine, Stage: 1, Line: "uname -m",
		Forms:  []Form{{Tool: "uname", Words: "-m"}},
		Parser: One(parse.UnameMachine, true, func(v *parse.Machine, l string) { v.Command = l }, func(f *HostFacts) **parse.Machine { return &f.Machine }),
		Diff:   &DiffKey{Key: Constant("CPU architecture")}},
	{Kind: KindModuleParameters, Stage: 2, Line: "esxcli system module parameters list -m <module>",
		Args: []Arg{argModule}, Refuse: "refusing module name %q: expected letters, digits and underscores",
		From: FromFacts, Instances: driverModules, InstancesRead: []hostio.Kind{KindDVSList, KindRDMADeviceList, KindNICList, KindModuleList},
		Absent: moduleAbsent,
		Noun:   "driver module parameters", Example: []string{"nmlx5_core"},
		When:   "for the driver of each uplink of a vDS or RDMA device, each RDMA device's driver and the LAN driver of each NIC that can carry RoCE (those `esxcli system module list` lists)",
		Forms:  esxcli("system module parameters list", Option{Short: "-m", Long: "--module", Role: OptArg}),
		Parser: List(parse.ModuleParams, stampModuleParam, func(f *HostFacts) *[]parse.ModuleParam { return &f.ModuleParams }),
		Diff: &DiffKey{What: "module parameter", Key: Keyed(func(p parse.ModuleParam) string {
			return p.Module + " " + p.Name
		}), Skip: []string{"Type"}}},
}

var reModuleArg = regexp.MustCompile(`-m\s+([A-Za-z][A-Za-z0-9_]*)`)

func stampModuleParam(v *parse.ModuleParam, l string) {
	v.Command = l
	fromLine(&v.Module, reModuleArg, l)
}

// driverModules are the modules whose parameters PVRDMA depends on: the
// LAN driver of every uplink of a distributed switch or paired with an
// RDMA device, and the driver of every RDMA device; those the module list
// lists when it was read (an unlisted module has no parameters to read);
// and the LAN driver of every NIC that can carry RoCE (roceLANDrivers).
// Sorted, each once; a name that is no module name is left out.
func driverModules(f *HostFacts) [][]string {
	nics := map[string]bool{}
	for _, d := range f.DVSwitches {
		for _, u := range d.Uplinks {
			nics[u] = true
		}
	}
	var mods []string
	for _, d := range f.RDMADevices {
		nics[d.PairedUplink] = true
		mods = append(mods, d.Driver)
	}
	for _, n := range f.NICs {
		if nics[n.Name] || slices.Contains(roceLANDrivers, n.Driver) {
			mods = append(mods, n.Driver)
		}
	}
	listed := map[string]bool{}
	for _, m := range f.Modules {
		listed[m.Name] = true
	}
	slices.Sort(mods)
	mods = slices.Compact(mods)
	var out [][]string
	for _, m := range mods {
		if reModuleName.MatchString(m) && (len(f.Modules) == 0 || listed[m]) {
			out = append(out, []string{m})
		}
	}
	return out
}

// flowUplinks are the NICs whose running flow control (DCB, PFC) a fix
// plan reads before it proposes any: each uplink paired with an RDMA
// device, and each vDS uplink whose NIC can carry RoCE (the port a plan
// may turn RDMA on for has no RDMA device yet), in name order.
func flowUplinks(f *HostFacts) [][]string {
	nics := map[string]bool{}
	for _, d := range f.RDMADevices {
		if reVmnicName.MatchString(d.PairedUplink) {
			nics[d.PairedUplink] = true
		}
	}
	onDVS := map[string]bool{}
	for _, d := range f.DVSwitches {
		for _, u := range d.Uplinks {
			onDVS[u] = true
		}
	}
	for _, n := range f.NICs {
		if onDVS[n.Name] && slices.Contains(roceLANDrivers, n.Driver) && reVmnicName.MatchString(n.Name) {
			nics[n.Name] = true
		}
	}
	names := make([]string, 0, len(nics))
	for n := range nics {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([][]string, len(names))
	for i, n := range names {
		out[i] = []string{n}
	}
	return out
}

// reVmnicName is an uplink name a command line may carry.
var reVmnicName = regexp.MustCompile(`^vmnic[0-9]+$`)

// roceLANDrivers are the LAN drivers of NICs that can carry RoCE
// (internal/facts/nicfamily.go): their parameters can switch RoCE off
// below the RDMA driver (icen's RDMA, a bnxtnet RoCE switch), so they are
// read wherever such a NIC is, on a vDS or not (the remedy of a host
// without an RDMA device may pick it).
var roceLANDrivers = []string{"nmlx5_core", "nmlx4_en", "icen", "bnxtnet", "qedentv", "nenic"}

// moduleAbsent recognizes esxcli's answer for a module the host does not
// have ("Unable to find module ...", "Module ... not found").
func moduleAbsent(_ int, stdout, stderr string) bool {
	s := strings.ToLower(stdout + " " + stderr)
	return strings.Contains(s, "unable to find module") || strings.Contains(s, "module") && strings.Contains(s, "not found")
}
