package parse

import (
	"strings"
)

var vmknicKeys = []string{"Name", "MAC Address", "Enabled", "Portset", "Portgroup", "Netstack Instance", "VDS Name", "VDS UUID", "VDS Port", "VDS Connection", "Opaque Network ID", "Opaque Network Type", "External ID", "MTU", "TSO MSS", "RXDispQueue Size", "Port ID"}

// na maps esxcli's "N/A" to "".
func na(v string) string {
	if strings.EqualFold(strings.TrimSpace(v), "N/A") {
		return ""
	}
	return v
}

// IPInterfaceList parses `esxcli network ip interface list`. "N/A" VDS
// names read as "".
func IPInterfaceList(text string) ([]Vmknic, error) {
	if v, err, ok := fromEsxcfgVmknic(text, func(n []Vmknic, _ []IPv4Interface) []Vmknic { return n }); ok {
		return v, err
	}
	return readList(text, layoutRecords, vmknicKeys, []string{"Name", "MTU"}, "vmknic skipped", func(r Record, e *errs) Vmknic {
		return Vmknic{
			Name:      r.Get("Name"),
			MAC:       r.Get("MAC Address"),
			Enabled:   e.bool(r, "Enabled"),
			Portset:   na(r.Get("Portset")),
			Portgroup: na(r.Get("Portgroup")),
			Netstack:  r.Get("Netstack Instance"),
			VDSName:   na(r.Get("VDS Name")),
			VDSPort:   na(r.Get("VDS Port")),
			MTU:       e.int(r, "MTU"),
			Record:    r,
			Ref:       r.Ref,
		}
	})
}

// IPv4Get parses `esxcli network ip interface ipv4 get` (a table).
func IPv4Get(text string) ([]IPv4Interface, error) {
	if v, err, ok := fromEsxcfgVmknic(text, func(_ []Vmknic, v4 []IPv4Interface) []IPv4Interface { return v4 }); ok {
		return v, err
	}
	keys := []string{"Name", "IPv4 Address", "IPv4 Netmask", "IPv4 Broadcast", "Address Type", "Gateway", "DHCP DNS"}
	return readList(text, layoutTable, keys, []string{"Name", "IPv4 Address"}, "IPv4 row skipped", func(r Record, e *errs) IPv4Interface {
		return IPv4Interface{
			Name:        r.Get("Name"),
			Address:     r.Get("IPv4 Address"),
			Netmask:     r.Get("IPv4 Netmask"),
			Broadcast:   r.Get("IPv4 Broadcast"),
			AddressType: r.Get("Address Type"),
			Gateway:     r.Get("Gateway"),
			DHCPDNS:     e.bool(r, "DHCP DNS"),
			Ref:         r.Ref,
		}
	})
}

var nicKeys = []string{"Name", "PCI Device", "Driver", "Admin Status", "Link Status", "Speed", "Duplex", "MAC Address", "MTU", "Description"}

// esxcfgNicsColumns are the columns of `esxcfg-nics -l` (no dash line).
var esxcfgNicsColumns = []string{"Name", "PCI", "Driver", "Link", "Speed", "Duplex", "MAC Address", "MTU", "Description"}

// NICList parses `esxcli network nic list` (table, xml or keyvalue) and
// the legacy `esxcfg-nics -l` table.
func NICList(text string) ([]NIC, error) {
	var sk skips
	ls := dropElisions(clean(text, false), &sk)
	var recs []Record
	if len(ls) > 1 && detect(ls) == formatHuman && !hasDashLine(ls) && strings.HasPrefix(strings.TrimSpace(expandTabs(ls[0].text)), "Name ") && indexWord([]rune(expandTabs(ls[0].text)), []rune("PCI"), 0) >= 0 {
		t, err := readTable(ls, esxcfgNicsColumns, &sk)
		if err != nil {
			return nil, err
		}
		for _, row := range t.Rows {
			r := row.record(t.Header)
			pci, _ := r.Field("PCI")
			link, _ := r.Field("Link")
			r.Set("PCI Device", pci)
			r.Set("Link Status", link)
			recs = append(recs, r)
		}
	} else {
		var err error
		if recs, sk, err = readItems(text, layoutTable, nicKeys, []string{"Name", "Driver", "MAC Address", "MTU"}); err != nil {
			return nil, err
		}
	}
	return recordsTo(recs, sk, "NIC row skipped", func(r Record, e *errs) NIC {
		n := NIC{
			Name:        r.Get("Name"),
			PCIDevice:   r.Get("PCI Device"),
			Driver:      r.Get("Driver"),
			AdminStatus: r.Get("Admin Status"),
			LinkStatus:  r.Get("Link Status"),
			Duplex:      r.Get("Duplex"),
			MAC:         r.Get("MAC Address"),
			MTU:         e.int(r, "MTU"),
			Description: r.Get("Description"),
			Ref:         r.Ref,
		}
		sp, ok := SpeedMbps(r.Get("Speed"))
		if !ok && e.err == nil {
			e.err = errorf(r.RefOf("Speed").Line, "Speed: expected a speed in Mbps, got %q", r.Get("Speed"))
		}
		n.SpeedMbps = sp
		return n
	})
}

var nicGetKeys = []string{"Advertised Auto Negotiation", "Advertised Link Modes", "Auto Negotiation", "Backing DPUId", "Cable Type", "Current Message Level", "Driver Info", "Bus Info", "Driver", "Firmware Version", "Version", "Link Detected", "Link Status", "Name", "PHYAddress", "Pause Autonegotiate", "Pause RX", "Pause TX", "Supported Ports", "Supports Auto Negotiation", "Supports Pause", "Supports Wakeon", "Transceiver", "Virtual Address", "Wakeon"}

// NICGet parses `esxcli network nic get -n vmnicN` (text or xml): the
// nested "Driver Info" gives the driver and firmware versions.
func NICGet(text string) (NICDetail, error) {
	r, sk, err := readOneSkips(text, nicGetKeys, []string{"Name"})
	if err != nil {
		return NICDetail{}, err
	}
	e := errs{s: &sk}
	d := NICDetail{
		Name:       r.Get("Name"),
		LinkStatus: r.Get("Link Status"),
		PauseRX:    e.bool(r, "Pause RX"),
		PauseTX:    e.bool(r, "Pause TX"),
		Record:     r,
		Ref:        r.Ref,
	}
	if di := r.Nested["Driver Info"]; len(di) > 0 {
		d.Driver = di[0].Get("Driver")
		d.DriverVersion = di[0].Get("Version")
		d.FirmwareVersion = di[0].Get("Firmware Version")
	}
	return result(d, r.Len(), sk)
}

var dcbKeys = []string{"Nic Name", "Mode", "Enabled", "Capabilities", "PFC Enabled", "PFC Configuration", "IEEE ETS Configuration", "IEEE PFC Configuration", "DCB Apps", "Priority Group", "Priority Flow Control", "PG Traffic Classes", "PFC Traffic Classes"}

// DCBStatusGet parses `esxcli network nic dcb status get -n vmnicN`.
// PFCPriorities are the positions of the 1s in the top-level
// "PFC Configuration" bitmap ("0 0 0 1 0 0 0 0" -> [3]).
func DCBStatusGet(text string) (DCBStatus, error) {
	r, sk, err := readOneSkips(text, dcbKeys, []string{"Enabled"})
	if err != nil {
		return DCBStatus{}, err
	}
	var e errs
	s := DCBStatus{Nic: r.Get("Nic Name"), DCBEnabled: e.bool(r, "Enabled"), PFCEnabled: e.bool(r, "PFC Enabled"), Record: r, Ref: r.Ref}
	if e.err != nil {
		return DCBStatus{}, e.err
	}

	if f, ok := r.Field("PFC Configuration"); ok && f.Value != "" {
		bits := strings.Fields(f.Value)
		if len(bits) == 1 && len(bits[0]) == 8 {
			bits = strings.Split(bits[0], "")
		}
		if len(bits) != 8 {
			return DCBStatus{}, errorf(f.Line, "PFC Configuration: expected 8 priority bits, got %q", f.Value)
		}
		s.PFCPriorities = []int{}
		for i, b := range bits {
			switch b {
			case "1":
				s.PFCPriorities = append(s.PFCPriorities, i)
			case "0":
			default:
				return DCBStatus{}, errorf(f.Line, "PFC Configuration: expected 0 or 1 per priority, got %q", f.Value)
			}
		}
	}
	return result(s, r.Len(), sk)
}

var dvsKeys = []string{"Name", "VDS ID", "Class", "Num Ports", "Used Ports", "Configured Ports", "MTU", "CDP Status", "Beacon Timeout", "Uplinks", "VMware Branded", "DVPort", "Client", "DVPortgroup ID", "In Use", "Port ID"}

// DVSList parses `esxcli network vswitch dvs vmware list`. Uplinks keep
// the printed order (esxcli prints them in no particular order).
func DVSList(text string) ([]DVSwitch, error) {
	if ls, sk := cleanLegacy(text); isEsxcfgVswitch(ls) {
		vss, dvs := readEsxcfgVswitch(ls, &sk)
		return result(dvs, len(dvs)+len(vss), sk)
	}
	return readList(text, layoutRecords, dvsKeys, []string{"Name", "MTU"}, "switch skipped", func(r Record, e *errs) DVSwitch {
		return DVSwitch{Name: r.Get("Name"), VDSID: r.Get("VDS ID"), MTU: e.int(r, "MTU"), Uplinks: splitList(r.Get("Uplinks")), Record: r, Ref: r.Ref}
	})
}

var vssKeys = []string{"Name", "Class", "Num Ports", "Used Ports", "Configured Ports", "MTU", "CDP Status", "Beacon Enabled", "Beacon Interval", "Beacon Threshold", "Beacon Required By", "Uplinks", "Portgroups"}

// StandardSwitchList parses `esxcli network vswitch standard list`.
func StandardSwitchList(text string) ([]StandardSwitch, error) {
	if ls, sk := cleanLegacy(text); isEsxcfgVswitch(ls) {
		vss, dvs := readEsxcfgVswitch(ls, &sk)
		return result(vss, len(dvs)+len(vss), sk)
	}
	return readList(text, layoutRecords, vssKeys, []string{"Name", "MTU"}, "switch skipped", func(r Record, e *errs) StandardSwitch {
		return StandardSwitch{Name: r.Get("Name"), MTU: e.int(r, "MTU"), Uplinks: splitList(r.Get("Uplinks")), Portgroups: splitList(r.Get("Portgroups")), Record: r, Ref: r.Ref}
	})
}

// hasDashLine reports whether one of the first lines under a header is a
// line of dashes (the header may be wrapped over several lines).
func hasDashLine(ls []line) bool {
	for _, l := range ls[1:min(len(ls), 6)] {
		if reDashLine.MatchString(l.text) && strings.Contains(l.text, "-") {
			return true
		}
	}
	return false
}
