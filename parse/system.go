package parse

import "strings"

// SystemVersionGet parses `esxcli system version get` (the name
// SystemVersion is taken by the fact type).
func SystemVersionGet(text string) (SystemVersion, error) {
	r, err := readOne(text, []string{"Product", "Version", "Build", "Update", "Patch"}, []string{"Product", "Version"})
	if err != nil {
		return SystemVersion{}, err
	}
	return SystemVersion{Product: r.Get("Product"), Version: r.Get("Version"), Build: r.Get("Build"), Update: r.Get("Update"), Patch: r.Get("Patch"), Ref: r.Ref}, nil
}

var advKeys = []string{"Path", "Type", "Int Value", "Default Int Value", "Min Value", "Max Value", "String Value", "Default String Value", "Valid Characters", "Description"}

// AdvancedSettingList parses `esxcli system settings advanced list -o PATH`
// for one option (the name AdvancedSetting is taken by the fact type).
// An empty "String Value:" (with or without a trailing space) reads as "".
func AdvancedSettingList(text string) (AdvancedSetting, error) {
	recs, err := readItems(text, layoutStructure, advKeys, []string{"Path", "Type"})
	if err != nil {
		return AdvancedSetting{}, err
	}
	if len(recs) != 1 {
		return AdvancedSetting{}, &Error{Msg: "expected exactly one advanced option"}
	}
	r := recs[0]
	var e errs
	s := AdvancedSetting{Path: r.Get("Path"), Type: r.Get("Type"), IntValue: e.int(r, "Int Value"), StringValue: r.Get("String Value"), Record: r, Ref: r.Ref}
	if e.err != nil {
		return AdvancedSetting{}, e.err
	}
	return s, nil
}

// FirewallRulesetList parses `esxcli network firewall ruleset list` in its
// old two-column form, the 8.0U2+ four-column form, and header-less rows
// (output filtered through grep).
func FirewallRulesetList(text string) ([]FirewallRuleset, error) {
	ls := clean(text, false)
	var recs []Record
	if len(ls) > 0 && detect(ls) == formatHuman && !strings.HasPrefix(strings.TrimSpace(ls[0].text), "Name ") {
		for _, l := range ls {
			if isBlank(l.text) {
				continue
			}
			cells := reMultiSp.Split(strings.TrimSpace(l.text), -1)
			if len(cells) != 2 && len(cells) != 4 {
				return nil, errorf(l.no, "expected a ruleset row \"Name  Enabled\", got %q", strings.TrimSpace(l.text))
			}
			rec := newRecord(l.ref())
			rec.set("Name", Field{Value: cells[0], Ref: l.ref()})
			rec.set("Enabled", Field{Value: cells[1], Ref: l.ref()})
			recs = append(recs, rec)
		}
	} else {
		var err error
		recs, err = readItems(text, layoutTable, []string{"Name", "Enabled", "Enable/Disable configurable", "Allowed IP configurable"}, []string{"Name", "Enabled"})
		if err != nil {
			return nil, err
		}
	}
	var out []FirewallRuleset
	for _, r := range recs {
		var e errs
		rs := FirewallRuleset{Name: r.Get("Name"), Enabled: e.bool(r, "Enabled"), Ref: r.Ref}
		if e.err != nil {
			return nil, e.err
		}
		out = append(out, rs)
	}
	return out, nil
}

// FirewallRuleList parses `esxcli network firewall ruleset rule list -r NAME`.
func FirewallRuleList(text string) ([]FirewallRule, error) {
	keys := []string{"Ruleset", "Direction", "Protocol", "Port Type", "Port Begin", "Port End"}
	recs, err := readItems(text, layoutTable, keys, keys[:3])
	if err != nil {
		return nil, err
	}
	var out []FirewallRule
	for _, r := range recs {
		var e errs
		fr := FirewallRule{Ruleset: r.Get("Ruleset"), Direction: r.Get("Direction"), Protocol: r.Get("Protocol"), PortType: r.Get("Port Type"), PortBegin: e.int(r, "Port Begin"), PortEnd: e.int(r, "Port End"), Ref: r.Ref}
		if e.err != nil {
			return nil, e.err
		}
		out = append(out, fr)
	}
	return out, nil
}

var pciKeys = []string{"Address", "Segment", "Bus", "Slot", "Function", "VMkernel Name", "Vendor Name", "Device Name", "Configured Owner", "Current Owner", "Vendor ID", "Device ID", "SubVendor ID", "SubDevice ID", "Device Class", "Device Class Name", "Module Name", "Passthru Capable", "Slot Description"}

// HardwarePCIList parses `esxcli hardware pci list`.
func HardwarePCIList(text string) ([]PCIDevice, error) {
	recs, err := readItems(text, layoutRecords, pciKeys, []string{"Address"})
	if err != nil {
		return nil, err
	}
	var out []PCIDevice
	for _, r := range recs {
		var e errs
		p := PCIDevice{
			Address:         r.Get("Address"),
			VMkernelName:    r.Get("VMkernel Name"),
			VendorName:      r.Get("Vendor Name"),
			DeviceName:      r.Get("Device Name"),
			VendorID:        r.Get("Vendor ID"),
			DeviceID:        r.Get("Device ID"),
			DeviceClassName: r.Get("Device Class Name"),
			ConfiguredOwner: r.Get("Configured Owner"),
			CurrentOwner:    r.Get("Current Owner"),
			ModuleName:      r.Get("Module Name"),
			PassthruCapable: e.bool(r, "Passthru Capable"),
			SlotDescription: r.Get("Slot Description"),
			Record:          r,
			Ref:             r.Ref,
		}
		if e.err != nil {
			return nil, e.err
		}
		out = append(out, p)
	}
	return out, nil
}
