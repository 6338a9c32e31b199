package parse

import "strings"

// SystemVersionGet parses `esxcli system version get` (the name
// SystemVersion is taken by the fact type).
func SystemVersionGet(text string) (SystemVersion, error) {
	r, s, err := readOneSkips(text, []string{"Product", "Version", "Build", "Update", "Patch"}, []string{"Product", "Version"})
	if err != nil {
		return SystemVersion{}, err
	}
	return result(SystemVersion{Product: r.Get("Product"), Version: r.Get("Version"), Build: r.Get("Build"), Update: r.Get("Update"), Patch: r.Get("Patch"), Ref: r.Ref}, r.Len(), s)
}

var advKeys = []string{"Path", "Type", "Int Value", "Default Int Value", "Min Value", "Max Value", "String Value", "Default String Value", "Valid Characters", "Description"}

// AdvancedSettingList parses `esxcli system settings advanced list -o PATH`
// for one option (the name AdvancedSetting is taken by the fact type).
// An empty "String Value:" (with or without a trailing space) reads as "".
func AdvancedSettingList(text string) (AdvancedSetting, error) {
	r, sk, err := readOneSkips(text, advKeys, []string{"Path", "Type"})
	if err != nil {
		return AdvancedSetting{}, err
	}
	e := errs{s: &sk}
	s := AdvancedSetting{Path: r.Get("Path"), Type: r.Get("Type"), IntValue: e.int(r, "Int Value"), StringValue: r.Get("String Value"), Record: r, Ref: r.Ref}
	return result(s, r.Len(), sk)
}

// FirewallRulesetList parses `esxcli network firewall ruleset list` in its
// old two-column form, the 8.0U2+ four-column form, and header-less rows
// (output filtered through grep).
func FirewallRulesetList(text string) ([]FirewallRuleset, error) {
	var sk skips
	ls := dropElisions(clean(text, false), &sk)
	var recs []Record
	if len(ls) > 0 && detect(ls) == formatHuman && !strings.HasPrefix(strings.TrimSpace(expandTabs(ls[0].text)), "Name ") {
		for _, l := range ls {
			if isBlank(l.text) {
				continue
			}
			cells := reMultiSp.Split(strings.TrimSpace(l.text), -1)
			if len(cells) != 2 && len(cells) != 4 {
				if f := strings.Fields(l.text); len(f) == 2 || len(f) == 4 {
					cells = f
				} else {
					sk.add(l.ref(), nil, "not a ruleset row \"Name  Enabled\": skipped")
					continue
				}
			}
			rec := newRecord(l.ref())
			rec.Set("Name", Field{Value: cells[0], Ref: l.ref()})
			rec.Set("Enabled", Field{Value: cells[1], Ref: l.ref()})
			recs = append(recs, rec)
		}
	} else {
		var err error
		recs, sk, err = readItems(text, layoutTable, []string{"Name", "Enabled", "Enable/Disable configurable", "Allowed IP configurable"}, []string{"Name", "Enabled"})
		if err != nil {
			return nil, err
		}
	}
	return recordsTo(recs, sk, "ruleset row skipped", func(r Record, e *errs) FirewallRuleset {
		return FirewallRuleset{Name: r.Get("Name"), Enabled: e.bool(r, "Enabled"), Ref: r.Ref}
	})
}

// FirewallRuleList parses `esxcli network firewall ruleset rule list -r NAME`.
func FirewallRuleList(text string) ([]FirewallRule, error) {
	keys := []string{"Ruleset", "Direction", "Protocol", "Port Type", "Port Begin", "Port End"}
	return readList(text, layoutTable, keys, keys[:3], "rule row skipped", func(r Record, e *errs) FirewallRule {
		return FirewallRule{Ruleset: r.Get("Ruleset"), Direction: r.Get("Direction"), Protocol: r.Get("Protocol"), PortType: r.Get("Port Type"), PortBegin: e.int(r, "Port Begin"), PortEnd: e.int(r, "Port End"), Ref: r.Ref}
	})
}

var pciKeys = []string{"Address", "Segment", "Bus", "Slot", "Function", "VMkernel Name", "Vendor Name", "Device Name", "Configured Owner", "Current Owner", "Vendor ID", "Device ID", "SubVendor ID", "SubDevice ID", "Device Class", "Device Class Name", "Module Name", "Passthru Capable", "Slot Description"}

// HardwarePCIList parses `esxcli hardware pci list`.
func HardwarePCIList(text string) ([]PCIDevice, error) {
	return readList(text, layoutRecords, pciKeys, []string{"Address"}, "PCI device skipped", func(r Record, e *errs) PCIDevice {
		return PCIDevice{
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
	})
}
