package parse

import "strings"

var vmKeys = []string{"World ID", "Process ID", "VMX Cartel ID", "UUID", "Display Name", "Config File"}

// VMProcessList parses `esxcli vm process list`. A VM's display name is its
// "Display Name:" value (the title line above it usually says the same,
// but not always: it is kept as Title); the title stands in for a record
// without "Display Name:". A VM whose block cannot be read is left out and
// listed in a *PartialError returned with the others.
func VMProcessList(text string) ([]VMProcess, error) {
	recs, sk, err := readItems(text, layoutRecords, vmKeys, []string{"World ID"})
	if err != nil {
		return nil, err
	}
	out := make([]VMProcess, 0, len(recs))
	for _, r := range recs {
		name := r.Get("Display Name")
		if _, ok := r.Fields["Display Name"]; !ok || name == "" {
			name = r.Title
		}
		wid := r.Get("World ID")
		if wid == "" || strings.Trim(wid, "0123456789") != "" {
			sk.add(r.Ref, errorf(r.RefOf("World ID").Line, "VM %q: World ID %q is not a number", name, wid), "VM skipped")
			continue
		}
		out = append(out, VMProcess{
			DisplayName: name,
			Title:       r.Title,
			WorldID:     wid,
			ProcessID:   r.Get("Process ID"),
			CartelID:    r.Get("VMX Cartel ID"),
			UUID:        r.Get("UUID"),
			ConfigFile:  r.Get("Config File"),
			Ref:         r.Ref,
		})
	}
	if len(out) == 0 {
		out = nil
	}
	return result(out, len(out), sk)
}
