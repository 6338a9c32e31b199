package parse

import (
	"regexp"
	"strings"
)

// The driver layer of an ESXi host: its VMkernel modules, their
// parameters, the VIBs that carry them, the ENS state of its NICs, the
// pvrdma ruleset's allowed addresses and the CPU architecture. Formats:
// NVIDIA's native ESXi driver manual (S16: `esxcli system module parameters
// list -m <module>` after `esxcli system module parameters set`, a reboot
// to apply); a public blog's `esxcli system module parameters list -m
// bnx2x` and `esxcli software vib list | grep bnx2x` (vcdx200.uw.cz,
// 2017-09); VMware's vSphere CLI firewall examples (S25: `esxcli network
// firewall ruleset allowedip list --ruleset-id sshServer`, "Ruleset
// Allowed IP Addresses / sshServer All"); VMware's NSX installation guide
// (Enhanced Data Path: `esxcfg-nics -e` lists whether a NIC is ENS capable
// and ENS driven). ../shared/knowledge/esxi-output-formats.md, "The driver
// layer".

// Module is one row of `esxcli system module list`: a VMkernel module
// (a driver) the host has, whether it is loaded now and whether it loads
// at boot. A module no VIB installs is not listed.
type Module struct {
	Name    string `json:"name"`
	Loaded  bool   `json:"loaded"`
	Enabled bool   `json:"enabled"`
	Ref
}

// ModuleList parses `esxcli system module list` (a table Name, Is Loaded,
// Is Enabled).
func ModuleList(text string) ([]Module, error) {
	return readList(text, layoutTable, []string{"Name", "Is Loaded", "Is Enabled"}, []string{"Name", "Is Loaded", "Is Enabled"}, "module row skipped",
		func(r Record, e *errs) Module {
			return Module{Name: r.Get("Name"), Loaded: e.bool(r, "Is Loaded"), Enabled: e.bool(r, "Is Enabled"), Ref: r.Ref}
		})
}

// ModuleParam is one row of `esxcli system module parameters list -m
// MODULE`: a parameter and its configured value ("" when not set), what
// the module loads with at its next load (the running kernel keeps the
// values it booted with). Module is the module of the command line.
type ModuleParam struct {
	Module string `json:"module"`
	Name   string `json:"name"`
	Type   string `json:"type,omitempty"`
	Value  string `json:"value,omitempty"`
	// Description is the module's own description of the parameter (what
	// it switches, its values), as the host lists it.
	Description string `json:"description,omitempty"`
	Ref
}

// ModuleParams parses `esxcli system module parameters list -m MODULE`: a
// table Name, Type, Value, Description. Type may hold spaces ("array of
// int"), Value is empty when the parameter is not set, and a long
// description continues on lines padded to the Description column (read
// as part of its row, not as rows without a name).
func ModuleParams(text string) ([]ModuleParam, error) {
	return readList(joinContinuations(text), layoutTable, []string{"Name", "Type", "Value", "Description"}, []string{"Name", "Type"}, "module parameter row skipped",
		func(r Record, e *errs) ModuleParam {
			return ModuleParam{Name: r.Get("Name"), Type: r.Get("Type"), Value: r.Get("Value"), Description: r.Get("Description"), Ref: r.Ref}
		})
}

// joinContinuations blanks the lines that continue a row's last cell:
// after the dash line, a line indented to the last column (or further).
// Lines keep their numbers (a blank line is no row).
func joinContinuations(text string) string {
	if !strings.Contains(text, "--") {
		return text
	}
	ls := strings.Split(text, "\n")
	last := -1
	for i, l := range ls {
		if last < 0 {
			if t := strings.TrimRight(l, "\r"); reDashLine.MatchString(t) && strings.Contains(t, "- ") {
				x := expandTabs(strings.TrimRight(l, " \t\r"))
				last = strings.LastIndex(x, " ") + 1
			}
			continue
		}
		x := expandTabs(l)
		lead := len(x) - len(strings.TrimLeft(x, " "))
		if strings.TrimSpace(x) != "" && last > 0 && lead >= last {
			ls[i] = ""
		}
	}
	return strings.Join(ls, "\n")
}

// VIB is one row of `esxcli software vib list`: an installed VIB (a driver
// bundle carries one per module: nmlx5-core, nmlx5-rdma, irdman, ...).
type VIB struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Vendor  string `json:"vendor,omitempty"`
	Ref
}

// VIBList parses `esxcli software vib list` (Name, Version, Vendor,
// Acceptance Level, Install Date, and Platforms on 7.0 U2 and later).
func VIBList(text string) ([]VIB, error) {
	return readList(text, layoutTable, []string{"Name", "Version", "Vendor", "Acceptance Level", "Install Date", "Platforms"}, []string{"Name", "Version"}, "VIB row skipped",
		func(r Record, _ *errs) VIB {
			return VIB{Name: r.Get("Name"), Version: r.Get("Version"), Vendor: r.Get("Vendor"), Ref: r.Ref}
		})
}

// AllowedIPs is a row of `esxcli network firewall ruleset allowedip list`:
// the addresses and networks a ruleset admits, or all of them.
type AllowedIPs struct {
	Ruleset string   `json:"ruleset"`
	All     bool     `json:"all"`
	IPs     []string `json:"ips,omitempty"`
	Ref
}

// AllowedIPList parses `esxcli network firewall ruleset allowedip list [-r
// RULESET]`: a table Ruleset, Allowed IP Addresses, whose value is All or
// a comma-separated list of addresses and CIDR networks.
func AllowedIPList(text string) ([]AllowedIPs, error) {
	return readList(text, layoutTable, []string{"Ruleset", "Allowed IP Addresses"}, []string{"Ruleset", "Allowed IP Addresses"}, "allowed IP row skipped",
		func(r Record, _ *errs) AllowedIPs {
			a := AllowedIPs{Ruleset: r.Get("Ruleset"), Ref: r.Ref}
			v := strings.TrimSpace(r.Get("Allowed IP Addresses"))
			if strings.EqualFold(v, "All") {
				a.All = true
				return a
			}
			for _, f := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' }) {
				a.IPs = append(a.IPs, f)
			}
			return a
		})
}

// ENSNIC is one row of `esxcfg-nics -e`: whether a NIC's driver can run
// the Enhanced Network Stack (Enhanced Data Path) and whether it does now
// (its uplink is on a host switch in ENS mode).
type ENSNIC struct {
	Name    string `json:"name"`
	Driver  string `json:"driver,omitempty"`
	Capable bool   `json:"capable"`
	Driven  bool   `json:"driven"`
	Ref
}

// esxcfgNicsENSColumns are the columns of `esxcfg-nics -e` (no dash line,
// like `esxcfg-nics -l`).
var esxcfgNicsENSColumns = []string{"Name", "Driver", "ENS Capable", "ENS Driven", "MAC Address", "Description"}

// ENSList parses `esxcfg-nics -e`. Its booleans print as True/False.
func ENSList(text string) ([]ENSNIC, error) {
	ls, sk := cleanLegacy(text)
	var recs []Record
	if len(ls) > 0 && detect(ls) == formatHuman && !hasDashLine(ls) {
		t, err := readTable(ls, esxcfgNicsENSColumns, &sk)
		if err != nil {
			return nil, err
		}
		for _, row := range t.Rows {
			recs = append(recs, row.record(t.Header))
		}
	} else {
		var err error
		if recs, sk, err = readItems(text, layoutTable, esxcfgNicsENSColumns, []string{"Name", "ENS Driven"}); err != nil {
			return nil, err
		}
	}
	return recordsTo(recs, sk, "ENS row skipped", func(r Record, e *errs) ENSNIC {
		n := ENSNIC{Name: r.Get("Name"), Driver: r.Get("Driver"), Driven: e.bool(r, "ENS Driven"), Ref: r.Ref}
		if r.Get("Name") == "" && e.err == nil {
			e.err = errorf(r.Ref.Line, "row without a NIC name")
		}
		if c := r.Get("ENS Capable"); c != "" {
			n.Capable = e.bool(r, "ENS Capable")
		}
		return n
	})
}

// Machine is the host's CPU architecture (`uname -m`: x86_64, or aarch64
// on ESXi-Arm).
type Machine struct {
	Arch string `json:"arch"`
	Ref
}

var reMachine = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}$`)

// UnameMachine parses `uname -m`: one word on one line.
func UnameMachine(text string) (Machine, error) {
	for _, l := range clean(text, false) {
		w := strings.TrimSpace(l.text)
		if w == "" {
			continue
		}
		if !reMachine.MatchString(w) {
			return Machine{}, errorf(l.no, "expected a machine name like x86_64, got %q", w)
		}
		return Machine{Arch: w, Ref: l.ref()}, nil
	}
	return Machine{}, errorf(0, "no machine name")
}
