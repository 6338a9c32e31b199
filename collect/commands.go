package collect

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

// Command is one validated, allowlisted command line.
type Command struct {
	Kind  hostio.Kind `json:"kind"`
	Line  string      `json:"command"`
	Stage int         `json:"stage"`
}

// PVRDMADevicesDir is where vsish lists the PVRDMA backends of running VMs.
const PVRDMADevicesDir = "/vmkModules/vrdma/pvrdmaDevices/"

var stage1 = []Command{
	{hostio.KindSystemVersion, "esxcli system version get", 1},
	{hostio.KindRDMADeviceList, "esxcli rdma device list", 1},
	{hostio.KindRDMAProtocolList, "esxcli rdma device protocol list", 1},
	{hostio.KindRDMAVmknicList, "esxcli rdma device vmknic list", 1},
	{hostio.KindVMProcessList, "esxcli vm process list", 1},
	{hostio.KindPVRDMADeviceLs, "vsish -e ls " + PVRDMADevicesDir, 1},
	{hostio.KindIPInterfaceList, "esxcli network ip interface list", 1},
	{hostio.KindIPv4Get, "esxcli network ip interface ipv4 get", 1},
	{hostio.KindNICList, "esxcli network nic list", 1},
	{hostio.KindDVSList, "esxcli network vswitch dvs vmware list", 1},
	{hostio.KindStandardSwitchList, "esxcli network vswitch standard list", 1},
	{hostio.KindPVRDMAVmknicOpt, "esxcli system settings advanced list -o /Net/PVRDMAVmknic", 1},
	{hostio.KindFirewallRulesets, "esxcli network firewall ruleset list", 1},
	{hostio.KindFirewallRules, "esxcli network firewall ruleset rule list -r pvrdma", 1},
	{hostio.KindFirewallGlobal, "esxcli network firewall get", 1},
}

// Stage1 returns the fixed commands every host runs first.
func Stage1() []Command { return append([]Command(nil), stage1...) }

var (
	reDigits   = regexp.MustCompile(`^[0-9]{1,12}$`)
	reRDMADev  = regexp.MustCompile(`^vmrdma[0-9]{1,4}$`)
	reVmnic    = regexp.MustCompile(`^vmnic[0-9]{1,4}$`)
	reVmknic   = regexp.MustCompile(`^vmk[0-9]{1,4}$`)
	reNetstack = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
)

// PVRDMAProperties reads the backend properties of a VM's PVRDMA adapter.
func PVRDMAProperties(worldID, index string) (Command, error) {
	if !reDigits.MatchString(worldID) || !reDigits.MatchString(index) {
		return Command{}, fmt.Errorf("refusing PVRDMA device %q_%q: world ID and index must be digits", worldID, index)
	}
	return Command{hostio.KindPVRDMAProperties, "vsish -e cat " + PVRDMADevicesDir + worldID + "_" + index + "/properties", 2}, nil
}

// RDMAStats reads the counters of one RDMA device.
func RDMAStats(device string) (Command, error) {
	if !reRDMADev.MatchString(device) {
		return Command{}, fmt.Errorf("refusing RDMA device name %q: expected vmrdmaN", device)
	}
	return Command{hostio.KindRDMAStats, "esxcli rdma device stats get -d " + device, 2}, nil
}

// NICGet reads the details (driver, pause parameters) of one uplink.
func NICGet(vmnic string) (Command, error) {
	if !reVmnic.MatchString(vmnic) {
		return Command{}, fmt.Errorf("refusing uplink name %q: expected vmnicN", vmnic)
	}
	return Command{hostio.KindNICGet, "esxcli network nic get -n " + vmnic, 2}, nil
}

// DCBStatus reads the DCB/PFC state of one uplink.
func DCBStatus(vmnic string) (Command, error) {
	if !reVmnic.MatchString(vmnic) {
		return Command{}, fmt.Errorf("refusing uplink name %q: expected vmnicN", vmnic)
	}
	return Command{hostio.KindDCBStatus, "esxcli network nic dcb status get -n " + vmnic, 2}, nil
}

// Vmkping probes the path from a vmknic to a peer address with the
// don't-fragment bit set and the given ICMP payload size.
func Vmkping(vmknic string, netstack string, peer string, payload int) (Command, error) {
	if !reVmknic.MatchString(vmknic) {
		return Command{}, fmt.Errorf("refusing vmknic %q: expected vmkN", vmknic)
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil || !addr.Is4() {
		return Command{}, fmt.Errorf("refusing peer address %q: expected an IPv4 address", peer)
	}
	if payload < 1 || payload > 8972 {
		return Command{}, fmt.Errorf("refusing payload %d: expected 1..8972", payload)
	}
	line := "vmkping -I " + vmknic
	if netstack != "" && netstack != "defaultTcpipStack" {
		if !reNetstack.MatchString(netstack) {
			return Command{}, fmt.Errorf("refusing netstack %q", netstack)
		}
		line += " -S " + netstack
	}
	line += " -c 3 -d -s " + strconv.Itoa(payload) + " " + addr.String()
	return Command{hostio.KindVmkping, line, 3}, nil
}

// allowed is the allowlist: a command line is sent only if it matches one of
// these patterns exactly. It is checked again at send time by every transport.
var allowed = func() []*regexp.Regexp {
	var res []*regexp.Regexp
	for _, c := range stage1 {
		res = append(res, regexp.MustCompile(`^`+regexp.QuoteMeta(c.Line)+`$`))
	}
	for _, p := range []string{
		`^vsish -e cat /vmkModules/vrdma/pvrdmaDevices/[0-9]{1,12}_[0-9]{1,12}/properties$`,
		`^esxcli rdma device stats get -d vmrdma[0-9]{1,4}$`,
		`^esxcli network nic get -n vmnic[0-9]{1,4}$`,
		`^esxcli network nic dcb status get -n vmnic[0-9]{1,4}$`,
		`^vmkping -I vmk[0-9]{1,4}( -S [A-Za-z][A-Za-z0-9_-]{0,63})? -c 3 -d -s [0-9]{1,4} [0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$`,
	} {
		res = append(res, regexp.MustCompile(p))
	}
	return res
}()

// ErrNotAllowed is returned for any command line outside the allowlist.
type ErrNotAllowed struct{ Line string }

func (e *ErrNotAllowed) Error() string {
	return fmt.Sprintf("command %q is not on the read-only allowlist; refusing to send it", e.Line)
}

// CheckAllowed returns an error unless line is exactly an allowlisted command.
func CheckAllowed(line string) error {
	if strings.ContainsAny(line, "\n\r\x00;|&$`<>\\'\"(){}*?!#~") {
		return &ErrNotAllowed{line}
	}
	for _, re := range allowed {
		if re.MatchString(line) {
			return nil
		}
	}
	return &ErrNotAllowed{line}
}

// KindOf returns the kind of an allowlisted command line, or "" if unknown.
func KindOf(line string) hostio.Kind {
	line = strings.TrimSpace(line)
	for _, c := range stage1 {
		if c.Line == line {
			return c.Kind
		}
	}
	switch {
	case strings.HasPrefix(line, "vsish -e cat "+PVRDMADevicesDir) && strings.HasSuffix(line, "/properties"):
		return hostio.KindPVRDMAProperties
	case strings.HasPrefix(line, "esxcli rdma device stats get"):
		return hostio.KindRDMAStats
	case strings.HasPrefix(line, "esxcli network nic dcb status get"):
		return hostio.KindDCBStatus
	case strings.HasPrefix(line, "esxcli network nic get"):
		return hostio.KindNICGet
	case strings.HasPrefix(line, "vmkping") || strings.HasPrefix(line, "ping "):
		return hostio.KindVmkping
	}
	return ""
}

var reFileUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileName is the file a command's output is stored under, in scenarios,
// saved-output folders and bundles: the command line with every run of
// characters other than letters, digits, '.', '_' and '-' replaced by '_',
// plus ".txt". "esxcli rdma device list" -> "esxcli_rdma_device_list.txt".
func FileName(line string) string {
	return strings.Trim(reFileUnsafe.ReplaceAllString(strings.TrimSpace(line), "_"), "_") + ".txt"
}
