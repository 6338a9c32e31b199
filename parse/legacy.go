package parse

import (
	"strings"
)

// The legacy esxcfg-* tools print tables without a dash line, their
// columns found from the header words. They carry the same facts as the
// esxcli commands, and the esxcli parsers read them too: IPInterfaceList
// and IPv4Get read `esxcfg-vmknic -l`, StandardSwitchList and DVSList read
// `esxcfg-vswitch -l`, NICList reads `esxcfg-nics -l`.

// esxcfgVmknicColumns are the columns of `esxcfg-vmknic -l`.
var esxcfgVmknicColumns = []string{"Interface", "Port Group/DVPort/Opaque Network", "IP Family", "IP Address", "Netmask", "Broadcast", "MAC Address", "MTU", "TSO MSS", "Enabled", "Type", "NetStack"}

// isEsxcfgVmknic reports whether cleaned output is `esxcfg-vmknic -l`.
func isEsxcfgVmknic(ls []line) bool {
	return len(ls) > 0 && strings.HasPrefix(strings.TrimSpace(expandTabs(ls[0].text)), "Interface ") && strings.Contains(ls[0].text, "Port Group")
}

// readEsxcfgVmknic reads `esxcfg-vmknic -l`: one row per interface and
// address family. Older builds lack some trailing columns (TSO MSS, Type,
// NetStack); the columns present are read.
func readEsxcfgVmknic(ls []line, s *skips) ([]Record, error) {
	hr := []rune(expandTabs(ls[0].text))
	var cols []string
	for _, c := range esxcfgVmknicColumns {
		if indexWord(hr, []rune(c), 0) >= 0 {
			cols = append(cols, c)
		}
	}
	t, err := readTable(ls, cols, s)
	if err != nil {
		return nil, err
	}
	recs := make([]Record, 0, len(t.Rows))
	for _, r := range t.Rows {
		recs = append(recs, r.record(t.Header))
	}
	return recs, nil
}

// fromEsxcfgVmknic reads text as `esxcfg-vmknic -l` when it is that
// (ok=false otherwise), returning the facts pick chooses.
func fromEsxcfgVmknic[T any](text string, pick func([]Vmknic, []IPv4Interface) []T) (v []T, err error, ok bool) {
	ls, sk := cleanLegacy(text)
	if !isEsxcfgVmknic(ls) {
		return nil, nil, false
	}
	recs, err := readEsxcfgVmknic(ls, &sk)
	if err != nil {
		return nil, err, true
	}
	v, err = result(pick(vmknicsFromEsxcfg(recs, &sk)), len(recs), sk)
	return v, err, true
}

// vmknicsFromEsxcfg turns esxcfg-vmknic rows into vmknics (one per
// interface, from its first row) and IPv4 rows.
func vmknicsFromEsxcfg(recs []Record, s *skips) ([]Vmknic, []IPv4Interface) {
	var nics []Vmknic
	var v4 []IPv4Interface
	seen := map[string]bool{}
	for _, r := range recs {
		name := r.Get("Interface")
		if name == "" {
			s.add(r.Ref, nil, "row without an interface name: skipped")
			continue
		}
		if strings.EqualFold(r.Get("IP Family"), "IPv4") {
			v4 = append(v4, IPv4Interface{Name: name, Address: r.Get("IP Address"), Netmask: r.Get("Netmask"), Broadcast: r.Get("Broadcast"), AddressType: r.Get("Type"), Ref: r.Ref})
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		var e errs
		v := Vmknic{Name: name, MAC: r.Get("MAC Address"), Netstack: r.Get("NetStack"), MTU: e.int(r, "MTU"), Record: r, Ref: r.Ref}
		if en := r.Get("Enabled"); en != "" {
			v.Enabled = e.bool(r, "Enabled")
		} else {
			v.Enabled = true
		}
		pg := r.Get("Port Group/DVPort/Opaque Network")
		if pg != "" && strings.Trim(pg, "0123456789") == "" {
			v.VDSPort = pg // a DVPort ID: the vmknic is on a distributed switch
		} else {
			v.Portgroup = pg
		}
		if e.err != nil {
			s.add(r.Ref, e.err, "vmknic row skipped")
			continue
		}
		nics = append(nics, v)
	}
	return nics, v4
}

// readEsxcfgVswitch reads `esxcfg-vswitch -l`: sections headed
// "Switch Name ..." (standard) or "DVS Name ..." (distributed), each switch
// row followed by an indented table of its port groups or DVPorts.
// It returns standard switches and distributed switches.
func readEsxcfgVswitch(ls []line, s *skips) ([]StandardSwitch, []DVSwitch) {
	var vss []StandardSwitch
	var dvs []DVSwitch
	var hdr []rune
	dist := false
	var sub []rune // the indented sub-table header of the current switch
	for _, l := range ls {
		t := strings.TrimSpace(l.text)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "Switch Name ") && indent(l.text) == 0, strings.HasPrefix(t, "DVS Name ") && indent(l.text) == 0:
			hdr, dist, sub = []rune(l.text), strings.HasPrefix(t, "DVS"), nil
			continue
		case hdr == nil:
			s.add(l.ref(), nil, "line before any \"Switch Name\" header: skipped")
			continue
		case indent(l.text) > 0:
			if strings.HasPrefix(t, "PortGroup Name") || strings.HasPrefix(t, "DVPort ID") {
				sub = []rune(l.text)
				continue
			}
			if sub == nil || dist || len(vss) == 0 {
				continue // DVPort rows carry nothing the checks read
			}
			// "  Management Network   0   1   vmnic0": the name ends where
			// the VLAN ID column starts.
			end := indexWord(sub, []rune("VLAN ID"), 0)
			r := []rune(l.text)
			if end < 0 || end > len(r) {
				s.add(l.ref(), nil, "port group row does not fit its header: skipped")
				continue
			}
			if name := strings.TrimSpace(string(r[:end])); name != "" {
				vss[len(vss)-1].Portgroups = append(vss[len(vss)-1].Portgroups, name)
			}
			continue
		}
		cells, ok := esxcfgSwitchRow(hdr, l)
		if !ok {
			s.add(l.ref(), nil, "switch row does not fit the header: skipped")
			continue
		}
		rec := newRecord(l.ref())
		rec.Title = cells["Name"]
		for _, k := range []string{"Name", "Num Ports", "Used Ports", "Configured Ports", "MTU", "Uplinks"} {
			rec.Set(k, Field{Value: cells[k], Ref: l.ref()})
		}
		var e errs
		mtu := e.int(rec, "MTU")
		if e.err != nil || rec.Title == "" {
			s.add(l.ref(), e.err, "switch row skipped")
			continue
		}
		up := splitList(cells["Uplinks"])
		if dist {
			dvs = append(dvs, DVSwitch{Name: rec.Title, MTU: mtu, Uplinks: up, Record: rec, Ref: rec.Ref})
		} else {
			vss = append(vss, StandardSwitch{Name: rec.Title, MTU: mtu, Uplinks: up, Record: rec, Ref: rec.Ref})
		}
	}
	return vss, dvs
}

// esxcfgSwitchRow splits a switch row under its header: the name is the
// text before "Num Ports", the numbers are single words, the uplinks the rest.
func esxcfgSwitchRow(hdr []rune, l line) (map[string]string, bool) {
	at := indexWord(hdr, []rune("Num Ports"), 0)
	r := []rune(l.text)
	if at <= 0 || at > len(r) {
		return nil, false
	}
	name := strings.TrimSpace(string(r[:at]))
	rest := strings.Fields(string(r[at:]))
	if len(rest) < 4 {
		return nil, false
	}
	return map[string]string{
		"Name": name, "Num Ports": rest[0], "Used Ports": rest[1], "Configured Ports": rest[2], "MTU": rest[3],
		"Uplinks": strings.Join(rest[4:], ""),
	}, true
}

// isEsxcfgVswitch reports whether cleaned output is `esxcfg-vswitch -l`.
func isEsxcfgVswitch(ls []line) bool {
	if len(ls) == 0 {
		return false
	}
	t := strings.TrimSpace(expandTabs(ls[0].text))
	return strings.HasPrefix(t, "Switch Name ") || strings.HasPrefix(t, "DVS Name ")
}

// cleanLegacy cleans output for the legacy-format checks.
func cleanLegacy(text string) ([]line, skips) {
	var s skips
	ls := dropElisions(clean(text, false), &s)
	return ls, s
}

// PortgroupList parses `esxcli network vswitch standard portgroup list`
// (a table: Name, Virtual Switch, Active Clients, VLAN ID).
func PortgroupList(text string) ([]Portgroup, error) {
	keys := []string{"Name", "Virtual Switch", "Active Clients", "VLAN ID"}
	return readList(text, layoutTable, keys, []string{"Name", "Virtual Switch"}, "port group row skipped", func(r Record, e *errs) Portgroup {
		return Portgroup{Name: r.Get("Name"), VSwitch: r.Get("Virtual Switch"), ActiveClients: e.int(r, "Active Clients"), VLAN: e.int(r, "VLAN ID"), Ref: r.Ref}
	})
}
