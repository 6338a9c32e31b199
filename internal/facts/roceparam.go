package facts

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// RoCE switched off below the RDMA driver: the RDMA driver can be enabled
// and loaded while a NIC has no RDMA device, because its LAN driver's
// module parameter turns RoCE off for the port (icen's RDMA, off as icen
// ships; a bnxtnet RoCE switch such as disable_roce). Which parameter
// does it is read from the host's own parameter list and descriptions
// (`esxcli system module parameters list -m <LAN driver>`), not from one
// name per vendor: a parameter whose name or description names RoCE or
// RDMA and says it enables or disables it.

// RoCESwitch is a LAN driver's module parameter that switches RoCE (or
// RDMA) on or off, as it applies to one NIC.
type RoCESwitch struct {
	Param *parse.ModuleParam
	// Disables: the parameter disables RoCE when set (disable_roce=1);
	// else it enables it (RDMA=1).
	Disables bool
	// Value is the NIC's value ("" when the parameter is unset for it).
	Value string
	// Off: the value switches RoCE off for the NIC.
	Off bool
	// Set is the parameter's whole value with the NIC's port turned on
	// (the other ports' values kept); "" when Off is false.
	Set string
}

// RoCESwitchOf returns the LAN driver parameter that switches RoCE for a
// NIC, read from the host's parameter list (nil when none is listed or
// the parameters were not read): the first one that switches it off, else
// the first one listed.
func (h *Host) RoCESwitchOf(nic string) *RoCESwitch {
	fam := h.FamilyOf(nic)
	driver := fam.LANDriver
	if n := h.NICNamed(nic); n != nil && n.Driver != "" {
		driver = n.Driver
	}
	if driver == "" {
		return nil
	}
	var first *RoCESwitch
	for i := range h.ModuleParams {
		p := &h.ModuleParams[i]
		if p.Module != driver {
			continue
		}
		disables, ok := roceSwitch(p)
		if !ok {
			continue
		}
		port := h.PortIndex(nic)
		s := &RoCESwitch{Param: p, Disables: disables, Value: PortValue(p.Value, port)}
		switch {
		case disables:
			s.Off = truthy(s.Value)
		case s.Value != "":
			s.Off = falsy(s.Value)
		default:
			// Unset: off only where the driver ships it off (icen's RDMA,
			// the family's EnableParam) or its description says the
			// default is off.
			s.Off = p.Name == fam.EnableParam || defaultOff(p.Description)
		}
		if s.Off {
			on := "1"
			if disables {
				on = "0"
			}
			s.Set = portSet(p.Value, port, on, len(h.portsOfDriver(driver)))
			return s
		}
		if first == nil {
			first = s
		}
	}
	return first
}

// roceSwitch reports whether a module parameter switches RoCE or RDMA,
// and whether it disables it when set: its name or description names
// RoCE or RDMA, and says it enables or disables it (a parameter named
// just RDMA or RoCE enables it); a count or a size is no switch.
func roceSwitch(p *parse.ModuleParam) (disables, ok bool) {
	name, desc := strings.ToLower(p.Name), strings.ToLower(p.Description)
	text := name + " " + desc
	if !strings.Contains(text, "roce") && !strings.Contains(text, "rdma") {
		return false, false
	}
	for _, w := range []string{"number", "count", "size", "queue", "depth", "max", "timeout", "priority", "dscp", "tos"} {
		if strings.Contains(name, w) {
			return false, false
		}
	}
	switch {
	case strings.Contains(name, "disable") || strings.HasPrefix(name, "no_"):
		return true, true
	case strings.Contains(name, "enable") || name == "rdma" || name == "roce":
		return false, true
	case strings.HasPrefix(desc, "disable"):
		return true, true
	case strings.HasPrefix(desc, "enable"):
		return false, true
	}
	return false, false
}

// truthy is a parameter value that turns a switch on (1, true, y, yes,
// on, any non-zero number).
func truthy(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "", "0", "0x0", "0x00", "false", "n", "no", "off":
		return false
	}
	return true
}

// falsy is a set value that turns a switch off.
func falsy(v string) bool { return strings.TrimSpace(v) != "" && !truthy(v) }

// defaultOff reports whether a parameter's description says it is off by
// default ("default 0", "default: disabled").
func defaultOff(desc string) bool {
	d := strings.ToLower(desc)
	i := strings.Index(d, "default")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(d[i+len("default"):], " :=is(")
	for _, w := range []string{"0", "off", "disabled", "false", "no"} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// portSet is a per-port value with one port's value replaced by on (a
// single value, or none, becomes on for every port).
func portSet(value string, port int, on string, ports int) string {
	vals := strings.Split(value, ",")
	if strings.TrimSpace(value) == "" || len(vals) == 1 || port < 0 || port >= len(vals) {
		if ports > 1 && strings.TrimSpace(value) == "" && on == "1" {
			return strings.TrimSuffix(strings.Repeat("1,", ports), ",")
		}
		return on
	}
	for i := range vals {
		vals[i] = strings.TrimSpace(vals[i])
	}
	vals[port] = on
	return strings.Join(vals, ",")
}

// portsOfDriver are the host's NICs a LAN driver drives.
func (h *Host) portsOfDriver(driver string) []string {
	var out []string
	for _, n := range h.NICs {
		if n.Driver == driver {
			out = append(out, n.Name)
		}
	}
	return out
}

// NVMCheck says where a NIC family's RoCE can be switched off below the
// driver (the NIC's NVM or firmware) and with which tool: the next check
// when the drivers explain no missing RDMA device.
func (f NICFamily) NVMCheck() string {
	switch f.LANDriver {
	case "bnxtnet":
		return "the NIC's NVM RoCE setting (ENABLE_ROCE per port; Broadcom's niccli or bnxtnvm tool shows and sets it, a host reboot loads it)"
	case "nmlx5_core", "nmlx4_en":
		return "the NIC's firmware configuration and link type (NVIDIA's mlxconfig / mstconfig: LINK_TYPE_P1 must be ETH)"
	case "qedentv":
		return "the NIC's RDMA protocol setting in its NVM (Marvell's QConvergeConsole CLI or the HII setup: RoCE on the port)"
	case "icen":
		return "the NIC's NVM and firmware against irdman's release (Intel's nvmupdate tool shows the NVM version)"
	}
	return "the NIC's NVM or firmware RoCE setting, with the vendor's tool"
}
