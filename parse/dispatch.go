package parse

import (
	"fmt"
	"strings"
)

// command is one entry of the dispatch table.
type command struct {
	usage string
	match func(words []string) bool
	parse func(text string) (any, error)
}

// adapt turns a typed parser into a dispatch function. With a
// *PartialError the facts that could be read are returned with it.
func adapt[T any](p func(string) (T, error)) func(string) (any, error) {
	return func(text string) (any, error) {
		v, err := p(text)
		if _, partial := Skipped(err); err != nil && !partial {
			return nil, err
		}
		return v, err
	}
}

// esxcli matches "esxcli <ns...>" followed by options only.
func esxcli(ns string) func([]string) bool {
	want := strings.Fields(ns)
	return func(w []string) bool {
		if len(w) < len(want)+1 || (w[0] != "esxcli" && w[0] != "localcli") {
			return false
		}
		for i, x := range want {
			if w[i+1] != x {
				return false
			}
		}
		rest := w[len(want)+1:]
		return len(rest) == 0 || strings.HasPrefix(rest[0], "-")
	}
}

var commands = []command{
	{"esxcli system version get", esxcli("system version get"), adapt(SystemVersionGet)},
	{"esxcli rdma device list", esxcli("rdma device list"), adapt(RDMADeviceList)},
	{"esxcli rdma device protocol list", esxcli("rdma device protocol list"), adapt(RDMAProtocolList)},
	{"esxcli rdma device vmknic list", esxcli("rdma device vmknic list"), adapt(RDMAVmknicList)},
	{"esxcli rdma device stats get -d vmrdmaN", esxcli("rdma device stats get"), adapt(RDMAStatsGet)},
	{"esxcli vm process list", esxcli("vm process list"), adapt(VMProcessList)},
	{"vsish -e ls DIR", vsish("ls"), adapt(VsishLs)},
	{"vsish -e cat /vmkModules/vrdma/pvrdmaDevices/<wid>_<idx>/properties", vsish("cat"), adapt(PVRDMAProperties)},
	{"vsish -e get /vmkModules/vrdma/pvrdmaDevices/<wid>_<idx>/properties", vsish("get"), adapt(PVRDMAProperties)},
	{"esxcli network ip interface list", esxcli("network ip interface list"), adapt(IPInterfaceList)},
	{"esxcli network ip interface ipv4 get", esxcli("network ip interface ipv4 get"), adapt(IPv4Get)},
	{"esxcli network nic list", esxcli("network nic list"), adapt(NICList)},
	{"esxcfg-nics -l", legacy("esxcfg-nics"), adapt(NICList)},
	{"esxcfg-vmknic -l", legacy("esxcfg-vmknic"), adapt(IPInterfaceList)},
	{"esxcfg-vswitch -l", legacy("esxcfg-vswitch"), adapt(StandardSwitchList)},
	{"esxcli network nic get -n vmnicN", esxcli("network nic get"), adapt(NICGet)},
	{"esxcli network nic dcb status get -n vmnicN", esxcli("network nic dcb status get"), adapt(DCBStatusGet)},
	{"esxcli network vswitch dvs vmware list", esxcli("network vswitch dvs vmware list"), adapt(DVSList)},
	{"esxcli network vswitch standard list", esxcli("network vswitch standard list"), adapt(StandardSwitchList)},
	{"esxcli network vswitch standard portgroup list", esxcli("network vswitch standard portgroup list"), adapt(PortgroupList)},
	{"esxcli system settings advanced list -o PATH", esxcli("system settings advanced list"), adapt(AdvancedSettingList)},
	{"esxcli network firewall ruleset list", esxcli("network firewall ruleset list"), adapt(FirewallRulesetList)},
	{"esxcli network firewall get", esxcli("network firewall get"), adapt(FirewallGet)},
	{"esxcli network firewall ruleset rule list -r NAME", esxcli("network firewall ruleset rule list"), adapt(FirewallRuleList)},
	{"esxcli hardware pci list", esxcli("hardware pci list"), adapt(HardwarePCIList)},
	{"vmkping [options] ADDRESS", func(w []string) bool { return w[0] == "vmkping" || w[0] == "ping" }, adapt(Vmkping)},
	{"cat FILE.vmx", func(w []string) bool {
		return w[0] == "cat" && len(w) == 2 && strings.HasSuffix(strings.ToLower(strings.Trim(w[1], `"'`)), ".vmx")
	}, adapt(VMX)},
}

// legacy matches "TOOL -l".
func legacy(tool string) func([]string) bool {
	return func(w []string) bool { return w[0] == tool && len(w) == 2 && w[1] == "-l" }
}

// vsish matches "vsish -e OP PATH" (for cat: a PVRDMA properties node).
func vsish(op string) func([]string) bool {
	return func(w []string) bool {
		if len(w) != 4 || w[0] != "vsish" || w[1] != "-e" || w[2] != op {
			return false
		}
		if op == "cat" || op == "get" {
			return strings.Contains(w[3], "/pvrdmaDevices/") && strings.HasSuffix(strings.TrimSuffix(w[3], "/"), "/properties")
		}
		return true
	}
}

// UnknownCommandError is returned by Parse for a command line no parser
// handles.
type UnknownCommandError struct {
	Command string
}

func (e *UnknownCommandError) Error() string {
	return fmt.Sprintf("no parser for command %q; supported commands:\n  %s", e.Command, strings.Join(SupportedCommands(), "\n  "))
}

// SupportedCommands lists the command lines Parse understands, in usage
// form (placeholders in capitals).
func SupportedCommands() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.usage
	}
	return out
}

// commandWords normalises a command line as typed on ESXi: a leading
// prompt, extra spaces, esxcli's global options (--formatter=xml,
// --formatter keyvalue, --debug, ...) and a trailing pipe are dropped.
func commandWords(line string) []string {
	line = strings.TrimSpace(line)
	if p, ok := parsePrompt(line); ok {
		line = p.Command
	}
	if i := strings.IndexByte(line, '|'); i >= 0 {
		line = line[:i]
	}
	w := strings.Fields(line)
	if len(w) == 0 || (w[0] != "esxcli" && w[0] != "localcli") {
		return w
	}
	out := []string{w[0]}
	i := 1
	for i < len(w) && strings.HasPrefix(w[i], "--") {
		if !strings.Contains(w[i], "=") && (w[i] == "--formatter" || w[i] == "--server" || w[i] == "--username") && i+1 < len(w) {
			i++
		}
		i++
	}
	return append(out, w[i:]...)
}

// Parse parses text as the output of commandLine, choosing the parser
// from the command as typed on ESXi. The result is the parser's typed
// value (e.g. []RDMADevice). An unknown command is an
// *UnknownCommandError; output that cannot be parsed is an *Error.
func Parse(commandLine, text string) (any, error) {
	w := commandWords(commandLine)
	if len(w) > 0 {
		for _, c := range commands {
			if c.match(w) {
				return c.parse(text)
			}
		}
	}
	return nil, &UnknownCommandError{Command: strings.TrimSpace(commandLine)}
}
