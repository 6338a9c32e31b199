package parse

import "strings"

var vmKeys = []string{"World ID", "Process ID", "VMX Cartel ID", "UUID", "Display Name", "Config File"}

// VMProcessList parses `esxcli vm process list`. A VM's display name is its
// "Display Name:" value (the title line above it usually says the same,
// but not always: it is kept as Title); the title stands in for a record
// without "Display Name:". A VM whose block cannot be read is left out and
// listed in a *PartialError returned with the others.
func VMProcessList(text string) ([]VMProcess, error) {
	return readList(text, layoutRecords, vmKeys, []string{"World ID"}, "VM skipped", func(r Record, e *errs) VMProcess {
		name := r.Get("Display Name")
		if !r.Has("Display Name") || name == "" {
			name = r.Title
		}
		wid := r.Get("World ID")
		if wid == "" || strings.Trim(wid, "0123456789") != "" {
			e.err = errorf(r.RefOf("World ID").Line, "VM %q: World ID %q is not a number", name, wid)
		}
		return VMProcess{
			DisplayName: name,
			Title:       r.Title,
			WorldID:     wid,
			ProcessID:   r.Get("Process ID"),
			CartelID:    r.Get("VMX Cartel ID"),
			UUID:        r.Get("UUID"),
			ConfigFile:  r.Get("Config File"),
			Ref:         r.Ref,
		}
	})
}
