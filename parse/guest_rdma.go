package parse

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Parsers of the guest's RDMA tools: ibv_devinfo [-v], ibv_devices,
// rdma link show, and the sysfs files of /sys/class/infiniband.

var (
	reHCAID     = regexp.MustCompile(`^hca_id:\s*(\S+)$`)
	rePortHead  = regexp.MustCompile(`^port:\s*([0-9]+)$`)
	reGIDLine   = regexp.MustCompile(`^GID\[\s*([0-9]+)\]:\s*([0-9a-fA-F:.]+)\s*(?:,\s*(.+?))?\s*$`)
	reDevKV     = regexp.MustCompile(`^([a-z_][a-z0-9_ ]*?):\s*(.*)$`)
	reEnumValue = regexp.MustCompile(`^([A-Za-z_0-9.]+(?: [A-Za-z_0-9.]+)*)\s*\(([0-9]+)\)$`)
)

// guestLine strips what copies into documents add around a tool's line:
// a mail/GitHub quote ("> "), markdown bold and code marks.
func guestLine(s string) string {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "> ")
	t = strings.Trim(t, "`*")
	return strings.TrimSpace(t)
}

// IBVDevinfo parses `ibv_devinfo` and `ibv_devinfo -v`: one IBDevice per
// hca_id block with its ports (state, MTUs, link layer, phys_state and,
// with -v, the GID table). The capability lines of -v are read past.
// libibverbs warnings and "No IB devices found" give no device.
func IBVDevinfo(text string) ([]IBDevice, error) {
	if isIBStat(text) {
		return IBStat(text)
	}
	var sk skips
	var out []IBDevice
	n := 0
	var dev *IBDevice
	var port *IBPort
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		if t == "" || t == "Device ports:" {
			continue
		}
		if m := reHCAID.FindStringSubmatch(t); m != nil {
			out = append(out, IBDevice{Name: m[1], Ref: l.ref()})
			dev, port = &out[len(out)-1], nil
			n++
			continue
		}
		if strings.HasPrefix(t, "libibverbs: ") || t == "No IB devices found" {
			continue
		}
		if m := rePortHead.FindStringSubmatch(t); m != nil {
			if dev == nil {
				// A port section copied without its device's header.
				sk.add(l.ref(), nil, "port section without its hca_id line")
				out = append(out, IBDevice{Ref: l.ref()})
				dev = &out[len(out)-1]
			}
			p, _ := strconv.Atoi(m[1])
			dev.Ports = append(dev.Ports, IBPort{Port: p, Ref: l.ref()})
			port = &dev.Ports[len(dev.Ports)-1]
			n++
			continue
		}
		if dev == nil {
			sk.add(l.ref(), nil, "line before the first hca_id")
			continue
		}
		if m := reGIDLine.FindStringSubmatch(t); m != nil && port != nil {
			idx, _ := strconv.Atoi(m[1])
			port.GIDs = append(port.GIDs, IBGID{Index: idx, GID: normalizeGID(m[2]), Type: m[3], Ref: l.ref()})
			n++
			continue
		}
		m := reDevKV.FindStringSubmatch(t)
		if m == nil {
			continue // capability flags and free-text lines of -v
		}
		key, val := m[1], strings.TrimSpace(m[2])
		n++
		if port != nil {
			switch key {
			case "state":
				port.State, port.StateNum = enumValue(val)
				port.StateRef = l.ref()
			case "max_mtu":
				port.MaxMTU, _ = strconv.Atoi(firstWord(val))
			case "active_mtu":
				port.ActiveMTU, _ = strconv.Atoi(firstWord(val))
				port.MTURef = l.ref()
			case "link_layer":
				port.LinkLayer = val
			case "phys_state":
				port.PhysState, _ = enumValue(val)
			}
			continue
		}
		switch key {
		case "transport":
			dev.Transport, _ = enumValue(val)
		case "fw_ver":
			dev.FWVer = val
		case "node_guid":
			dev.NodeGUID = val
		case "vendor_id":
			dev.VendorID = val
		case "vendor_part_id":
			dev.VendorPartID = val
		case "phys_port_cnt":
			dev.PhysPortCnt, _ = strconv.Atoi(val)
		}
	}
	return result(out, n, sk)
}

// enumValue splits "PORT_ACTIVE (4)" into its name and number.
func enumValue(v string) (string, int) {
	if m := reEnumValue.FindStringSubmatch(v); m != nil {
		n, _ := strconv.Atoi(m[2])
		return m[1], n
	}
	return v, 0
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return w
}

// normalizeGID writes a GID as sysfs does (8 groups of 4 lowercase hex
// digits), whatever form it was printed in (inet_ntop "::ffff:10.0.0.1",
// "fe80::1"); text that is not an IPv6-shaped GID is kept as printed.
func normalizeGID(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() && !a.Is4In6() {
		if err == nil && a.Is4() {
			a = netip.AddrFrom16(a.As16())
		} else {
			return strings.ToLower(s)
		}
	}
	b := a.As16()
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(b[i])>>4, 16))
		sb.WriteString(strconv.FormatUint(uint64(b[i])&15, 16))
		sb.WriteString(strconv.FormatUint(uint64(b[i+1])>>4, 16))
		sb.WriteString(strconv.FormatUint(uint64(b[i+1])&15, 16))
	}
	return sb.String()
}

// GIDIPv4 returns the IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d).
func GIDIPv4(gid string) (string, bool) {
	a, err := netip.ParseAddr(gid)
	if err != nil || !a.Is4In6() {
		return "", false
	}
	return a.Unmap().String(), true
}

// GIDZero reports whether a GID is all zeros (an unused table entry).
func GIDZero(gid string) bool {
	a, err := netip.ParseAddr(gid)
	return err == nil && a.IsUnspecified()
}

var reGUID = regexp.MustCompile(`^[0-9a-fA-F]{16}$|^(?:[0-9a-fA-F]{4}:){3}[0-9a-fA-F]{4}$`)

var (
	reIBStatCA   = regexp.MustCompile(`^CA '([^']+)'$`)
	reIBStatPort = regexp.MustCompile(`^Port ([0-9]+):$`)
	reIBStatKV   = regexp.MustCompile(`^([A-Za-z][A-Za-z ]*):\s*(.*)$`)
)

// isIBStat reports whether text is ibstat's output (a "CA 'dev'" line
// before any hca_id).
func isIBStat(text string) bool {
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		switch {
		case t == "" || strings.HasPrefix(t, "libibverbs: "):
			continue
		case reIBStatCA.MatchString(t):
			return true
		}
		return false
	}
	return false
}

// ibstatStates are ibstat's port and physical states as ibv_devinfo names
// them (IB spec: port states 1-4, physical states 1-7).
var ibstatStates = map[string]struct {
	name string
	num  int
}{
	"Down": {"PORT_DOWN", 1}, "Initializing": {"PORT_INIT", 2}, "Armed": {"PORT_ARMED", 3}, "Active": {"PORT_ACTIVE", 4},
	"Sleep": {"SLEEP", 1}, "Polling": {"POLLING", 2}, "Disabled": {"DISABLED", 3}, "PortConfigurationTraining": {"PORT_CONFIGURATION_TRAINING", 4},
	"LinkUp": {"LINK_UP", 5}, "LinkErrorRecovery": {"LINK_ERROR_RECOVERY", 6}, "PhyTest": {"PHY_TEST", 7},
}

// IBStat parses `ibstat` (infiniband-diags): one IBDevice per "CA 'dev'"
// block with its ports' state, physical state and link layer, named as
// ibv_devinfo names them ("Active" is PORT_ACTIVE (4)). ibstat prints no
// MTU and no GID.
func IBStat(text string) ([]IBDevice, error) {
	var sk skips
	out := []IBDevice{}
	n := 0
	var dev *IBDevice
	var port *IBPort
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		if t == "" || strings.HasPrefix(t, "libibverbs: ") {
			continue
		}
		if m := reIBStatCA.FindStringSubmatch(t); m != nil {
			out = append(out, IBDevice{Name: m[1], Ref: l.ref()})
			dev, port = &out[len(out)-1], nil
			n++
			continue
		}
		if dev == nil {
			sk.add(l.ref(), nil, "line before the first CA")
			continue
		}
		if m := reIBStatPort.FindStringSubmatch(t); m != nil {
			p, _ := strconv.Atoi(m[1])
			dev.Ports = append(dev.Ports, IBPort{Port: p, Ref: l.ref()})
			port = &dev.Ports[len(dev.Ports)-1]
			n++
			continue
		}
		m := reIBStatKV.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not an ibstat \"Key: value\" line")
			continue
		}
		key, val := m[1], strings.TrimSpace(m[2])
		n++
		switch {
		case port != nil && key == "State":
			st, ok := ibstatStates[val]
			if !ok {
				st.name = strings.ToUpper(val)
			}
			port.State, port.StateNum, port.StateRef = st.name, st.num, l.ref()
		case port != nil && key == "Physical state":
			if st, ok := ibstatStates[val]; ok {
				port.PhysState = st.name
			} else {
				port.PhysState = strings.ToUpper(val)
			}
		case port != nil && key == "Link layer":
			port.LinkLayer = val
		case port == nil && key == "Firmware version":
			dev.FWVer = val
		case port == nil && key == "Node GUID":
			dev.NodeGUID = val
		case port == nil && key == "Number of ports":
			dev.PhysPortCnt, _ = strconv.Atoi(val)
		}
	}
	return result(out, n, sk)
}

// IBVDevices parses `ibv_devices` (a "device / node GUID" table; the
// header, its dashes and libibverbs warnings are not rows). A table with
// no row is an empty list: no device, known.
func IBVDevices(text string) ([]VerbsDevice, error) {
	var sk skips
	out := []VerbsDevice{}
	n := 0
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		f := strings.Fields(t)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "libibverbs: "):
			continue
		case len(f) >= 2 && f[0] == "device" && strings.Contains(t, "node GUID"):
			n++
			continue
		case strings.Trim(t, "- \t") == "":
			continue
		case len(f) == 2 && reGUID.MatchString(f[1]) && validDevName(f[0]):
			out = append(out, VerbsDevice{Name: f[0], NodeGUID: f[1], Ref: l.ref()})
			n++
		case len(f) == 1 && validDevName(f[0]):
			out = append(out, VerbsDevice{Name: f[0], Ref: l.ref()})
			n++
		default:
			sk.add(l.ref(), nil, "not an ibv_devices row (device, node GUID)")
		}
	}
	return result(out, n, sk)
}

// reRDMADevName is the shape of an RDMA device name (vmw_pvrdma0, mlx5_0,
// rocep11s0, rdmaP23800p0s2).
var reRDMADevName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

func validDevName(s string) bool { return reRDMADevName.MatchString(s) }

var reRDMALink = regexp.MustCompile(`^link\s+([A-Za-z0-9_]+)/([0-9]+)\s+state\s+(\S+)(?:\s+physical_state\s+(\S+))?(?:\s+netdev\s+(\S+))?`)

// RDMALinkShow parses `rdma link show` (iproute2): one line per port,
// "link DEV/PORT state STATE physical_state PHYS netdev NETDEV".
func RDMALinkShow(text string) ([]RDMALink, error) {
	var sk skips
	var out []RDMALink
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		if t == "" {
			continue
		}
		m := reRDMALink.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not an rdma link line")
			continue
		}
		p, _ := strconv.Atoi(m[2])
		out = append(out, RDMALink{Device: m[1], Port: p, State: m[3], PhysState: m[4], Netdev: m[5], Ref: l.ref()})
	}
	return result(out, len(out), sk)
}

var (
	// /sys/class/infiniband/vmw_pvrdma0/ports/1/gids/0:fe80:...
	reSysfsFile  = regexp.MustCompile(`^/sys/class/infiniband/([A-Za-z0-9_]+)/ports/([0-9]+)/(state|phys_state|gids/([0-9]+)|gid_attrs/types/([0-9]+)|gid_attrs/ndevs/([0-9]+)|[a-z_]+(?:/[A-Za-z0-9_]+)*):(.*)$`)
	reSysfsGID   = regexp.MustCompile(`^[0-9a-f]{4}(?::[0-9a-f]{4}){7}$`)
	reSysfsState = regexp.MustCompile(`^([0-9]+):\s*(\S.*)$`)
)

// SysfsPorts parses the port files of /sys/class/infiniband as
// `grep -s -r -H . /sys/class/infiniband/DEV/ports/N` prints them
// ("PATH:VALUE" per line): state, phys_state, gids/N, gid_attrs/types/N and
// gid_attrs/ndevs/N are read; the port's other files (pkeys, rate, lid...)
// are known and passed over. Bare GID
// lines (`cat .../gids/*`) are read as the GID table of an unnamed port,
// in order. Unused (all-zero) GIDs are kept: the rules skip them.
func SysfsPorts(text string) ([]SysfsPort, error) {
	if isShowGIDs(text) {
		return ShowGIDs(text)
	}
	var sk skips
	var out []SysfsPort
	n := 0
	find := func(dev string, port int, ref Ref) *SysfsPort {
		for i := range out {
			if out[i].Device == dev && out[i].Port == port {
				return &out[i]
			}
		}
		out = append(out, SysfsPort{Device: dev, Port: port, Ref: ref})
		return &out[len(out)-1]
	}
	gid := func(p *SysfsPort, idx int, ref Ref) *IBGID {
		for i := range p.GIDs {
			if p.GIDs[i].Index == idx {
				return &p.GIDs[i]
			}
		}
		p.GIDs = append(p.GIDs, IBGID{Index: idx, Ref: ref})
		return &p.GIDs[len(p.GIDs)-1]
	}
	bare := 0
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		if t == "" {
			continue
		}
		if i := strings.Index(t, "  #"); i > 0 {
			t = strings.TrimSpace(t[:i]) // a comment a document's author appended
		}
		if reSysfsGID.MatchString(strings.ToLower(t)) {
			p := find("", 0, l.ref())
			g := gid(p, bare, l.ref())
			g.GID = strings.ToLower(t)
			bare++
			n++
			continue
		}
		m := reSysfsFile.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not a /sys/class/infiniband port file line (PATH:VALUE)")
			continue
		}
		portNo, _ := strconv.Atoi(m[2])
		p := find(m[1], portNo, l.ref())
		val := strings.TrimSpace(m[7])
		n++
		switch {
		case m[3] == "state":
			if sm := reSysfsState.FindStringSubmatch(val); sm != nil {
				p.StateNum, _ = strconv.Atoi(sm[1])
				p.State = sm[2]
			} else {
				p.State = val
			}
			p.StateRef = l.ref()
		case m[3] == "phys_state":
			if sm := reSysfsState.FindStringSubmatch(val); sm != nil {
				p.PhysState = sm[2]
			} else {
				p.PhysState = val
			}
		case m[4] != "":
			idx, _ := strconv.Atoi(m[4])
			g := gid(p, idx, l.ref())
			g.GID, g.Ref = strings.ToLower(val), l.ref()
		case m[5] != "":
			idx, _ := strconv.Atoi(m[5])
			gid(p, idx, l.ref()).Type = val
		case m[6] != "":
			idx, _ := strconv.Atoi(m[6])
			gid(p, idx, l.ref()).Netdev = val
		}
	}
	return result(out, n, sk)
}

var (
	reShowGIDsHead = regexp.MustCompile(`^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV$`)
	reShowGIDsRow  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)\s+([0-9]+)\s+([0-9]+)\s+([0-9a-fA-F:]+)\s+(?:([0-9]{1,3}(?:\.[0-9]{1,3}){3})\s+)?(v[12])\s+(\S+)$`)
)

// isShowGIDs reports whether text is show_gids' table.
func isShowGIDs(text string) bool {
	for _, l := range guestClean(text) {
		if t := guestLine(l.text); t != "" {
			return reShowGIDsHead.MatchString(strings.Join(strings.Fields(t), " "))
		}
	}
	return false
}

// ShowGIDs parses `show_gids [DEV [PORT]]` (MLNX_OFED and rdma-core's
// script): one GID table entry per row (device, port, index, GID, its
// IPv4 address if any, RoCE version, netdev), as the port's GIDs with
// their type ("RoCE v2") and netdev. The header, its dashes and the
// closing "n_gids_found=N" are not rows; no row is an empty table.
func ShowGIDs(text string) ([]SysfsPort, error) {
	var sk skips
	out := []SysfsPort{}
	n := 0
	for _, l := range guestClean(text) {
		t := guestLine(l.text)
		switch {
		case t == "", strings.Trim(t, "- \t") == "":
			continue
		case reShowGIDsHead.MatchString(strings.Join(strings.Fields(t), " ")), strings.HasPrefix(t, "n_gids_found="):
			n++
			continue
		}
		m := reShowGIDsRow.FindStringSubmatch(t)
		if m == nil {
			sk.add(l.ref(), nil, "not a show_gids row (device, port, index, GID, IPv4, version, netdev)")
			continue
		}
		n++
		port, _ := strconv.Atoi(m[2])
		idx, _ := strconv.Atoi(m[3])
		var p *SysfsPort
		for i := range out {
			if out[i].Device == m[1] && out[i].Port == port {
				p = &out[i]
			}
		}
		if p == nil {
			out = append(out, SysfsPort{Device: m[1], Port: port, Ref: l.ref()})
			p = &out[len(out)-1]
		}
		typ := "RoCE v2"
		if m[6] == "v1" {
			typ = "IB/RoCE v1"
		}
		p.GIDs = append(p.GIDs, IBGID{Index: idx, GID: normalizeGID(m[4]), Type: typ, Netdev: m[7], Ref: l.ref()})
	}
	return result(out, n, sk)
}

// SysfsListing parses `ls /sys/class/infiniband` (or `ls -1`): the RDMA
// device names.
func SysfsListing(text string) ([]VerbsDevice, error) {
	var sk skips
	var out []VerbsDevice
	for _, l := range guestClean(text) {
		fs := strings.Fields(l.text)
		bad := false
		for _, f := range fs {
			bad = bad || !validDevName(f)
		}
		if bad {
			// One bad name makes the whole line suspect.
			sk.add(l.ref(), nil, "not a line of RDMA device names")
			continue
		}
		for _, f := range fs {
			out = append(out, VerbsDevice{Name: f, Ref: l.ref()})
		}
	}
	return result(out, len(out), sk)
}

var reProviderWarning = regexp.MustCompile(`^libibverbs: Warning: (?:couldn't load driver '([A-Za-z0-9_-]+)'(?::\s*(.*))?|no userspace device-specific driver found for (\S+)|Driver (\S+) does not support the kernel ABI of ([0-9]+) \(supports ([0-9]+) to ([0-9]+)\)(?: for device (\S+))?|Driver (\S+) does not support the kernel ABI)`)

// ProviderWarning is a libibverbs warning that a device's user-space
// provider could not be used.
type ProviderWarning struct {
	// Driver is the provider named ("vmw_pvrdma"), or "" when the warning
	// names the device instead (Device: "/sys/class/infiniband_verbs/uverbs0").
	Driver string `json:"driver,omitempty"`
	Device string `json:"device,omitempty"`
	// Reason is why the provider could not be loaded ("libvmw_pvrdma-
	// rdmav34.so: cannot open shared object file", a symbol version).
	Reason string `json:"reason,omitempty"`
	// KernelABI is the ABI the kernel driver speaks and ProviderABIMin..
	// ProviderABIMax the ones the user-space provider supports, when the
	// warning is an ABI mismatch ("Driver X does not support the kernel
	// ABI of 3 (supports 1 to 2)"): user space and kernel do not match.
	KernelABI      int `json:"kernel_abi,omitempty"`
	ProviderABIMin int `json:"provider_abi_min,omitempty"`
	ProviderABIMax int `json:"provider_abi_max,omitempty"`
	Ref
}

// ABIMismatch reports whether the warning says the provider's ABI and the
// kernel driver's do not match.
func (w ProviderWarning) ABIMismatch() bool {
	return w.KernelABI > 0 || strings.Contains(w.Text, "does not support the kernel ABI")
}

// ProviderWarnings returns the libibverbs provider warnings of a verbs
// tool's output (ibv_devices and ibv_devinfo print them on stderr; a
// pasted session mixes them into the output).
func ProviderWarnings(text string) []ProviderWarning {
	var out []ProviderWarning
	for _, l := range splitLines(text) {
		m := reProviderWarning.FindStringSubmatch(strings.TrimSpace(l.text))
		if m == nil {
			continue
		}
		w := ProviderWarning{Driver: m[1], Reason: strings.TrimSpace(m[2]), Device: m[3], Ref: l.ref()}
		switch {
		case m[4] != "":
			w.Driver, w.Device = m[4], m[8]
			w.KernelABI, _ = strconv.Atoi(m[5])
			w.ProviderABIMin, _ = strconv.Atoi(m[6])
			w.ProviderABIMax, _ = strconv.Atoi(m[7])
		case m[9] != "":
			w.Driver = m[9]
		}
		out = append(out, w)
	}
	return out
}

var (
	rePerfDevice = regexp.MustCompile(`Device\s*:\s*([A-Za-z0-9_]+)`)
	rePerfHeader = regexp.MustCompile(`#bytes\s+#iterations\s+BW peak\[(Gb/sec|MB/sec|MiB/sec)\]\s+BW average\[(Gb/sec|MB/sec|MiB/sec)\]`)
	rePerfRow    = regexp.MustCompile(`^([0-9]+)\s+([0-9]+)\s+([0-9.]+)\s+([0-9.]+)(?:\s+([0-9.]+))?$`)
)

// PerftestBW parses the output of a perftest bandwidth run (ib_send_bw,
// ib_write_bw): the device and every result row, in Gb/s. A run without
// result rows (a server waiting, a truncated copy, "Did not detect
// devices") gives no rows.
func PerftestBW(text string) ([]BandwidthResult, error) {
	var out []BandwidthResult
	dev := ""
	unit := ""
	for _, l := range splitLines(text) {
		t := guestLine(l.text)
		if m := rePerfDevice.FindStringSubmatch(t); m != nil && dev == "" {
			dev = m[1]
		}
		if m := rePerfHeader.FindStringSubmatch(t); m != nil {
			unit = m[2]
			continue
		}
		if unit == "" {
			continue
		}
		m := rePerfRow.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		r := BandwidthResult{Device: dev, Ref: l.ref()}
		r.MsgBytes, _ = strconv.ParseInt(m[1], 10, 64)
		r.PeakGbps, _ = strconv.ParseFloat(m[3], 64)
		r.AvgGbps, _ = strconv.ParseFloat(m[4], 64)
		switch unit {
		case "MB/sec":
			r.PeakGbps, r.AvgGbps = r.PeakGbps*8/1000, r.AvgGbps*8/1000
		case "MiB/sec":
			r.PeakGbps, r.AvgGbps = r.PeakGbps*8*1.048576/1000, r.AvgGbps*8*1.048576/1000
		}
		out = append(out, r)
	}
	return out, nil
}
