package facts

import (
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The driver layer of a host, read from `esxcli system module list`,
// `esxcli system module parameters list -m <module>`, `esxcli software
// vib list` and `esxcfg-nics -e` (internal/catalog/specs_drivers.go).
// Module parameters are what the module loads with at its next load; the
// running state shows elsewhere (an RDMA device listed, `dcb status`).

// ModuleState is what the module list says about one module.
type ModuleState struct {
	Name string
	// Read: the module list was read; Listed: the module is in it (a VIB
	// installs it); Loaded, Enabled as listed.
	Read, Listed, Loaded, Enabled bool
	Ref                           parse.Ref
}

// State says it in words ("loaded", "enabled, not loaded (loads at the
// next boot)", "disabled", "not installed", "not read").
func (m ModuleState) State() string {
	switch {
	case !m.Read:
		return "not read"
	case !m.Listed:
		return "not installed"
	case m.Loaded && m.Enabled:
		return "loaded"
	case m.Loaded:
		return "loaded, disabled at the next boot"
	case m.Enabled:
		return "enabled, not loaded (loads at the next boot)"
	}
	return "disabled"
}

// Module returns the state of a module from the module list.
func (h *Host) Module(name string) ModuleState {
	m := ModuleState{Name: name}
	m.Read, _ = h.Available(catalog.KindModuleList)
	for _, x := range h.Modules {
		if x.Name == name {
			m.Read, m.Listed, m.Loaded, m.Enabled, m.Ref = true, true, x.Loaded, x.Enabled, x.Ref
			return m
		}
	}
	return m
}

// ParamsRead reports whether a module's parameters were read (its
// `esxcli system module parameters list -m` collected and parsed, or
// answered that the module does not exist).
func (h *Host) ParamsRead(module string) bool {
	for _, s := range h.Sources[catalog.KindModuleParameters] {
		if f := strings.Fields(s.Command); len(f) > 0 && f[len(f)-1] == module {
			return s.Parsed
		}
	}
	return false
}

// ModuleParam returns a parameter of a module as configured (nil when it
// is not listed).
func (h *Host) ModuleParam(module, name string) *parse.ModuleParam {
	for i := range h.ModuleParams {
		if p := &h.ModuleParams[i]; p.Module == module && p.Name == name {
			return p
		}
	}
	return nil
}

// VIBOf returns the VIB that carries a module: the VIB of the module's
// name, with "-" for "_" (nmlx5_core is in nmlx5-core); nil when none is
// listed.
func (h *Host) VIBOf(module string) *parse.VIB {
	for _, want := range []string{module, strings.ReplaceAll(module, "_", "-")} {
		for i := range h.VIBs {
			if h.VIBs[i].Name == want {
				return &h.VIBs[i]
			}
		}
	}
	return nil
}

// ENSOf returns the `esxcfg-nics -e` row of a NIC (nil when not listed).
func (h *Host) ENSOf(nic string) *parse.ENSNIC {
	for i := range h.ENS {
		if h.ENS[i].Name == nic {
			return &h.ENS[i]
		}
	}
	return nil
}

// PortIndex is the position of a NIC among the NICs its LAN driver drives,
// in PCI address order: the index of its value in a per-port module
// parameter (icen's RDMA=1,0,...); -1 when the NIC is not listed.
func (h *Host) PortIndex(nic string) int {
	n := h.NICNamed(nic)
	if n == nil {
		return -1
	}
	var ports []parse.NIC
	for _, o := range h.NICs {
		if o.Driver == n.Driver {
			ports = append(ports, o)
		}
	}
	sort.SliceStable(ports, func(i, j int) bool {
		return parse.NormalizePCIAddress(ports[i].PCIDevice) < parse.NormalizePCIAddress(ports[j].PCIDevice)
	})
	for i, o := range ports {
		if o.Name == nic {
			return i
		}
	}
	return -1
}

// PortValue is a NIC's value in a per-port parameter ("1,0" -> port 0
// "1", port 1 "0"); "" when the parameter has none for it. A single value
// applies to every port.
func PortValue(value string, port int) string {
	vals := strings.Split(value, ",")
	if len(vals) == 1 {
		return strings.TrimSpace(vals[0])
	}
	if port < 0 || port >= len(vals) {
		return ""
	}
	return strings.TrimSpace(vals[port])
}

// Stack is the driver stack of one NIC PVRDMA uses (or could use): its
// family, LAN driver with version and firmware, its RDMA driver with
// version and state, and its RDMA device. Empty strings are unknown.
type Stack struct {
	NIC         string `json:"nic"`
	Family      string `json:"family,omitempty"`
	Driver      string `json:"driver,omitempty"`
	Version     string `json:"driver_version,omitempty"`
	Firmware    string `json:"firmware,omitempty"`
	RDMADriver  string `json:"rdma_driver,omitempty"`
	RDMAVersion string `json:"rdma_driver_version,omitempty"`
	// RDMAState is the RDMA driver's module state (ModuleState.State).
	RDMAState string `json:"rdma_driver_state,omitempty"`
	// Device is its RDMA device and DeviceState that device's state
	// ("" when it has none).
	Device      string `json:"rdma_device,omitempty"`
	DeviceState string `json:"rdma_device_state,omitempty"`
	// ENS: the NIC runs in ENS mode.
	ENS bool `json:"ens,omitempty"`
}

// Stacks are the driver stacks of the NICs PVRDMA uses or could use: the
// uplinks of the PVRDMA vDS, else the uplinks of the RDMA devices, in
// name order.
func (h *Host) Stacks(p *HostPath) []Stack {
	var nics []string
	if p != nil && p.Switch != nil {
		nics = append(nics, p.Switch.Uplinks...)
	}
	if len(nics) == 0 {
		for _, d := range h.RDMADevices {
			nics = append(nics, d.PairedUplink)
		}
	}
	sort.Strings(nics)
	var out []Stack
	seen := map[string]bool{}
	for _, n := range nics {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, h.StackOf(n))
	}
	return out
}

// StackOf is the driver stack of one NIC.
func (h *Host) StackOf(nic string) Stack {
	fam := h.FamilyOf(nic)
	s := Stack{NIC: nic, Family: fam.Name, Driver: fam.LANDriver}
	if n := h.NICNamed(nic); n != nil && n.Driver != "" {
		s.Driver = n.Driver
	}
	for _, d := range h.NICDetails {
		if d.Name == nic {
			s.Firmware, s.Version = d.FirmwareVersion, d.DriverVersion
		}
	}
	if v := h.VIBOf(s.Driver); v != nil && s.Version == "" {
		s.Version = v.Version
	}
	s.RDMADriver = fam.RDMADriver
	for _, d := range h.RDMADevices {
		if d.PairedUplink == nic {
			s.Device, s.DeviceState = d.Name, d.State
			if d.Driver != "" {
				s.RDMADriver = d.Driver
			}
		}
	}
	if s.RDMADriver != "" {
		if v := h.VIBOf(s.RDMADriver); v != nil {
			s.RDMAVersion = v.Version
		}
		s.RDMAState = h.Module(s.RDMADriver).State()
	}
	if e := h.ENSOf(nic); e != nil {
		s.ENS = e.Driven
	}
	return s
}
