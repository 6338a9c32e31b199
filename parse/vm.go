package parse

import "strings"

var vmKeys = []string{"World ID", "Process ID", "VMX Cartel ID", "UUID", "Display Name", "Config File"}

// VMProcessList parses `esxcli vm process list`. The title line of each
// record is the VM display name, kept verbatim (trimmed).
func VMProcessList(text string) ([]VMProcess, error) {
	recs, err := readItems(text, layoutRecords, vmKeys, []string{"World ID"})
	if err != nil {
		return nil, err
	}
	out := make([]VMProcess, 0, len(recs))
	for _, r := range recs {
		name := r.Title
		if name == "" {
			name = r.Get("Display Name")
		}
		wid := r.Get("World ID")
		if wid == "" || strings.Trim(wid, "0123456789") != "" {
			return nil, errorf(r.RefOf("World ID").Line, "VM %q: World ID %q is not a number", name, wid)
		}
		out = append(out, VMProcess{
			DisplayName: name,
			WorldID:     wid,
			ProcessID:   r.Get("Process ID"),
			CartelID:    r.Get("VMX Cartel ID"),
			UUID:        r.Get("UUID"),
			ConfigFile:  r.Get("Config File"),
			Ref:         r.Ref,
		})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
